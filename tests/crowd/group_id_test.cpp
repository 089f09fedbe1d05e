// Group handles carry a generation, as agent handles do: the id of a removed group is refused by
// every call that takes one, also once a new group holds its slot, and never reads or changes
// that new group.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"

namespace tide {
namespace {

std::shared_ptr<const FlowField> field_toward(const CostField& cost, Cell goal) {
    auto f = build_flow_field(cost, std::span<const Cell>(&goal, 1));
    EXPECT_TRUE(f.ok());
    return std::make_shared<const FlowField>(std::move(f.value()));
}

TEST(CrowdGroupIds, AStaleGroupIdIsRefusedOnceItsSlotHoldsANewGroup) {
    CostField cost = std::move(CostField::create(20, 10).value());
    const auto east = field_toward(cost, {18, 5});
    const auto west = field_toward(cost, {1, 5});
    Crowd crowd(cost);
    const GroupId keep = crowd.add_group(east).value();
    const GroupId stale = crowd.add_group(west, 1, 3).value();
    ASSERT_TRUE(crowd.remove_group(stale).ok());
    const GroupId fresh = crowd.add_group(east, 2, 0).value();
    ASSERT_EQ(fresh.index, stale.index) << "the free slot is reused";
    EXPECT_NE(fresh.generation, stale.generation);
    EXPECT_NE(fresh, stale);
    EXPECT_TRUE(crowd.has_group(fresh));
    EXPECT_FALSE(crowd.has_group(stale));

    AgentParams big = crowd.default_agent_params();
    big.radius = 0.9f;
    const AgentId unit = crowd.add_agent({5.5f, 5.5f}, fresh, big).value();
    const AgentId walker = crowd.add_agent({10.5f, 5.5f}, keep).value();
    EXPECT_EQ(crowd.group(unit), fresh);
    EXPECT_EQ(crowd.group(walker), keep);

    // Reads of the stale id answer as for an unknown group, not with the new group's values.
    EXPECT_EQ(crowd.unit_size(stale), 0);
    EXPECT_EQ(crowd.movement_class(stale), 0);
    EXPECT_EQ(crowd.group_size(stale), 0u);
    EXPECT_FALSE(crowd.group_field(stale));
    EXPECT_EQ(crowd.group_steering(stale), nullptr);
    EXPECT_FALSE(crowd.group_exit(stale));
    EXPECT_FALSE(crowd.arrival_region(stale).active);
    EXPECT_TRUE(crowd.in_arrival_region(stale, 5, 5)) << "an unknown group has no region to stay out of";

    // Calls with the stale id fail with not_found, as they do with a stale agent handle.
    EXPECT_EQ(crowd.add_agent({3.5f, 3.5f}, stale).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_agent_group(walker, stale).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_agent_group(walker, stale, crowd.default_agent_params()).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_group_movement_class(stale, 3).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_group_field(stale, west).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_group_field(stale, FieldView(west)).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_group_steering(stale, west).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.set_group_exit(stale, true).error().code, ErrorCode::not_found);
    EXPECT_EQ(crowd.remove_group(stale).error().code, ErrorCode::not_found);
    const Result<void> refused = crowd.remove_group(stale);
    EXPECT_NE(refused.error().message.find("generation"), std::string::npos) << refused.error().message;

    // None of them touched the group in the slot now, nor moved anyone.
    EXPECT_EQ(crowd.unit_size(fresh), 2);
    EXPECT_EQ(crowd.movement_class(fresh), 0);
    EXPECT_EQ(crowd.group_size(fresh), 1u);
    EXPECT_EQ(crowd.group_field(fresh).flat(), east);
    EXPECT_EQ(crowd.group_steering(fresh), nullptr);
    EXPECT_FALSE(crowd.group_exit(fresh));
    EXPECT_EQ(crowd.group(walker), keep);
    EXPECT_EQ(crowd.group_size(keep), 1u);
    EXPECT_EQ(crowd.size(), 2u);

    // Bulk reads hand out the live ids, generations included.
    std::vector<GroupId> groups(crowd.size());
    AgentBuffers out;
    out.groups = groups;
    ASSERT_TRUE(crowd.read_agents(out).ok());
    EXPECT_EQ(groups, (std::vector<GroupId>{fresh, keep}));

    // Removed again, the slot's next group gets yet another generation; the older ids stay refused.
    ASSERT_TRUE(crowd.remove_agent(unit).ok());
    ASSERT_TRUE(crowd.remove_group(fresh).ok());
    const GroupId third = crowd.add_group(west).value();
    EXPECT_EQ(third.index, stale.index);
    EXPECT_NE(third, fresh);
    EXPECT_NE(third, stale);
    EXPECT_FALSE(crowd.has_group(fresh));
    EXPECT_FALSE(crowd.has_group(stale));
    EXPECT_TRUE(crowd.set_agent_group(walker, third).ok());
    EXPECT_EQ(crowd.group(walker), third);

    // An id that was never handed out: the next slot, or a generation the slot has not reached.
    EXPECT_FALSE(crowd.has_group(GroupId{third.index + 1, 0}));
    EXPECT_FALSE(crowd.has_group(GroupId{third.index, third.generation + 1}));
    EXPECT_EQ(crowd.set_agent_group(walker, GroupId{third.index, third.generation + 1}).error().code,
              ErrorCode::not_found);
}

}  // namespace
}  // namespace tide
