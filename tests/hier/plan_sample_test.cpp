// HierarchicalField::sample() keeps FlowField::sample()'s wall-safe guarantee on plans: in routed
// sectors (sector fields) and in sectors without a field (the coarse direction turned to a legal
// move), on 200 random weighted maps with small sectors; the plain blend fails the same check.

#include <gtest/gtest.h>

#include <memory>

#include "support/test_maps.hpp"
#include "tide/hierarchy.hpp"
#include "tide/sample_check.hpp"
#include "tide/steering.hpp"

namespace tide {
namespace {

TEST(PlanSample, WallSafeOn200RandomMaps) {
    std::size_t positions = 0, blend_faults = 0, routed_maps = 0;
    for (std::uint32_t seed = 0; seed < 200; ++seed) {
        const test::RandomCase c = test::make_random_case(7000 + seed, 40);
        SectorConfig sectors;
        sectors.sector_size = 16;
        sectors.portal_limit = 8;
        sectors.params = c.params;
        auto graph = SectorGraph::build(c.cost, sectors);
        ASSERT_TRUE(graph.ok()) << c.description << ": " << graph.error().message;
        auto made = HierarchicalField::create(c.cost, *graph, c.goals);
        ASSERT_TRUE(made.ok()) << c.description << ": " << made.error().message;
        auto plan = std::make_shared<HierarchicalField>(std::move(*made));
        // Route a few starts: some sectors get fields, others keep the coarse direction.
        std::vector<Cell> starts;
        for (int y = 0; y < c.cost.height() && starts.size() < 3; y += 7)
            for (int x = 0; x < c.cost.width() && starts.size() < 3; x += 11)
                if (c.cost.passable(x, y)) starts.push_back({x, y});
        ASSERT_TRUE(plan->route(starts).ok()) << c.description;
        routed_maps += plan->built_sectors() > 0 ? 1 : 0;
        const FieldView view{std::shared_ptr<const HierarchicalField>(plan)};
        const SampleCheck check = check_sample_safety(view, 16);
        positions += check.positions;
        ASSERT_EQ(check.faults, 0u) << c.description << ": (" << check.first[0].position.x << ", "
                                    << check.first[0].position.y << ") direction (" << check.first[0].direction.x
                                    << ", " << check.first[0].direction.y << ") wall (" << check.first[0].wall.x << ", "
                                    << check.first[0].wall.y << ")"
                                    << (check.first[0].no_direction ? " no direction" : "");
        blend_faults += check_sample_safety(
                            view, [&](Vec2 p) { return plan->blend(p); }, 16)
                            .faults;
        // A host's straightened steer() on the plan keeps the guarantee too.
        auto steering = Steering::create(view, c.cost);
        ASSERT_TRUE(steering.ok()) << steering.error().message;
        const SampleCheck steer = check_sample_safety(
            view, [&](Vec2 p) { return steering->steer(p); }, 4);
        ASSERT_EQ(steer.faults, 0u) << c.description << ": steer() at (" << steer.first[0].position.x << ", "
                                    << steer.first[0].position.y << ")";
    }
    EXPECT_GT(routed_maps, 100u);
    EXPECT_GT(positions, 200000u);
    EXPECT_GT(blend_faults, 0u) << "the plain blend should fail the check somewhere";
}

}  // namespace
}  // namespace tide
