// Flow layer: direction codes, vectors, next_index, tie order and determinism.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using test::grid_from_rows;

FlowField build_ok(const CostField& cost, const std::vector<Cell>& goals, const FieldParams& params = {}) {
    auto field = build_flow_field(cost, goals, params);
    EXPECT_TRUE(field.ok()) << field.error().message;
    return field.ok() ? std::move(field.value()) : FlowField{};
}

TEST(Directions, CodesAndTables) {
    EXPECT_EQ(static_cast<int>(Direction::east), 0);
    EXPECT_EQ(static_cast<int>(Direction::south), 2);
    EXPECT_EQ(static_cast<int>(Direction::north_east), 7);
    for (int d = 0; d < kDirectionCount; ++d) {
        EXPECT_TRUE(is_move(static_cast<Direction>(d)));
        EXPECT_EQ(is_diagonal(static_cast<Direction>(d)), kDirectionDx[d] != 0 && kDirectionDy[d] != 0) << d;
    }
    EXPECT_EQ(kDirectionDx[0], 1);
    EXPECT_EQ(kDirectionDy[0], 0);
    EXPECT_EQ(kDirectionDx[2], 0);
    EXPECT_EQ(kDirectionDy[2], 1);  // south is +y (rows grow down)
    EXPECT_EQ(kDirectionDx[5], -1);
    EXPECT_EQ(kDirectionDy[5], -1);
    for (Direction d : {Direction::goal, Direction::unreachable, Direction::wall}) {
        EXPECT_FALSE(is_move(d));
        EXPECT_FALSE(is_diagonal(d));
    }
}

TEST(Directions, EveryNeighbourPointsAtACentralGoal) {
    const CostField cost = std::move(CostField::create(3, 3).value());
    const FlowField field = build_ok(cost, {{1, 1}});
    EXPECT_EQ(field.direction(0, 0), Direction::south_east);
    EXPECT_EQ(field.direction(1, 0), Direction::south);
    EXPECT_EQ(field.direction(2, 0), Direction::south_west);
    EXPECT_EQ(field.direction(0, 1), Direction::east);
    EXPECT_EQ(field.direction(1, 1), Direction::goal);
    EXPECT_EQ(field.direction(2, 1), Direction::west);
    EXPECT_EQ(field.direction(0, 2), Direction::north_east);
    EXPECT_EQ(field.direction(1, 2), Direction::north);
    EXPECT_EQ(field.direction(2, 2), Direction::north_west);
    for (int y = 0; y < 3; ++y) {
        for (int x = 0; x < 3; ++x) {
            if (x == 1 && y == 1) continue;
            EXPECT_EQ(field.next_index(x, y), 1 * 3 + 1) << x << ", " << y;
        }
    }
}

TEST(Directions, VectorsAreUnitAndPointAlongTheMove) {
    const CostField cost = std::move(CostField::create(3, 3).value());
    const FlowField field = build_ok(cost, {{1, 1}});
    const float h = static_cast<float>(std::sqrt(0.5));
    EXPECT_EQ(field.vector(0, 1), (Vec2{1, 0}));
    EXPECT_EQ(field.vector(1, 0), (Vec2{0, 1}));
    EXPECT_EQ(field.vector(2, 1), (Vec2{-1, 0}));
    EXPECT_EQ(field.vector(1, 2), (Vec2{0, -1}));
    EXPECT_NEAR(field.vector(0, 0).x, h, 1e-6);
    EXPECT_NEAR(field.vector(0, 0).y, h, 1e-6);
    EXPECT_NEAR(field.vector(2, 2).x, -h, 1e-6);
    EXPECT_NEAR(field.vector(2, 2).y, -h, 1e-6);
    EXPECT_NEAR(field.vector(2, 0).x, -h, 1e-6);
    EXPECT_NEAR(field.vector(2, 0).y, h, 1e-6);
    EXPECT_NEAR(field.vector(0, 2).x, h, 1e-6);
    EXPECT_NEAR(field.vector(0, 2).y, -h, 1e-6);
    EXPECT_EQ(field.vector(1, 1), (Vec2{0, 0}));  // goal
}

TEST(Directions, NextIndexUsesRowMajorIndices) {
    const CostField cost = std::move(CostField::create(7, 5).value());
    const FlowField field = build_ok(cost, {{4, 4}});
    // (0, 0) moves diagonally to (1, 1) (the only optimal first move): index 1 * 7 + 1.
    EXPECT_EQ(field.direction(0, 0), Direction::south_east);
    EXPECT_EQ(field.next_index(0, 0), 8);
    // Bottom row moves east: (2, 4) -> (3, 4).
    EXPECT_EQ(field.direction(2, 4), Direction::east);
    EXPECT_EQ(field.next_index(2, 4), 4 * 7 + 3);
    EXPECT_EQ(field.next_index(4, 4), -1);
    // (4, 0) moves S to (4, 1).
    EXPECT_EQ(field.direction(4, 0), Direction::south);
    EXPECT_EQ(field.next_index(4, 0), 1 * 7 + 4);
}

