// FlowField::sample: bilinear blend of the four cells whose centres surround the point.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

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

void expect_vec_near(Vec2 got, Vec2 want, const char* what) {
    EXPECT_NEAR(got.x, want.x, 1e-5) << what;
    EXPECT_NEAR(got.y, want.y, 1e-5) << what;
}

float length(Vec2 v) {
    return std::sqrt(v.x * v.x + v.y * v.y);
}

TEST(Sample, AtEveryCellCentreEqualsTheCellVector) {
    const CostField cost = grid_from_rows({
        "..F...",
        ".#~...",
        "...##.",
        "Z.....",
    });
    const FlowField field = build_ok(cost, {{5, 0}});
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 6; ++x) {
            if (!is_move(field.direction(x, y))) continue;
            const Vec2 s = field.blend({x + 0.5f, y + 0.5f});
            expect_vec_near(s, field.vector(x, y), "cell centre");
        }
    }
}

TEST(Sample, BetweenAnEastAndASouthCellBlendsAndNormalises) {
    // Four-connected, goal at (1,1): (0,1) moves E, (1,0) moves S.
    // Point between the centres of (0,1) and (1,0) and the others: build a 2x2 and read exact weights.
    const CostField cost = std::move(CostField::create(2, 2).value());
    FieldParams params;
    params.connectivity = Connectivity::four;
    const FlowField field = build_ok(cost, {{1, 1}}, params);
    ASSERT_EQ(field.direction(0, 1), Direction::east);
    ASSERT_EQ(field.direction(1, 0), Direction::south);
    ASSERT_EQ(field.direction(0, 0), Direction::east);
    // Halfway between centres (0.5,1.5) [E] and (1.5,0.5) [S]: p = (1, 1). Weights are 1/4 each;
    // (1,1) is the goal (skipped), (0,0) is E: sum = 0.5 E + 0.25 S -> (0.5, 0.25) normalised.
    const Vec2 s = field.blend({1.0f, 1.0f});
    const float n = std::sqrt(0.5f * 0.5f + 0.25f * 0.25f);
    expect_vec_near(s, {0.5f / n, 0.25f / n}, "centre of the 2x2");
    EXPECT_NEAR(length(s), 1.0f, 1e-6);
}

TEST(Sample, PureBlendOfEastAndSouth) {
    // Four-connected, goals (1,0) and (1,2): (0,0) moves E, (1,1) moves S (S before N), the other
    // two cells around p = (1, 1) are a goal and a wall, so E and S get equal weight.
    const CostField cost = grid_from_rows({
        "...",
        "#.#",
        "#.#",
    });
    FieldParams params;
    params.connectivity = Connectivity::four;
    const FlowField field = build_ok(cost, {{1, 0}, {1, 2}}, params);
    ASSERT_EQ(field.direction(0, 0), Direction::east);
    ASSERT_EQ(field.direction(1, 1), Direction::south);
    ASSERT_EQ(field.direction(1, 0), Direction::goal);
    ASSERT_EQ(field.direction(0, 1), Direction::wall);
    const float h = std::sqrt(0.5f);
    expect_vec_near(field.blend({1.0f, 1.0f}), {h, h}, "equal blend of E and S");
    // Closer to (0,0): E dominates but S still contributes.
    const Vec2 s = field.blend({0.8f, 0.8f});  // tx = ty = 0.3: E weight 0.49, S weight 0.09
    const float n = std::sqrt(0.49f * 0.49f + 0.09f * 0.09f);
    expect_vec_near(s, {0.49f / n, 0.09f / n}, "weighted blend of E and S");
}

