// nearest_passable: the ring search against a brute-force scan.

#include <gtest/gtest.h>

#include <optional>

#include "tide/cost_field.hpp"

namespace tide {
namespace {

TEST(NearestPassable, MatchesABruteForceScan) {
    // Random maps, many query points (some off the map): the ring search must find the same cell
    // as a full row-major scan for the least squared distance.
    std::uint64_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int>(seed >> 33);
    };
    for (int trial = 0; trial < 40; ++trial) {
        const int w = 1 + next() % 30, h = 1 + next() % 30;
        CostField cost = CostField::create(w, h).value();
        const int wall_pct = 60 + next() % 40;  // mostly walls, so the search has to go far
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                if (next() % 100 < wall_pct) cost.set(x, y, kCostWall);
            }
        }
        for (int q = 0; q < 20; ++q) {
            const Cell from{next() % (w + 10) - 5, next() % (h + 10) - 5};
            std::optional<Cell> want;
            long best = 0;
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    if (!cost.passable(x, y)) continue;
                    const long d =
                        static_cast<long>(x - from.x) * (x - from.x) + static_cast<long>(y - from.y) * (y - from.y);
                    if (!want || d < best) {
                        want = Cell{x, y};
                        best = d;
                    }
                }
            }
            const auto got = nearest_passable(cost, from);
            ASSERT_EQ(got.has_value(), want.has_value());
            if (want) {
                EXPECT_EQ(got->x, want->x) << "trial " << trial << " from " << from.x << "," << from.y;
                EXPECT_EQ(got->y, want->y) << "trial " << trial << " from " << from.x << "," << from.y;
            }
        }
    }
}

TEST(NearestPassable, FarOffTheMap) {
    CostField cost = CostField::create(3, 3, kCostWall).value();
    cost.set(2, 2, kCostPlain);
    const auto got = nearest_passable(cost, {-1000, 5000});
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, (Cell{2, 2}));
    EXPECT_FALSE(nearest_passable(CostField::create(4, 4, kCostWall).value(), {1, 1}).has_value());
}

}  // namespace
}  // namespace tide
