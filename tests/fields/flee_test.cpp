// Flee fields, mixed fields and wall margins: against a small Bellman-Ford reference on random
// weighted maps, the dead-end corridor (k = 1.2 runs past the danger, k = 1 into the dead end),
// determinism, and refused input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Move costs that are multiples of 0.5 (factor 1, 1.5 or 2, or four-connected) with factors that
// are multiples of 0.1 keep every exact value a multiple of 0.05: a gap of 1e-3 then tells an exact
// tie from a real difference, so the tie rules are checked exactly.
constexpr double kTie = 1e-3;

// The reference: D from the reference Dijkstra, V by Bellman-Ford sweeps until nothing changes.
std::vector<double> reference_flee(const CostField& cost, std::span<const Cell> dangers, double k,
                                   const FieldParams& params) {
    const auto d = test::reference_distances(cost, dangers, params);
    std::vector<double> v(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) v[i] = std::isfinite(d[i]) ? -k * d[i] : kInf;
    const int w = cost.width();
    for (bool changed = true; changed;) {
        changed = false;
        for (int y = 0; y < cost.height(); ++y) {
            for (int x = 0; x < w; ++x) {
                double& vx = v[static_cast<std::size_t>(y) * w + x];
                if (!std::isfinite(vx)) continue;
                for (int dir = 0; dir < 8; ++dir) {
                    if (!test::legal_move(cost, x, y, dir, params)) continue;
                    const double cand = test::move_cost(cost, x, y, dir, params) +
                                        v[static_cast<std::size_t>(y + kDirectionDy[dir]) * w + x + kDirectionDx[dir]];
                    if (cand < vx - 1e-9) {
                        vx = cand;
                        changed = true;
                    }
                }
            }
        }
    }
    return v;
}

// Checks values, reachability and every move of a flee field against the reference values:
// a move is legal and tight (price + V(next) = V), the first tight one in the order E, S, W, N,
// SE, SW, NW, NE; a safe spot (Direction::goal) has no tight move. Empty string when all hold.
std::string check_flee(const CostField& cost, const FieldParams& params, const FlowField& field,
                       const std::vector<double>& ref) {
    std::ostringstream out;
    int faults = 0;
    auto fault = [&](int x, int y, const std::string& what) {
        if (faults++ < 5) out << "(" << x << ", " << y << "): " << what << "; ";
    };
    if (field.kind() != FieldKind::flee) fault(0, 0, "kind is not flee");
    const int w = cost.width();
    constexpr int kRankOrder[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const double want = ref[i];
            const double got = field.integration(x, y);
            const Direction d = field.direction(x, y);
            if (!cost.passable(x, y)) {
                if (d != Direction::wall || got != kUnreachable) fault(x, y, "wall not marked");
                continue;
            }
            if (!std::isfinite(want)) {
                if (d != Direction::unreachable || got != kUnreachable) fault(x, y, "unreached cell not marked");
                continue;
            }
            if (!(std::abs(got - want) <= 1e-5 * std::abs(want) + 1e-4)) {
                fault(x, y, "V " + std::to_string(got) + ", reference " + std::to_string(want));
            }
            int first_tight = -1;
            for (int dir : kRankOrder) {
                if (!test::legal_move(cost, x, y, dir, params)) continue;
                const double cand = test::move_cost(cost, x, y, dir, params) +
                                    ref[static_cast<std::size_t>(y + kDirectionDy[dir]) * w + x + kDirectionDx[dir]];
                if (cand < want - kTie) fault(x, y, "reference not a fixed point");
                if (cand <= want + kTie && first_tight < 0) first_tight = dir;
            }
            const int expected = first_tight < 0 ? static_cast<int>(Direction::goal) : first_tight;
            if (static_cast<int>(d) != expected) {
                fault(x, y,
                      "direction " + std::to_string(static_cast<int>(d)) + ", expected " + std::to_string(expected));
            }
            const float stop = field.to_stop()[i];
            if (!(stop >= 0.0f) || (d == Direction::goal && stop != 0.0f))
                fault(x, y, "to_stop " + std::to_string(stop));
        }
    }
    if (faults > 0) out << faults << " faults";
    return out.str();
}