TEST(Sample, BilinearWeightsOffCentre) {
    // Four-connected open map, goal in the far corner: E/S ties go E, so every column but the last
    // moves E and the last column moves S. Check one point against a hand blend.
    const CostField cost = std::move(CostField::create(6, 6).value());
    FieldParams params;
    params.connectivity = Connectivity::four;
    const FlowField field = build_ok(cost, {{5, 5}}, params);
    // Every non-goal cell with x < 5 moves E (E before S); column 5 moves S.
    ASSERT_EQ(field.direction(3, 2), Direction::east);
    ASSERT_EQ(field.direction(5, 2), Direction::south);
    // p = (5.0 + 0.1, 2.5 + 0.3): x0 = 4 (E), x1 = 5 (S); tx = 0.6, ty = 0.3.
    const Vec2 s = field.blend({5.1f, 2.8f});
    const float tx = 0.6f;
    const float e = 1 - tx;  // cells (4,2) and (4,3) both E; weights sum to 1 - tx
    const float so = tx;     // cells (5,2) and (5,3) both S
    const float n = std::sqrt(e * e + so * so);
    expect_vec_near(s, {e / n, so / n}, "off-centre bilinear");
}

TEST(Sample, WallCellsAreSkipped) {
    // (1,0) is a wall; (0,0) moves S towards the goal. A point near the wall side must not be
    // pulled to (0,0) by the wall: with the wall skipped, only real moves contribute.
    const CostField cost = grid_from_rows({
        ".#.",
        "...",
    });
    const FlowField field = build_ok(cost, {{0, 1}});
    ASSERT_EQ(field.direction(1, 0), Direction::wall);
    ASSERT_EQ(field.direction(0, 0), Direction::south);
    ASSERT_EQ(field.direction(1, 1), Direction::west);
    // p between centres of (0,0) [S], (1,0) [wall], (0,1) [goal], (1,1) [W]: p = (1.0, 1.0).
    const Vec2 s = field.blend({1.0f, 1.0f});
    const float n = std::sqrt(0.25f * 0.25f * 2);
    expect_vec_near(s, {-0.25f / n, 0.25f / n}, "wall skipped");
    // Inside the wall cell near its centre: the wall is skipped, and the blend of its neighbours
    // still gives a direction. p = (1.4, 0.6): tx = 0.9, ty = 0.1, so (0,0) [S] and (1,1) [W]
    // weigh 0.09 each, the goal (0,1) has no move: (-0.09, 0.09) normalised.
    const float h = std::sqrt(0.5f);
    expect_vec_near(field.blend({1.4f, 0.6f}), {-h, h}, "in the wall, off its centre");
    // At the wall cell's exact centre only the wall has weight: the blend vanishes and the
    // fallback, the cell containing p, is the wall itself: no direction.
    EXPECT_EQ(field.blend({1.5f, 0.5f}), (Vec2{0, 0})) << "only the wall cell has weight at its own centre";
}

TEST(Sample, FallsBackToTheOwnCellWhenTheBlendVanishes) {
    // Two cells moving in opposite directions with equal weights cancel; the own cell decides.
    //   G . . G   four-connected: (1,0) moves W, (2,0) moves E.
    const CostField cost = grid_from_rows({"...."});
    FieldParams params;
    params.connectivity = Connectivity::four;
    const FlowField field = build_ok(cost, {{0, 0}, {3, 0}}, params);
    ASSERT_EQ(field.direction(1, 0), Direction::west);
    ASSERT_EQ(field.direction(2, 0), Direction::east);
    // p = (2.0, 0.5) is halfway: blend is zero; p lies in cell (2,0) -> E.
    expect_vec_near(field.blend({2.0f, 0.5f}), {1, 0}, "fallback to own cell");
    expect_vec_near(field.blend({1.99f, 0.5f}), {-1, 0}, "just left of the middle");
}

