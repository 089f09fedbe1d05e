// The World's C API (include/tide/tide_world.h) over tide::World; compiled into tide_world.
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capi_internal.hpp"
#include "tide/recording.hpp"
#include "tide/tide_world.h"
#include "tide/world.hpp"

struct tide_world {
    std::unique_ptr<tide::JobSystem> jobs;
    std::unique_ptr<tide::World> world;
    tide::Recording recording;  // tide_world_record_start()
    bool recording_on = false;
};

namespace tide::capi {
namespace {

const tide_world* live_world(const tide_world* w) {
    return live(w, Kind::world) ? w : nullptr;
}

// Goals as C++ cells; NULL with a count is refused.
tide_status goal_cells(const tide_cell* goals, std::size_t count, std::vector<Cell>& out) {
    if (count > 0 && !goals) return fail_null("goals");
    out.assign(reinterpret_cast<const Cell*>(goals), reinterpret_cast<const Cell*>(goals) + count);
    return TIDE_OK;
}

std::vector<AgentId> agent_ids(const tide_agent* units, std::size_t count) {
    std::vector<AgentId> ids(count);
    for (std::size_t i = 0; i < count; ++i) ids[i] = agent_id(units[i]);
    return ids;
}

// Applies a command; its outcome into the optional outputs.
tide_status apply(tide_world& w, const WorldCommand& command, tide_group_id* out_group = nullptr,
                  std::size_t* out_units = nullptr) {
    auto r = w.world->apply(command);
    if (!r) return fail(r.error());
    if (out_group) *out_group = r->group;
    if (out_units) *out_units = r->units;
    return TIDE_OK;
}

template <class W, class Fn>
tide_status with_world(W* world, Fn&& fn) noexcept {
    return with_live(world, Kind::world, "world", std::forward<Fn>(fn));
}

}  // namespace
}  // namespace tide::capi

using namespace tide::capi;

extern "C" {

tide_world_config tide_world_config_default(void) {
    const tide::WorldConfig d;
    tide_world_config c{};
    c.seed = d.seed;
    c.hierarchy_cells = d.hierarchy_cells;
    c.lockstep = d.lockstep;
    c.congestion = d.congestion.enabled;
    c.unit_speed = d.crowd.max_speed;
    c.unit_radius = d.crowd.radius;
    c.unit_separation = d.crowd.separation;
    c.line_of_sight = d.crowd.line_of_sight;
    c.field_budget_bytes = d.field_budget_bytes;
    return c;
}

tide_status tide_world_create(const tide_world_config* config, const tide_jobs* jobs, const tide_background* background,
                              tide_world** out) {
    return guarded([&]() -> tide_status {
        if (!out) return fail_null("out");
        *out = nullptr;
        const tide_world_config c = config ? *config : tide_world_config_default();
        if (auto s = check_host_jobs(jobs, background); s != TIDE_OK) return s;
        if (!(c.unit_speed >= 0.1f && c.unit_speed <= 20.0f) || !(c.unit_radius >= 0.05f && c.unit_radius <= 0.5f) ||
            !(c.unit_separation >= 0.0f && c.unit_separation <= 20.0f)) {
            return fail(TIDE_ERROR_INVALID_ARGUMENT,
                        "unit speed, radius or separation out of range (0.1..20, "
                        "0.05..0.5, 0..20)");
        }
        tide::WorldConfig wc;
        wc.seed = c.seed;
        wc.hierarchy_cells = c.hierarchy_cells;
        wc.lockstep = c.lockstep != 0;
        wc.congestion.enabled = c.congestion != 0;
        wc.crowd.max_speed = c.unit_speed;
        wc.crowd.radius = c.unit_radius;
        wc.crowd.separation = c.unit_separation;
        wc.crowd.line_of_sight = c.line_of_sight != 0;
        wc.field_budget_bytes = static_cast<std::size_t>(c.field_budget_bytes);
        auto w = std::make_unique<tide_world>();
        w->jobs = std::make_unique<CHostJobs>(jobs, background);
        w->world = std::make_unique<tide::World>(*w->jobs, wc);
        *out = registered(w.release(), Kind::world);
        return TIDE_OK;
    });
}

void tide_world_destroy(tide_world* world) {
    if (!world || !unregister(world, Kind::world)) return;
    delete world;
}

tide_status tide_world_load(tide_world* world, const tide_map* map, const char* name, const tide_cell* goals,
                            size_t goal_count, int32_t units, const tide_rect* spawn_area) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!live(map, Kind::map)) return fail_dead("map");
        std::vector<tide::Cell> g;
        if (auto s = goal_cells(goals, goal_count, g); s != TIDE_OK) return s;
        std::optional<tide::CellRect> area;
        if (spawn_area) area = tide::CellRect{spawn_area->x0, spawn_area->y0, spawn_area->x1, spawn_area->y1};
        auto r = w.world->load(name ? name : "map", map->map.cost, std::move(g), units, area);
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_world_spawn(tide_world* world, int32_t count, int32_t size, const tide_rect* area, int32_t replace,
                             tide_group_id* out_group) {
    return with_world(world, [&](tide_world& w) {
        tide::Spawn s;
        s.count = count;
        s.size = size;
        s.add = replace == 0;
        if (area) {
            s.in_area = true;
            s.x0 = area->x0;
            s.y0 = area->y0;
            s.x1 = area->x1;
            s.y1 = area->y1;
        }
        return apply(w, s, out_group);
    });
}

