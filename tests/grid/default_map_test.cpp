#include <gtest/gtest.h>

#include "support/reference.hpp"
#include "tide/default_map.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/map_io.hpp"

namespace tide {
namespace {

CostField default_cost() {
    auto map = parse_map(default_map_text(), "<default map>");
    EXPECT_TRUE(map.ok()) << map.error().message;
    return std::move(map.value().cost);
}

TEST(DefaultMap, ParsesAsA64x40TideMap) {
    auto map = parse_map(default_map_text(), "<default map>");
    ASSERT_TRUE(map.ok()) << map.error().message;
    EXPECT_EQ(map->format, MapFormat::tide);
    EXPECT_EQ(map->cost.width(), 64);
    EXPECT_EQ(map->cost.height(), 40);
    EXPECT_TRUE(map->cost.passable(kDefaultGoal.x, kDefaultGoal.y));
}

TEST(DefaultMap, HasForestSwampAndWalls) {
    const CostField cost = default_cost();
    int forest = 0, swamp = 0, walls = 0;
    for (Cost c : cost.cells()) {
        forest += c == kCostForest;
        swamp += c == kCostSwamp;
        walls += c == kCostWall;
    }
    EXPECT_GT(forest, 0);
    EXPECT_GT(swamp, 0);
    EXPECT_GT(walls, 0);
}

TEST(DefaultMap, GapCellsAreTheOnlyOpeningInTheLeftWall) {
    const CostField cost = default_cost();
    for (int y = 0; y < cost.height(); ++y) {
        const bool gap = y >= kDefaultGapY0 && y <= kDefaultGapY1;
        for (int x = kDefaultGapX0; x <= kDefaultGapX1; ++x) {
            EXPECT_EQ(cost.passable(x, y), gap) << "(" << x << ", " << y << ")";
        }
    }
}

TEST(DefaultMap, FieldBuildsAndMatchesTheReference) {
    const CostField cost = default_cost();
    const Cell goal = kDefaultGoal;
    auto field = build_flow_field(cost, {&goal, 1});
    ASSERT_TRUE(field.ok()) << field.error().message;
    EXPECT_EQ(field->direction(goal.x, goal.y), Direction::goal);
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) {
            EXPECT_EQ(field->reachable(x, y), cost.passable(x, y)) << "(" << x << ", " << y << ")";
        }
    }
    const auto ref = test::reference_distances(cost, {&goal, 1}, FieldParams{});
    EXPECT_EQ(test::check_field(cost, {&goal, 1}, FieldParams{}, *field, ref, false), "");
    EXPECT_EQ(test::check_paths_reach_goal(*field), "");
}

TEST(DefaultMap, LeftSideFlowsThroughTheGap) {
    const CostField cost = default_cost();
    const Cell goal = kDefaultGoal;
    auto field = build_flow_field(cost, {&goal, 1});
    ASSERT_TRUE(field.ok());
    // Follow the flow from the top-left corner: it must cross column 14 inside the gap rows.
    int x = 0, y = 0;
    bool crossed = false;
    for (int steps = 0; steps < 64 * 40 && field->direction(x, y) != Direction::goal; ++steps) {
        const auto next = field->next_index(x, y);
        ASSERT_GE(next, 0);
        x = static_cast<int>(next % 64);
        y = static_cast<int>(next / 64);
        if (x == kDefaultGapX0) {
            EXPECT_GE(y, kDefaultGapY0);
            EXPECT_LE(y, kDefaultGapY1);
            crossed = true;
        }
    }
    EXPECT_TRUE(crossed);
    EXPECT_EQ(field->direction(x, y), Direction::goal);
}

TEST(DefaultMap, SealingTheGapCutsOffTheLeftSide) {
    CostField cost = default_cost();
    cost.fill_rect(kDefaultGapX0, kDefaultGapY0, kDefaultGapX1, kDefaultGapY1, kCostWall);
    const Cell goal = kDefaultGoal;
    auto field = build_flow_field(cost, {&goal, 1});
    ASSERT_TRUE(field.ok()) << field.error().message;
    int cut_off = 0;
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < kDefaultGapX0; ++x) {
            EXPECT_FALSE(field->reachable(x, y)) << "(" << x << ", " << y << ")";
            EXPECT_EQ(field->integration(x, y), kUnreachable);
            EXPECT_EQ(field->direction(x, y), Direction::unreachable);
            ++cut_off;
        }
        for (int x = kDefaultGapX1 + 1; x < cost.width(); ++x) {
            EXPECT_EQ(field->reachable(x, y), cost.passable(x, y)) << "(" << x << ", " << y << ")";
        }
    }
    EXPECT_EQ(cut_off, kDefaultGapX0 * 40);
    // Opening a single gap cell again restores every cell on the left.
    cost.set(kDefaultGapX0, kDefaultGapY0, kCostPlain);
    cost.set(kDefaultGapX1, kDefaultGapY0, kCostPlain);
    auto reopened = build_flow_field(cost, {&goal, 1});
    ASSERT_TRUE(reopened.ok());
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < kDefaultGapX0; ++x) EXPECT_TRUE(reopened->reachable(x, y));
    }
}

}  // namespace
}  // namespace tide
