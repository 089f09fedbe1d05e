// REQUIRED 8: random weighted maps against the reference Dijkstra in tests/support.

#include <gtest/gtest.h>

#include <cmath>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

// Integer move costs (four-connected, factor 1 or 2) make ties exact, so the tie order is checked too.
bool exact_ties(const FieldParams& params) {
    return params.connectivity == Connectivity::four || params.diagonal_factor == 1.0 || params.diagonal_factor == 2.0;
}

class RandomMaps : public ::testing::TestWithParam<int> {};

// 300 cases in 6 shards of 50 so a failure names a narrow seed range and shards run in parallel.
TEST_P(RandomMaps, MatchReferenceDijkstra) {
    const int shard = GetParam();
    FieldBuilder builder;  // reused across cases on purpose
    for (int i = 0; i < 50; ++i) {
        const auto seed = static_cast<std::uint32_t>(shard * 50 + i);
        const test::RandomCase c = test::make_random_case(seed, 40);
        FlowField field;
        const auto built = builder.build(c.cost, c.goals, c.params, field);
        ASSERT_TRUE(built.ok()) << c.description << ": " << built.error().message;
        const auto ref = test::reference_distances(c.cost, c.goals, c.params);

        std::size_t reachable = 0;
        for (double d : ref) reachable += std::isfinite(d) ? 1 : 0;
        EXPECT_EQ(builder.settled_cells(), reachable) << c.description;

        const std::string faults = test::check_field(c.cost, c.goals, c.params, field, ref, exact_ties(c.params));
        ASSERT_EQ(faults, "") << c.description;
        ASSERT_EQ(test::check_paths_reach_goal(field), "") << c.description;

        std::pmr::vector<float> layer;
        ASSERT_TRUE(builder.build_integration(c.cost, c.goals, c.params, layer).ok());
        for (std::size_t k = 0; k < layer.size(); ++k) ASSERT_EQ(layer[k], field.integration()[k]) << c.description;
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomMaps, ::testing::Range(0, 6));

// Maps with large open areas and few walls: long diagonal runs where rounding could accumulate.
TEST(RandomMapsLarge, OpenWeightedMapsUpTo200) {
    for (std::uint32_t seed = 0; seed < 6; ++seed) {
        std::mt19937 rng(seed + 99);
        const int w = test::random_int(rng, 100, 200);
        const int h = test::random_int(rng, 100, 200);
        CostField cost = std::move(CostField::create(w, h).value());
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const int r = test::random_int(rng, 0, 99);
                cost.set(x, y,
                         r < 3    ? kCostWall
                         : r < 60 ? kCostPlain
                                  : static_cast<Cost>(test::random_int(rng, 1, 254)));
            }
        }
        const std::vector<Cell> goals{{w / 2, h / 2}};
        cost.set(w / 2, h / 2, kCostPlain);
        FieldParams params;
        if (seed % 2 == 1) params.diagonal_factor = 1.4;
        auto field = build_flow_field(cost, goals, params);
        ASSERT_TRUE(field.ok());
        const auto ref = test::reference_distances(cost, goals, params);
        EXPECT_EQ(test::check_field(cost, goals, params, *field, ref, false), "") << "seed " << seed;
        EXPECT_EQ(test::check_paths_reach_goal(*field), "") << "seed " << seed;
    }
}

// The reference itself, on hand-computed values, so the property test cannot agree on a wrong answer.
//   G # .
//   . . .
//   . . 5
TEST(ReferenceDijkstra, HandComputedValues) {
    CostField cost = std::move(CostField::create(3, 3).value());
    cost.set(1, 0, kCostWall);
    cost.set(2, 2, 5);
    const std::vector<Cell> goals{{0, 0}};
    const double r2 = std::sqrt(2.0);
    const auto d = test::reference_distances(cost, goals, FieldParams{});
    const std::vector<double> want{0.0, INFINITY, 4.0, 1.0, 2.0, 3.0, 2.0, 1.0 + r2, 2.0 + r2};
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isinf(want[i])) {
            EXPECT_TRUE(std::isinf(d[i])) << "cell " << i;
        } else {
            EXPECT_NEAR(d[i], want[i], 1e-12) << "cell " << i;
        }
    }

    FieldParams four;
    four.connectivity = Connectivity::four;
    const auto d4 = test::reference_distances(cost, goals, four);
    const std::vector<double> want4{0.0, INFINITY, 4.0, 1.0, 2.0, 3.0, 2.0, 3.0, 4.0};
    for (std::size_t i = 0; i < want4.size(); ++i) EXPECT_EQ(d4[i], want4[i]) << "cell " << i;

    // The goal's own cost is paid only when entering it.
    cost.set(0, 0, 9);
    const auto d9 = test::reference_distances(cost, goals, four);
    EXPECT_EQ(d9[0], 0.0);
    EXPECT_EQ(d9[3], 9.0);
}

}  // namespace
}  // namespace tide
