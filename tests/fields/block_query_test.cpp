// "Would this block?" against the brute force: apply the walls, rebuild, compare reachability.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

struct Brute {
    std::size_t cut_off_cells = 0;
    std::size_t cut_off_spawns = 0;
};

Brute brute_force(const CostField& cost, const FlowField& field, const std::vector<Cell>& goals,
                  const FieldParams& params, const std::vector<Cell>& walls, const std::vector<Cell>& spawns) {
    CostField after = cost;
    for (const Cell& c : walls) after.set(c.x, c.y, kCostWall);
    std::vector<Cell> left;
    for (const Cell& g : goals) {
        if (after.passable(g.x, g.y)) left.push_back(g);
    }
    FlowField rebuilt;
    FieldBuilder builder;
    if (left.empty()) {
        builder.build_unreachable(after, rebuilt);
    } else {
        EXPECT_TRUE(builder.build(after, left, params, rebuilt).ok());
    }
    Brute b;
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) {
            if (field.reachable(x, y) && after.passable(x, y) && !rebuilt.reachable(x, y)) ++b.cut_off_cells;
        }
    }
    for (const Cell& s : spawns) {
        if (field.reachable(s.x, s.y) && !rebuilt.reachable(s.x, s.y)) ++b.cut_off_spawns;
    }
    return b;
}

// 3,000 random queries (6 shards): stamps of 1..4 x 1..4 cells, scattered cells, whole rows and
// columns (which seal regions), stamps over goals; half of them with spawn cells.
class BlockQueries : public ::testing::TestWithParam<int> {};

TEST_P(BlockQueries, MatchApplyAndRebuild) {
    const int shard = GetParam();
    FieldBuilder builder;
    std::size_t blocking = 0, clear = 0;
    for (int i = 0; i < 500; ++i) {
        const auto seed = static_cast<std::uint32_t>(50'000 + shard * 500 + i);
        const test::RandomCase c = test::make_random_case(seed, 30);
        std::mt19937 rng(seed);
        FlowField field;
        ASSERT_TRUE(builder.build(c.cost, c.goals, c.params, field).ok());
        const int w = c.cost.width();
        const int h = c.cost.height();
        std::vector<Cell> walls;
        const int kind = test::random_int(rng, 0, 5);
        if (kind <= 2) {
            const int x0 = test::random_int(rng, 0, w - 1), y0 = test::random_int(rng, 0, h - 1);
            const int x1 = std::min(w - 1, x0 + test::random_int(rng, 0, 3));
            const int y1 = std::min(h - 1, y0 + test::random_int(rng, 0, 3));
            for (int y = y0; y <= y1; ++y)
                for (int x = x0; x <= x1; ++x) walls.push_back({x, y});
        } else if (kind == 3) {
            for (int k = test::random_int(rng, 1, 8); k > 0; --k)
                walls.push_back({test::random_int(rng, 0, w - 1), test::random_int(rng, 0, h - 1)});
        } else if (kind == 4) {
            const int y = test::random_int(rng, 0, h - 1);
            const int gap = test::random_int(rng, -1, w - 1);  // -1: no gap
            for (int x = 0; x < w; ++x)
                if (x != gap) walls.push_back({x, y});
        } else {
            const Cell g = c.goals[static_cast<std::size_t>(test::random_int(rng, 0, int(c.goals.size()) - 1))];
            walls.push_back(g);
            if (g.x + 1 < w) walls.push_back({g.x + 1, g.y});
        }
        std::vector<Cell> spawns;
        if (test::random_int(rng, 0, 1) == 0) {
            for (int k = test::random_int(rng, 1, 5); k > 0; --k)
                spawns.push_back({test::random_int(rng, 0, w - 1), test::random_int(rng, 0, h - 1)});
        }
        const auto answer = builder.would_block(c.cost, field, c.params, walls, spawns);
        ASSERT_TRUE(answer.ok()) << answer.error().message;
        const Brute b = brute_force(c.cost, field, c.goals, c.params, walls, spawns);
        ASSERT_EQ(answer->cut_off_cells, b.cut_off_cells) << c.description << " kind " << kind;
        ASSERT_EQ(answer->cut_off_spawns, b.cut_off_spawns) << c.description << " kind " << kind;
        ASSERT_EQ(answer->blocks, spawns.empty() ? b.cut_off_cells > 0 : b.cut_off_spawns > 0) << c.description;
        (answer->blocks ? blocking : clear) += 1;
    }
    EXPECT_GT(blocking, 50u);
    EXPECT_GT(clear, 50u);
}

INSTANTIATE_TEST_SUITE_P(Shards, BlockQueries, ::testing::Range(0, 6));

TEST(WouldBlock, TowerInAOneCellGap) {
    const CostField cost = test::grid_from_rows({
        "..#....",
        "..#....",
        ".......",
        "..#....",
        "..#....",
    });
    const Cell goal{0, 2};
    FieldBuilder builder;
    FlowField field;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field).ok());
    const Cell gap[] = {{2, 2}};
    auto a = builder.would_block(cost, field, {}, gap);
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->blocks);
    EXPECT_EQ(a->cut_off_cells, 20u);  // the four columns right of the wall
    const Cell beside[] = {{4, 2}};
    a = builder.would_block(cost, field, {}, beside);
    ASSERT_TRUE(a.ok());
    EXPECT_FALSE(a->blocks);
    EXPECT_EQ(a->cut_off_cells, 0u);
    // With spawns: only they count.
    const Cell left_spawn[] = {{1, 0}};
    a = builder.would_block(cost, field, {}, gap, left_spawn);
    ASSERT_TRUE(a.ok());
    EXPECT_FALSE(a->blocks);
    EXPECT_EQ(a->cut_off_cells, 20u);
    const Cell right_spawn[] = {{6, 4}};
    a = builder.would_block(cost, field, {}, gap, right_spawn);
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->blocks);
    EXPECT_EQ(a->cut_off_spawns, 1u);
}

TEST(WouldBlock, RejectsCellsOffTheMapAndOtherSizes) {
    const auto cost = CostField::create(5, 5).value();
    const Cell goal{0, 0};
    FieldBuilder builder;
    FlowField field;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field).ok());
    const Cell off[] = {{5, 1}};
    auto a = builder.would_block(cost, field, {}, off);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("wall cell (5, 1) is off the 5x5 map"), std::string::npos) << a.error().message;
    a = builder.would_block(cost, field, {}, {}, off);
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("spawn cell (5, 1)"), std::string::npos);
    const auto bigger = CostField::create(6, 5).value();
    a = builder.would_block(bigger, field, {}, {});
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("6x5"), std::string::npos);
}

}  // namespace
}  // namespace tide
