// tide::Steering and tide::GridTransform: what a host that moves its own units asks of Tide.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/grid_transform.hpp"
#include "tide/sample_check.hpp"
#include "tide/steering.hpp"

namespace tide {
namespace {

std::shared_ptr<const FlowField> build(const CostField& cost, std::vector<Cell> goals) {
    auto field = std::make_shared<FlowField>();
    FieldBuilder builder;
    EXPECT_TRUE(builder.build(cost, goals, {}, *field).ok());
    return field;
}

TEST(GridTransform, IdentityByDefault) {
    const GridTransform t;
    EXPECT_TRUE(t.identity());
    EXPECT_EQ(t.to_grid({3.25f, 4.5f}), (Vec2{3.25f, 4.5f}));
    EXPECT_EQ(t.cell_of({3.0f, 4.999f}), (Cell{3, 4}));
    EXPECT_EQ(t.cell_of({-0.001f, 0.0f}), (Cell{-1, 0}));
}

TEST(GridTransform, YUpWorldRoundTripsAndRoundsOneWay) {
    // 10 rows of 0.5 m cells, bottom-left corner at (100, -20): row 0 is the top row.
    const GridTransform t = GridTransform::y_up({100.0f, -20.0f}, 0.5f, 10);
    ASSERT_TRUE(t.check().ok());
    EXPECT_EQ(t.cell_of({100.1f, -15.1f}), (Cell{0, 0}));  // top-left cell
    EXPECT_EQ(t.cell_of({100.1f, -19.9f}), (Cell{0, 9}));  // bottom-left cell
    const Vec2 c = t.cell_centre({3, 2});
    EXPECT_FLOAT_EQ(c.x, 101.75f);
    EXPECT_FLOAT_EQ(c.y, -16.25f);
    EXPECT_EQ(t.cell_of(c), (Cell{3, 2}));
    const Vec2 g = t.to_grid(t.to_world({7.25f, 3.5f}));
    EXPECT_NEAR(g.x, 7.25f, 1e-5f);
    EXPECT_NEAR(g.y, 3.5f, 1e-5f);
    // Directions: a move south on the grid (row + 1) is down in the world.
    EXPECT_EQ(t.direction_to_world({0.0f, 1.0f}), (Vec2{0.0f, -1.0f}));
    EXPECT_EQ(t.direction_to_grid(t.direction_to_world({0.6f, 0.8f})), (Vec2{0.6f, 0.8f}));
    // Cells are half-open in grid units: the world line between rows 1 and 2 belongs to row 2.
    EXPECT_EQ(t.cell_of(t.to_world({1.5f, 2.0f})), (Cell{1, 2}));
}

TEST(GridTransform, RejectsBadValuesAndGuardsNaN) {
    GridTransform t;
    t.cell_size = 0.0f;
    EXPECT_NE(t.check().error().message.find("cell size 0"), std::string::npos);
    t.cell_size = NAN;
    EXPECT_FALSE(t.check().ok());
    t = {};
    t.origin = {INFINITY, 0.0f};
    EXPECT_NE(t.check().error().message.find("not finite"), std::string::npos);
    const GridTransform ok;
    EXPECT_EQ(ok.cell_of({NAN, 2.0f}).x, -(1 << 30));
    EXPECT_EQ(ok.cell_of({3e12f, 2.0f}).x, -(1 << 30));
}

TEST(Steering, CreateRefusesBadInput) {
    const CostField cost = test::grid_from_rows({"....", "....", "...."});
    const auto field = build(cost, {{3, 1}});
    EXPECT_FALSE(Steering::create(FieldView{}, cost).ok());
    const CostField other = test::grid_from_rows({"...", "..."});
    EXPECT_NE(Steering::create(FieldView(field), other).error().message.find("4x3"), std::string::npos);
    SteerParams bad;
    bad.radius = -1.0f;
    EXPECT_NE(Steering::create(FieldView(field), cost, bad).error().message.find("radius -1"), std::string::npos);
    bad = {};
    bad.size = 0;
    EXPECT_FALSE(Steering::create(FieldView(field), cost, bad).ok());
    bad = {};
    bad.look_ahead = 0;
    EXPECT_FALSE(Steering::create(FieldView(field), cost, bad).ok());
    GridTransform t;
    t.cell_size = -2.0f;
    EXPECT_FALSE(Steering::create(FieldView(field), cost, {}, t).ok());
}

// On open ground the straightened direction heads straight for the goal: no 8-direction zig-zag.
TEST(Steering, PointsStraightAtTheGoalOnOpenGround) {
    const CostField cost = test::grid_from_rows(std::vector<std::string_view>(12, "........................"));
    const auto field = build(cost, {{20, 7}});
    auto steering = Steering::create(FieldView(field), cost);
    ASSERT_TRUE(steering.ok());
    EXPECT_TRUE(steering->straightens());
    for (const Vec2 p : {Vec2{1.5f, 1.5f}, Vec2{3.2f, 10.7f}, Vec2{12.9f, 0.3f}}) {
        const Vec2 v = steering->steer(p);
        const float dx = 20.5f - p.x, dy = 7.5f - p.y, len = std::hypot(dx, dy);
        EXPECT_NEAR(v.x, dx / len, 1e-4f);
        EXPECT_NEAR(v.y, dy / len, 1e-4f);
        // The raw move is one of the eight directions; the sample a blend of them.
        const Vec2 m = steering->move(p);
        EXPECT_TRUE(std::fabs(m.x) < 1e-6f || std::fabs(std::fabs(m.x) - 1.0f) < 1e-6f ||
                    std::fabs(std::fabs(m.x) - 0.70710678f) < 1e-6f);
    }
    EXPECT_EQ(steering->steer({20.5f, 7.5f}), (Vec2{}));  // at the goal
    EXPECT_EQ(steering->steer({-1.0f, 7.5f}), (Vec2{}));  // off the map
}

// The same field in a y-up world of 0.5 m cells gives the same directions, turned into world axes.
TEST(Steering, WorldUnitsGiveTheGridAnswerInWorldAxes) {
    const CostField cost = test::grid_from_rows({"..........", "...#......", "...#......", "..........", ".........."});
    const auto field = build(cost, {{8, 2}});
    const GridTransform world = GridTransform::y_up({-3.0f, 7.0f}, 0.5f, cost.height());
    auto grid = Steering::create(FieldView(field), cost);
    auto inworld = Steering::create(FieldView(field), cost, {}, world);
    ASSERT_TRUE(grid.ok() && inworld.ok());
    for (float y = 0.25f; y < 5.0f; y += 0.5f) {
        for (float x = 0.25f; x < 10.0f; x += 0.5f) {
            const Vec2 w = world.to_world({x, y});
            for (int q = 0; q < 3; ++q) {
                const Vec2 a = q == 0 ? grid->move({x, y}) : q == 1 ? grid->sample({x, y}) : grid->steer({x, y});
                const Vec2 b = q == 0 ? inworld->move(w) : q == 1 ? inworld->sample(w) : inworld->steer(w);
                const Vec2 e = world.direction_to_world(a);
                EXPECT_NEAR(b.x, e.x, 1e-4f) << "query " << q << " at " << x << "," << y;
                EXPECT_NEAR(b.y, e.y, 1e-4f) << "query " << q << " at " << x << "," << y;
            }
        }
    }
}

// steer() and sample() of a Steering keep the wall-safe guarantee of FlowField::sample(), with and
// without a radius, on random weighted maps.
TEST(Steering, WallSafeOnRandomMaps) {
    FieldBuilder builder;
    std::size_t checked = 0;
    for (std::uint32_t seed = 0; seed < 60; ++seed) {
        const test::RandomCase c = test::make_random_case(5000 + seed, 32);
        auto field = std::make_shared<FlowField>();
        ASSERT_TRUE(builder.build(c.cost, c.goals, c.params, *field).ok());
        const FieldView view{std::shared_ptr<const FlowField>(field)};
        for (const float radius : {0.0f, 0.3f}) {
            SteerParams params;
            params.radius = radius;
            auto steering = Steering::create(view, c.cost, params);
            ASSERT_TRUE(steering.ok());
            const SampleCheck s = check_sample_safety(
                view, [&](Vec2 p) { return steering->sample(p); }, 8);
            ASSERT_EQ(s.faults, 0u) << c.description << " radius " << radius;
            const SampleCheck t = check_sample_safety(
                view, [&](Vec2 p) { return steering->steer(p); }, 16);
            ASSERT_EQ(t.faults, 0u) << c.description << " radius " << radius << ": steer() at ("
                                    << t.first[0].position.x << ", " << t.first[0].position.y << ")";
            checked += s.positions;
        }
    }
    EXPECT_GT(checked, 10000u);
}

TEST(Steering, BatchesMatchSingleCalls) {
    const test::RandomCase c = test::make_random_case(11, 40);
    auto field = build(c.cost, c.goals);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> ux(0.0f, 2.0f * static_cast<float>(c.cost.width()));
    std::uniform_real_distribution<float> uy(0.0f, 2.0f * static_cast<float>(c.cost.height()));
    const std::size_t n = 2000;
    std::vector<float> xs(n), ys(n), ox(n), oy(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = ux(rng);
        ys[i] = uy(rng);
    }
    // Radius 0: the world-unit sample batch goes through the field's own batch.
    for (const float radius : {0.25f, 0.0f}) {
        SteerParams params;
        params.radius = radius;
        auto steering =
            Steering::create(FieldView(field), c.cost, params, GridTransform::y_up({0, 0}, 2.0f, c.cost.height()));
        ASSERT_TRUE(steering.ok());
        std::vector<SteerMemory> memory(n), single(n);
        steering->move(xs, ys, ox, oy);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ((Vec2{ox[i], oy[i]}), steering->move({xs[i], ys[i]}));
        steering->sample(xs, ys, ox, oy);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ((Vec2{ox[i], oy[i]}), steering->sample({xs[i], ys[i]}));
        steering->steer(xs, ys, memory, ox, oy);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ((Vec2{ox[i], oy[i]}), steering->steer({xs[i], ys[i]}, single[i]));
    }
}

// A unit walking by steer() with its memory reaches the goal round a wall and never enters it.
TEST(Steering, AUnitWithMemoryWalksRoundAWall) {
    const CostField cost = test::grid_from_rows({
        "............",
        "............",
        ".....#......",
        ".....#......",
        ".....#......",
        "............",
    });
    const auto field = build(cost, {{10, 3}});
    auto steering = Steering::create(FieldView(field), cost);
    ASSERT_TRUE(steering.ok());
    Vec2 p{1.5f, 3.5f};
    SteerMemory memory;
    float walked = 0.0f;
    int frames = 0;
    for (; frames < 2000; ++frames) {
        const Vec2 d = steering->steer(p, memory);
        if (d.x == 0.0f && d.y == 0.0f) break;
        p = {p.x + d.x * 0.05f, p.y + d.y * 0.05f};
        walked += 0.05f;
        ASSERT_TRUE(cost.passable(static_cast<int>(p.x), static_cast<int>(p.y))) << p.x << "," << p.y;
    }
    EXPECT_EQ(static_cast<int>(p.x), 10);
    EXPECT_EQ(static_cast<int>(p.y), 3);
    // Round the wall's end: at most a few percent longer than the shortest way to the goal cell
    // (over the corner at (5, 2) or (6, 5)): 4.5 + 4.6 cells or so.
    EXPECT_LT(walked, 10.5f);
}

}  // namespace
}  // namespace tide
