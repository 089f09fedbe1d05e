// Incremental repair of flee and mixed fields: after every edit of a random sequence the repaired
// field must be bit-identical to a fresh build_flee() / build_mixed() of the edited map (values,
// moves and, for flee fields, the cost to the safe spot).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

std::string at_text(int x, int y) {
    char text[48];
    std::snprintf(text, sizeof text, "(%d, %d)", x, y);
    return text;
}

bool same_bits(float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// Empty when `repaired` and `fresh` agree bit for bit on every layer.
std::string compare(const FlowField& repaired, const FlowField& fresh) {
    if (repaired.kind() != fresh.kind()) return "kinds differ";
    for (int y = 0; y < fresh.height(); ++y) {
        for (int x = 0; x < fresh.width(); ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * fresh.width() + x;
            if (!same_bits(repaired.integration()[i], fresh.integration()[i])) {
                return "value at " + at_text(x, y) + ": repaired " + std::to_string(repaired.integration()[i]) +
                       ", fresh " + std::to_string(fresh.integration()[i]);
            }
            if (repaired.directions()[i] != fresh.directions()[i]) {
                return "direction at " + at_text(x, y) + ": repaired " +
                       std::to_string(static_cast<int>(repaired.directions()[i])) + ", fresh " +
                       std::to_string(static_cast<int>(fresh.directions()[i]));
            }
            if (!same_bits(repaired.to_stop()[i], fresh.to_stop()[i])) {
                return "cost to stop at " + at_text(x, y) + ": repaired " + std::to_string(repaired.to_stop()[i]) +
                       ", fresh " + std::to_string(fresh.to_stop()[i]);
            }
        }
    }
    return "";
}

// One random edit of `cost` (rectangles, scattered cells, whole rows or columns walled or opened,
// a cell of `special`: a goal or a danger); applies it through repair() or repair_rect().
Result<RepairStats> random_edit(std::mt19937& rng, CostField& cost, std::span<const Cell> special,
                                FieldBuilder& builder, FlowField& field, FieldRepairState& state) {
    const int w = cost.width();
    const int h = cost.height();
    const int kind = test::random_int(rng, 0, 9);
    if (kind <= 4) {
        const int x0 = test::random_int(rng, 0, w - 1);
        const int y0 = test::random_int(rng, 0, h - 1);
        const int x1 = std::min(w - 1, x0 + test::random_int(rng, 0, 3));
        const int y1 = std::min(h - 1, y0 + test::random_int(rng, 0, 3));
        cost.fill_rect(x0, y0, x1, y1, test::random_edit_cost(rng));
        return builder.repair_rect(cost, x0, y0, x1, y1, field, state);
    }
    if (kind <= 6) {
        std::vector<Cell> cells;
        for (int k = test::random_int(rng, 1, 6); k > 0; --k) {
            const Cell p{test::random_int(rng, 0, w - 1), test::random_int(rng, 0, h - 1)};
            cost.set(p.x, p.y, test::random_edit_cost(rng));
            cells.push_back(p);
            cells.push_back(p);
        }
        return builder.repair(cost, cells, field, state);
    }
    if (kind <= 8) {
        const Cost v = kind == 7 ? kCostWall : static_cast<Cost>(test::random_int(rng, 1, 3));
        const bool row = test::random_int(rng, 0, 1) == 0;
        const int at = test::random_int(rng, 0, (row ? h : w) - 1);
        const int x0 = row ? 0 : at, x1 = row ? w - 1 : at, y0 = row ? at : 0, y1 = row ? at : h - 1;
        cost.fill_rect(x0, y0, x1, y1, v);
        return builder.repair_rect(cost, x0, y0, x1, y1, field, state);
    }
    const Cell g = special[static_cast<std::size_t>(test::random_int(rng, 0, static_cast<int>(special.size()) - 1))];
    cost.set(g.x, g.y, test::random_int(rng, 0, 1) == 0 ? kCostWall : test::random_edit_cost(rng));
    const Cell cells[] = {g};
    return builder.repair(cost, cells, field, state);
}

bool any_walled(const CostField& cost, std::span<const Cell> cells) {
    return std::any_of(cells.begin(), cells.end(), [&](const Cell& c) { return cost.at(c) == kCostWall; });
}

struct Counts {
    std::size_t repairs = 0, rebuilds = 0, refused = 0;
};

// A field kind under test: its build (into a state when one is given) and the cells an edit must
// not wall (refused with `refusal` in the message).
struct Subject {
    std::function<Result<void>(FieldBuilder&, const CostField&, FlowField&, FieldRepairState*)> build;
    std::vector<Cell> special;
    const char* refusal;
};

// 12 random edits of `cost`, each repaired and compared with a fresh build; an edit walling a
// special cell is refused, changes nothing and is undone.
void run_edits(const std::string& what, CostField& cost, std::mt19937& rng, const Subject& subject,
               FieldBuilder& repairer, Counts& n) {
    FieldBuilder fresh_builder;
    FlowField field;
    FieldRepairState state;
    ASSERT_TRUE(subject.build(repairer, cost, field, &state).ok()) << what;
    for (int e = 0; e < 12; ++e) {
        const CostField before = cost;
        const FlowField field_before = field;
        const auto r = random_edit(rng, cost, subject.special, repairer, field, state);
        FlowField fresh;
        if (any_walled(cost, subject.special)) {
            ASSERT_FALSE(r.ok()) << what << " edit " << e;
            EXPECT_NE(r.error().message.find(subject.refusal), std::string::npos) << r.error().message;
            EXPECT_EQ(r.error().code, ErrorCode::on_wall);
            ASSERT_EQ(compare(field, field_before), "") << what << " edit " << e;
            cost = before;  // the state still answers the map before the edit
            ASSERT_TRUE(subject.build(fresh_builder, cost, fresh, nullptr).ok());
            ASSERT_EQ(compare(field, fresh), "") << what << " edit " << e;
            ++n.refused;
            continue;
        }
        ASSERT_TRUE(r.ok()) << what << " edit " << e << ": " << r.error().message;
        ++n.repairs;
        n.rebuilds += r->rebuilt ? 1 : 0;
        ASSERT_TRUE(subject.build(fresh_builder, cost, fresh, nullptr).ok());
        ASSERT_EQ(compare(field, fresh), "") << what << " after edit " << e;
    }
}

class FleeRepairSequences : public ::testing::TestWithParam<int> {};

// 1,600 sequences of 12 edits (4 shards of 400) on random weighted maps with 1..3 dangers and
// flee factors from 1 to 3: the repaired field equals a fresh build after every edit; an edit
// that walls a danger is refused and changes nothing.
TEST_P(FleeRepairSequences, MatchFreshBuildsBitForBit) {
    FieldBuilder repairer;  // reused across maps: scratch from earlier maps must not leak
    Counts n;
    for (int i = 0; i < 400; ++i) {
        const auto seed = static_cast<std::uint32_t>(50'000 + GetParam() * 400 + i);
        test::RandomCase c = test::make_random_case(seed, 26);
        std::mt19937 rng(seed);
        const FleeParams flee{1.0 + 0.25 * test::random_int(rng, 0, 8)};
        const FieldParams params = c.params;
        const std::vector<Cell> dangers = c.goals;
        const Subject subject{[&](FieldBuilder& b, const CostField& cost, FlowField& out, FieldRepairState* state) {
                                  return state ? b.build_flee(cost, dangers, flee, params, out, *state)
                                               : b.build_flee(cost, dangers, flee, params, out);
                              },
                              dangers, "turns danger"};
        run_edits(c.description, c.cost, rng, subject, repairer, n);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(n.repairs, 3000u);
    EXPECT_GT(n.refused, 30u);
    EXPECT_LT(n.rebuilds * 4, n.repairs);  // mostly incremental
}

INSTANTIATE_TEST_SUITE_P(Shards, FleeRepairSequences, ::testing::Range(0, 4));

class MixedRepairSequences : public ::testing::TestWithParam<int> {};

// The same for mixed fields: goals, 1..3 dangers elsewhere, random weights and radii; walling a
// goal or a danger is refused.
TEST_P(MixedRepairSequences, MatchFreshBuildsBitForBit) {
    FieldBuilder repairer;
    Counts n;
    for (int i = 0; i < 400; ++i) {
        const auto seed = static_cast<std::uint32_t>(70'000 + GetParam() * 400 + i);
        test::RandomCase c = test::make_random_case(seed, 26);
        std::mt19937 rng(seed);
        std::vector<Cell> dangers;  // open cells of this map picked at random
        for (int k = 0; k < 40 && dangers.size() < 3; ++k) {
            const Cell p{test::random_int(rng, 0, c.cost.width() - 1), test::random_int(rng, 0, c.cost.height() - 1)};
            if (c.cost.at(p) != kCostWall) dangers.push_back(p);
        }
        if (dangers.empty()) continue;
        const DangerCost danger{test::random_int(rng, 0, 253), 0.5 + test::random_int(rng, 0, 40) * 0.5};
        const FieldParams params = c.params;
        const std::vector<Cell> goals = c.goals;
        Subject subject{[&](FieldBuilder& b, const CostField& cost, FlowField& out, FieldRepairState* state) {
                            return state ? b.build_mixed(cost, goals, dangers, danger, params, out, *state)
                                         : b.build_mixed(cost, goals, dangers, danger, params, out);
                        },
                        goals, "into a wall"};
        subject.special.insert(subject.special.end(), dangers.begin(), dangers.end());
        run_edits(c.description, c.cost, rng, subject, repairer, n);
        if (HasFatalFailure()) return;
    }
    EXPECT_GT(n.repairs, 2500u);
    EXPECT_GT(n.refused, 30u);
    EXPECT_LT(n.rebuilds * 4, n.repairs);
}

INSTANTIATE_TEST_SUITE_P(Shards, MixedRepairSequences, ::testing::Range(0, 4));

// A local edit far from the danger touches a small part of a large open map.
TEST(FleeRepair, SmallEditTouchesFewCells) {
    CostField cost = CostField::create(200, 200).value();
    const Cell danger[] = {{100, 100}};
    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
    ASSERT_TRUE(builder.build_flee(cost, danger, {}, {}, field, state).ok());
    cost.fill_rect(10, 10, 12, 12, kCostSwamp);
    const auto r = builder.repair_rect(cost, 10, 10, 12, 12, field, state);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_FALSE(r->rebuilt);
    EXPECT_LT(r->touched_cells, 2000u);
    FlowField fresh;
    ASSERT_TRUE(FieldBuilder().build_flee(cost, danger, {}, {}, fresh).ok());
    EXPECT_EQ(compare(field, fresh), "");
}

// A state of one kind repairs only its own kind's field; a goal build resets a flee state.
TEST(FleeRepair, AStateRebuiltAsAGoalFieldRepairsAsOne) {
    CostField cost = CostField::create(30, 20).value();
    const Cell cells[] = {{5, 5}};
    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
    ASSERT_TRUE(builder.build_flee(cost, cells, {}, {}, field, state).ok());
    ASSERT_TRUE(builder.build(cost, cells, {}, field, state).ok());
    EXPECT_EQ(state.kind(), FieldKind::goal);
    EXPECT_TRUE(state.dangers().empty());
    cost.set(10, 10, kCostWall);
    const Cell changed[] = {{10, 10}};
    ASSERT_TRUE(builder.repair(cost, changed, field, state).ok());
    FlowField fresh;
    ASSERT_TRUE(FieldBuilder().build(cost, cells, {}, fresh).ok());
    EXPECT_EQ(compare(field, fresh), "");
}

}  // namespace
}  // namespace tide
