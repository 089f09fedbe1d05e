// Integration layer: the cost model (forward costs), the corner rule, walls that seal and reopen,
// several goals, diagonal factors, four-connectivity and the error cases.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using test::grid_from_rows;

constexpr double kSqrt2 = 1.4142135623730951;

FlowField build_ok(const CostField& cost, const std::vector<Cell>& goals, const FieldParams& params = {}) {
    auto field = build_flow_field(cost, goals, params);
    EXPECT_TRUE(field.ok()) << field.error().message;
    return field.ok() ? std::move(field.value()) : FlowField{};
}

FieldParams four_connected() {
    FieldParams p;
    p.connectivity = Connectivity::four;
    return p;
}

FieldParams factor(double f) {
    FieldParams p;
    p.diagonal_factor = f;
    return p;
}

// ---- Forward cost model ---------------------------------------------------------------------

TEST(Integration, GoalCostIsPaidWhenEnteredNotAtTheStart) {
    // Row: goal costs 9, its neighbour 2, the next 5. From (1,0): enter the goal = 9.
    // From (2,0): enter (1,0) = 2, then the goal = 9: 11. The goal itself is 0.
    const CostField cost = grid_from_rows({"925"});
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_EQ(field.integration(0, 0), 0.0f);
    EXPECT_FLOAT_EQ(field.integration(1, 0), 9.0f);
    EXPECT_FLOAT_EQ(field.integration(2, 0), 11.0f);
    // Reversed direction: the start cell's own cost (5) is never paid.
    const FlowField back = build_ok(cost, {{2, 0}});
    EXPECT_FLOAT_EQ(back.integration(1, 0), 5.0f);
    EXPECT_FLOAT_EQ(back.integration(0, 0), 7.0f);
}

TEST(Integration, DiagonalPaysFactorTimesTheCellEntered) {
    // The straight detours cost 9 + 7 = 16, so the diagonal onto the goal (sqrt2 * 7 = 9.9) wins.
    const CostField cost = grid_from_rows({
        ".9",
        "97",
    });
    const FlowField to_corner = build_ok(cost, {{1, 1}});
    EXPECT_NEAR(to_corner.integration(0, 0), kSqrt2 * 7.0, 1e-5);
    EXPECT_EQ(to_corner.direction(0, 0), Direction::south_east);
    EXPECT_FLOAT_EQ(to_corner.integration(1, 0), 7.0f);
    const FlowField from_corner = build_ok(cost, {{0, 0}});
    // From (1,1) to (0,0): the diagonal enters (0,0) at cost 1: sqrt2.
    EXPECT_NEAR(from_corner.integration(1, 1), kSqrt2, 1e-6);
    EXPECT_EQ(from_corner.direction(1, 1), Direction::north_west);
    // With cheap corner cells the two straight steps (1 + 7 = 8) beat the diagonal (9.9).
    const CostField cheap = grid_from_rows({
        "..",
        ".7",
    });
    const FlowField detour = build_ok(cheap, {{1, 1}});
    EXPECT_FLOAT_EQ(detour.integration(0, 0), 8.0f);
    EXPECT_EQ(detour.direction(0, 0), Direction::east);
}

// ---- REQUIRED 1: the fork example ------------------------------------------------------------

