// The crowd's groups: adding and removing them, the field or plan each follows (and the one its
// units steer by), exits, arrival regions as the host reads them, and moving agents between groups.

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "arrival.hpp"
#include "look_ahead.hpp"
#include "tide/crowd.hpp"

#include "formation.hpp"

namespace tide {

namespace {

Result<void> check_unit_size(int unit_size) {
    if (unit_size < 1 || unit_size > kMaxUnitSize) {
        return Error{"unit size " + std::to_string(unit_size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
    }
    return {};
}

}  // namespace

Error Crowd::unknown_group(GroupId group) {
    return Error{ErrorCode::not_found, "group " + std::to_string(group.index) + " (generation " +
                                           std::to_string(group.generation) + ") is not a live group"};
}

Result<GroupId> Crowd::add_group(std::shared_ptr<const FlowField> field, int unit_size, std::uint8_t movement_class) {
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    if (auto r = check_unit_size(unit_size); !r) return r.error();
    const bool sight = sees_along(*field, unit_size);
    return add_group_field(GroupField{FieldView(std::move(field)), sight, {}, {}, false}, unit_size, movement_class);
}

Result<GroupId> Crowd::add_group(std::shared_ptr<const HierarchicalField> field, int unit_size,
                                 std::uint8_t movement_class) {
    if (!field || field->graph().width() != cost_->width() || field->graph().height() != cost_->height()) {
        return Error{"group plan must be made on the crowd's " + std::to_string(cost_->width()) + "x" +
                     std::to_string(cost_->height()) + " map"};
    }
    const bool sight = detail::plans_on(*field);
    return add_group_field(GroupField{FieldView(std::move(field)), sight, {}, {}, false}, unit_size, movement_class);
}

Result<GroupId> Crowd::add_group(FieldView view, int unit_size, std::uint8_t movement_class) {
    if (view.flat()) return add_group(view.flat(), unit_size, movement_class);
    if (view.plan()) return add_group(view.plan(), unit_size, movement_class);
    return Error{"an empty field view: the group needs a field or a plan"};
}

FieldView Crowd::group_field(GroupId group) const {
    return has_group(group) ? groups_[group.index].field : FieldView{};
}

// The goal cells of a goal field or plan, for the arrival regions (none for flee fields).
std::vector<std::uint32_t> Crowd::goal_cells(const GroupField& f) {
    std::vector<std::uint32_t> out;
    if (f.field.flat() && f.field.kind() == FieldKind::goal) {
        const auto dirs = f.field.flat()->directions();
        for (std::size_t i = 0; i < dirs.size(); ++i)
            if (dirs[i] == Direction::goal) out.push_back(static_cast<std::uint32_t>(i));
    } else if (const auto& plan = f.field.plan()) {
        const auto w = static_cast<std::uint32_t>(plan->graph().width());
        for (const Cell c : plan->goals())
            out.push_back(static_cast<std::uint32_t>(c.y) * w + static_cast<std::uint32_t>(c.x));
    }
    return out;
}

Result<GroupId> Crowd::add_group_field(GroupField field, int unit_size, std::uint8_t movement_class) {
    if (auto r = check_unit_size(unit_size); !r) return r.error();
    field.goals = goal_cells(field);
    regions_stale_ = true;
    if (!free_groups_.empty()) {
        const std::uint32_t g = free_groups_.back();
        free_groups_.pop_back();
        groups_[g] = std::move(field);
        group_unit_[g] = static_cast<std::uint8_t>(unit_size);
        group_class_[g] = movement_class;
        group_members_[g] = 0;
        return GroupId{g, group_generation_[g]};
    }
    groups_.push_back(std::move(field));
    group_unit_.push_back(static_cast<std::uint8_t>(unit_size));
    group_class_.push_back(movement_class);
    group_members_.push_back(0);
    group_generation_.push_back(0);
    return GroupId{static_cast<std::uint32_t>(groups_.size() - 1), 0};
}

// Line of sight may overrule a flat field built on the terrain itself, or for units of size s on
// the terrain's sized costs (sized_cost_field): kept per size with the terrain they were made from,
// and made again when the terrain's cells differ (compared byte for byte: a host may write them
// through CostField::cells(), which does not change the version).
bool Crowd::sees_along(const FlowField& field, int unit_size) {
    if (unit_size == 1) return detail::built_on(field, *cost_);
    const std::size_t k = static_cast<std::size_t>(unit_size);
    if (sized_terrain_.size() <= k) sized_terrain_.resize(k + 1);
    SizedTerrain& sized = sized_terrain_[k];
    const std::span<const Cost> now = cost_->cells();
    if (!sized.cost || sized.source.size() != now.size() || sized.source.width() != cost_->width() ||
        !std::equal(now.begin(), now.end(), sized.source.cells().begin())) {
        sized.cost = std::make_unique<CostField>(sized_cost_field(*cost_, unit_size).value());  // size checked
        sized.source = *cost_;
    }
    return detail::built_on(field, *sized.cost);
}

int Crowd::unit_size(GroupId group) const noexcept {
    return has_group(group) ? group_unit_[group.index] : 0;
}

std::uint8_t Crowd::movement_class(GroupId group) const noexcept {
    return has_group(group) ? group_class_[group.index] : 0;
}

Result<void> Crowd::set_group_movement_class(GroupId group, std::uint8_t movement_class) {
    if (!has_group(group)) return unknown_group(group);
    for (std::size_t e = 0; e < live_; ++e) {
        const std::uint8_t own = movement_class_[a_.slot[e]];
        if (a_.group[e] == group.index && own != movement_class) {
            return Error{ErrorCode::invalid_argument,
                         "group " + std::to_string(group.index) + " cannot become movement class " +
                             std::to_string(movement_class) + ": agent " + std::to_string(a_.slot[e]) +
                             " in it is of movement class " + std::to_string(own)};
        }
    }
    group_class_[group.index] = movement_class;
    return {};
}

// An agent of `movement_class` may be in `group` only when the classes agree: the group's field
// was planned for its class's costs and size, and another class would walk where it cannot.
Result<void> Crowd::check_class(std::uint32_t group, std::uint8_t movement_class, const char* what) const {
    if (group_class_[group] == movement_class) return {};
    return Error{ErrorCode::invalid_argument,
                 std::string(what) + " of movement class " + std::to_string(movement_class) + " cannot join group " +
                     std::to_string(group) + " of movement class " + std::to_string(group_class_[group])};
}

bool Crowd::has_group(GroupId group) const noexcept {
    return group.index < groups_.size() && static_cast<bool>(groups_[group.index]) &&
           group_generation_[group.index] == group.generation;
}

std::size_t Crowd::group_size(GroupId group) const noexcept {
    return has_group(group) ? group_members_[group.index] : 0;
}

Result<void> Crowd::remove_group(GroupId group) {
    if (!has_group(group)) return unknown_group(group);
    if (group_members_[group.index] > 0) {
        return Error{"group " + std::to_string(group.index) + " still has " +
                     std::to_string(group_members_[group.index]) + " agents"};
    }
    groups_[group.index] = GroupField{};
    if (group.index < formations_->groups.size()) formations_->groups[group.index] = detail::GroupFormation{};
    ++group_generation_[group.index];  // its id is stale from now on
    free_groups_.push_back(group.index);
    return {};
}

Result<void> Crowd::set_agent_group(AgentId id, GroupId group) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (!has_group(group)) return unknown_group(group);
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(group.index, movement_class_[id.index], agent.c_str()); !r) return r;
    const std::size_t e = index_[id.index];
    if (a_.group[e] == group.index) return {};
    --group_members_[a_.group[e]];
    ++group_members_[group.index];
    a_.group[e] = group.index;
    a_.state[e] = static_cast<std::uint8_t>(AgentState::moving);
    a_.progress_ref[e] = std::numeric_limits<float>::infinity();
    a_.progress_clock[e] = 0.0f;
    a_.sidestep[e] = 0.0f;
    a_.stuck[e] = 0;
    a_.sight_from[e] = detail::kNoCell;
    a_.rest[e] = 0;
    return {};
}

Result<void> Crowd::set_agent_group(AgentId id, GroupId group, const AgentParams& params) {
    if (!valid(id)) return Error{ErrorCode::not_found, "agent " + std::to_string(id.index) + " is not a live agent"};
    if (!has_group(group)) return unknown_group(group);
    if (auto r = check_agent_params(params); !r) return r;
    const std::string agent = "agent " + std::to_string(id.index);
    if (auto r = check_class(group.index, params.movement_class, agent.c_str()); !r) return r;
    movement_class_[id.index] = params.movement_class;  // first: set_agent_group checks it
    if (auto r = set_agent_group(id, group); !r) return r;
    return set_agent_params(id, params);
}

GroupId Crowd::group(AgentId id) const {
    const std::uint32_t g = a_.group[index_of(id)];
    return GroupId{g, group_generation_[g]};
}

Result<void> Crowd::set_group_field(GroupId group, std::shared_ptr<const FlowField> field) {
    if (!field || field->width() != cost_->width() || field->height() != cost_->height()) {
        return Error{"group field must be built on the crowd's map"};
    }
    if (!has_group(group)) return unknown_group(group);
    const bool sight = sees_along(*field, group_unit_[group.index]);
    return set_group_field_to(group, GroupField{FieldView(std::move(field)), sight, {}, {}, false});
}

Result<void> Crowd::set_group_field(GroupId group, std::shared_ptr<const HierarchicalField> field) {
    if (!field || field->graph().width() != cost_->width() || field->graph().height() != cost_->height()) {
        return Error{"group plan must be made on the crowd's map"};
    }
    const bool sight = detail::plans_on(*field);
    return set_group_field_to(group, GroupField{FieldView(std::move(field)), sight, {}, {}, false});
}

Result<void> Crowd::set_group_field(GroupId group, FieldView view) {
    if (view.flat()) return set_group_field(group, view.flat());
    if (view.plan()) return set_group_field(group, view.plan());
    return Error{"an empty field view: the group needs a field or a plan"};
}

Result<void> Crowd::set_group_steering(GroupId group, std::shared_ptr<const FlowField> steer) {
    if (!has_group(group)) return unknown_group(group);
    if (!groups_[group.index].field.flat()) {
        return Error{"group " + std::to_string(group.index) + " follows a hierarchical plan"};
    }
    if (steer &&
        (steer->width() != cost_->width() || steer->height() != cost_->height() || steer->kind() != FieldKind::goal)) {
        return Error{"a steering field must be a goal field built on the crowd's map"};
    }
    groups_[group.index].steer = FieldView(std::move(steer));
    // The members look ahead again along the new field's path (their progress windows go on).
    for (std::size_t e = 0; e < live_; ++e) {
        if (a_.group[e] == group.index) a_.sight_from[e] = detail::kNoCell;
    }
    return {};
}

std::shared_ptr<const FlowField> Crowd::group_steering(GroupId group) const {
    return has_group(group) ? groups_[group.index].steer.flat() : nullptr;
}

Result<void> Crowd::set_group_exit(GroupId group, bool exit, bool remove) {
    if (!has_group(group)) return unknown_group(group);
    if (exit && formations_->of(group.index)) {
        return Error{"group " + std::to_string(group.index) + " marches in formation: no exits"};
    }
    if (exit && groups_[group.index].field.kind() != FieldKind::goal) {
        return Error{"group " + std::to_string(group.index) + " flees: its field has no goals to leave by"};
    }
    groups_[group.index].exit = exit;
    groups_[group.index].exit_keeps = exit && !remove;
    regions_stale_ = true;
    return {};
}

ArrivalRegion Crowd::arrival_region(GroupId group) const {
    ArrivalRegion out;
    if (!has_group(group) || !regions_->active(group.index)) return out;
    out.active = true;
    out.radius = regions_->radius(group.index);
    out.cells = regions_->cells(group.index);
    const std::uint32_t a = regions_->anchor(group.index);
    if (a != detail::ArrivalRegions::kNoAnchor) {
        const auto w = static_cast<std::uint32_t>(cost_->width());
        out.anchor = {static_cast<int>(a % w), static_cast<int>(a / w)};
    }
    return out;
}

bool Crowd::in_arrival_region(GroupId group, int x, int y) const noexcept {
    return !has_group(group) || regions_->allows(group.index, x, y);
}

bool Crowd::group_exit(GroupId group) const noexcept {
    return has_group(group) && groups_[group.index].exit;
}

Result<void> Crowd::set_group_field_to(GroupId group, GroupField field) {
    if (!has_group(group)) return unknown_group(group);
    field.goals = goal_cells(field);
    field.exit = groups_[group.index].exit;
    regions_stale_ = true;
    groups_[group.index] = std::move(field);
    restart_stuck_windows(group);
    return {};
}

// Progress toward the old goal means nothing now: restart every member's stuck window.
void Crowd::restart_stuck_windows(GroupId group) {
    for (std::size_t e = 0; e < live_; ++e) {
        if (a_.group[e] == group.index) {
            a_.progress_ref[e] = std::numeric_limits<float>::infinity();
            a_.progress_clock[e] = 0.0f;
            a_.sidestep[e] = 0.0f;
            a_.stuck[e] = 0;
            a_.sight_from[e] = detail::kNoCell;
            a_.rest[e] = 0;  // a new field wakes the group (a sleeper stays arrived, whatever its cost to go)
        }
    }
}

}  // namespace tide
