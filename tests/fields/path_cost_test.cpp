// flow_path_cost(s): summing the moves along the flow in double precision gives the reference
// least costs to ~1e-12, tighter than the builder's fixed point (1.5e-8).

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/reference.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

TEST(PathCost, MatchesReferenceToDoublePrecision) {
    for (std::uint32_t seed = 100; seed < 160; ++seed) {
        test::RandomCase c = test::make_random_case(seed, 40);
        auto field = build_flow_field(c.cost, c.goals, c.params);
        ASSERT_TRUE(field.ok()) << field.error().message;
        const auto ref = test::reference_distances(c.cost, c.goals, c.params);
        std::vector<double> all(ref.size());
        flow_path_costs(c.cost, *field, c.params, all);
        for (int y = 0; y < c.cost.height(); ++y) {
            for (int x = 0; x < c.cost.width(); ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * c.cost.width() + x;
                const double one = flow_path_cost(c.cost, *field, c.params, {x, y});
                if (std::isinf(ref[i])) {
                    EXPECT_TRUE(std::isinf(all[i])) << c.description;
                    EXPECT_TRUE(std::isinf(one)) << c.description;
                } else {
                    // Same moves, summed from opposite ends: equal up to rounding.
                    EXPECT_NEAR(one, all[i], 1e-12 * std::max(1.0, ref[i])) << c.description;
                    EXPECT_NEAR(all[i], ref[i], 1e-12 * std::max(1.0, ref[i]))
                        << c.description << " at " << x << "," << y;
                }
            }
        }
    }
}

TEST(PathCost, OneDiagonalAndOneStraightMoveCostOnePlusRootTwo) {
    // (0,0) -> (2,1) on open ground: one diagonal and one straight move = 1 + sqrt 2.
    CostField cost = test::grid_from_rows({"...", "..."});
    const Cell goal{2, 1};
    auto field = build_flow_field(cost, std::span<const Cell>(&goal, 1));
    ASSERT_TRUE(field.ok());
    EXPECT_DOUBLE_EQ(flow_path_cost(cost, *field, {}, {0, 0}), 1.0 + std::sqrt(2.0));
}

}  // namespace
}  // namespace tide