// S has exactly two first moves. Route A: step onto a (cost 8), then 1 to go (enter the goal).
// Route B: step onto b (cost 1), then 4 to go. S must take B (1 + 4 = 5 < 8 + 1 = 9) even though
// a's integration value (1) is lower than b's (4).
//
//   x:  0  1  2
//   y0: G  a  S        G=1 a=8 S=1
//   y1: p2 p1 b        p2=2 p1=1 b=1
TEST(Fork, FlowTakesTheCheaperTotalNotTheLowerNeighbour) {
    const CostField cost = grid_from_rows({
        "181",
        "211",
    });
    const Cell g{0, 0}, a{1, 0}, s{2, 0}, b{2, 1}, p1{1, 1}, p2{0, 1};
    const FlowField field = build_ok(cost, {g}, four_connected());
    EXPECT_FLOAT_EQ(field.integration(a.x, a.y), 1.0f);
    EXPECT_FLOAT_EQ(field.integration(p2.x, p2.y), 1.0f);
    EXPECT_FLOAT_EQ(field.integration(p1.x, p1.y), 3.0f);
    EXPECT_FLOAT_EQ(field.integration(b.x, b.y), 4.0f);
    ASSERT_LT(field.integration(a.x, a.y), field.integration(b.x, b.y));  // the trap
    EXPECT_FLOAT_EQ(field.integration(s.x, s.y), 5.0f);
    EXPECT_EQ(field.direction(s.x, s.y), Direction::south);
    EXPECT_EQ(field.next_index(s.x, s.y), b.y * 3 + b.x);
    // And the route continues b -> p1 -> p2 -> G.
    EXPECT_EQ(field.direction(b.x, b.y), Direction::west);
    EXPECT_EQ(field.direction(p1.x, p1.y), Direction::west);
    EXPECT_EQ(field.direction(p2.x, p2.y), Direction::north);
    EXPECT_EQ(field.direction(a.x, a.y), Direction::west);
}

// The same trap with eight directions: a single row, one goal at each end. a (cost 8) sits next
// to goal G1 (integration 1); b (cost 1) has 4 to go to G2 (q costs 2). S goes east, total 5.
TEST(Fork, EightConnectedSingleRow) {
    //  x: 0  1  2  3  4  5  6
    //     G1 a  S  b  p  q  G2
    const CostField cost = grid_from_rows({"1811121"});
    const FlowField field = build_ok(cost, {{0, 0}, {6, 0}});
    EXPECT_FLOAT_EQ(field.integration(1, 0), 1.0f);
    EXPECT_FLOAT_EQ(field.integration(3, 0), 4.0f);
    EXPECT_FLOAT_EQ(field.integration(2, 0), 5.0f);
    EXPECT_EQ(field.direction(2, 0), Direction::east);
}

// ---- REQUIRED 2: corner rule in the integration and in the flow ----------------------------

