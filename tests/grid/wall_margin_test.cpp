// Wall margins against a brute-force scan of every cell's square, and refused input.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "support/test_maps.hpp"
#include "tide/cost_field.hpp"

namespace tide {
namespace {

TEST(WallMargin, MatchesBruteForceSquares) {
    std::mt19937 rng(5);
    for (int round = 0; round < 200; ++round) {
        const int w = test::random_int(rng, 1, 30), h = test::random_int(rng, 1, 30);
        CostField cost = std::move(CostField::create(w, h).value());
        const int walls = test::random_int(rng, 0, 40);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                cost.set(x, y,
                         test::random_int(rng, 0, 99) < walls ? kCostWall
                                                              : static_cast<Cost>(test::random_int(rng, 1, 254)));
        const WallMargin margin{test::random_int(rng, 0, 4), test::random_int(rng, 0, 253)};
        auto got = wall_margin_cost_field(cost, margin);
        ASSERT_TRUE(got.ok()) << got.error().message;
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const Cost c = cost.at(x, y);
                bool near = false;
                for (int dy = -margin.radius; dy <= margin.radius; ++dy)
                    for (int dx = -margin.radius; dx <= margin.radius; ++dx)
                        near = near || !cost.passable(x + dx, y + dy);  // off the map counts as a wall
                const int want = c == kCostWall             ? kCostWall
                                 : near && margin.extra > 0 ? std::min<int>(kCostMax, c + margin.extra)
                                                            : c;
                ASSERT_EQ(static_cast<int>(got->at(x, y)), want)
                    << "round " << round << " (" << x << ", " << y << ") r=" << margin.radius << " c=" << margin.extra;
            }
        }
    }
}

TEST(WallMargin, LeavesTheMapAlone) {
    CostField cost = test::grid_from_rows({".....", "..#..", "....."});
    const auto before = std::vector<Cost>(cost.cells().begin(), cost.cells().end());
    auto m = wall_margin_cost_field(cost, {1, 5});
    ASSERT_TRUE(m.ok());
    EXPECT_TRUE(std::equal(before.begin(), before.end(), cost.cells().begin()));
    EXPECT_EQ(m->at(1, 1), 6);
    EXPECT_EQ(m->at(2, 1), kCostWall);
}

TEST(WallMargin, RefusesBadInput) {
    CostField cost = test::grid_from_rows({"...."});
    auto msg = [&](WallMargin m) {
        auto r = wall_margin_cost_field(cost, m);
        return r.ok() ? std::string("(ok)") : r.error().message;
    };
    EXPECT_EQ(msg({-1, 3}), "wall margin radius -1 is outside 0..64");
    EXPECT_EQ(msg({65, 3}), "wall margin radius 65 is outside 0..64");
    EXPECT_EQ(msg({2, 254}), "wall margin extra cost 254 is outside 0..253");
    EXPECT_EQ(msg({2, -3}), "wall margin extra cost -3 is outside 0..253");
    EXPECT_EQ(msg({64, 253}), "(ok)");
}

}  // namespace
}  // namespace tide