tide_status tide_world_order_box(tide_world* world, float x0, float y0, float x1, float y1, const tide_cell* goals,
                                 size_t goal_count, uint32_t flags, tide_group_id* out_group, size_t* out_units) {
    return with_world(world, [&](tide_world& w) {
        tide::Order o;
        if (auto s = goal_cells(goals, goal_count, o.goals); s != TIDE_OK) return s;
        o.select = tide::SelectBox{x0, y0, x1, y1};
        o.flee = (flags & TIDE_ORDER_FLEE) != 0;
        o.exit = (flags & TIDE_ORDER_EXIT) != 0;
        return apply(w, o, out_group, out_units);
    });
}

tide_status tide_world_order_units(tide_world* world, const tide_agent* units, size_t unit_count,
                                   const tide_cell* goals, size_t goal_count, uint32_t flags, tide_group_id* out_group,
                                   size_t* out_units) {
    return with_world(world, [&](tide_world& w) {
        if (unit_count > 0 && !units) return fail_null("units");
        tide::Order o;
        if (auto s = goal_cells(goals, goal_count, o.goals); s != TIDE_OK) return s;
        o.select = agent_ids(units, unit_count);
        o.flee = (flags & TIDE_ORDER_FLEE) != 0;
        o.exit = (flags & TIDE_ORDER_EXIT) != 0;
        return apply(w, o, out_group, out_units);
    });
}

tide_formation tide_formation_default(void) {
    tide_formation f{};
    f.shape = TIDE_FORMATION_BOX;
    f.spacing = 1.0f;
    return f;
}

tide_status tide_world_order_box_formation(tide_world* world, float x0, float y0, float x1, float y1,
                                           const tide_cell* goals, size_t goal_count, const tide_formation* formation,
                                           tide_group_id* out_group, size_t* out_units) {
    return with_world(world, [&](tide_world& w) {
        if (!formation) return fail_null("formation");
        if (formation->shape < TIDE_FORMATION_NONE || formation->shape > TIDE_FORMATION_CUSTOM) {
            return fail(TIDE_ERROR_INVALID_ARGUMENT,
                        "formation shape " + std::to_string(formation->shape) + " is not a TIDE_FORMATION_*");
        }
        if (formation->offset_count > 0 && !formation->offsets) return fail_null("formation->offsets");
        if (formation->offset_count > tide::kMaxFormationSlots) {
            return fail(TIDE_ERROR_TOO_LARGE, std::to_string(formation->offset_count) + " formation offsets: at most " +
                                                  std::to_string(tide::kMaxFormationSlots));
        }
        tide::Order o;
        if (auto s = goal_cells(goals, goal_count, o.goals); s != TIDE_OK) return s;
        o.select = tide::SelectBox{x0, y0, x1, y1};
        o.formation.shape = static_cast<tide::FormationShape>(formation->shape);
        o.formation.spacing = formation->spacing;
        o.formation.columns = formation->columns;
        for (std::size_t i = 0; i < formation->offset_count; ++i)
            o.formation.offsets.push_back({formation->offsets[i].x, formation->offsets[i].y});
        o.formation.facing = {formation->facing.x, formation->facing.y};
        return apply(w, o, out_group, out_units);
    });
}