TEST(Sample, AtAGoalWithAllNeighboursPointingAtIt) {
    const CostField cost = std::move(CostField::create(3, 3).value());
    const FlowField field = build_ok(cost, {{1, 1}});
    // At the goal's centre only the goal has weight: no direction.
    EXPECT_EQ(field.blend({1.5f, 1.5f}), (Vec2{0, 0}));
    // Slightly east of the centre: the east neighbour (moving W) contributes: result W.
    expect_vec_near(field.blend({1.75f, 1.5f}), {-1, 0}, "east of goal centre");
    expect_vec_near(field.blend({1.5f, 1.25f}), {0, 1}, "north of goal centre");
    // Anywhere on the goal cell the result is either zero or a unit vector pointing inwards.
    for (float dx : {-0.4f, -0.2f, 0.2f, 0.4f}) {
        for (float dy : {-0.4f, 0.0f, 0.3f}) {
            const Vec2 s = field.blend({1.5f + dx, 1.5f + dy});
            ASSERT_NEAR(length(s), 1.0f, 1e-5);
            EXPECT_LT(s.x * dx + s.y * dy, 0.0f) << dx << ", " << dy << ": should point back to the goal";
        }
    }
}

TEST(Sample, OffTheMapOrNaNIsZero) {
    const CostField cost = std::move(CostField::create(4, 3).value());
    const FlowField field = build_ok(cost, {{0, 0}});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (Vec2 p : {Vec2{-0.01f, 1.0f}, Vec2{1.0f, -0.01f}, Vec2{4.0f, 1.0f}, Vec2{1.0f, 3.0f}, Vec2{100.0f, 100.0f},
                   Vec2{nan, 1.0f}, Vec2{1.0f, nan}, Vec2{nan, nan}, Vec2{inf, 1.0f}, Vec2{-inf, 1.0f}}) {
        const Vec2 s = field.blend(p);
        EXPECT_EQ(s, (Vec2{0, 0})) << p.x << ", " << p.y;
    }
    // Map edges still give a unit vector inside.
    EXPECT_NEAR(length(field.blend({3.99f, 2.99f})), 1.0f, 1e-5);
    EXPECT_NEAR(length(field.blend({0.01f, 2.99f})), 1.0f, 1e-5);
}

TEST(Sample, EmptyFieldGivesZero) {
    const FlowField empty;
    EXPECT_EQ(empty.width(), 0);
    EXPECT_EQ(empty.height(), 0);
    EXPECT_EQ(empty.memory_bytes(), 0u);
    EXPECT_FALSE(empty.contains(0, 0));
    EXPECT_EQ(empty.blend({0.0f, 0.0f}), (Vec2{0, 0}));
    EXPECT_EQ(empty.blend({0.5f, 0.5f}), (Vec2{0, 0}));
}

TEST(Sample, CutOffRegionGivesZero) {
    const CostField cost = grid_from_rows({
        "..#..",
        "..#..",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_EQ(field.blend({3.5f, 0.5f}), (Vec2{0, 0}));
    EXPECT_EQ(field.blend({4.0f, 1.0f}), (Vec2{0, 0}));
    EXPECT_EQ(field.blend({2.5f, 1.0f}), (Vec2{0, 0}));  // inside the wall
}

TEST(Sample, AlwaysUnitOrZeroOnRandomFields) {
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        const test::RandomCase c = test::make_random_case(4242u + seed, 24);
        const FlowField field = build_ok(c.cost, c.goals, c.params);
        std::mt19937 rng(seed);
        for (int i = 0; i < 200; ++i) {
            const Vec2 p{static_cast<float>(rng() % 10000) / 10000.0f * c.cost.width(),
                         static_cast<float>(rng() % 10000) / 10000.0f * c.cost.height()};
            const Vec2 s = field.blend(p);
            const float len = length(s);
            ASSERT_TRUE(len == 0.0f || std::abs(len - 1.0f) < 1e-5) << c.description << " at " << p.x << ", " << p.y;
            // A cell with a move always yields a direction somewhere near it.
            const int cx = static_cast<int>(p.x);
            const int cy = static_cast<int>(p.y);
            if (is_move(field.direction(cx, cy))) {
                ASSERT_GT(len, 0.0f) << c.description;
            }
        }
    }
}

}  // namespace
}  // namespace tide
