// The world: spawning units (in phases: checks, open cells, the receiving group, placement) and
// unit settings.

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "tide/assert.hpp"
#include "tide/recording.hpp"
#include "world_group.hpp"

namespace tide {

int World::unit_size(AgentId id) const noexcept {
    if (!crowd_->valid(id) || id.index >= unit_size_.size()) return 0;
    return unit_size_[id.index];
}

// Spawn, in phases: the request's checks, the cells open to the units, the group they join (or,
// without `add`, the one group left), then the units themselves.
Result<void> World::spawn(const Spawn& c) {
    if (auto r = check_spawn(c); !r) return r;
    auto free_cells = spawn_cells(c);
    if (!free_cells) return free_cells.error();
    auto target = spawn_group(c);
    if (!target) return target.error();
    place_units(c, *free_cells, **target);
    ++roster_version_;
    stats_.crowd.agents = agents_.size();
    stats_.route_ms = route_units(*target);  // plans: the new units' sectors and routes, before the first step
    refresh_plan_stats();
    return {};
}

Result<void> World::check_spawn(const Spawn& c) const {
    if (c.count < 0 || c.count > kMaxWorldUnits) {
        return Error{"unit count " + std::to_string(c.count) + " is outside 0.." + std::to_string(kMaxWorldUnits)};
    }
    if (c.size < 1 || c.size > kWorldUnitSizes) {
        return Error{"unit size " + std::to_string(c.size) + " is outside 1.." + std::to_string(kWorldUnitSizes)};
    }
    if (c.add && agents_.size() + static_cast<std::size_t>(c.count) > static_cast<std::size_t>(kMaxWorldUnits)) {
        return Error{ErrorCode::too_large, "adding " + std::to_string(c.count) + " units to " +
                                               std::to_string(agents_.size()) + " would pass the limit of " +
                                               std::to_string(kMaxWorldUnits)};
    }
    return {};
}

// The cells (y * width + x) a unit of the spawn's size can stand on in its area (its block below
// and right of the cell is open); errors when they cannot hold the units at once.
Result<std::vector<std::uint32_t>> World::spawn_cells(const Spawn& c) const {
    int x0 = 0, y0 = 0, x1 = terrain_->width() - 1, y1 = terrain_->height() - 1;
    if (c.in_area) {
        if (c.x0 > c.x1 || c.y0 > c.y1 || c.x1 < 0 || c.y1 < 0 || c.x0 >= terrain_->width() ||
            c.y0 >= terrain_->height()) {
            return Error{"spawn area [" + std::to_string(c.x0) + ", " + std::to_string(c.x1) + "] x [" +
                         std::to_string(c.y0) + ", " + std::to_string(c.y1) + "] is empty or off the map"};
        }
        x0 = std::max(x0, c.x0);
        y0 = std::max(y0, c.y0);
        x1 = std::min(x1, c.x1);
        y1 = std::min(y1, c.y1);
    } else if (spawn_area_) {
        x0 = std::max(x0, spawn_area_->x0);
        y0 = std::max(y0, spawn_area_->y0);
        x1 = std::min(x1, spawn_area_->x1);
        y1 = std::min(y1, spawn_area_->y1);
    }
    // Cells a unit of this size can stand on (its block below and right of the cell is open).
    const auto open = service_->planning_costs(world_movement_class(c.size));
    std::vector<std::uint32_t> free_cells;
    const int w = terrain_->width();
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            if (open->passable(x, y)) free_cells.push_back(static_cast<std::uint32_t>(y) * w + x);
        }
    }
    if (free_cells.empty() && c.count > 0) {
        return Error{"the spawn area has no cell open to units of size " + std::to_string(c.size)};
    }
    // Refuse what cannot fit at once: a crowd packed tighter than discs touching never settles and
    // steps ever slower.
    const std::int64_t area = static_cast<std::int64_t>(c.size) * c.size;
    const std::int64_t fit = static_cast<std::int64_t>(free_cells.size()) * kMaxUnitsPerFreeCell / area;
    if (c.count > fit) {
        return Error{ErrorCode::too_large,
                     std::to_string(c.count) + " units of size " + std::to_string(c.size) +
                         " do not fit: the spawn area [" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" +
                         std::to_string(y0) + ", " + std::to_string(y1) + "] has " + std::to_string(free_cells.size()) +
                         " free cells, room for " + std::to_string(fit) + " (" + std::to_string(kMaxUnitsPerFreeCell) +
                         " per free cell, a unit of size s counting s x s)"};
    }
    if (c.add) {
        std::int64_t used = static_cast<std::int64_t>(c.count) * area;
        for (const AgentId id : agents_) used += static_cast<std::int64_t>(unit_size(id)) * unit_size(id);
        const std::int64_t room = static_cast<std::int64_t>(max_units(*terrain_));
        if (used > room) {
            return Error{ErrorCode::too_large, "adding " + std::to_string(c.count) + " units of size " +
                                                   std::to_string(c.size) + " to " + std::to_string(agents_.size()) +
                                                   " would pass the map's room for " + std::to_string(room) + " (" +
                                                   std::to_string(kMaxUnitsPerFreeCell) + " per free cell)"};
        }
    }
    return free_cells;
}

