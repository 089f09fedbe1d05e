// Map generation: the random benchmark map, mazes and the built-in maps.

#include "tide/generate.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tide/field_builder.hpp"
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

// Checks that `maze` is a perfect maze of rx x ry rooms in the generator's sense: room (i, j) is
// the 2x2 block at (3i+1, 3j+1); the two cells between two 4-neighbour rooms are a door, both open
// or both walls; every other cell (border, the pillars at (3i, 3j)) is a wall. Perfect: the rooms
// and open doors form a spanning tree (all rooms connected, doors = rooms - 1), so exactly one
// route joins two rooms. Returns an empty string when it holds, else the first fault.
std::string check_perfect_maze(const CostField& maze, int rx, int ry) {
    if (maze.width() != 3 * rx + 1 || maze.height() != 3 * ry + 1) return "wrong size";
    auto open = [&](int x, int y) { return maze.passable(x, y); };
    std::vector<int> parent(static_cast<std::size_t>(rx) * ry);
    for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = static_cast<int>(k);
    auto find = [&](int k) {
        while (parent[k] != k) k = parent[k] = parent[parent[k]];
        return k;
    };
    int doors = 0;
    std::vector<std::uint8_t> accounted(static_cast<std::size_t>(maze.width()) * maze.height(), 0);
    auto mark = [&](int x, int y) { accounted[static_cast<std::size_t>(y) * maze.width() + x] = 1; };
    for (int j = 0; j < ry; ++j) {
        for (int i = 0; i < rx; ++i) {
            for (int y = 3 * j + 1; y <= 3 * j + 2; ++y) {
                for (int x = 3 * i + 1; x <= 3 * i + 2; ++x) {
                    if (!open(x, y)) return "room cell " + std::to_string(x) + "," + std::to_string(y) + " is a wall";
                    mark(x, y);
                }
            }
            // The door to the east neighbour (column x = 3i + 3) and to the south one (row y = 3j + 3).
            for (int k = 0; k < 2; ++k) {
                const bool east = k == 0;
                if (east ? i + 1 >= rx : j + 1 >= ry) continue;
                const int x0 = east ? 3 * i + 3 : 3 * i + 1, y0 = east ? 3 * j + 1 : 3 * j + 3;
                const int x1 = east ? x0 : x0 + 1, y1 = east ? y0 + 1 : y0;
                mark(x0, y0);
                mark(x1, y1);
                if (open(x0, y0) != open(x1, y1)) {
                    return "half-open door at " + std::to_string(x0) + "," + std::to_string(y0);
                }
                if (!open(x0, y0)) continue;
                ++doors;
                const int a = find(j * rx + i), b = find(east ? j * rx + i + 1 : (j + 1) * rx + i);
                if (a == b) return "door at " + std::to_string(x0) + "," + std::to_string(y0) + " closes a loop";
                parent[a] = b;
            }
        }
    }
    for (int y = 0; y < maze.height(); ++y) {
        for (int x = 0; x < maze.width(); ++x) {
            if (open(x, y) && !accounted[static_cast<std::size_t>(y) * maze.width() + x]) {
                return "open cell " + std::to_string(x) + "," + std::to_string(y) + " is neither room nor door";
            }
        }
    }
    if (doors != rx * ry - 1) return std::to_string(doors) + " doors for " + std::to_string(rx * ry) + " rooms";
    return {};
}

TEST(Generate, MazeIsPerfectAndConnected) {
    const CostField maze = generate_maze(10, 8, 3).value();
    EXPECT_EQ(maze.width(), 31);
    EXPECT_EQ(maze.height(), 25);
    EXPECT_EQ(check_perfect_maze(maze, 10, 8), "");
    std::vector<Cell> goal{{1, 1}};
    auto f = build_flow_field(maze, goal);
    ASSERT_TRUE(f.ok());
    std::size_t open = 0;
    for (const Cost c : maze.cells()) open += c != kCostWall;
    // A perfect maze of 80 rooms: 80 rooms of 4 cells plus 79 doors of 2 cells.
    EXPECT_EQ(open, 80u * 4 + 79u * 2);
    for (int y = 0; y < maze.height(); ++y) {  // every open cell reaches the goal
        for (int x = 0; x < maze.width(); ++x) EXPECT_EQ(f->reachable(x, y), maze.passable(x, y)) << x << "," << y;
    }
    for (const auto& [rx, ry, seed] : {std::tuple{1, 1, 1}, {1, 7, 2}, {13, 1, 3}, {25, 19, 4}, {40, 40, 7}}) {
        EXPECT_EQ(check_perfect_maze(generate_maze(rx, ry, seed).value(), rx, ry), "")
            << rx << "x" << ry << " rooms, seed " << seed;
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
