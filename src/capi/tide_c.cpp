// The C API (include/tide/tide.h) over the C++ one: maps, fields and the crowd (steering:
// tide_c_steering.cpp; shared helpers: capi_internal.hpp). Every entry point catches everything:
// no exception may cross into C.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "capi_internal.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"

using namespace tide::capi;

namespace {

// The C++ parameters of `params` (NULL: defaults), or the status refusing them.
tide_status to_field_params(const tide_field_params* params, tide::FieldParams& p) {
    if (!params) return TIDE_OK;
    if (params->connectivity != 8 && params->connectivity != 4) {
        return fail(TIDE_ERROR_INVALID_ARGUMENT,
                    "connectivity " + std::to_string(params->connectivity) + " is neither 8 nor 4");
    }
    p.diagonal_factor = params->diagonal_factor;
    p.connectivity = params->connectivity == 4 ? tide::Connectivity::four : tide::Connectivity::eight;
    return TIDE_OK;
}

std::vector<tide::Cell> to_cells(const tide_cell* cells, size_t count) {
    std::vector<tide::Cell> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = {cells[i].x, cells[i].y};
    return out;
}

// Builds a field with `build(builder, params, field)` into *out.
template <class Build>
tide_status build_field(const tide_map* map, const tide_field_params* params, tide_field** out, Build&& build) {
    if (!map) return fail_null("map");
    if (!live(map, Kind::map)) return fail_dead("map");
    if (!out) return fail_null("out");
    tide::FieldParams p;
    if (const tide_status s = to_field_params(params, p); s != TIDE_OK) return s;
    auto field = std::make_shared<tide::FlowField>();
    tide::FieldBuilder builder;
    if (auto r = build(builder, p, *field); !r) return fail(r.error());
    *out = registered(new tide_field{std::move(field)}, Kind::field);
    return TIDE_OK;
}

}  // namespace

extern "C" {

// ---- Maps -------------------------------------------------------------------------------------

tide_status tide_map_load(const char* path, tide_map** out) {
    return guarded([&] {
        if (!path) return fail_null("path");
        if (!out) return fail_null("out");
        auto map = tide::load_map(path);
        if (!map) return fail(map.error());
        *out = registered(new tide_map{std::move(*map)}, Kind::map);
        return TIDE_OK;
    });
}

tide_status tide_map_parse(const char* text, size_t length, const char* source, tide_map** out) {
    return guarded([&] {
        if (!text && length > 0) return fail_null("text");
        if (!out) return fail_null("out");
        auto map = tide::parse_map(std::string_view(text ? text : "", length), source ? source : "<text>");
        if (!map) return fail(map.error());
        *out = registered(new tide_map{std::move(*map)}, Kind::map);
        return TIDE_OK;
    });
}

tide_status tide_map_create(int32_t width, int32_t height, const uint8_t* costs, tide_map** out) {
    return guarded([&] {
        if (!out) return fail_null("out");
        auto cost = tide::CostField::create(width, height);
        if (!cost) return fail(cost.error());
        if (costs) {
            auto cells = cost->cells();
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (costs[i] == 0) {
                    return fail(TIDE_ERROR_INVALID_ARGUMENT, "cost 0 at (" + std::to_string(i % width) + ", " +
                                                                 std::to_string(i / width) +
                                                                 ") (passable costs are 1..254, 255 is a wall)");
                }
                cells[i] = costs[i];
            }
        }
        *out = registered(new tide_map{tide::Map{std::move(*cost)}}, Kind::map);
        return TIDE_OK;
    });
}

tide_status tide_map_builtin(const char* name, tide_map** out, tide_cell* out_goal) {
    return guarded([&] {
        if (!out) return fail_null("out");
        *out = nullptr;
        if (!name) return fail_null("name");
        auto m = tide::make_builtin_map(name);
        if (!m) return fail(m.error());
        if (out_goal) *out_goal = tide_cell{m->goals.front().x, m->goals.front().y};
        *out = registered(new tide_map{tide::Map{std::move(m->cost)}}, Kind::map);
        return TIDE_OK;
    });
}

void tide_map_destroy(tide_map* map) {
    if (!unregister(map, Kind::map)) return;  // NULL, or not a live map: nothing to free
    std::unique_lock lock(handles_mutex());
    if (map->crowds > 0) {
        map->freed = true;  // the last crowd on it frees it
        return;
    }
    lock.unlock();
    delete map;
}

int32_t tide_map_width(const tide_map* map) {
    return live(map, Kind::map) ? map->map.cost.width() : 0;
}