// The group the spawned units join: without `add`, the largest group is kept (planned for the
// units' size) and everything else goes; with it, a group of their size with those goals, or a
// new one. Its field is published before this returns.
Result<World::Group*> World::spawn_group(const Spawn& c) {
    Group* keep = nullptr;  // the largest group: its goals are the new units' goals
    for (auto& g : groups_) {
        if (g->dropped) continue;
        if (!keep || g->members > keep->members || (g->members == keep->members && g->id < keep->id)) keep = g.get();
    }
    if (!keep) return Error{"the world has no goals: load a map first"};
    std::vector<Cell> sized = goals_for_size(keep->goals, c.size);
    if (sized.empty()) return Error{"no cell near the goals fits units of size " + std::to_string(c.size)};
    const FieldOptions options = field_options(c.size, keep->flee);
    Group* target = nullptr;
    if (!c.add) {
        // Everyone goes; the largest group stays (for the new units' size) and the others go.
        if (keep->size != c.size || keep->goals != sized) {
            if (auto r = service_->retarget(keep->ticket, sized, options); !r) return r.error();
            keep->applied = {};
            keep->size = c.size;
            keep->goals = sized;
        }
        if (!keep->applied) {  // its field is still being built: wait for it
            service_->wait_idle();
            apply_fields();
        }
        const FieldView field = keep->applied;
        if (!field) return Error{"the field of the spawned units could not be built"};
        for (auto& g : groups_) {
            if (g.get() != keep) (void)service_->release(g->ticket);
            if (g.get() != keep && g->has_steer_ticket) (void)service_->release(g->steer_ticket);
        }
        std::erase_if(groups_, [&](const auto& g) { return g.get() != keep; });
        crowd_ = std::make_unique<Crowd>(*terrain_, crowd_->params());
        keep->crowd_group = crowd_->add_group(field, c.size, world_movement_class(c.size)).value();
        keep->pending.clear();
        keep->members = 0;
        keep->dropped = false;
        agents_.clear();
        unit_group_.clear();
        unit_size_.clear();
        unit_spawner_.clear();  // every unit goes: none is a spawner's any more
        stats_.crowd = {};
        target = keep;
    } else {
        // The new units join a group of their size with those goals, or form one.
        for (auto& g : groups_) {
            if (!g->dropped && g->size == c.size && g->goals == sized && g->flee == keep->flee) target = g.get();
        }
        if (!target) {
            auto ticket = service_->request(sized, options);
            if (!ticket) return ticket.error();
            target = &new_group(sized, *ticket, c.size);
            target->flee = keep->flee;
        }
        if (target->crowd_group == kNoCrowdGroup) {
            service_->wait_idle();
            apply_fields();
        }
        if (target->crowd_group == kNoCrowdGroup) return Error{"the field of the spawned units could not be built"};
        target->dropped = false;
    }
    return target;
}

// Adds the units at random open cells (the world's seeded generator) to `target`.
void World::place_units(const Spawn& c, const std::vector<std::uint32_t>& free_cells, Group& target) {
    const int w = terrain_->width();
    agents_.reserve(agents_.size() + static_cast<std::size_t>(c.count));
    // The centre of the unit's block, moved at most so far that the disc stays inside the block's
    // middle cell reach (a new unit never starts in a wall's reach).
    const float half = 0.5f * static_cast<float>(c.size);
    const float m = std::min(0.45f, params_.radius);
    AgentParams unit;
    unit.radius = radius_for(c.size);
    unit.max_speed = params_.speed;
    unit.movement_class = world_movement_class(c.size);
    for (int k = 0; k < c.count; ++k) {
        const std::uint32_t cell = free_cells[static_cast<std::size_t>(rng_.uniform() * free_cells.size())];
        const float fx = (static_cast<float>(rng_.uniform()) - 0.5f) * (1.0f - 2.0f * m);
        const float fy = (static_cast<float>(rng_.uniform()) - 0.5f) * (1.0f - 2.0f * m);
        const Vec2 p{static_cast<float>(cell % w) + half + fx, static_cast<float>(cell / w) + half + fy};
        auto id = crowd_->add_agent(p, target.crowd_group, unit);
        if (!id) continue;
        agents_.push_back(*id);
        if (unit_group_.size() <= id->index) {
            unit_group_.resize(id->index + 1, 0);
            unit_size_.resize(id->index + 1, 1);
        }
        unit_group_[id->index] = target.id;
        unit_size_[id->index] = static_cast<std::uint8_t>(c.size);
        ++target.members;
    }
}

void World::set_line_of_sight(bool on) {
    config_.crowd.line_of_sight = on;
    CrowdParams cp = crowd_->params();
    cp.line_of_sight = on;
    (void)crowd_->set_params(cp);  // the other values are the crowd's own, hence valid
    if (recording_) recording_->events.emplace_back(RecordedLineOfSight{on});
}

Result<void> World::set_unit_params(const UnitParams& p) {
    if (!(p.speed >= 0.1f && p.speed <= 20.0f)) {
        return Error{"speed " + std::to_string(p.speed) + " is outside 0.1..20 cells/s"};
    }
    if (!(p.separation >= 0.0f && p.separation <= 20.0f)) {
        return Error{"separation " + std::to_string(p.separation) + " is outside 0..20"};
    }
    if (!(p.radius >= 0.05f && p.radius <= 0.5f)) {
        return Error{"radius " + std::to_string(p.radius) + " is outside 0.05..0.5 cells"};
    }
    CrowdParams cp = crowd_->params();
    cp.max_speed = p.speed;
    cp.separation = p.separation;
    cp.radius = p.radius;
    if (auto r = crowd_->set_params(cp); !r) return r;
    params_ = p;
    for (const AgentId id : agents_) {
        AgentParams unit = crowd_->agent_params(id);
        unit.radius = radius_for(unit_size(id));
        unit.max_speed = p.speed;
        (void)crowd_->set_agent_params(id, unit);
    }
    return {};
}

}  // namespace tide