// Follows the flow from every cell: each path ends at a safe spot within W*H moves, V falls at
// every move, and to_stop equals V(x) - V(end).
std::string check_flee_paths(const FlowField& field) {
    const int w = field.width();
    const std::int64_t cells = static_cast<std::int64_t>(w) * field.height();
    for (std::int64_t start = 0; start < cells; ++start) {
        const int sx = static_cast<int>(start % w), sy = static_cast<int>(start / w);
        if (!is_move(field.direction(sx, sy))) continue;
        std::int64_t at = start;
        for (std::int64_t steps = 0;; ++steps) {
            const int x = static_cast<int>(at % w), y = static_cast<int>(at / w);
            const std::int64_t next = field.next_index(x, y);
            if (next < 0) {
                if (field.direction(x, y) != Direction::goal)
                    return "path from " + std::to_string(start) + " ends off a safe spot";
                const double want = field.integration(sx, sy) - field.integration(x, y);
                if (std::abs(field.to_stop()[start] - want) > 1e-4 * std::abs(want) + 1e-3) {
                    return "to_stop of " + std::to_string(start) + " is " + std::to_string(field.to_stop()[start]) +
                           ", path says " + std::to_string(want);
                }
                break;
            }
            if (!(field.integration()[next] < field.integration()[at]))
                return "V does not fall at " + std::to_string(at);
            if (steps > cells) return "cycle from " + std::to_string(start);
            at = next;
        }
    }
    return "";
}

FieldParams tie_safe_params(std::uint32_t seed) {
    FieldParams p;
    switch (seed % 4) {
        case 0:
            p.connectivity = Connectivity::four;
            break;
        case 1:
            p.diagonal_factor = 1.5;
            break;
        case 2:
            p.diagonal_factor = 1.0;
            break;
        default:
            p.diagonal_factor = 2.0;
            break;
    }
    return p;
}

class FleeRandomMaps : public ::testing::TestWithParam<int> {};

// 200 random weighted maps (walls up to 40 %, so pockets no danger reaches; 1..3 dangers) in 4
// shards, each with the factors 1.2, 1, 0.5 and 2.5.
TEST_P(FleeRandomMaps, MatchBellmanFordReference) {
    FieldBuilder builder;  // reused on purpose
    int unreached_seen = 0;
    for (int i = 0; i < 50; ++i) {
        const auto seed = static_cast<std::uint32_t>(GetParam() * 50 + i);
        const test::RandomCase c = test::make_random_case(seed, 24);
        const FieldParams params = tie_safe_params(seed / 3);
        for (double k : {1.2, 1.0, 0.5, 2.5}) {
            FlowField field;
            const auto built = builder.build_flee(c.cost, c.goals, FleeParams{k}, params, field);
            ASSERT_TRUE(built.ok()) << c.description << ": " << built.error().message;
            const auto ref = reference_flee(c.cost, c.goals, k, params);
            ASSERT_EQ(check_flee(c.cost, params, field, ref), "") << c.description << " k=" << k;
            ASSERT_EQ(check_flee_paths(field), "") << c.description << " k=" << k;
            unreached_seen +=
                std::count(field.directions().begin(), field.directions().end(), Direction::unreachable) > 0;
        }
    }
    EXPECT_GT(unreached_seen, 0) << "no case had a pocket no danger reaches";
}
INSTANTIATE_TEST_SUITE_P(Shards, FleeRandomMaps, ::testing::Range(0, 4));

// The dead end. A corridor (row 20, x = 1..10) ends in a dead end at x = 1 and opens at x = 11
// into a 90x41 room; the danger stands in the corridor at x = 7. Units between the dead end and
// the danger (x = 2..6) must pass the danger to reach open space.
CostField dead_end_map() {
    CostField cost = std::move(CostField::create(101, 41).value());
    cost.fill_rect(0, 0, 10, 40, kCostWall);
    cost.fill_rect(1, 20, 10, 20, kCostPlain);
    return cost;
}