tide_status tide_world_formation(const tide_world* world, tide_group_id group, tide_formation_state* out,
                                 tide_vec2* slots, size_t capacity) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!out) return fail_null("out");
        if (!w.world->group(group)) return fail(TIDE_ERROR_NOT_FOUND, "no group " + std::to_string(group));
        const tide::FormationState f = w.world->formation(group);
        *out = tide_formation_state{f.active ? 1 : 0,           f.arrived ? 1 : 0, {f.anchor.x, f.anchor.y},
                                    {f.heading.x, f.heading.y}, f.error,           f.reassignments,
                                    f.units_reassigned,         f.slots.size()};
        if (!slots) return TIDE_OK;
        if (f.slots.size() > capacity) return fail(TIDE_ERROR_TOO_LARGE, "the slots do not fit");
        for (std::size_t i = 0; i < f.slots.size(); ++i) slots[i] = tide_vec2{f.slots[i].x, f.slots[i].y};
        return TIDE_OK;
    });
}

tide_status tide_world_set_goals(tide_world* world, tide_group_id group, const tide_cell* goals, size_t goal_count,
                                 uint32_t flags) {
    return with_world(world, [&](tide_world& w) {
        tide::SetGoals c;
        if (auto s = goal_cells(goals, goal_count, c.goals); s != TIDE_OK) return s;
        c.group = group;
        c.flee = (flags & TIDE_ORDER_FLEE) != 0;
        c.exit = (flags & TIDE_ORDER_EXIT) != 0;
        return apply(w, c);
    });
}

tide_status tide_world_remove_units(tide_world* world, const tide_agent* units, size_t unit_count,
                                    size_t* out_removed) {
    return with_world(world, [&](tide_world& w) {
        if (unit_count > 0 && !units) return fail_null("units");
        return apply(w, tide::RemoveUnits{agent_ids(units, unit_count)}, nullptr, out_removed);
    });
}

tide_status tide_world_remove_box(tide_world* world, float x0, float y0, float x1, float y1, size_t* out_removed) {
    return with_world(world, [&](tide_world& w) {
        return apply(w, tide::RemoveUnits{tide::SelectBox{x0, y0, x1, y1}}, nullptr, out_removed);
    });
}

tide_status tide_world_paint(tide_world* world, int32_t x, int32_t y, int32_t radius, uint8_t cost) {
    return with_world(world, [&](tide_world& w) { return apply(w, tide::Paint{x, y, radius, cost}); });
}

tide_status tide_world_check_tower(const tide_world* world, tide_rect rect, tide_tower_check* out) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!out) return fail_null("out");
        auto r = w.world->check_tower(rect.x0, rect.y0, rect.x1, rect.y1);
        if (!r) return fail(r.error());
        *out = tide_tower_check{r->blocks,        r->covers_goal,   r->covers_danger,
                                r->units_cut_off, r->cells_cut_off, r->spawn_cells_cut_off};
        return TIDE_OK;
    });
}

tide_status tide_world_place_tower(tide_world* world, tide_rect rect) {
    return with_world(world, [&](tide_world& w) {
        return apply(w, tide::PlaceTower{rect.x0, rect.y0, rect.x1, rect.y1});
    });
}

tide_status tide_world_set_unit_params(tide_world* world, float speed, float separation, float radius) {
    return with_world(world, [&](tide_world& w) {
        return apply(w, tide::SetUnitParams{tide::UnitParams{speed, separation, radius}});
    });
}

tide_status tide_world_set_paused(tide_world* world, int32_t paused) {
    return with_world(world, [&](tide_world& w) { return apply(w, tide::SetPaused{paused != 0}); });
}

tide_status tide_world_set_wall_margin(tide_world* world, int32_t radius, int32_t extra) {
    return with_world(world, [&](tide_world& w) { return apply(w, tide::SetWallMargin{{radius, extra}}); });
}

tide_status tide_world_set_congestion(tide_world* world, int32_t on) {
    return with_world(world, [&](tide_world& w) {
        tide::CongestionParams p = w.world->congestion();
        p.enabled = on != 0;
        return apply(w, tide::SetCongestion{p});
    });
}

tide_status tide_world_set_line_of_sight(tide_world* world, int32_t on) {
    return with_world(world, [&](tide_world& w) {
        w.world->set_line_of_sight(on != 0);
        return TIDE_OK;
    });
}

tide_status tide_world_tick(tide_world* world, float dt) {
    return with_world(world, [&](tide_world& w) {
        auto r = w.world->tick(dt);
        return r ? TIDE_OK : fail(r.error());
    });
}

