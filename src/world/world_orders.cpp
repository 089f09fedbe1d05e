// The world: orders, goal changes and selections (see world.cpp for the two memberships of a unit).

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "tide/assert.hpp"
#include "world_group.hpp"

namespace tide {

std::vector<AgentId> World::select(const SelectBox& box) const {
    std::vector<AgentId> out;
    if (!(box.x0 < box.x1) || !(box.y0 < box.y1)) return out;  // NaN or empty
    for (const AgentId id : agents_) {
        const Vec2 p = crowd_->position(id);
        if (p.x >= box.x0 && p.x < box.x1 && p.y >= box.y0 && p.y < box.y1) out.push_back(id);
    }
    return out;
}

void World::move_unit(AgentId id, Group& to) {
    UnitGroupId& g = unit_group_[id.index];
    if (g == to.id) return;
    if (Group* from = find(g)) leave(*from);
    g = to.id;
    ++to.members;
    if (to.crowd_group != kNoCrowdGroup) {
        // Groups hold units of one size, so the classes agree and the move cannot be refused.
        const bool moved = crowd_->set_agent_group(id, to.crowd_group).ok();
        TIDE_ASSERT(moved);
    } else {
        to.pending.push_back(id);  // moves when the group's field is published
    }
}

// The goals as cells units of `size` can stand on: each moved to the nearest such cell (units
// of size s occupy the s x s block below and right of their cell), duplicates dropped.
std::vector<Cell> World::goals_for_size(const std::vector<Cell>& goals, int size) const {
    if (size == 1) return goals;
    const auto costs = service_->planning_costs(world_movement_class(size));
    std::vector<Cell> out;
    for (const Cell& g : goals) {
        const auto q = nearest_passable(*costs, g);
        if (q && std::find(out.begin(), out.end(), *q) == out.end()) out.push_back(*q);
    }
    std::sort(out.begin(), out.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
    return out;
}

// Units of several sizes form one group per size (each size plans on its own field).
Result<CommandOutcome> World::order(std::vector<AgentId> units, std::vector<Cell> goals, bool flee, bool exit,
                                    const Formation& formation) {
    auto checked = check_goals(goals);
    if (!checked) return checked.error();
    if (flee && exit) return Error{ErrorCode::invalid_argument, "an order's cells are dangers or exits, not both"};
    if (formation.shape != FormationShape::none) {
        if (flee || exit)
            return Error{ErrorCode::invalid_argument, "a formation order has goals, not dangers or exits"};
        if (auto r = check_formation(formation); !r) return r.error();
    }
    if (auto r = service_->check_options(field_options(1, flee)); !r) return r.error();  // what the map cannot plan
    if (units.empty()) return Error{"the selection holds no units"};
    CommandOutcome out;
    for (int size = 1; size <= kWorldUnitSizes; ++size) {
        std::vector<AgentId> these;
        for (const AgentId id : units) {
            if (unit_size(id) == size) these.push_back(id);
        }
        if (these.empty()) continue;
        auto r = order_one_size(these, *checked, size, flee, exit, formation);
        if (!r) return r.error();
        if (r->units > out.units) out.group = r->group;
        out.units += r->units;
    }
    drop_empty_groups();
    return out;
}

Result<CommandOutcome> World::order_one_size(const std::vector<AgentId>& units, const std::vector<Cell>& goals,
                                             int size, bool flee, bool exit, const Formation& formation) {
    std::vector<Cell> sized = goals_for_size(goals, size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(size)};
    auto ticket = service_->request(sized, field_options(size, flee));
    if (!ticket) return ticket.error();
    Group& g = new_group(std::move(sized), *ticket, size);
    g.flee = flee;
    g.exit = exit;
    g.formation = formation;
    for (const AgentId id : units) move_unit(id, g);
    take_ready(g);
    return CommandOutcome{g.id, g.members};
}

Result<CommandOutcome> World::set_goals(const SetGoals& c) {
    auto checked = check_goals(c.goals);
    if (!checked) return checked.error();
    Group* target = nullptr;
    if (c.group != 0) {
        target = find(c.group);
        if (!target) return Error{ErrorCode::not_found, "no group " + std::to_string(c.group)};
    } else {
        // All units: when one group holds them all, it simply gets new goals (the units keep their
        // field until the new one is published); otherwise they form a new group.
        for (auto& g : groups_) {
            if (!g->dropped && g->members == agents_.size()) target = g.get();
        }
        if (!target) return order(agents_, c.goals, c.flee, c.exit);
    }
    if (c.flee && c.exit) return Error{ErrorCode::invalid_argument, "an order's cells are dangers or exits, not both"};
    if (auto r = service_->check_options(field_options(target->size, c.flee)); !r) return r.error();
    std::vector<Cell> sized = goals_for_size(*checked, target->size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(target->size)};
    if (target->goals == sized && target->flee == c.flee && target->exit == c.exit)
        return CommandOutcome{target->id, target->members};
    if (target->exit != c.exit) {
        target->exit = c.exit;
        if (target->crowd_group != kNoCrowdGroup) (void)crowd_->set_group_exit(target->crowd_group, c.exit && !c.flee);
    }
    if (auto r = service_->retarget(target->ticket, sized, field_options(target->size, c.flee)); !r) return r.error();
    target->flee = c.flee;
    target->goals = std::move(sized);
    target->ordered = Clock::now();
    target->order_to_field_ms = -1.0;
    target->order_to_ready_ms = -1.0;
    take_ready(*target);
    return CommandOutcome{target->id, target->members};
}

std::vector<Cell> World::all_goals() const {
    std::vector<Cell> out;
    for (const auto& g : groups_) {
        if (!g->dropped) out.insert(out.end(), g->goals.begin(), g->goals.end());
    }
    return out;
}

// The live units a box (in roster order) or a list of handles (in slot order, each once) names.
std::vector<AgentId> World::selection(const std::variant<SelectBox, std::vector<AgentId>>& select) const {
    if (const auto* box = std::get_if<SelectBox>(&select)) return this->select(*box);
    std::vector<AgentId> units;
    for (const AgentId id : std::get<std::vector<AgentId>>(select)) {
        if (crowd_->valid(id)) units.push_back(id);
    }
    std::sort(units.begin(), units.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    units.erase(std::unique(units.begin(), units.end()), units.end());
    return units;
}

// Removes live units from the crowd, the roster and their groups; returns how many.
std::size_t World::remove_units(std::vector<AgentId> units) {
    if (units.empty()) return 0;
    std::sort(units.begin(), units.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    for (const AgentId id : units) {
        if (Group* g = find(unit_group_[id.index])) leave(*g);
        unit_group_[id.index] = 0;
        if (id.index < unit_spawner_.size()) unit_spawner_[id.index] = 0;  // removed, not sunk
        (void)crowd_->remove_agent(id);
    }
    std::erase_if(agents_, [&](AgentId id) {
        return std::binary_search(units.begin(), units.end(), id,
                                  [](AgentId a, AgentId b) { return a.index < b.index; });
    });
    ++roster_version_;
    drop_empty_groups();
    return units.size();
}

// Units that left through an exit in the step leave the roster and their groups.
void World::remove_exited() {
    const std::span<const AgentId> gone = crowd_->exited();
    if (gone.empty()) return;
    exited_.assign(gone.begin(), gone.end());
    for (const AgentId id : gone) {
        if (Group* g = find(unit_group_[id.index])) {
            ++g->exited;
            leave(*g);
        }
        unit_group_[id.index] = 0;
        if (id.index < unit_spawner_.size() && unit_spawner_[id.index] != 0) {  // sunk
            for (SpawnerInfo& s : spawners_) s.sunk += s.id == unit_spawner_[id.index];
            unit_spawner_[id.index] = 0;
        }
    }
    stats_.exited += gone.size();
    // The roster keeps its order; exited_ is in slot order, as a lookup by slot.
    std::erase_if(agents_, [&](AgentId id) {
        return std::binary_search(exited_.begin(), exited_.end(), id,
                                  [](AgentId a, AgentId b) { return a.index < b.index; });
    });
    ++roster_version_;
    drop_empty_groups();
    refresh_view();
}

}  // namespace tide
