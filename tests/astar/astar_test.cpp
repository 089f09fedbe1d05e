// A*: same cost model as the fields; exact least costs, legal paths, clear errors, and the
// planner choice by group size.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/astar.hpp"

namespace tide {
namespace {

// Checks that `path` runs from start to goal by legal moves and that its summed cost is `cost`.
void expect_legal_path(const CostField& cost, const FieldParams& params, const std::pmr::vector<Cell>& path, Cell start,
                       Cell goal, double expected) {
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(path.front(), start);
    EXPECT_EQ(path.back(), goal);
    double sum = 0.0;
    for (std::size_t i = 1; i < path.size(); ++i) {
        int dir = -1;
        for (int d = 0; d < kDirectionCount; ++d) {
            if (path[i - 1].x + kDirectionDx[d] == path[i].x && path[i - 1].y + kDirectionDy[d] == path[i].y) dir = d;
        }
        ASSERT_GE(dir, 0) << "step " << i << " is not a move";
        ASSERT_TRUE(test::legal_move(cost, path[i - 1].x, path[i - 1].y, dir, params)) << "step " << i;
        sum += test::move_cost(cost, path[i - 1].x, path[i - 1].y, dir, params);
    }
    EXPECT_TRUE(test::close_to_reference(sum, expected)) << sum << " vs " << expected;
}

TEST(AStar, MatchesReferenceOnRandomWeightedMaps) {
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        test::RandomCase c = test::make_random_case(seed, 32);
        auto finder = PathFinder::create(c.cost, c.params);
        ASSERT_TRUE(finder.ok()) << c.description;
        const Cell goal = c.goals.front();
        const auto ref = test::reference_distances(c.cost, std::span<const Cell>(&goal, 1), c.params);
        std::mt19937 rng(seed);
        for (int i = 0; i < 20; ++i) {
            const Cell start{test::random_int(rng, 0, c.cost.width() - 1),
                             test::random_int(rng, 0, c.cost.height() - 1)};
            if (!c.cost.passable(start.x, start.y)) continue;
            std::pmr::vector<Cell> path;
            auto d = finder->find_path(start, goal, &path);
            ASSERT_TRUE(d.ok()) << d.error().message;
            const double want = ref[static_cast<std::size_t>(start.y) * c.cost.width() + start.x];
            ASSERT_TRUE(test::close_to_reference(*d, want))
                << c.description << " start " << start.x << "," << start.y << ": " << *d << " vs " << want;
            if (std::isinf(want)) {
                EXPECT_TRUE(path.empty());
            } else {
                expect_legal_path(c.cost, c.params, path, start, goal, want);
            }
        }
    }
}

TEST(AStar, CornerRuleAndUnreachable) {
    CostField cost = test::grid_from_rows({
        ".#.",
        "#..",
        "...",
    });
    auto finder = PathFinder::create(cost).value();
    // (0,0) is boxed in by walls on both sides: its diagonal to (1,1) cuts two corners.
    EXPECT_EQ(*finder.find_path({0, 0}, {2, 2}), std::numeric_limits<double>::infinity());
    // (2,0) -> (0,2): must go around, never diagonally past a wall corner: S, SW, W = 2 + sqrt 2.
    const Cell goal{0, 2};
    const auto ref = test::reference_distances(cost, std::span<const Cell>(&goal, 1), {});
    const double want = ref[0 * cost.width() + 2];
    EXPECT_NEAR(want, 2.0 + std::sqrt(2.0), 1e-12);
    std::pmr::vector<Cell> path;
    const double d = *finder.find_path({2, 0}, goal, &path);
    EXPECT_TRUE(test::close_to_reference(d, want)) << d << " vs the reference " << want;
    expect_legal_path(cost, {}, path, {2, 0}, goal, want);
}

TEST(AStar, StartEqualsGoalCostsZero) {
    CostField cost = test::grid_from_rows({"..."});
    auto finder = PathFinder::create(cost).value();
    std::pmr::vector<Cell> path;
    EXPECT_EQ(*finder.find_path({1, 0}, {1, 0}, &path), 0.0);
    ASSERT_EQ(path.size(), 1u);
}

TEST(AStar, BadInputIsRefused) {
    CostField cost = test::grid_from_rows({".#", ".."});
    auto finder = PathFinder::create(cost).value();
    auto off = finder.find_path({5, 0}, {0, 0});
    ASSERT_FALSE(off.ok());
    EXPECT_NE(off.error().message.find("start (5, 0) is outside the 2x2 map"), std::string::npos);
    auto wall = finder.find_path({0, 0}, {1, 0});
    ASSERT_FALSE(wall.ok());
    EXPECT_NE(wall.error().message.find("goal (1, 0) is on a wall"), std::string::npos);
    FieldParams bad;
    bad.diagonal_factor = 3.0;
    EXPECT_FALSE(PathFinder::create(cost, bad).ok());
}

TEST(AStar, ResetSeesTerrainEdits) {
    CostField cost = test::grid_from_rows({"...", "...", "..."});
    auto finder = PathFinder::create(cost).value();
    EXPECT_NEAR(*finder.find_path({0, 1}, {2, 1}), 2.0, 1e-12);
    cost.fill_rect(1, 0, 1, 2, kCostWall);
    finder.reset(cost);
    EXPECT_EQ(*finder.find_path({0, 1}, {2, 1}), std::numeric_limits<double>::infinity());
}

TEST(AStar, RepeatedSearchesAllocateNothingOnceWarm) {
    test::RandomCase c = test::make_random_case(7, 40);
    test::CountingResource counter;
    auto finder = PathFinder::create(c.cost, c.params, &counter).value();
    const Cell goal = c.goals.front();
    (void)finder.find_path(goal, goal);
    // Warm up with every passable start, then count.
    for (int y = 0; y < c.cost.height(); ++y)
        for (int x = 0; x < c.cost.width(); ++x)
            if (c.cost.passable(x, y)) (void)finder.find_path({x, y}, goal);
    counter.reset_counts();
    for (int y = 0; y < c.cost.height(); ++y)
        for (int x = 0; x < c.cost.width(); ++x)
            if (c.cost.passable(x, y)) (void)finder.find_path({x, y}, goal);
    EXPECT_EQ(counter.allocations(), 0u);
}

TEST(Planner, SmallGroupsUseAStarLargeGroupsAField) {
    EXPECT_EQ(choose_planner(1), Planner::astar_per_unit);
    EXPECT_EQ(choose_planner(kFlowFieldCrossoverUnits - 1), Planner::astar_per_unit);
    EXPECT_EQ(choose_planner(kFlowFieldCrossoverUnits), Planner::flow_field);
    EXPECT_EQ(choose_planner(200000), Planner::flow_field);
    // From measurements: a 1.5 ms field against 0.1 ms per A* pays off from 15 units.
    EXPECT_EQ(choose_planner(14, 1.5, 0.1), Planner::astar_per_unit);
    EXPECT_EQ(choose_planner(15, 1.5, 0.1), Planner::flow_field);
}

}  // namespace
}  // namespace tide
