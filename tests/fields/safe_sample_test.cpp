// Wall-safe sampling (FlowField::sample()): a step of up to kSampleReach along the sampled
// direction never enters a wall or cuts a wall corner, checked on a 16x16 lattice per cell next to
// every wall on random weighted maps, for goal, flee and mixed fields (check_sample_safety(), and a
// dense point walk written here). The old blend (FlowField::blend()) fails the same check.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/sample_check.hpp"

namespace tide {
namespace {

std::string describe(const SampleCheck& check) {
    std::string s = std::to_string(check.faults) + " of " + std::to_string(check.positions) + " positions fail";
    for (const SampleFault& f : check.first) {
        s += "\n  at (" + std::to_string(f.position.x) + ", " + std::to_string(f.position.y) + ") direction (" +
             std::to_string(f.direction.x) + ", " + std::to_string(f.direction.y) + ")" +
             (f.no_direction ? " is zero in a cell with a move"
                             : " reaches wall (" + std::to_string(f.wall.x) + ", " + std::to_string(f.wall.y) + ")");
    }
    return s;
}

// A second, cruder check that shares nothing with check_sample_safety(): walk the step in 1/256-cell
// increments and look at the cell under each point.
std::size_t dense_walk_faults(const FlowField& field, int lattice) {
    std::size_t faults = 0;
    const auto wall = [&](float x, float y) {
        const int cx = static_cast<int>(std::floor(x)), cy = static_cast<int>(std::floor(y));
        return !field.contains(cx, cy) || field.direction(cx, cy) == Direction::wall;
    };
    for (int y = 0; y < field.height(); ++y) {
        for (int x = 0; x < field.width(); ++x) {
            if (!is_move(field.direction(x, y))) continue;
            for (int j = 0; j < lattice; ++j) {
                for (int i = 0; i < lattice; ++i) {
                    const float px =
                        static_cast<float>(x) + (static_cast<float>(i) + 0.5f) / static_cast<float>(lattice);
                    const float py =
                        static_cast<float>(y) + (static_cast<float>(j) + 0.5f) / static_cast<float>(lattice);
                    const Vec2 v = field.sample({px, py});
                    for (int k = 1; k <= 255; ++k) {
                        const float t = static_cast<float>(k) / 256.0f * kSampleReach;
                        if (wall(px + v.x * t, py + v.y * t)) {
                            ++faults;
                            break;
                        }
                    }
                }
            }
        }
    }
    return faults;
}

TEST(SafeSample, IssueExampleDoesNotHeadIntoTheWall) {
    // 3x3, wall in the centre, goal bottom-right: at (0.8, 0.8) the blend of E and S headed into
    // the wall cell after 0.70 cells.
    const CostField cost = test::grid_from_rows({"...", ".#.", "..."});
    FieldBuilder builder;
    FlowField field;
    const Cell goal{2, 2};
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field).ok());
    const Vec2 old = field.blend({0.8f, 0.8f});
    Cell hit{};
    const auto blocked = [&](int x, int y) { return !cost.contains(x, y) || !cost.passable(x, y); };
    EXPECT_FALSE(step_is_clear(blocked, {0.8f, 0.8f}, old, 1.0, &hit)) << "the old blend should fail here";
    EXPECT_EQ(hit, (Cell{1, 1}));
    const Vec2 v = field.sample({0.8f, 0.8f});
    EXPECT_NEAR(std::hypot(v.x, v.y), 1.0, 1e-5);
    EXPECT_TRUE(step_is_clear(blocked, {0.8f, 0.8f}, v, kSampleReach - 1e-3, &hit))
        << "(" << v.x << ", " << v.y << ") reaches (" << hit.x << ", " << hit.y << ")";
    EXPECT_GT(v.x * old.x + v.y * old.y, 0.9f) << "turned only as far as needed";
    const SampleCheck check = check_sample_safety(FieldView(std::make_shared<const FlowField>(field)), 16);
    EXPECT_EQ(check.faults, 0u) << describe(check);
    EXPECT_EQ(check.cells, 8u);  // every passable cell touches the wall or the edge
}

TEST(SafeSample, GoalCellsWallsAndOffMapGiveNothing) {
    const CostField cost = test::grid_from_rows({"...", ".#.", "..."});
    FieldBuilder builder;
    FlowField field;
    const Cell goal{2, 2};
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field).ok());
    EXPECT_EQ(field.sample({2.5f, 2.5f}), (Vec2{}));
    EXPECT_EQ(field.sample({1.5f, 1.5f}), (Vec2{}));
    EXPECT_EQ(field.sample({-0.5f, 1.5f}), (Vec2{}));
    EXPECT_EQ(field.sample({NAN, 1.5f}), (Vec2{}));
    EXPECT_EQ(field.sample({3.0f, 1.5f}), (Vec2{}));
}

enum class Kind { goal, flee, mixed };

