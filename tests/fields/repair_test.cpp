// Incremental repair: after every edit of a random sequence the repaired field must be
// bit-identical to a fresh build of the edited map (values, moves, exact values).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

// Empty string when `a` (repaired) and a fresh build on `cost` agree bit for bit.
std::string compare_with_fresh(const CostField& cost, const FieldRepairState& state, const FlowField& repaired,
                               FieldBuilder& repairer) {
    FieldBuilder fresh_builder;
    FlowField fresh;
    const auto built = fresh_builder.build(cost, state.goals(), state.params(), fresh);
    if (!built) return "fresh build failed: " + built.error().message;
    const int w = cost.width();
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < w; ++x) {
            const float a = repaired.integration(x, y);
            const float b = fresh.integration(x, y);
            if (std::memcmp(&a, &b, sizeof a) != 0) {
                return "integration at (" + std::to_string(x) + ", " + std::to_string(y) + "): repaired " +
                       std::to_string(a) + ", fresh " + std::to_string(b);
            }
            if (repaired.direction(x, y) != fresh.direction(x, y)) {
                return "direction at (" + std::to_string(x) + ", " + std::to_string(y) + "): repaired " +
                       std::to_string(static_cast<int>(repaired.direction(x, y))) + ", fresh " +
                       std::to_string(static_cast<int>(fresh.direction(x, y)));
            }
            if (repairer.exact_integration(x, y) != fresh_builder.exact_integration(x, y)) {
                return "exact value at (" + std::to_string(x) + ", " + std::to_string(y) + ") differs";
            }
        }
    }
    return "";
}

class RepairSequences : public ::testing::TestWithParam<int> {};

// 2,400 sequences of 12 edits (8 shards of 300): rectangles and cell lists set to walls and to
// dearer and cheaper costs, whole rows and columns walled (sealing regions) and opened again,
// edits on goals (a wall there is refused and changes nothing).
TEST_P(RepairSequences, MatchFreshBuildsBitForBit) {
    const int shard = GetParam();
    FieldBuilder repairer;  // reused across sequences on purpose: scratch from earlier maps must not leak
    std::size_t repairs = 0, rebuilds = 0, refused = 0;
    for (int i = 0; i < 300; ++i) {
        const auto seed = static_cast<std::uint32_t>(10'000 + shard * 300 + i);
        test::RandomCase c = test::make_random_case(seed, 28);
        std::mt19937 rng(seed);
        FlowField field;
        FieldRepairState state;
        ASSERT_TRUE(repairer.build(c.cost, c.goals, c.params, field, state).ok()) << c.description;
        CostField& cost = c.cost;
        const int w = cost.width();
        const int h = cost.height();
        for (int e = 0; e < 12; ++e) {
            const CostField before = cost;
            const FlowField field_before = field;
            std::vector<Cell> cells;
            bool as_rect = false;
            int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
            const int kind = test::random_int(rng, 0, 9);
            if (kind <= 4) {  // a small rectangle set to one cost
                x0 = test::random_int(rng, 0, w - 1);
                y0 = test::random_int(rng, 0, h - 1);
                x1 = std::min(w - 1, x0 + test::random_int(rng, 0, 3));
                y1 = std::min(h - 1, y0 + test::random_int(rng, 0, 3));
                const Cost v = test::random_edit_cost(rng);
                cost.fill_rect(x0, y0, x1, y1, v);
                as_rect = true;
            } else if (kind <= 6) {  // scattered cells, each its own cost, with repeats and no-ops listed
                const int count = test::random_int(rng, 1, 6);
                for (int k = 0; k < count; ++k) {
                    const Cell p{test::random_int(rng, 0, w - 1), test::random_int(rng, 0, h - 1)};
                    cost.set(p.x, p.y, test::random_edit_cost(rng));
                    cells.push_back(p);
                    cells.push_back(p);
                }
                cells.push_back({test::random_int(rng, 0, w - 1), test::random_int(rng, 0, h - 1)});
            } else if (kind <= 8) {  // a whole row or column: walls (sealing) or open ground (reopening)
                const Cost v = kind == 7 ? kCostWall : static_cast<Cost>(test::random_int(rng, 1, 3));
                if (test::random_int(rng, 0, 1) == 0) {
                    y0 = y1 = test::random_int(rng, 0, h - 1);
                    x0 = 0;
                    x1 = w - 1;
                } else {
                    x0 = x1 = test::random_int(rng, 0, w - 1);
                    y0 = 0;
                    y1 = h - 1;
                }
                cost.fill_rect(x0, y0, x1, y1, v);
                as_rect = true;
            } else {  // a goal cell: a new cost, or a wall (refused)
                const Cell g = state.goals()[static_cast<std::size_t>(
                    test::random_int(rng, 0, static_cast<int>(state.goals().size()) - 1))];
                cost.set(g.x, g.y, test::random_int(rng, 0, 1) == 0 ? kCostWall : test::random_edit_cost(rng));
                cells.push_back(g);
            }
            bool walls_goal = false;
            for (const Cell& g : state.goals()) walls_goal |= cost.at(g) == kCostWall;
            const auto r = as_rect ? repairer.repair_rect(cost, x0, y0, x1, y1, field, state)
                                   : repairer.repair(cost, cells, field, state);
            if (walls_goal) {
                ASSERT_FALSE(r.ok()) << c.description << " edit " << e;
                EXPECT_NE(r.error().message.find("goal"), std::string::npos) << r.error().message;
                // Nothing changed: the field and state still answer the map before the edit.
                ASSERT_TRUE(std::equal(field.directions().begin(), field.directions().end(),
                                       field_before.directions().begin()));
                cost = before;
                ASSERT_EQ(compare_with_fresh(cost, state, field, repairer), "") << c.description << " edit " << e;
                ++refused;
                continue;
            }
            ASSERT_TRUE(r.ok()) << c.description << " edit " << e << ": " << r.error().message;
            ++repairs;
            rebuilds += r->rebuilt ? 1 : 0;
            ASSERT_EQ(compare_with_fresh(cost, state, field, repairer), "")
                << c.description << " after edit " << e << " (kind " << kind << ")";
        }
    }
    // The sequences must exercise both paths and the refusal.
    EXPECT_GT(repairs, 2500u);
    EXPECT_GT(refused, 50u);
    EXPECT_LT(rebuilds, repairs);
}

INSTANTIATE_TEST_SUITE_P(Shards, RepairSequences, ::testing::Range(0, 8));

// A plain w x h map, a field toward one goal and its repair state.
struct PlainBuild {
    PlainBuild(int w, int h, Cell goal) : cost(CostField::create(w, h).value()) {
        EXPECT_TRUE(builder.build(cost, {&goal, 1}, {}, field, state).ok());
    }
    CostField cost;
    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
};

TEST(Repair, SmallEditFarFromTheFlowTouchesFewCells) {
    PlainBuild b(200, 200, {100, 100});
    auto& [cost, builder, field, state] = b;
    // A 3x3 wall stamp near a corner: only the cells behind it change.
    cost.fill_rect(10, 20, 12, 22, kCostWall);
    const auto r = builder.repair_rect(cost, 10, 20, 12, 22, field, state);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->rebuilt);
    EXPECT_EQ(r->changed_cells, 9u);
    EXPECT_LT(r->touched_cells, 400u) << "affected " << r->affected_cells;
    EXPECT_EQ(compare_with_fresh(cost, state, field, builder), "");
    // And removing it again.
    cost.fill_rect(10, 20, 12, 22, kCostPlain);
    const auto back = builder.repair_rect(cost, 10, 20, 12, 22, field, state);
    ASSERT_TRUE(back.ok());
    EXPECT_FALSE(back->rebuilt);
    EXPECT_LT(back->touched_cells, 400u);
    EXPECT_EQ(compare_with_fresh(cost, state, field, builder), "");
}