tide_status tide_world_finish_builds(tide_world* world) {
    return with_world(world, [&](tide_world& w) {
        w.world->finish_builds();
        return TIDE_OK;
    });
}

tide_status tide_world_add_spawner(tide_world* world, const tide_spawner_spec* spec, uint32_t* out_id) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!spec) return fail_null("spec");
        tide::AddSpawner c;
        tide::SpawnerSpec& p = c.spec;
        if (auto s = goal_cells(spec->goals, spec->goal_count, p.goals); s != TIDE_OK) return s;
        p.area = tide::CellRect{spec->area.x0, spec->area.y0, spec->area.x1, spec->area.y1};
        p.exit = spec->exit != 0;
        p.size = spec->size;
        p.start_s = spec->start_s;
        p.every_s = spec->every_s;
        p.per_emission = spec->per_emission;
        p.wave_emissions = spec->wave_emissions;
        p.wave_pause_s = spec->wave_pause_s;
        p.waves = spec->waves;
        auto r = w.world->apply(c);
        if (!r) return fail(r.error());
        if (out_id) *out_id = r->spawner;
        return TIDE_OK;
    });
}

tide_status tide_world_remove_spawner(tide_world* world, uint32_t id) {
    return with_world(world, [&](tide_world& w) { return apply(w, tide::RemoveSpawner{id}); });
}

size_t tide_world_spawner_count(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->spawners().size() : 0;
}

tide_status tide_world_read_spawners(const tide_world* world, tide_spawner_info* out, size_t capacity,
                                     size_t* out_count) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        const auto& all = w.world->spawners();
        if (out_count) *out_count = all.size();
        if (all.size() > capacity) return fail(TIDE_ERROR_TOO_LARGE, "the spawners do not fit");
        if (!all.empty() && !out) return fail_null("out");
        for (std::size_t i = 0; i < all.size(); ++i) {
            const tide::SpawnerInfo& s = all[i];
            out[i] = tide_spawner_info{s.id,   s.group,      s.emissions, s.spawned, s.skipped,
                                       s.sunk, s.waves_done, s.done,      s.next_s};
        }
        return TIDE_OK;
    });
}

size_t tide_world_unit_count(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->agents().size() : 0;
}

tide_status tide_world_read_units(const tide_world* world, tide_agent* ids, tide_vec2* positions, tide_vec2* velocities,
                                  uint8_t* states, tide_group_id* groups, uint8_t* sizes, size_t capacity,
                                  size_t* out_count) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        const auto& agents = w.world->agents();
        if (out_count) *out_count = agents.size();
        if (agents.size() > capacity) {
            return fail(TIDE_ERROR_TOO_LARGE, std::to_string(agents.size()) + " units do not fit in " +
                                                  std::to_string(capacity) + " entries");
        }
        const tide::Crowd& crowd = w.world->crowd();
        for (std::size_t i = 0; i < agents.size(); ++i) {
            const tide::AgentId id = agents[i];
            if (ids) ids[i] = tide_agent{id.index, id.generation};
            if (positions) {
                const tide::Vec2 p = crowd.position(id);
                positions[i] = tide_vec2{p.x, p.y};
            }
            if (velocities) {
                const tide::Vec2 v = crowd.velocity(id);
                velocities[i] = tide_vec2{v.x, v.y};
            }
            if (states) states[i] = static_cast<uint8_t>(crowd.state(id));
            if (groups) groups[i] = w.world->group_of(id);
            if (sizes) sizes[i] = static_cast<uint8_t>(w.world->unit_size(id));
        }
        return TIDE_OK;
    });
}

size_t tide_world_group_count(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->groups().size() : 0;
}

tide_status tide_world_read_groups(const tide_world* world, tide_world_group* out, size_t capacity, size_t* out_count) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        const auto& groups = w.world->groups();
        if (out_count) *out_count = groups.size();
        if (groups.size() > capacity) {
            return fail(TIDE_ERROR_TOO_LARGE, std::to_string(groups.size()) + " groups do not fit in " +
                                                  std::to_string(capacity) + " entries");
        }
        if (!groups.empty() && !out) return fail_null("out");
        // Arrived members, counted once over the roster.
        std::vector<std::uint64_t> arrived(groups.empty() ? 0 : groups.back().id + 1, 0);
        const tide::Crowd& crowd = w.world->crowd();
        for (const tide::AgentId id : w.world->agents()) {
            const tide::UnitGroupId g = w.world->group_of(id);
            if (g < arrived.size() && crowd.state(id) == tide::AgentState::arrived) ++arrived[g];
        }
        for (std::size_t i = 0; i < groups.size(); ++i) {
            const tide::UnitGroup& g = groups[i];
            out[i] = tide_world_group{g.id,          g.size,    g.flee,   g.exit,
                                      g.field_ready, g.members, g.exited, g.id < arrived.size() ? arrived[g.id] : 0,
                                      g.field_serial};
        }
        return TIDE_OK;
    });
}