TEST(Ties, OrthogonalBeforeDiagonalAndInOrderESWN) {
    // Factor 2: a diagonal costs the same as two straight steps, so from (0,0) to a goal at (1,1)
    // E, S and SE all cost 2; E wins.
    const CostField cost = std::move(CostField::create(2, 2).value());
    FieldParams params;
    params.diagonal_factor = 2.0;
    FlowField field = build_ok(cost, {{1, 1}}, params);
    EXPECT_EQ(field.direction(0, 0), Direction::east);
    // Goal at (0,0): from (1,1) W, N and NW tie; W wins over N.
    field = build_ok(cost, {{0, 0}}, params);
    EXPECT_EQ(field.direction(1, 1), Direction::west);
    // Goal at (1,0): from (0,1) E, N and NE tie; E wins.
    field = build_ok(cost, {{1, 0}}, params);
    EXPECT_EQ(field.direction(0, 1), Direction::east);
    // Goal at (0,1): from (1,0) S, W, SW tie; S wins.
    field = build_ok(cost, {{0, 1}}, params);
    EXPECT_EQ(field.direction(1, 0), Direction::south);
}

TEST(Ties, DiagonalOrderSE_SW_NW_NE) {
    // Factor 1 on a map where only diagonals are optimal from the centre and four goals tie.
    //   G . G
    //   . S .     the straight neighbours cost 9, so S takes a diagonal; all four cost 1.
    //   G . G
    const CostField cost = grid_from_rows({
        ".9.",
        "9.9",
        ".9.",
    });
    FieldParams params;
    params.diagonal_factor = 1.0;
    const std::vector<Cell> all{{0, 0}, {2, 0}, {0, 2}, {2, 2}};
    EXPECT_EQ(build_ok(cost, all, params).direction(1, 1), Direction::south_east);
    EXPECT_EQ(build_ok(cost, {{0, 0}, {2, 0}, {0, 2}}, params).direction(1, 1), Direction::south_west);
    EXPECT_EQ(build_ok(cost, {{0, 0}, {2, 0}}, params).direction(1, 1), Direction::north_west);
    EXPECT_EQ(build_ok(cost, {{2, 0}}, params).direction(1, 1), Direction::north_east);
}

TEST(Flow, CheaperLongerRouteBeatsShortExpensiveOne) {
    // Going straight through the swamp row costs 6 per cell; around via the top row is cheaper.
    const CostField cost = grid_from_rows({
        ".....",
        ".~~~.",
        "#####",
    });
    const FlowField field = build_ok(cost, {{4, 1}});
    const auto ref = test::reference_distances(cost, std::vector<Cell>{{4, 1}}, {});
    EXPECT_EQ(test::check_field(cost, std::vector<Cell>{{4, 1}}, {}, field, ref, false), "");
    EXPECT_EQ(field.direction(0, 1), Direction::north_east);  // leave the swamp edge onto the top row
    EXPECT_NEAR(field.integration(0, 1), std::sqrt(2.0) + 2 + std::sqrt(2.0), 1e-5);
}

// ---- REQUIRED 12: determinism ---------------------------------------------------------------

TEST(Determinism, TwoBuildsAreBitIdentical) {
    for (std::uint32_t seed = 0; seed < 12; ++seed) {
        const test::RandomCase c = test::make_random_case(0xC0FFEEu + seed, 64);
        auto a = build_flow_field(c.cost, c.goals, c.params);
        FieldBuilder builder;
        FlowField b;
        FlowField scratch;
        // Build something else first so the second builder's buffers hold stale data.
        ASSERT_TRUE(builder.build(c.cost, std::vector<Cell>{c.goals.back()}, c.params, scratch).ok());
        ASSERT_TRUE(builder.build(c.cost, c.goals, c.params, b).ok());
        ASSERT_TRUE(a.ok());
        ASSERT_EQ(a->integration().size(), b.integration().size());
        EXPECT_EQ(std::memcmp(a->integration().data(), b.integration().data(), b.integration().size_bytes()), 0)
            << c.description;
        EXPECT_EQ(std::memcmp(a->directions().data(), b.directions().data(), b.directions().size_bytes()), 0)
            << c.description;
    }
}

TEST(Determinism, GoalOrderDoesNotChangeTheValues) {
    int multi_goal_cases = 0;
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        test::RandomCase c = test::make_random_case(777u + seed, 32);
        if (c.goals.size() < 2) continue;  // nothing to reorder
        ++multi_goal_cases;
        const auto forward = build_flow_field(c.cost, c.goals, c.params);
        std::vector<Cell> reversed(c.goals.rbegin(), c.goals.rend());
        const auto backward = build_flow_field(c.cost, reversed, c.params);
        ASSERT_TRUE(forward.ok() && backward.ok());
        ASSERT_EQ(forward->integration().size(), backward->integration().size());
        EXPECT_EQ(std::memcmp(forward->integration().data(), backward->integration().data(),
                              forward->integration().size_bytes()),
                  0)
            << c.description;
        EXPECT_EQ(std::memcmp(forward->directions().data(), backward->directions().data(),
                              forward->directions().size_bytes()),
                  0)
            << c.description;
    }
    EXPECT_GE(multi_goal_cases, 5);
}

}  // namespace
}  // namespace tide