TEST(FleeField, RunsPastTheDangerIntoOpenSpaceNotIntoTheDeadEnd) {
    const CostField cost = dead_end_map();
    const Cell danger{7, 20};
    FieldBuilder builder;
    FlowField brogue, negation;
    ASSERT_TRUE(builder.build_flee(cost, std::span(&danger, 1), FleeParams{1.2}, {}, brogue).ok());
    ASSERT_TRUE(builder.build_flee(cost, std::span(&danger, 1), FleeParams{1.0}, {}, negation).ok());
    for (int x = 2; x <= 6; ++x) {
        // k = 1.2: east, toward and past the danger; the path ends in the room.
        EXPECT_EQ(brogue.direction(x, 20), Direction::east) << "k=1.2 at x=" << x;
        // k = 1 (V = -D): west, into the dead end.
        EXPECT_EQ(negation.direction(x, 20), Direction::west) << "k=1 at x=" << x;
    }
    auto end_of = [](const FlowField& f, int x, int y) {
        std::int64_t at = static_cast<std::int64_t>(y) * f.width() + x;
        for (std::int64_t next;
             (next = f.next_index(static_cast<int>(at % f.width()), static_cast<int>(at / f.width()))) >= 0;)
            at = next;
        return Cell{static_cast<int>(at % f.width()), static_cast<int>(at / f.width())};
    };
    const Cell b = end_of(brogue, 3, 20);
    const Cell n = end_of(negation, 3, 20);
    EXPECT_GE(b.x, 11) << "k=1.2 path from (3, 20) should end in the room, ends at (" << b.x << ", " << b.y << ")";
    EXPECT_EQ(n.x, 1) << "k=1 path from (3, 20) should end in the dead end";
    EXPECT_EQ(n.y, 20);
    EXPECT_EQ(negation.direction(1, 20), Direction::goal);  // the dead end is a "safe spot" for k = 1
}

TEST(FleeField, BitIdenticalAcrossRunsAndBuilders) {
    const test::RandomCase c = test::make_random_case(77, 120);
    FieldBuilder a, b;
    FlowField f1, f2, f3;
    ASSERT_TRUE(a.build_flee(c.cost, c.goals, {}, {}, f1).ok());
    FlowField goal;  // a goal build in between leaves nothing behind
    ASSERT_TRUE(a.build(c.cost, c.goals, {}, goal).ok());
    ASSERT_TRUE(a.build_flee(c.cost, c.goals, {}, {}, f2).ok());
    ASSERT_TRUE(b.build_flee(c.cost, c.goals, {}, {}, f3).ok());
    for (const FlowField* f : {&f2, &f3}) {
        ASSERT_EQ(f->integration().size(), f1.integration().size());
        EXPECT_EQ(std::memcmp(f->integration().data(), f1.integration().data(), f1.integration().size_bytes()), 0);
        EXPECT_EQ(std::memcmp(f->to_stop().data(), f1.to_stop().data(), f1.to_stop().size_bytes()), 0);
        EXPECT_TRUE(std::equal(f->directions().begin(), f->directions().end(), f1.directions().begin()));
    }
    // The same FlowField object reused for a goal build is a goal field again.
    ASSERT_TRUE(a.build(c.cost, c.goals, {}, f2).ok());
    EXPECT_EQ(f2.kind(), FieldKind::goal);
    EXPECT_EQ(f2.to_stop().data(), f2.integration().data());
}

TEST(FleeField, SeveralDangersFleeFromTheNearest) {
    // A 1x21 corridor with dangers at both ends: the middle is safest, everyone walks to it.
    CostField cost = std::move(CostField::create(21, 1).value());
    const Cell dangers[] = {{0, 0}, {20, 0}};
    FlowField f;
    FieldBuilder builder;
    ASSERT_TRUE(builder.build_flee(cost, dangers, {}, {}, f).ok());
    EXPECT_EQ(f.direction(10, 0), Direction::goal);
    for (int x = 0; x < 10; ++x) EXPECT_EQ(f.direction(x, 0), Direction::east) << x;
    for (int x = 11; x <= 20; ++x) EXPECT_EQ(f.direction(x, 0), Direction::west) << x;
    EXPECT_FLOAT_EQ(f.integration(10, 0), -12.0f);
    EXPECT_FLOAT_EQ(f.to_stop()[0], 10.0f);
}

TEST(FleeField, RefusesBadInput) {
    CostField cost = test::grid_from_rows({"....", ".#..", "...."});
    FieldBuilder builder;
    FlowField f;
    const Cell ok{0, 0};
    auto flee = [&](Cell d, double k) { return builder.build_flee(cost, std::span(&d, 1), FleeParams{k}, {}, f); };
    auto message = [](const Result<void>& r) { return r.ok() ? std::string("(ok)") : r.error().message; };
    EXPECT_EQ(message(flee({1, 1}, 1.2)), "danger (1, 1) is on a wall");
    EXPECT_EQ(message(flee({4, 0}, 1.2)), "danger (4, 0) is outside the 4x3 map");
    EXPECT_EQ(message(flee({0, -1}, 1.2)), "danger (0, -1) is outside the 4x3 map");
    EXPECT_EQ(message(flee(ok, 0.0)), "flee factor 0 is outside (0, 64]");
    EXPECT_EQ(message(flee(ok, -1.2)), "flee factor -1.2 is outside (0, 64]");
    EXPECT_EQ(message(flee(ok, std::nan(""))), "flee factor nan is outside (0, 64]");
    EXPECT_EQ(message(flee(ok, 65.0)), "flee factor 65 is outside (0, 64]");
    EXPECT_EQ(message(builder.build_flee(cost, {}, {}, {}, f)), "no danger given");
    EXPECT_EQ(f.width(), 0) << "a refused build leaves the field unchanged";
    EXPECT_TRUE(flee(ok, kMaxFleeFactor).ok());
}