TEST(Repair, SealingHalfTheMapFallsBackToABuild) {
    PlainBuild b(64, 64, {5, 5});
    auto& [cost, builder, field, state] = b;
    cost.fill_rect(32, 0, 32, 63, kCostWall);
    const auto r = builder.repair_rect(cost, 32, 0, 32, 63, field, state);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->rebuilt);
    EXPECT_EQ(field.direction(40, 40), Direction::unreachable);
    EXPECT_EQ(compare_with_fresh(cost, state, field, builder), "");
}

TEST(Repair, RefusesBadInputAndChangesNothing) {
    auto cost = CostField::create(8, 8).value();
    const Cell goal{2, 2};
    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
    const Cell off_map[] = {{8, 0}};
    auto r = builder.repair(cost, off_map, field, state);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("no build"), std::string::npos) << r.error().message;

    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field, state).ok());
    r = builder.repair(cost, off_map, field, state);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("(8, 0) is off the 8x8 map"), std::string::npos) << r.error().message;

    auto other = CostField::create(9, 8).value();
    r = builder.repair_rect(other, 0, 0, 1, 1, field, state);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("9x8"), std::string::npos) << r.error().message;

    cost.set(2, 2, kCostWall);
    r = builder.repair_rect(cost, 0, 0, 7, 7, field, state);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("goal (2, 2)"), std::string::npos) << r.error().message;
    EXPECT_EQ(field.direction(2, 2), Direction::goal);
    cost.set(2, 2, kCostPlain);
    EXPECT_EQ(compare_with_fresh(cost, state, field, builder), "");
}

TEST(Repair, RectangleOffTheMapIsClippedAndEmptyIsANoOp) {
    PlainBuild b(8, 8, {2, 2});
    auto& [cost, builder, field, state] = b;
    auto r = builder.repair_rect(cost, 20, 20, 30, 30, field, state);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->changed_cells, 0u);
    cost.fill_rect(-5, 6, 3, 20, kCostSwamp);
    r = builder.repair_rect(cost, -5, 6, 3, 20, field, state);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->changed_cells, 8u);
    EXPECT_EQ(compare_with_fresh(cost, state, field, builder), "");
}

}  // namespace
}  // namespace tide