int32_t tide_map_height(const tide_map* map) {
    return live(map, Kind::map) ? map->map.cost.height() : 0;
}

const uint8_t* tide_map_costs(const tide_map* map) {
    return live(map, Kind::map) ? map->map.cost.cells().data() : nullptr;
}

tide_status tide_map_set_cost(tide_map* map, int32_t x, int32_t y, uint8_t cost) {
    return guarded([&] {
        if (!map) return fail_null("map");
        if (!live(map, Kind::map)) return fail_dead("map");
        if (!map->map.cost.contains(x, y)) {
            return fail(TIDE_ERROR_OFF_MAP,
                        "cell (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the map");
        }
        if (cost == 0) return fail(TIDE_ERROR_INVALID_ARGUMENT, "cost 0 is not a cost (1..254, 255 for walls)");
        map->map.cost.set(x, y, cost);
        return TIDE_OK;
    });
}

// ---- Fields -----------------------------------------------------------------------------------

tide_field_params tide_field_params_default(void) {
    const tide::FieldParams p;
    return tide_field_params{p.diagonal_factor, 8};
}

tide_status tide_field_build(const tide_map* map, const tide_cell* goals, size_t goal_count,
                             const tide_field_params* params, tide_field** out) {
    return guarded([&] {
        if (!goals && goal_count > 0) return fail_null("goals");
        const std::vector<tide::Cell> cells = goals ? to_cells(goals, goal_count) : std::vector<tide::Cell>{};
        return build_field(map, params, out,
                           [&](tide::FieldBuilder& b, const tide::FieldParams& p, tide::FlowField& f) {
                               return b.build(map->map.cost, cells, p, f);
                           });
    });
}

tide_status tide_field_build_flee(const tide_map* map, const tide_cell* dangers, size_t danger_count,
                                  double flee_factor, const tide_field_params* params, tide_field** out) {
    return guarded([&] {
        if (!dangers && danger_count > 0) return fail_null("dangers");
        const std::vector<tide::Cell> cells = dangers ? to_cells(dangers, danger_count) : std::vector<tide::Cell>{};
        return build_field(map, params, out,
                           [&](tide::FieldBuilder& b, const tide::FieldParams& p, tide::FlowField& f) {
                               return b.build_flee(map->map.cost, cells, tide::FleeParams{flee_factor}, p, f);
                           });
    });
}

tide_status tide_field_build_mixed(const tide_map* map, const tide_cell* goals, size_t goal_count,
                                   const tide_cell* dangers, size_t danger_count, int32_t danger_weight,
                                   double danger_radius, const tide_field_params* params, tide_field** out) {
    return guarded([&] {
        if (!goals && goal_count > 0) return fail_null("goals");
        if (!dangers && danger_count > 0) return fail_null("dangers");
        const std::vector<tide::Cell> g = goals ? to_cells(goals, goal_count) : std::vector<tide::Cell>{};
        const std::vector<tide::Cell> d = dangers ? to_cells(dangers, danger_count) : std::vector<tide::Cell>{};
        const tide::DangerCost danger{danger_weight, danger_radius};
        return build_field(map, params, out,
                           [&](tide::FieldBuilder& b, const tide::FieldParams& p, tide::FlowField& f) {
                               return b.build_mixed(map->map.cost, g, d, danger, p, f);
                           });
    });
}

int tide_field_is_flee(const tide_field* field) {
    return live(field, Kind::field) && field->field->kind() == tide::FieldKind::flee ? 1 : 0;
}

const float* tide_field_to_stop(const tide_field* field) {
    return live(field, Kind::field) ? field->field->to_stop().data() : nullptr;
}

void tide_field_destroy(tide_field* field) {
    if (unregister(field, Kind::field)) delete field;  // crowds keep their own reference to the field
}

int32_t tide_field_width(const tide_field* field) {
    return live(field, Kind::field) ? field->field->width() : 0;
}

int32_t tide_field_height(const tide_field* field) {
    return live(field, Kind::field) ? field->field->height() : 0;
}

const float* tide_field_integration(const tide_field* field) {
    return live(field, Kind::field) ? field->field->integration().data() : nullptr;
}

const uint8_t* tide_field_directions(const tide_field* field) {
    static_assert(sizeof(tide::Direction) == 1);
    return live(field, Kind::field) ? reinterpret_cast<const uint8_t*>(field->field->directions().data()) : nullptr;
}