tide_status tide_world_group_goals(const tide_world* world, tide_group_id group, tide_cell* out, size_t capacity,
                                   size_t* out_count) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        const tide::UnitGroup* g = w.world->group(group);
        if (!g) return fail(TIDE_ERROR_NOT_FOUND, "no group " + std::to_string(group));
        if (out_count) *out_count = g->goals.size();
        if (g->goals.size() > capacity) return fail(TIDE_ERROR_TOO_LARGE, "the goals do not fit");
        if (!g->goals.empty() && !out) return fail_null("out");
        for (std::size_t i = 0; i < g->goals.size(); ++i) out[i] = tide_cell{g->goals[i].x, g->goals[i].y};
        return TIDE_OK;
    });
}

tide_status tide_world_group_field(const tide_world* world, tide_group_id group, tide_field** out) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!out) return fail_null("out");
        *out = nullptr;
        if (w.world->hierarchical()) {
            return fail(TIDE_ERROR_UNSUPPORTED, "hierarchical maps plan in sectors: no whole-map field");
        }
        if (!w.world->group(group)) return fail(TIDE_ERROR_NOT_FOUND, "no group " + std::to_string(group));
        auto f = w.world->field(group);
        if (!f) return fail(TIDE_ERROR_NOT_FOUND, "group " + std::to_string(group) + " has no field yet");
        *out = registered(new tide_field{std::move(f)}, Kind::field);
        return TIDE_OK;
    });
}

tide_status tide_world_get_stats(const tide_world* world, tide_world_stats* out) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!out) return fail_null("out");
        const tide::WorldStats& s = w.world->stats();
        *out = tide_world_stats{
            s.tick,    w.world->agents().size(), s.crowd.arrived,           s.crowd.no_path, s.crowd.stuck, s.exited,
            s.step_ms, s.hierarchical,           w.world->terrain_version()};
        return TIDE_OK;
    });
}

int32_t tide_world_width(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->cost().width() : 0;
}

int32_t tide_world_height(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->cost().height() : 0;
}

const uint8_t* tide_world_costs(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->cost().cells().data() : nullptr;
}

uint64_t tide_world_state_hash(const tide_world* world) {
    const tide_world* w = live_world(world);
    return w ? w->world->state_hash() : 0;
}

tide_status tide_world_record_start(tide_world* world) {
    return with_world(world, [&](tide_world& w) {
        auto r = w.world->start_recording(w.recording);
        if (!r) return fail(r.error());
        w.recording_on = true;
        return TIDE_OK;
    });
}

tide_status tide_world_record_save(const tide_world* world, const char* path) {
    return with_world(world, [&](tide_world& w) -> tide_status {
        if (!path) return fail_null("path");
        if (!w.recording_on) return fail(TIDE_ERROR_INVALID_ARGUMENT, "the world is not recording");
        std::FILE* f = std::fopen(path, "wb");
        if (!f) return fail(TIDE_ERROR_IO, std::string("cannot write '") + path + "'");
        const std::string text = tide::recording_text(w.recording);
        const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (std::fclose(f) != 0 || !ok) return fail(TIDE_ERROR_IO, std::string("writing '") + path + "' failed");
        return TIDE_OK;
    });
}

tide_status tide_replay_file(const char* path, const tide_jobs* jobs, const tide_background* background,
                             tide_replay_result* out) {
    return guarded([&]() -> tide_status {
        if (!path) return fail_null("path");
        if (!out) return fail_null("out");
        auto rec = tide::load_recording(path);
        if (!rec) return fail(rec.error());
        if (auto s = check_host_jobs(jobs, background); s != TIDE_OK) return s;
        CHostJobs js(jobs, background);
        auto r = tide::replay(*rec, js);
        if (!r) return fail(r.error());
        *out =
            tide_replay_result{r->ticks, r->final_hash, r->first_mismatch, r->mismatch_recorded, r->mismatch_replayed};
        return TIDE_OK;
    });
}

}  // extern "C"