// Mixed fields: the danger term against the reference distances, and a path that keeps away.
TEST(MixedField, DangerCostsMatchTheDefinition) {
    for (std::uint32_t seed = 0; seed < 60; ++seed) {
        const test::RandomCase c = test::make_random_case(seed, 30);
        const DangerCost danger{static_cast<int>(seed * 7 % 254), 1.0 + seed % 13};
        FieldBuilder builder;
        auto mixed = builder.danger_cost_field(c.cost, c.goals, danger, c.params);
        ASSERT_TRUE(mixed.ok()) << c.description << ": " << mixed.error().message;
        const auto d = test::reference_distances(c.cost, c.goals, c.params);
        for (std::size_t i = 0; i < d.size(); ++i) {
            const Cost before = c.cost.cells()[i];
            const Cost got = mixed->cells()[i];
            if (before == kCostWall) {
                ASSERT_EQ(got, kCostWall);
                continue;
            }
            const double t = std::isfinite(d[i]) && d[i] < danger.radius
                                 ? danger.weight * (danger.radius - d[i]) / danger.radius
                                 : 0.0;
            const double frac = t - std::floor(t);
            if (std::abs(frac - 0.5) < 1e-6) continue;  // a rounding boundary: either side is fine
            const int want = std::min<int>(kCostMax, before + static_cast<int>(std::lround(t)));
            ASSERT_EQ(static_cast<int>(got), want) << c.description << " cell " << i << " D=" << d[i];
        }
    }
}

TEST(MixedField, PathKeepsAwayFromTheDanger) {
    // Open 41x41 room, start west, goal east, danger straight between them.
    CostField cost = std::move(CostField::create(41, 41).value());
    const Cell goal{38, 20};
    const Cell danger{20, 20};
    FieldBuilder builder;
    FlowField plain, mixed;
    ASSERT_TRUE(builder.build(cost, std::span(&goal, 1), {}, plain).ok());
    ASSERT_TRUE(
        builder.build_mixed(cost, std::span(&goal, 1), std::span(&danger, 1), DangerCost{20, 10.0}, {}, mixed).ok());
    EXPECT_EQ(mixed.kind(), FieldKind::goal);
    auto closest = [&](const FlowField& f) {
        double best = kInf;
        std::int64_t at = 20 * 41 + 2;
        for (std::int64_t next = 0; next >= 0; at = next) {
            const int x = static_cast<int>(at % 41), y = static_cast<int>(at / 41);
            best = std::min(best, std::hypot(x - danger.x, y - danger.y));
            next = f.next_index(x, y);
            if (next < 0) {
                EXPECT_EQ(f.direction(x, y), Direction::goal);
            }
        }
        return best;
    };
    EXPECT_LT(closest(plain), 1.0);  // straight through the danger
    EXPECT_GE(closest(mixed), 6.0);  // around it
}

TEST(MixedField, RefusesBadInput) {
    CostField cost = test::grid_from_rows({"....", ".#..", "...."});
    FieldBuilder builder;
    const Cell d{0, 0};
    auto msg = [&](DangerCost dc, Cell c) {
        auto r = builder.danger_cost_field(cost, std::span(&c, 1), dc, {});
        return r.ok() ? std::string("(ok)") : r.error().message;
    };
    EXPECT_EQ(msg({254, 4.0}, d), "danger weight 254 is outside 0..253");
    EXPECT_EQ(msg({-1, 4.0}, d), "danger weight -1 is outside 0..253");
    EXPECT_EQ(msg({8, 0.0}, d), "danger radius 0 is outside (0, 65536]");
    EXPECT_EQ(msg({8, std::nan("")}, d), "danger radius nan is outside (0, 65536]");
    EXPECT_EQ(msg({8, 4.0}, {1, 1}), "danger (1, 1) is on a wall");
}

}  // namespace
}  // namespace tide