tide_vec2 tide_field_sample(const tide_field* field, tide_vec2 position) {
    if (!live(field, Kind::field) || !std::isfinite(position.x) || !std::isfinite(position.y))
        return tide_vec2{0.0f, 0.0f};
    const tide::Vec2 v = field->field->sample({position.x, position.y});
    return tide_vec2{v.x, v.y};
}

tide_vec2 tide_field_blend(const tide_field* field, tide_vec2 position) {
    if (!live(field, Kind::field) || !std::isfinite(position.x) || !std::isfinite(position.y))
        return tide_vec2{0.0f, 0.0f};
    const tide::Vec2 v = field->field->blend({position.x, position.y});
    return tide_vec2{v.x, v.y};
}

tide_status tide_field_sample_batch(const tide_field* field, const float* xs, const float* ys, size_t count,
                                    float* out_x, float* out_y) {
    return guarded([&] {
        if (!field) return fail_null("field");
        if (!live(field, Kind::field)) return fail_dead("field");
        if (const tide_status s = check_batch(xs, ys, count, out_x, out_y); s != TIDE_OK) return s;
        if (count > 0) field->field->sample({xs, count}, {ys, count}, {out_x, count}, {out_y, count});
        return TIDE_OK;
    });
}

// ---- Crowd ------------------------------------------------------------------------------------

tide_crowd_params tide_crowd_params_default(void) {
    const tide::CrowdParams p;
    return tide_crowd_params{p.radius,           p.max_speed,        p.max_force,       p.separation,
                             p.separation_range, p.arrival_distance, p.settle_distance, p.stuck_progress,
                             p.stuck_seconds,    p.max_substep};
}

tide_status tide_crowd_create(const tide_map* map, const tide_crowd_params* params, tide_crowd** out) {
    return guarded([&] {
        if (!map) return fail_null("map");
        if (!live(map, Kind::map)) return fail_dead("map");
        if (!out) return fail_null("out");
        auto crowd = std::make_unique<tide_crowd>(const_cast<tide_map*>(map));
        if (params) {
            tide::CrowdParams p;
            p.radius = params->radius;
            p.max_speed = params->max_speed;
            p.max_force = params->max_force;
            p.separation = params->separation;
            p.separation_range = params->separation_range;
            p.arrival_distance = params->arrival_distance;
            p.settle_distance = params->settle_distance;
            p.stuck_progress = params->stuck_progress;
            p.stuck_seconds = params->stuck_seconds;
            p.max_substep = params->max_substep;
            if (auto r = crowd->crowd.set_params(p); !r) return fail(r.error());
        }
        {
            std::lock_guard lock(handles_mutex());
            ++crowd->map->crowds;
        }
        *out = registered(crowd.release(), Kind::crowd);
        return TIDE_OK;
    });
}

void tide_crowd_destroy(tide_crowd* crowd) {
    if (!unregister(crowd, Kind::crowd)) return;
    tide_map* map = crowd->map;
    delete crowd;
    std::unique_lock lock(handles_mutex());
    if (--map->crowds == 0 && map->freed) {
        lock.unlock();
        delete map;
    }
}

tide_agent_params tide_crowd_default_agent_params(const tide_crowd* crowd) {
    return to_c(live(crowd, Kind::crowd) ? crowd->crowd.default_agent_params() : tide::AgentParams{});
}

tide_status tide_crowd_add_group(tide_crowd* crowd, const tide_field* field, int32_t unit_size, tide_group* out) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!field) return fail_null("field");
        if (!live(field, Kind::field)) return fail_dead("field");
        if (!out) return fail_null("out");  // the group id would be lost
        auto g = crowd->crowd.add_group(field->field, unit_size);
        if (!g) return fail(g.error());
        *out = to_c(*g);
        return TIDE_OK;
    });
}

tide_status tide_crowd_add_group_of_class(tide_crowd* crowd, const tide_field* field, int32_t unit_size,
                                          uint8_t movement_class, tide_group* out) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!field) return fail_null("field");
        if (!live(field, Kind::field)) return fail_dead("field");
        if (!out) return fail_null("out");  // the group id would be lost
        auto g = crowd->crowd.add_group(field->field, unit_size, movement_class);
        if (!g) return fail(g.error());
        *out = to_c(*g);
        return TIDE_OK;
    });
}

