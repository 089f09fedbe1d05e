// REQUIRED 11: allocation behaviour through std::pmr resources and the 5-bytes-per-cell budget.

#include <gtest/gtest.h>

#include <vector>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

CostField weighted_map(int w, int h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    CostField cost = std::move(CostField::create(w, h).value());
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int r = test::random_int(rng, 0, 99);
            cost.set(x, y, r < 15 ? kCostWall : r < 70 ? kCostPlain : static_cast<Cost>(test::random_int(rng, 1, 40)));
        }
    }
    // Make sure the goals used below are passable, and keep cost 40 present so the range is stable.
    cost.set(0, 0, kCostPlain);
    cost.set(w - 1, h - 1, kCostPlain);
    cost.set(w / 2, h / 3, kCostPlain);
    if (w > 1) cost.set(1, 0, 40);
    return cost;
}

TEST(Memory, SecondBuildWithANewGoalAllocatesNothing) {
    const CostField cost = weighted_map(97, 61, 1);
    test::CountingResource memory;
    FieldBuilder builder(&memory);
    FlowField field(&memory);
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
    EXPECT_GT(memory.allocations(), 0u) << "the counting resource is not used at all";
    const std::vector<Cell> second{{96, 60}};
    const std::vector<Cell> third{{48, 20}, {0, 0}};
    memory.reset_counts();
    ASSERT_TRUE(builder.build(cost, second, {}, field).ok());
    EXPECT_EQ(memory.allocations(), 0u);
    ASSERT_TRUE(builder.build(cost, third, {}, field).ok());
    EXPECT_EQ(memory.allocations(), 0u);
    EXPECT_EQ(memory.deallocations(), 0u);
    EXPECT_EQ(field.direction(0, 0), Direction::goal);
}

TEST(Memory, SecondBuildAfterATerrainEditAllocatesNothing) {
    CostField cost = weighted_map(64, 64, 2);
    test::CountingResource memory;
    FieldBuilder builder(&memory);
    FlowField field(&memory);
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
    cost.fill_rect(10, 10, 20, 12, kCostWall);
    cost.set(5, 5, 7);
    memory.reset_counts();
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{63, 63}}, {}, field).ok());
    EXPECT_EQ(memory.allocations(), 0u);
}

// flow_field.hpp: "building a new field on a map of the same size allocates nothing" - also when
// the new terrain has a wider cost range than the first one (a swamp painted in at run time).
TEST(Memory, SecondBuildOnASameSizeMapWithAWiderCostRangeAllocatesNothing) {
    CostField cost = std::move(CostField::create(64, 48).value());
    test::CountingResource memory;
    FieldBuilder builder(&memory);
    FlowField field(&memory);
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
    cost.fill_rect(20, 10, 30, 30, kCostMax);
    memory.reset_counts();
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{63, 47}}, {}, field).ok());
    EXPECT_EQ(memory.allocations(), 0u);
}

TEST(Memory, SecondIntegrationOnlyBuildAllocatesNothing) {
    const CostField cost = weighted_map(50, 40, 3);
    test::CountingResource memory;
    FieldBuilder builder(&memory);
    std::pmr::vector<float> layer(&memory);
    ASSERT_TRUE(builder.build_integration(cost, std::vector<Cell>{{0, 0}}, {}, layer).ok());
    memory.reset_counts();
    ASSERT_TRUE(builder.build_integration(cost, std::vector<Cell>{{49, 39}}, {}, layer).ok());
    EXPECT_EQ(memory.allocations(), 0u);
}

TEST(Memory, BuilderAndFieldUseOnlyTheirResources) {
    // Everything the builder and field keep comes from their resource and is returned to it.
    const CostField cost = weighted_map(40, 30, 4);
    test::CountingResource memory;
    {
        FieldBuilder builder(&memory);
        FlowField field(&memory);
        ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
        EXPECT_GE(memory.bytes_allocated(), 40u * 30u * 5u);
    }
    EXPECT_EQ(memory.allocations(), memory.deallocations());
}

TEST(Memory, FieldUsesAtMostFiveBytesPerCell) {
    for (auto [w, h] : {std::pair{1, 1}, std::pair{37, 23}, std::pair{256, 256}, std::pair{1000, 3}}) {
        const CostField cost = weighted_map(w, h, 5);
        auto field = build_flow_field(cost, std::vector<Cell>{{0, 0}});
        ASSERT_TRUE(field.ok());
        const std::size_t cells = static_cast<std::size_t>(w) * h;
        EXPECT_LE(field->memory_bytes(), 5 * cells) << w << "x" << h;
        EXPECT_GE(field->memory_bytes(), 5 * cells) << w << "x" << h << ": layers smaller than W*H?";

        FieldBuilder builder;
        FlowField into;
        ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, into).ok());
        EXPECT_LE(into.memory_bytes(), 5 * cells) << w << "x" << h;
    }
}

}  // namespace
}  // namespace tide
