// The world: terrain edits (paint, towers and their would-block check), wall margins and congestion
// (the steering fields planned around the crowd).

#include <algorithm>
#include <cmath>
#include <string>

#include "../grid/cell_checks.hpp"
#include "../grid/float_to_int.hpp"
#include "tide/assert.hpp"
#include "world_group.hpp"

namespace tide {

Result<void> World::paint(const Paint& c) {
    const CostField& map = *terrain_;
    if (!map.contains(c.x, c.y)) return detail::outside_error("paint at", {c.x, c.y}, map.width(), map.height());
    if (c.radius < 0 || c.radius > kMaxBrushRadius) {
        return Error{"brush radius " + std::to_string(c.radius) + " is outside 0.." + std::to_string(kMaxBrushRadius)};
    }
    if (c.cost == 0) return Error{"terrain cost 0 is not a cost"};
    const std::vector<Cell> goals = all_goals();
    std::vector<Cell> cells;
    for (int py = c.y - c.radius; py <= c.y + c.radius; ++py) {
        for (int px = c.x - c.radius; px <= c.x + c.radius; ++px) {
            if (!map.contains(px, py)) continue;
            if ((px - c.x) * (px - c.x) + (py - c.y) * (py - c.y) > c.radius * c.radius + c.radius) continue;  // round
            if (c.cost == kCostWall && std::find(goals.begin(), goals.end(), Cell{px, py}) != goals.end()) continue;
            if (map.at(px, py) == c.cost) continue;
            cells.push_back({px, py});
        }
    }
    if (cells.empty()) return {};
    // The service repairs the fields (plans catch up at the next planning call, once for all the
    // strokes since; their goal blocks stay open).
    const std::uint64_t before = service_->terrain_version();
    if (auto r = service_->edit_cells(cells, c.cost); !r) return r;
    if (service_->terrain_version() == before) return {};
    terrain_changed();
    if (c.cost == kCostWall) evict_units_from_walls();
    return {};
}

// After an edit: the world and the crowd read the service's new terrain; steering fields planned
// on the old one are dropped.
void World::terrain_changed() {
    terrain_ = service_->terrain();
    (void)crowd_->set_terrain(*terrain_);  // same dimensions
    ++terrain_version_;
    drop_steering();
}

// Units whose block now holds a wall move to the nearest cell open to their size (or are removed
// when the map has none left).
void World::evict_units_from_walls() {
    bool removed = false;
    std::vector<AgentId> keep;
    keep.reserve(agents_.size());
    std::shared_ptr<const CostField> costs[kWorldUnitSizes];
    for (int size = 1; size <= kWorldUnitSizes; ++size) {
        costs[size - 1] = service_->planning_costs(world_movement_class(size));
    }
    for (const AgentId id : agents_) {
        const int size = unit_size(id);
        const float lift = 0.5f * static_cast<float>(size - 1);
        const CostField& open = *costs[size - 1];
        const Vec2 p = crowd_->position(id);
        const Cell at{detail::clamped_int(p.x - lift, -1, detail::kCellLimit),
                      detail::clamped_int(p.y - lift, -1, detail::kCellLimit)};
        if (open.passable(at.x, at.y) && terrain_->passable(detail::clamped_int(p.x, -1, detail::kCellLimit),
                                                            detail::clamped_int(p.y, -1, detail::kCellLimit))) {
            keep.push_back(id);
            continue;
        }
        const auto q = nearest_passable(open, at);
        const float half = 0.5f * static_cast<float>(size);
        if (q && crowd_->set_position(id, {static_cast<float>(q->x) + half, static_cast<float>(q->y) + half})) {
            keep.push_back(id);
        } else {
            if (Group* g = find(unit_group_[id.index])) leave(*g);
            unit_group_[id.index] = 0;
            (void)crowd_->remove_agent(id);
            removed = true;
        }
    }
    if (removed) {
        agents_ = std::move(keep);
        ++roster_version_;
        drop_empty_groups();
    }
}

Result<TowerCheck> World::check_tower(int x0, int y0, int x1, int y1) const {
    if (!service_) return Error{"no map loaded"};
    const int w = terrain_->width(), h = terrain_->height();
    if (x0 > x1 || y0 > y1 || x0 < 0 || y0 < 0 || x1 >= w || y1 >= h) {
        return Error{ErrorCode::off_map, "tower [" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" +
                                             std::to_string(y0) + ", " + std::to_string(y1) +
                                             "] is empty or not on the " + std::to_string(w) + "x" + std::to_string(h) +
                                             " map"};
    }
    if (x1 - x0 + 1 > kMaxTowerSide || y1 - y0 + 1 > kMaxTowerSide) {
        return Error{ErrorCode::too_large, "a tower is at most " + std::to_string(kMaxTowerSide) + " cells a side"};
    }
    TowerCheck out;
    for (const auto& g : groups_) {
        if (g->dropped || !g->applied) continue;
        if (g->flee) {
            // A flee group's "goals" are its dangers: it has nothing to be cut off from, but a wall
            // over a danger leaves the flee field without a source and every unit without a path
            // (a paint skips goal and danger cells alike).
            for (const Cell& danger : g->goals) {
                if (danger.x >= x0 && danger.x <= x1 && danger.y >= y0 && danger.y <= y1) out.covers_danger = true;
            }
            continue;
        }
        for (const Cell& goal : g->goals) {
            // A goal is covered when the tower walls a cell of its block.
            if (goal.x + g->size - 1 >= x0 && goal.x <= x1 && goal.y + g->size - 1 >= y0 && goal.y <= y1) {
                out.covers_goal = true;
            }
        }
        // The tower in the group's class: sized cells whose block overlaps it.
        std::vector<Cell> walls;
        const CellRect sized = sized_cells_touched(CellRect{x0, y0, x1, y1}, g->size, w, h);
        for (int y = sized.y0; y <= sized.y1; ++y)
            for (int x = sized.x0; x <= sized.x1; ++x) walls.push_back({x, y});
        std::vector<Cell> spawns;
        const float lift = 0.5f * static_cast<float>(g->size - 1);
        for (const AgentId id : agents_) {
            if (unit_group_[id.index] != g->id) continue;
            const Vec2 p = crowd_->position(id);
            spawns.push_back({detail::clamped_int(p.x - lift, 0, w - 1), detail::clamped_int(p.y - lift, 0, h - 1)});
        }
        auto answer = service_->would_block(g->ticket, walls, spawns);
        if (!answer) return answer.error();
        out.units_cut_off += answer->cut_off_spawns;
        out.cells_cut_off += answer->cut_off_cells;
        // The areas of the spawners feeding the group must keep their way to its goals too,
        // between waves as well (a player may not seal the exit while the lane is empty).
        std::vector<Cell> area;
        for (const SpawnerInfo& sp : spawners_) {
            if (sp.done || sp.group != g->id) continue;
            const CellRect a = sp.spec.area;
            for (int y = a.y0; y <= std::min(a.y1, h - g->size); ++y)
                for (int x = a.x0; x <= std::min(a.x1, w - g->size); ++x) area.push_back({x, y});
        }
        if (!area.empty()) {
            auto lanes = service_->would_block(g->ticket, walls, area);
            if (!lanes) return lanes.error();
            out.spawn_cells_cut_off += lanes->cut_off_spawns;
        }
    }
    out.blocks = out.covers_goal || out.covers_danger || out.units_cut_off > 0 || out.spawn_cells_cut_off > 0;
    return out;
}

Result<void> World::place_tower(const PlaceTower& c) {
    auto check = check_tower(c.x0, c.y0, c.x1, c.y1);
    if (!check) return check.error();
    if (check->covers_goal) return Error{ErrorCode::on_wall, "a tower may not cover a goal"};
    if (check->covers_danger) return Error{ErrorCode::on_wall, "a tower may not cover a flee group's danger"};
    if (check->units_cut_off > 0) {
        return Error{"the tower would cut " + std::to_string(check->units_cut_off) + " units off from their goals"};
    }
    if (check->blocks) {
        return Error{"the tower would cut " + std::to_string(check->spawn_cells_cut_off) +
                     " cells of a spawner's area off from its goals"};
    }
    if (auto r = service_->edit_rect(c.x0, c.y0, c.x1, c.y1, kCostWall); !r) return r;
    terrain_changed();
    evict_units_from_walls();
    return {};
}

Result<void> World::set_wall_margin(const WallMargin& margin) {
    if (auto r = wall_margin_cost_field(CostField::create(1, 1).value(), margin); !r) return r.error();
    if (margin == wall_margin_) return {};
    const WallMargin was = wall_margin_;
    wall_margin_ = margin;
    if (service_) {
        if (auto r = service_->check_options(field_options(1, false)); !r) {
            wall_margin_ = was;
            return r.error();
        }
    }
    for (auto& g : groups_) {
        if (g->dropped) continue;
        if (auto r = service_->retarget(g->ticket, g->goals, field_options(g->size, g->flee)); !r) return r.error();
    }
    return {};
}

Result<void> World::set_congestion(const CongestionParams& params) {
    if (auto r = check_congestion_params(params); !r) return r;
    if (params.enabled && service_) {
        FieldOptions probe = field_options(1, false);  // can the service plan with a density term?
        probe.congestion = std::make_shared<const CongestionLayer>();
        if (auto r = service_->check_options(probe); !r) return r.error();
    }
    const bool was = config_.congestion.enabled;
    config_.congestion = params;
    if (!params.enabled && was) {
        drop_steering();
        for (auto& g : groups_) {
            if (g->has_steer_ticket) (void)service_->release(g->steer_ticket);
            g->has_steer_ticket = g->steer_pending = false;
            g->steer_next = nullptr;
        }
    }
    if (params.enabled && !was) congestion_clock_ = 0.0;  // measure at the next tick
    return {};
}

// Every group steers by its own field again (until the next refresh).
void World::drop_steering() {
    for (auto& g : groups_) {
        // Plans have no steering field: the crowd refuses those, changing nothing.
        if (g->crowd_group != kNoCrowdGroup) (void)crowd_->set_group_steering(g->crowd_group, nullptr);
        g->steer_next = nullptr;
    }
}

// Congestion, before a step: the fields asked for at the last refresh become the groups' steering
// fields (waiting for their builds if they are not done: a fixed delay of one refresh keeps the
// result independent of the threads), then the density is measured and the next ones are asked for.
void World::refresh_congestion() {
    const auto t0 = Clock::now();
    bool waiting = false;
    for (const auto& g : groups_) waiting |= g->steer_pending && !g->steer_next;
    if (waiting) {
        service_->wait_idle();
        apply_fields();
    }
    const auto t1 = Clock::now();
    for (auto& g : groups_) {
        g->steer_pending = false;
        if (!g->steer_next) continue;
        // Only toward the goals the group's units follow now (not after a goal change or a flee order).
        if (g->crowd_group != kNoCrowdGroup && !g->flee && g->steer_goals == g->goals && g->applied &&
            service_->status(g->ticket).answers_request) {
            (void)crowd_->set_group_steering(g->crowd_group, g->steer_next);
        }
        g->steer_next = nullptr;
    }
    measure_density(*crowd_, *terrain_, density_);
    for (auto& g : groups_) {
        if (g->crowd_group == kNoCrowdGroup || g->flee || !g->applied.flat() ||
            crowd_->group_size(g->crowd_group) == 0 || !service_->status(g->ticket).answers_request) {
            continue;
        }
        const auto costs = service_->planning_costs(static_cast<MovementClass>(g->size - 1));
        auto layer = congestion_layer(density_, *costs, g->applied.flat().get(), params_.speed, config_.congestion);
        if (!layer) continue;  // cannot happen: the params were checked, the sizes are the map's
        FieldOptions options = field_options(g->size, false);
        options.congestion = std::make_shared<const CongestionLayer>(std::move(*layer));
        if (g->has_steer_ticket) {
            if (!service_->retarget(g->steer_ticket, g->goals, options)) continue;
        } else {
            auto t = service_->request(g->goals, options);
            if (!t) continue;
            g->steer_ticket = *t;
            g->has_steer_ticket = true;
        }
        g->steer_pending = true;
        g->steer_goals = g->goals;
    }
    ++stats_.congestion_refreshes;
    stats_.congestion_wait_ms = ms_between(t0, t1);
    stats_.congestion_ms = ms_between(t1, Clock::now());
}

}  // namespace tide