tide_status tide_crowd_get_group_movement_class(const tide_crowd* crowd, tide_group group, uint8_t* out) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!out) return fail_null("out");
        if (!crowd->crowd.has_group(group_id(group))) return stale(group);
        *out = crowd->crowd.movement_class(group_id(group));
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_group_movement_class(tide_crowd* crowd, tide_group group, uint8_t movement_class) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto r = crowd->crowd.set_group_movement_class(group_id(group), movement_class); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_group_field(tide_crowd* crowd, tide_group group, const tide_field* field) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!field) return fail_null("field");
        if (!live(field, Kind::field)) return fail_dead("field");
        if (auto r = crowd->crowd.set_group_field(group_id(group), field->field); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_remove_group(tide_crowd* crowd, tide_group group) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto r = crowd->crowd.remove_group(group_id(group)); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_add_agent(tide_crowd* crowd, tide_vec2 position, tide_group group,
                                 const tide_agent_params* params, tide_agent* out) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!out) return fail_null("out");  // the agent's handle would be lost
        const tide::AgentParams p = params ? to_cpp(*params) : crowd->crowd.default_agent_params();
        auto id = crowd->crowd.add_agent({position.x, position.y}, group_id(group), p);
        if (!id) return fail(id.error());
        *out = tide_agent{id->index, id->generation};
        return TIDE_OK;
    });
}

tide_status tide_crowd_remove_agent(tide_crowd* crowd, tide_agent agent) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto r = crowd->crowd.remove_agent(agent_id(agent)); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_agent_params(tide_crowd* crowd, tide_agent agent, const tide_agent_params* params) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!params) return fail_null("params");
        if (auto r = crowd->crowd.set_agent_params(agent_id(agent), to_cpp(*params)); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_get_agent_params(const tide_crowd* crowd, tide_agent agent, tide_agent_params* out) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!out) return fail_null("out");
        if (!crowd->crowd.valid(agent_id(agent))) return stale(agent);
        *out = to_c(crowd->crowd.agent_params(agent_id(agent)));
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_agent_group(tide_crowd* crowd, tide_agent agent, tide_group group) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto r = crowd->crowd.set_agent_group(agent_id(agent), group_id(group)); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_agent_group_and_params(tide_crowd* crowd, tide_agent agent, tide_group group,
                                                  const tide_agent_params* params) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (!params) return fail_null("params");
        if (auto r = crowd->crowd.set_agent_group(agent_id(agent), group_id(group), to_cpp(*params)); !r)
            return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_set_position(tide_crowd* crowd, tide_agent agent, tide_vec2 position) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto r = crowd->crowd.set_position(agent_id(agent), {position.x, position.y}); !r) return fail(r.error());
        return TIDE_OK;
    });
}

tide_status tide_crowd_step(tide_crowd* crowd, float dt, const tide_jobs* jobs) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        if (auto s = check_host_jobs(jobs, nullptr); s != TIDE_OK) return s;
        CHostJobs host(jobs, nullptr);  // without jobs, the step runs on this thread
        if (auto r = crowd->crowd.step(dt, host); !r) return fail(r.error());
        return TIDE_OK;
    });
}

size_t tide_crowd_size(const tide_crowd* crowd) {
    return live(crowd, Kind::crowd) ? crowd->crowd.size() : 0;
}

tide_status tide_crowd_read_agents(const tide_crowd* crowd, size_t capacity, tide_agent* ids, tide_vec2* positions,
                                   tide_vec2* velocities, uint8_t* states, uint64_t* user_tags, size_t* count) {
    return guarded([&] {
        if (!crowd) return fail_null("crowd");
        if (!live(crowd, Kind::crowd)) return fail_dead("crowd");
        const std::size_t n = crowd->crowd.size();
        if (capacity < n && (ids || positions || velocities || states || user_tags)) {
            return fail(TIDE_ERROR_TOO_LARGE,
                        std::to_string(n) + " agents do not fit a buffer of " + std::to_string(capacity));
        }
        tide::AgentBuffers out;
        if (ids) out.ids = {reinterpret_cast<tide::AgentId*>(ids), n};
        if (positions) out.positions = {reinterpret_cast<tide::Vec2*>(positions), n};
        if (velocities) out.velocities = {reinterpret_cast<tide::Vec2*>(velocities), n};
        static_assert(sizeof(tide::AgentState) == 1);
        if (states) out.states = {reinterpret_cast<tide::AgentState*>(states), n};
        if (user_tags) out.user_tags = {user_tags, n};
        if (auto r = crowd->crowd.read_agents(out); !r) return fail(r.error());
        if (count) *count = n;
        return TIDE_OK;
    });
}

uint64_t tide_crowd_state_hash(const tide_crowd* crowd) {
    return live(crowd, Kind::crowd) ? crowd->crowd.state_hash() : 0;
}

}  // extern "C"
