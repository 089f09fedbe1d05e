// Map generation: the random benchmark map, mazes and the built-in maps.

#include "tide/generate.hpp"

#include <gtest/gtest.h>

#include "tide/flow_field.hpp"

namespace tide {
namespace {

TEST(BuiltinMaps, AllLoadWithAReachableGoal) {
    for (const std::string& name : builtin_map_names()) {
        auto m = make_builtin_map(name);
        ASSERT_TRUE(m.ok()) << name;
        ASSERT_FALSE(m->goals.empty());
        for (const Cell& g : m->goals) EXPECT_TRUE(m->cost.passable(g.x, g.y)) << name;
    }
    EXPECT_FALSE(make_builtin_map("nowhere").ok());
}

TEST(Generate, MazeIsPerfectAndConnected) {
    const CostField maze = generate_maze(10, 8, 3).value();
    EXPECT_EQ(maze.width(), 31);
    EXPECT_EQ(maze.height(), 25);
    std::vector<Cell> goal{{1, 1}};
    auto f = build_flow_field(maze, goal);
    ASSERT_TRUE(f.ok());
    std::size_t open = 0;
    for (const Cost c : maze.cells()) open += c != kCostWall;
    // A perfect maze of 80 rooms: 80 rooms of 4 cells plus 79 doors of 2 cells.
    EXPECT_EQ(open, 80u * 4 + 79u * 2);
    for (int j = 0; j < 8; ++j) {
        for (int i = 0; i < 10; ++i) EXPECT_TRUE(f->reachable(3 * i + 1, 3 * j + 1)) << i << "," << j;
    }
    EXPECT_FALSE(generate_maze(0, 3, 1).ok());
    EXPECT_FALSE(generate_maze(3, 6000, 1).ok());
}

TEST(Generate, RandomMapHasTheAskedFractionsAndIsTheSameForASeed) {
    const CostField a = generate_random_map({}).value();
    const CostField b = generate_random_map({}).value();
    EXPECT_TRUE(std::equal(a.cells().begin(), a.cells().end(), b.cells().begin()));
    std::size_t walls = 0, forest = 0, swamp = 0;
    for (const Cost c : a.cells()) {
        walls += c == kCostWall;
        forest += c == kCostForest;
        swamp += c == kCostSwamp;
    }
    EXPECT_NEAR(walls / 65536.0, 0.20, 0.01);
    EXPECT_NEAR(forest / 65536.0, 0.15, 0.01);
    EXPECT_NEAR(swamp / 65536.0, 0.07, 0.01);
    RandomMapSpec other;
    other.seed = 2;
    EXPECT_FALSE(std::equal(a.cells().begin(), a.cells().end(), generate_random_map(other).value().cells().begin()));
    RandomMapSpec bad;
    bad.walls = 0.9;
    bad.forest = 0.2;
    auto r = generate_random_map(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("exceeds 1"), std::string::npos);
    bad = {};
    bad.walls = -0.1;
    EXPECT_FALSE(generate_random_map(bad).ok());
    bad = {};
    bad.width = 0;
    EXPECT_FALSE(generate_random_map(bad).ok());
}

}  // namespace
}  // namespace tide
