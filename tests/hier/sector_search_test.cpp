// SectorSearch (src/hier, internal): a lowering from a preset field writes back only the cells it
// settles (write_lowered), which must equal what write_field writes for the whole rectangle, and
// both must equal a search from scratch with all the seeds (up to the float rounding of the preset).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sector_search.hpp"
#include "tide/generate.hpp"

namespace tide {
namespace {

using hier_detail::SectorSearch;

struct Output {
    std::vector<float> values;
    std::vector<Direction> directions;
};

TEST(SectorSearch, ALoweringWritesBackExactlyWhatAFullWriteWould) {
    int lowered_cells = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int side = 16 + static_cast<int>(seed % 3) * 8;
        auto made = generate_random_map({side + 8, side + 8, 0.20, 0.15, 0.07, seed});
        ASSERT_TRUE(made);
        const CostField& cost = *made;
        FieldParams params;
        if (seed % 5 == 0) params.connectivity = Connectivity::four;
        const int x0 = 4, y0 = 4, x1 = 4 + side, y1 = 4 + side;
        const std::size_t n = static_cast<std::size_t>(side) * side;
        SplitMix64 rng{seed};
        // First build: the east frame seeded at high values.
        std::vector<std::pair<Cell, double>> first, later;
        for (int y = y0; y < y1; ++y) first.push_back({{x1, y}, 200.0 + 3.0 * (y - y0)});
        // Later seeds: a few cells of the west frame and one cell inside, lower than the first ones.
        for (int k = 0; k < 4; ++k) {
            later.push_back({{x0 - 1, y0 + static_cast<int>(rng.next() % static_cast<std::uint64_t>(side))},
                             20.0 + 50.0 * rng.uniform()});
        }
        later.push_back({{x0 + side / 2, y0 + side / 3}, 120.0});

        SectorSearch search;
        search.load(cost, x0, y0, x1, y1, params);
        for (const auto& [c, v] : first) search.seed(c.x, c.y, v);
        search.run();
        Output old{std::vector<float>(n), std::vector<Direction>(n)};
        search.write_field(old.values, old.directions);

        // The lowering, written both ways.
        search.load(cost, x0, y0, x1, y1, params);
        search.preset(old.values, old.directions);
        for (const auto& [c, v] : first) search.seed(c.x, c.y, v);
        for (const auto& [c, v] : later) search.seed(c.x, c.y, v);
        search.run();
        Output full{std::vector<float>(n), std::vector<Direction>(n)};
        search.write_field(full.values, full.directions);
        Output sparse = old;
        search.write_lowered(sparse.values, sparse.directions);
        ASSERT_EQ(std::memcmp(full.values.data(), sparse.values.data(), n * sizeof(float)), 0) << "seed " << seed;
        ASSERT_EQ(full.directions, sparse.directions) << "seed " << seed;
        for (std::size_t i = 0; i < n; ++i) lowered_cells += std::memcmp(&old.values[i], &full.values[i], 4) != 0;

        // From scratch with every seed: the same values.
        search.load(cost, x0, y0, x1, y1, params);
        for (const auto& [c, v] : first) search.seed(c.x, c.y, v);
        for (const auto& [c, v] : later) search.seed(c.x, c.y, v);
        search.run();
        Output fresh{std::vector<float>(n), std::vector<Direction>(n)};
        search.write_field(fresh.values, fresh.directions);
        for (std::size_t i = 0; i < n; ++i) {
            const float a = fresh.values[i], b = full.values[i];
            if (std::isinf(a) || std::isinf(b)) {
                ASSERT_EQ(a, b) << "seed " << seed << " cell " << i;
            } else {
                ASSERT_NEAR(a, b, 1e-4 * std::max(1.0f, a)) << "seed " << seed << " cell " << i;
            }
        }
    }
    // The later seeds must have lowered something, or the comparison above proves nothing.
    EXPECT_GT(lowered_cells, 1000);
}

}  // namespace
}  // namespace tide