void check_random_maps(Kind kind, std::uint32_t first_seed, int count) {
    FieldBuilder builder;
    std::size_t blend_faults = 0, checked = 0;
    for (int i = 0; i < count; ++i) {
        const auto seed = first_seed + static_cast<std::uint32_t>(i);
        const test::RandomCase c = test::make_random_case(seed, 32);
        auto field = std::make_shared<FlowField>();
        Result<void> built;
        if (kind == Kind::goal) {
            built = builder.build(c.cost, c.goals, c.params, *field);
        } else if (kind == Kind::flee) {
            built = builder.build_flee(c.cost, c.goals, FleeParams{}, c.params, *field);
        } else {
            // Goals and dangers from the case's goal list: the first goal, the others as dangers
            // (or the goal itself when there is one).
            const std::span<const Cell> goals(c.goals.data(), 1);
            const std::span<const Cell> dangers =
                c.goals.size() > 1 ? std::span<const Cell>(c.goals).subspan(1) : std::span<const Cell>(c.goals);
            built = builder.build_mixed(c.cost, goals, dangers, DangerCost{}, c.params, *field);
        }
        ASSERT_TRUE(built.ok()) << c.description << ": " << built.error().message;
        const FieldView view{std::shared_ptr<const FlowField>(field)};
        const SampleCheck check = check_sample_safety(view, 16);
        checked += check.positions;
        ASSERT_EQ(check.faults, 0u) << c.description << ": " << describe(check);
        ASSERT_EQ(dense_walk_faults(*field, 4), 0u) << c.description;
        blend_faults += check_sample_safety(
                            view, [&](Vec2 p) { return field->blend(p); }, 16)
                            .faults;
    }
    EXPECT_GT(checked, static_cast<std::size_t>(count) * 1000) << "the maps should have cells next to walls";
    // The planted fault: the plain blend fails the same check somewhere on these maps.
    EXPECT_GT(blend_faults, 0u);
}

TEST(SafeSample, GoalFieldsOn200RandomMaps) {
    check_random_maps(Kind::goal, 1000, 200);
}
TEST(SafeSample, FleeFieldsOn200RandomMaps) {
    check_random_maps(Kind::flee, 2000, 200);
}
TEST(SafeSample, MixedFieldsOn200RandomMaps) {
    check_random_maps(Kind::mixed, 3000, 200);
}

// The batch (SSE2, or AVX2 where the CPU has it) gives every position the single call's answer bit
// for bit: on 30 random weighted maps, at positions all over and off them, on their edges, at cell
// borders and corners, and NaN; batch lengths that are not multiples of the blocks.
TEST(SafeSample, BatchMatchesSingleCalls) {
    std::mt19937 rng(3);
    for (int m = 0; m < 30; ++m) {
        const test::RandomCase c = test::make_random_case(7 + static_cast<std::uint64_t>(m), 40);
        FieldBuilder builder;
        FlowField field;
        ASSERT_TRUE(builder.build(c.cost, c.goals, c.params, field).ok());
        const float W = static_cast<float>(field.width()), H = static_cast<float>(field.height());
        std::uniform_real_distribution<float> ux(-1.0f, W + 1.0f), uy(-1.0f, H + 1.0f), unit(0.0f, 1.0f);
        const std::size_t n = 4000 + static_cast<std::size_t>(m) * 7;
        std::vector<float> xs(n), ys(n), ox(n), oy(n);
        for (std::size_t i = 0; i < n; ++i) {
            xs[i] = ux(rng);
            ys[i] = uy(rng);
            // Every eighth position of a kind: on a column line, on a row of cell centres, in the
            // last two columns, in the last row, in the second column.
            const std::size_t kind = i % 8;
            if (kind == 1) xs[i] = std::floor(xs[i]);
            if (kind == 2) ys[i] = std::floor(ys[i]) + 0.5f;
            if (kind == 3) xs[i] = W - 2.0f + unit(rng) * 2.0f;
            if (kind == 4) ys[i] = H - 1.0f + unit(rng);
            if (kind == 5) xs[i] = 1.0f + unit(rng);
        }
        xs[n / 2] = std::numeric_limits<float>::quiet_NaN();
        field.sample(xs, ys, ox, oy);
        for (std::size_t i = 0; i < n; ++i) {
            const Vec2 v = field.sample({xs[i], ys[i]});
            ASSERT_EQ(ox[i], v.x) << "map " << m << " at (" << xs[i] << ", " << ys[i] << ")";
            ASSERT_EQ(oy[i], v.y) << "map " << m << " at (" << xs[i] << ", " << ys[i] << ")";
        }
    }
}

// Away from walls the wall-safe sample is the blend itself.
TEST(SafeSample, EqualsTheBlendInTheOpen) {
    const CostField cost = test::grid_from_rows({"........", "........", "........", "........", "........"});
    FieldBuilder builder;
    FlowField field;
    const Cell goal{7, 4};
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, field).ok());
    for (float y = 1.05f; y < 4.0f; y += 0.1f)
        for (float x = 1.05f; x < 7.0f; x += 0.1f) EXPECT_EQ(field.sample({x, y}), field.blend({x, y}));
}

}  // namespace
}  // namespace tide