TEST(CornerRule, WallBesideTheDiagonalForcesTwoOrthogonalSteps) {
    // G #      S at (1,1); the diagonal S -> G passes the wall's corner.
    // . S
    const CostField cost = grid_from_rows({
        ".#",
        "..",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_FLOAT_EQ(field.integration(1, 1), 2.0f) << "the diagonal (sqrt2) cuts the wall's corner";
    EXPECT_EQ(field.direction(1, 1), Direction::west) << "the flow must not take the diagonal either";
    EXPECT_FALSE(is_diagonal(field.direction(1, 1)));
    EXPECT_EQ(field.direction(0, 1), Direction::north);
}

TEST(CornerRule, WallOnTheOtherSideToo) {
    const CostField cost = grid_from_rows({
        "..",
        "#.",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_FLOAT_EQ(field.integration(1, 1), 2.0f);
    EXPECT_EQ(field.direction(1, 1), Direction::north);
}

TEST(CornerRule, BothSidesWalledSealsTheDiagonal) {
    const CostField cost = grid_from_rows({
        ".#",
        "#.",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_EQ(field.integration(1, 1), kUnreachable);
    EXPECT_EQ(field.direction(1, 1), Direction::unreachable);
    EXPECT_EQ(field.next_index(1, 1), -1);
}

TEST(CornerRule, OpenSquareUsesTheDiagonal) {
    const CostField cost = grid_from_rows({
        "..",
        "..",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_NEAR(field.integration(1, 1), kSqrt2, 1e-6);
    EXPECT_EQ(field.direction(1, 1), Direction::north_west);
}

TEST(CornerRule, AllFourDiagonalsRespectTheRule) {
    // Goal in the centre of a 3x3 with walls at the four orthogonal neighbours' sides each time.
    for (int dir = 1; dir < 8; dir += 2) {
        CostField cost = std::move(CostField::create(3, 3).value());
        const int cx = 1 + kDirectionDx[dir];
        const int cy = 1 + kDirectionDy[dir];
        // Block the horizontal neighbour of the corner cell beside the centre.
        cost.set(cx, 1, kCostWall);
        const FlowField field = build_ok(cost, {{1, 1}});
        // Corner (cx, cy) must go via (1, cy): 1 + 1 = 2.
        EXPECT_FLOAT_EQ(field.integration(cx, cy), 2.0f) << "diagonal " << dir;
        EXPECT_FALSE(is_diagonal(field.direction(cx, cy))) << "diagonal " << dir;
        // The opposite corner is unaffected: sqrt2.
        EXPECT_NEAR(field.integration(2 - cx, 2 - cy), kSqrt2, 1e-6) << "diagonal " << dir;
    }
}

TEST(CornerRule, ExpensiveCornerCellsDoNotBlockTheDiagonal) {
    // Only walls block; a cost-254 corner cell still allows the diagonal.
    const CostField cost = grid_from_rows({
        ".Z",
        "Z.",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_NEAR(field.integration(1, 1), kSqrt2, 1e-6);
    EXPECT_EQ(field.direction(1, 1), Direction::north_west);
}

// ---- REQUIRED 3: sealing and reopening, builder reuse -----------------------------------------

TEST(Walls, SealedRoomIsUnreachableAndReopens) {
    CostField cost = grid_from_rows({
        "........",
        ".####...",
        ".#..#...",
        ".#..#...",
        ".##.#...",  // door at (3, 4)
        "........",
    });
    const std::vector<Cell> goals{{7, 0}};
    FieldBuilder builder;
    FlowField open;
    ASSERT_TRUE(builder.build(cost, goals, {}, open).ok());
    for (auto [x, y] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 3}, std::pair{3, 3}}) {
        EXPECT_TRUE(open.reachable(x, y));
    }
    const auto v0 = cost.version();
    cost.set(3, 4, kCostWall);  // seal the door
    EXPECT_GT(cost.version(), v0);
    FlowField sealed;
    ASSERT_TRUE(builder.build(cost, goals, {}, sealed).ok());
    for (auto [x, y] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{2, 3}, std::pair{3, 3}}) {
        EXPECT_FALSE(sealed.reachable(x, y)) << x << ", " << y;
        EXPECT_EQ(sealed.integration(x, y), kUnreachable);
        EXPECT_TRUE(std::isinf(sealed.integration(x, y)) && sealed.integration(x, y) > 0);
        EXPECT_EQ(sealed.direction(x, y), Direction::unreachable);
        EXPECT_EQ(sealed.vector(x, y), (Vec2{0, 0}));
        EXPECT_EQ(sealed.next_index(x, y), -1);
    }
    EXPECT_EQ(sealed.direction(3, 4), Direction::wall);
    EXPECT_EQ(sealed.integration(3, 4), kUnreachable);
    EXPECT_EQ(builder.settled_cells(), 48u - 12u - 4u);  // 48 cells, 12 walls, 4 cut off

    cost.set(3, 4, kCostPlain);  // reopen
    FlowField reopened;
    ASSERT_TRUE(builder.build(cost, goals, {}, reopened).ok());
    const auto ref = test::reference_distances(cost, goals, {});
    EXPECT_EQ(test::check_field(cost, goals, {}, reopened, ref, false), "");
    for (std::size_t i = 0; i < cost.size(); ++i) {
        EXPECT_EQ(reopened.integration()[i], open.integration()[i]) << i;
        EXPECT_EQ(reopened.directions()[i], open.directions()[i]) << i;
    }
}

TEST(Walls, ReusedBuilderMatchesAFreshOne) {
    FieldBuilder reused;
    for (std::uint32_t seed = 1; seed <= 30; ++seed) {
        const test::RandomCase c = test::make_random_case(seed * 7919u, 24);
        FlowField a;
        ASSERT_TRUE(reused.build(c.cost, c.goals, c.params, a).ok()) << c.description;
        FieldBuilder fresh;
        FlowField b;
        ASSERT_TRUE(fresh.build(c.cost, c.goals, c.params, b).ok()) << c.description;
        ASSERT_EQ(a.width(), b.width());
        ASSERT_EQ(a.height(), b.height());
        for (std::size_t i = 0; i < c.cost.size(); ++i) {
            ASSERT_EQ(a.integration()[i], b.integration()[i]) << c.description << ", cell " << i;
            ASSERT_EQ(a.directions()[i], b.directions()[i]) << c.description << ", cell " << i;
        }
        EXPECT_EQ(reused.settled_cells(), fresh.settled_cells());
    }
}

TEST(Walls, RebuildingIntoAnUsedFieldOfAnotherSizeReplacesIt) {
    FieldBuilder builder;
    FlowField field;
    const CostField big = std::move(CostField::create(20, 10).value());
    const CostField small = grid_from_rows({"...", ".#."});
    ASSERT_TRUE(builder.build(big, std::vector<Cell>{{5, 5}}, {}, field).ok());
    ASSERT_TRUE(builder.build(small, std::vector<Cell>{{0, 0}}, {}, field).ok());
    EXPECT_EQ(field.width(), 3);
    EXPECT_EQ(field.height(), 2);
    EXPECT_EQ(field.integration().size(), 6u);
    EXPECT_EQ(field.directions().size(), 6u);
    EXPECT_EQ(field.direction(1, 1), Direction::wall);
    EXPECT_FLOAT_EQ(field.integration(2, 1), 3.0f);  // (2,1) -> (2,0) -> (1,0) -> goal
}

TEST(Walls, WallsAreUnreachableWithWallDirection) {
    const CostField cost = grid_from_rows({
        "..#",
        "#..",
    });
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_EQ(field.direction(2, 0), Direction::wall);
    EXPECT_EQ(field.direction(0, 1), Direction::wall);
    EXPECT_EQ(field.integration(2, 0), kUnreachable);
    EXPECT_FALSE(field.reachable(0, 1));
    EXPECT_EQ(field.next_index(2, 0), -1);
    EXPECT_EQ(field.vector(2, 0), (Vec2{0, 0}));
}

// ---- REQUIRED 4: several goals --------------------------------------------------------------

TEST(MultiGoal, EachCellTakesTheNearerGoal) {
    CostField cost = grid_from_rows({
        "..........",
        "..F~~.....",
        "..#####...",
        "....Z.....",
        "..~~..##..",
        "..........",
    });
    const Cell g1{0, 0}, g2{9, 5};
    const FlowField both = build_ok(cost, {g1, g2});
    const FlowField only1 = build_ok(cost, {g1});
    const FlowField only2 = build_ok(cost, {g2});
    int to1 = 0, to2 = 0;
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) {
            const float want = std::min(only1.integration(x, y), only2.integration(x, y));
            EXPECT_EQ(both.integration(x, y), want) << x << ", " << y;
            if (!both.reachable(x, y)) continue;
            // Follow the flow: it ends at the goal with the smaller single-goal value.
            int cx = x, cy = y;
            for (int steps = 0; steps < 60 && both.direction(cx, cy) != Direction::goal; ++steps) {
                const auto next = both.next_index(cx, cy);
                ASSERT_GE(next, 0);
                cx = static_cast<int>(next % cost.width());
                cy = static_cast<int>(next / cost.width());
            }
            ASSERT_EQ(both.direction(cx, cy), Direction::goal);
            const float d1 = only1.integration(x, y);
            const float d2 = only2.integration(x, y);
            if (d1 < d2) {
                EXPECT_EQ((Cell{cx, cy}), g1) << "from " << x << ", " << y;
                ++to1;
            } else if (d2 < d1) {
                EXPECT_EQ((Cell{cx, cy}), g2) << "from " << x << ", " << y;
                ++to2;
            }
        }
    }
    EXPECT_GT(to1, 5);
    EXPECT_GT(to2, 5);
    EXPECT_EQ(both.direction(g1.x, g1.y), Direction::goal);
    EXPECT_EQ(both.direction(g2.x, g2.y), Direction::goal);
}

TEST(MultiGoal, DuplicateGoalsAreHarmless) {
    const CostField cost = std::move(CostField::create(5, 5).value());
    const FlowField once = build_ok(cost, {{2, 2}});
    const FlowField twice = build_ok(cost, {{2, 2}, {2, 2}, {2, 2}});
    for (std::size_t i = 0; i < cost.size(); ++i) {
        EXPECT_EQ(once.integration()[i], twice.integration()[i]);
        EXPECT_EQ(once.directions()[i], twice.directions()[i]);
    }
}

TEST(MultiGoal, GoalsOnBothSidesOfAWallServeTheirOwnSide) {
    const CostField cost = grid_from_rows({
        "..#...",
        "..#...",
        "..#...",
    });
    const FlowField field = build_ok(cost, {{0, 0}, {5, 2}});
    EXPECT_NEAR(field.integration(1, 2), 1 + kSqrt2, 1e-6);  // to (0, 0)
    EXPECT_NEAR(field.integration(3, 0), 2 * kSqrt2, 1e-6);  // to (5, 2)
    for (int y = 0; y < 3; ++y) {
        EXPECT_EQ(field.integration(2, y), kUnreachable);
        for (int x = 0; x < 6; ++x) {
            if (x == 2) continue;
            const auto next = field.next_index(x, y);
            if (next < 0) continue;
            EXPECT_EQ(next % 6 < 2, x < 2) << "flow from (" << x << ", " << y << ") crosses the wall";
        }
    }
}

// ---- REQUIRED 5: diagonal factors -------------------------------------------------------------

TEST(DiagonalFactor, OpenMapCornerToCorner) {
    const CostField cost = std::move(CostField::create(10, 10).value());
    struct Case {
        double factor;
        double expected;
    };
    for (const Case& c : {Case{kSqrt2, 9 * kSqrt2}, Case{1.4, 9 * 1.4}, Case{1.0, 9.0}, Case{2.0, 18.0}}) {
        FieldParams params;
        params.diagonal_factor = c.factor;
        const FlowField field = build_ok(cost, {{9, 9}}, params);
        EXPECT_NEAR(field.integration(0, 0), c.expected, 1e-5 * c.expected) << "factor " << c.factor;
        // Mixed path (0,0) -> (9,4): 4 diagonals + 5 straight.
        EXPECT_NEAR(field.integration(9 - 9, 9 - 4), 4 * c.factor + 5, 1e-5 * 20) << "factor " << c.factor;
    }
}

TEST(DiagonalFactor, DefaultIsSqrt2) {
    EXPECT_DOUBLE_EQ(FieldParams{}.diagonal_factor, std::sqrt(2.0));
    EXPECT_EQ(FieldParams{}.connectivity, Connectivity::eight);
    const CostField cost = std::move(CostField::create(10, 10).value());
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_NEAR(field.integration(9, 9), 9 * std::sqrt(2.0), 1e-5);
    EXPECT_NEAR(field.integration(9, 3), 3 * std::sqrt(2.0) + 6, 1e-5);
}

TEST(DiagonalFactor, Factor1_4ReproducesTextbookValues) {
    // The classic figure: 1.4 per diagonal on plain ground, 1 per straight step, with forest.
    const CostField cost = grid_from_rows({
        "....",
        ".FF.",
        "....",
    });
    const FlowField field = build_ok(cost, {{0, 0}}, factor(1.4));
    EXPECT_NEAR(field.integration(1, 1), 1.4, 1e-6);              // from the forest, entering the plain goal
    EXPECT_NEAR(field.integration(2, 2), 1 + 1.4 + 1, 1e-5);      // around the forest, not through it (5.6)
    EXPECT_NEAR(field.integration(3, 2), 1 + 1.4 + 1 + 1, 1e-5);  // 4.4
    EXPECT_NEAR(field.integration(2, 1), 1.4 + 1, 1e-5);          // (2,1) -> (1,0) -> goal
    const auto ref = test::reference_distances(cost, std::vector<Cell>{{0, 0}}, factor(1.4));
    EXPECT_EQ(test::check_field(cost, std::vector<Cell>{{0, 0}}, factor(1.4), field, ref, false), "");
}

TEST(DiagonalFactor, Factor1GivesChebyshevDistance) {
    const CostField cost = std::move(CostField::create(12, 9).value());
    const FlowField field = build_ok(cost, {{4, 3}}, factor(1.0));
    for (int y = 0; y < 9; ++y) {
        for (int x = 0; x < 12; ++x) {
            EXPECT_EQ(field.integration(x, y), static_cast<float>(std::max(std::abs(x - 4), std::abs(y - 3))));
        }
    }
}

TEST(DiagonalFactor, Factor2EqualsManhattanAndPrefersStraightMoves) {
    const CostField cost = std::move(CostField::create(7, 7).value());
    const FlowField field = build_ok(cost, {{3, 3}}, factor(2.0));
    for (int y = 0; y < 7; ++y) {
        for (int x = 0; x < 7; ++x) {
            EXPECT_EQ(field.integration(x, y), static_cast<float>(std::abs(x - 3) + std::abs(y - 3)));
            EXPECT_FALSE(is_diagonal(field.direction(x, y))) << x << ", " << y << ": ties go to straight moves";
        }
    }
}

TEST(DiagonalFactor, OutOfRangeOrNaNIsAnErrorAndLeavesTheOutputUnchanged) {
    const CostField cost = std::move(CostField::create(6, 4).value());
    const std::vector<Cell> goals{{1, 1}};
    FieldBuilder builder;
    FlowField field;
    ASSERT_TRUE(builder.build(cost, goals, {}, field).ok());
    const std::vector<float> before(field.integration().begin(), field.integration().end());
    const std::vector<Direction> dirs_before(field.directions().begin(), field.directions().end());
    for (double bad : {0.0, 0.5, 0.999, 2.001, 3.0, -1.4, std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity()}) {
        FieldParams params;
        params.diagonal_factor = bad;
        const auto r = builder.build(cost, std::vector<Cell>{{4, 2}}, params, field);
        ASSERT_FALSE(r.ok()) << "factor " << bad << " was accepted";
        EXPECT_NE(r.error().message.find("diagonal"), std::string::npos) << r.error().message;
        EXPECT_EQ(field.width(), 6);
        EXPECT_EQ(std::vector<float>(field.integration().begin(), field.integration().end()), before);
        EXPECT_EQ(std::vector<Direction>(field.directions().begin(), field.directions().end()), dirs_before);
        std::pmr::vector<float> layer{1.0f, 2.0f};
        EXPECT_FALSE(builder.build_integration(cost, std::vector<Cell>{{4, 2}}, params, layer).ok());
        EXPECT_EQ(layer, (std::pmr::vector<float>{1.0f, 2.0f}));
        EXPECT_FALSE(build_flow_field(cost, goals, params).ok());
    }
}

// ---- REQUIRED 6: four-connectivity ------------------------------------------------------------

TEST(FourConnected, ManhattanDistancesAndNoDiagonals) {
    const CostField cost = std::move(CostField::create(11, 8).value());
    const FlowField field = build_ok(cost, {{3, 5}}, four_connected());
    for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 11; ++x) {
            EXPECT_EQ(field.integration(x, y), static_cast<float>(std::abs(x - 3) + std::abs(y - 5)));
            EXPECT_FALSE(is_diagonal(field.direction(x, y))) << x << ", " << y;
        }
    }
    // Ties between two straight moves: E before S before W before N.
    EXPECT_EQ(field.direction(0, 0), Direction::east);    // E and S both optimal
    EXPECT_EQ(field.direction(10, 0), Direction::south);  // W and S both optimal: S first
    EXPECT_EQ(field.direction(10, 7), Direction::west);   // W and N: W first
    EXPECT_EQ(field.direction(0, 7), Direction::east);    // E and N: E first
}

TEST(FourConnected, NeverDiagonalOnWeightedMapsWithWalls) {
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        test::RandomCase c = test::make_random_case(seed * 131u + 5u, 30);
        c.params = four_connected();
        const FlowField field = build_ok(c.cost, c.goals, c.params);
        for (Direction d : field.directions()) ASSERT_FALSE(is_diagonal(d)) << c.description;
        const auto ref = test::reference_distances(c.cost, c.goals, c.params);
        EXPECT_EQ(test::check_field(c.cost, c.goals, c.params, field, ref, true), "") << c.description;
    }
}

TEST(FourConnected, IgnoresDiagonalOnlyConnections) {
    // The only link between the halves is a diagonal: four-connected sees two regions.
    const CostField cost = grid_from_rows({
        ".#",
        "#.",
    });
    const FlowField field = build_ok(cost, {{1, 1}}, four_connected());
    EXPECT_FALSE(field.reachable(0, 0));
}

// ---- Goal errors --------------------------------------------------------------------------------

TEST(Goals, ErrorsLeaveTheOutputUnchanged) {
    const CostField cost = grid_from_rows({
        "....",
        ".#..",
        "....",
    });
    FieldBuilder builder;
    FlowField field;
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
    const std::vector<float> before(field.integration().begin(), field.integration().end());
    struct Case {
        std::vector<Cell> goals;
        const char* keyword;
    };
    const std::vector<Case> cases = {
        {{}, "goal"},          {{{1, 1}}, "wall"},    {{{0, 0}, {1, 1}}, "wall"}, {{{-1, 0}}, "outside"},
        {{{4, 0}}, "outside"}, {{{0, 3}}, "outside"}, {{{0, -1}}, "outside"},     {{{2, 2}, {100000, 5}}, "outside"},
    };
    for (const Case& c : cases) {
        const auto r = builder.build(cost, c.goals, {}, field);
        ASSERT_FALSE(r.ok()) << c.goals.size() << " goal(s) accepted";
        EXPECT_NE(r.error().message.find(c.keyword), std::string::npos) << r.error().message;
        EXPECT_EQ(std::vector<float>(field.integration().begin(), field.integration().end()), before);
        EXPECT_EQ(field.direction(0, 0), Direction::goal);
        EXPECT_FALSE(build_flow_field(cost, c.goals).ok());
        std::pmr::vector<float> layer;
        EXPECT_FALSE(builder.build_integration(cost, c.goals, {}, layer).ok());
        EXPECT_TRUE(layer.empty());
    }
    // A wall goal's message names the cell.
    const auto r = build_flow_field(cost, std::vector<Cell>{{1, 1}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("1, 1"), std::string::npos) << r.error().message;
}

TEST(Goals, BuildIntegrationMatchesBuild) {
    for (std::uint32_t seed = 0; seed < 10; ++seed) {
        const test::RandomCase c = test::make_random_case(seed + 1000u, 30);
        FieldBuilder builder;
        FlowField field;
        ASSERT_TRUE(builder.build(c.cost, c.goals, c.params, field).ok());
        std::pmr::vector<float> layer;
        ASSERT_TRUE(builder.build_integration(c.cost, c.goals, c.params, layer).ok());
        ASSERT_EQ(layer.size(), c.cost.size());
        for (std::size_t i = 0; i < layer.size(); ++i) ASSERT_EQ(layer[i], field.integration()[i]) << c.description;
    }
}

TEST(Goals, SingleCellMap) {
    const CostField cost = grid_from_rows({"Z"});
    const FlowField field = build_ok(cost, {{0, 0}});
    EXPECT_EQ(field.integration(0, 0), 0.0f);
    EXPECT_EQ(field.direction(0, 0), Direction::goal);
    EXPECT_EQ(field.next_index(0, 0), -1);
}

TEST(Goals, SettledCellsCountsReachableCells) {
    const CostField cost = grid_from_rows({
        "...#..",
        "...#..",
        "...#..",
    });
    FieldBuilder builder;
    FlowField field;
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}}, {}, field).ok());
    EXPECT_EQ(builder.settled_cells(), 9u);
    ASSERT_TRUE(builder.build(cost, std::vector<Cell>{{0, 0}, {5, 2}}, {}, field).ok());
    EXPECT_EQ(builder.settled_cells(), 15u);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// The diagonal factor is checked in 4-direction mode too: a NaN or 5.0 is a caller's bug either way.
TEST(FourConnected, BadDiagonalFactorIsStillRefused) {
    CostField cost = std::move(CostField::create(4, 4).value());
    const Cell goal{0, 0};
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), 5.0, 0.5}) {
        FieldParams p;
        p.connectivity = Connectivity::four;
        p.diagonal_factor = bad;
        EXPECT_FALSE(build_flow_field(cost, std::span<const Cell>(&goal, 1), p).ok()) << bad;
    }
}

}  // namespace
}  // namespace tide
