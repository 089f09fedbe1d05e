// The C API (include/tide/tide.h) over the C++ one. Every entry point catches everything: no
// exception may cross into C.
#include "tide/tide.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/map_io.hpp"
#include "tide/steering.hpp"

struct tide_map {
    tide::Map map;
    int crowds = 0;      // crowds made on it (they read its costs): it is freed after the last one
    bool freed = false;  // tide_map_destroy was called while crowds remained (the handle is dead)
};

struct tide_field {
    std::shared_ptr<const tide::FlowField> field;
};

struct tide_steering {
    tide_map* map;  // kept alive while the steering lives, as by a crowd
    tide::Steering steering;
};

struct tide_crowd {
    explicit tide_crowd(tide_map* m) : map(m), crowd(m->map.cost) {}
    tide_map* map;  // kept alive while the crowd lives (tide_map_destroy may come first)
    tide::Crowd crowd;
};

namespace {

static_assert(static_cast<int>(tide::ErrorCode::invalid_argument) == TIDE_ERROR_INVALID_ARGUMENT &&
                  static_cast<int>(tide::ErrorCode::off_map) == TIDE_ERROR_OFF_MAP &&
                  static_cast<int>(tide::ErrorCode::on_wall) == TIDE_ERROR_ON_WALL &&
                  static_cast<int>(tide::ErrorCode::not_found) == TIDE_ERROR_NOT_FOUND &&
                  static_cast<int>(tide::ErrorCode::parse_error) == TIDE_ERROR_PARSE &&
                  static_cast<int>(tide::ErrorCode::io) == TIDE_ERROR_IO &&
                  static_cast<int>(tide::ErrorCode::too_large) == TIDE_ERROR_TOO_LARGE &&
                  static_cast<int>(tide::ErrorCode::unsupported) == TIDE_ERROR_UNSUPPORTED &&
                  static_cast<int>(tide::ErrorCode::internal) == TIDE_ERROR_INTERNAL,
              "tide.h's status codes are tide::ErrorCode's values");
static_assert(static_cast<int>(tide::Direction::goal) == TIDE_DIRECTION_GOAL &&
                  static_cast<int>(tide::Direction::unreachable) == TIDE_DIRECTION_UNREACHABLE &&
                  static_cast<int>(tide::Direction::wall) == TIDE_DIRECTION_WALL && tide::kCostWall == TIDE_COST_WALL,
              "tide.h's direction codes are tide::Direction's values");
static_assert(static_cast<int>(tide::AgentState::moving) == TIDE_AGENT_MOVING &&
                  static_cast<int>(tide::AgentState::arrived) == TIDE_AGENT_ARRIVED &&
                  static_cast<int>(tide::AgentState::no_path) == TIDE_AGENT_NO_PATH &&
                  static_cast<int>(tide::AgentState::queued) == TIDE_AGENT_QUEUED,
              "tide.h's agent states are tide::AgentState's values");
static_assert(sizeof(tide_vec2) == sizeof(tide::Vec2) && sizeof(tide_agent) == sizeof(tide::AgentId) &&
                  sizeof(tide_group) == sizeof(tide::GroupId) && sizeof(tide_cell) == sizeof(tide::Cell),
              "plain values share their layout with the C++ types");

thread_local std::string g_last_error;

// Live handles: every call checks that the handle it is given was made by this library and not yet
// destroyed (one hash lookup under a mutex), so a destroyed or made-up handle gets
// TIDE_ERROR_INVALID_ARGUMENT instead of a use after free, and a second destroy does nothing.
// Freed memory reused for a new handle of the same kind would pass: the check catches the common
// mistakes, not every one. The C API's own state, not the library's (which has no globals).
enum class Kind : std::uint8_t { map, field, crowd, steering };
std::mutex g_handles_mutex;
std::unordered_map<const void*, Kind> g_handles;

template <class T>
T* registered(T* handle, Kind kind) {
    std::lock_guard lock(g_handles_mutex);
    g_handles[handle] = kind;
    return handle;
}
bool live(const void* handle, Kind kind) {
    if (!handle) return false;
    std::lock_guard lock(g_handles_mutex);
    const auto it = g_handles.find(handle);
    return it != g_handles.end() && it->second == kind;
}
// Removes `handle` from the live ones; false when it was not live (already destroyed, or never made).
bool unregister(const void* handle, Kind kind) {
    std::lock_guard lock(g_handles_mutex);
    const auto it = g_handles.find(handle);
    if (it == g_handles.end() || it->second != kind) return false;
    g_handles.erase(it);
    return true;
}

tide_status fail(tide_status status, std::string message) {
    g_last_error = std::move(message);
    return status;
}

tide_status fail(const tide::Error& e) {
    return fail(static_cast<tide_status>(e.code), e.message);
}

tide_status fail_null(const char* what) {
    return fail(TIDE_ERROR_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

tide_status fail_dead(const char* what) {
    return fail(TIDE_ERROR_INVALID_ARGUMENT,
                std::string(what) + " is not a live tide_" + what + " handle (destroyed, or never made by tide)");
}

// Runs `fn` (returning tide_status) with every exception turned into a status.
template <class Fn>
tide_status guarded(Fn&& fn) noexcept {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        return fail(TIDE_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(TIDE_ERROR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return fail(TIDE_ERROR_INTERNAL, "internal error");
    }
}

tide::AgentId agent_id(tide_agent a) {
    return {a.index, a.generation};
}

tide_status stale(tide_agent a) {
    return fail(TIDE_ERROR_NOT_FOUND, "agent " + std::to_string(a.index) + " (generation " +
                                          std::to_string(a.generation) + ") is not a live agent");
}

tide::GroupId group_id(tide_group g) {
    return {g.index, g.generation};
}

tide_group to_c(tide::GroupId g) {
    return {g.index, g.generation};
}

tide_status stale(tide_group g) {
    return fail(TIDE_ERROR_NOT_FOUND, "group " + std::to_string(g.index) + " (generation " +
                                          std::to_string(g.generation) + ") is not a live group");
}

tide::AgentParams to_cpp(const tide_agent_params& p) {
    tide::AgentParams out;
    out.radius = p.radius;
    out.max_speed = p.max_speed;
    out.movement_class = p.movement_class;
    out.user_tag = p.user_tag;
    return out;
}

tide_agent_params to_c(const tide::AgentParams& p) {
    tide_agent_params out;
    out.radius = p.radius;
    out.max_speed = p.max_speed;
    out.movement_class = p.movement_class;
    out.user_tag = p.user_tag;
    return out;
}

// Forwards the crowd's parallel-for to the host's C callback.
class CJobs final : public tide::JobSystem {
public:
    explicit CJobs(const tide_jobs& jobs) : jobs_(jobs) {}
    void parallel_for(std::size_t count, std::size_t grain, tide::RangeTask task, void* context) override {
        jobs_.parallel_for(jobs_.host, count, grain, task, context);
    }
    int max_concurrency() const override { return jobs_.max_concurrency; }

private:
    tide_jobs jobs_;
};

}  // namespace

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

const char* tide_last_error(void) {
    return g_last_error.c_str();
}

const char* tide_status_name(tide_status status) {
    switch (status) {
        case TIDE_OK:
            return "TIDE_OK";
        case TIDE_ERROR_INVALID_ARGUMENT:
            return "TIDE_ERROR_INVALID_ARGUMENT";
        case TIDE_ERROR_OFF_MAP:
            return "TIDE_ERROR_OFF_MAP";
        case TIDE_ERROR_ON_WALL:
            return "TIDE_ERROR_ON_WALL";
        case TIDE_ERROR_NOT_FOUND:
            return "TIDE_ERROR_NOT_FOUND";
        case TIDE_ERROR_PARSE:
            return "TIDE_ERROR_PARSE";
        case TIDE_ERROR_IO:
            return "TIDE_ERROR_IO";
        case TIDE_ERROR_TOO_LARGE:
            return "TIDE_ERROR_TOO_LARGE";
        case TIDE_ERROR_UNSUPPORTED:
            return "TIDE_ERROR_UNSUPPORTED";
        case TIDE_ERROR_INTERNAL:
            return "TIDE_ERROR_INTERNAL";
        case TIDE_ERROR_OUT_OF_MEMORY:
            return "TIDE_ERROR_OUT_OF_MEMORY";
    }
    return "TIDE_ERROR_UNKNOWN";
}

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

void tide_map_destroy(tide_map* map) {
    if (!unregister(map, Kind::map)) return;  // NULL, or not a live map: nothing to free
    std::unique_lock lock(g_handles_mutex);
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

namespace {

tide_status check_batch(const float* xs, const float* ys, size_t count, const float* out_x, const float* out_y) {
    if (count > 0 && (!xs || !ys || !out_x || !out_y)) return fail_null("a position or output array");
    return TIDE_OK;
}

}  // namespace

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

// ---- Steering ---------------------------------------------------------------------------------

static_assert(sizeof(tide_steer_memory) == sizeof(tide::SteerMemory) &&
                  offsetof(tide_steer_memory, seen) == offsetof(tide::SteerMemory, seen) &&
                  offsetof(tide_steer_memory, aim_x) == offsetof(tide::SteerMemory, aim),
              "tide_steer_memory must mirror tide::SteerMemory");

tide_grid_transform tide_grid_transform_identity(void) {
    return tide_grid_transform{0.0f, 0.0f, 1.0f, 0, 0};
}

tide_grid_transform tide_grid_transform_y_up(float left, float bottom, float cell_size, int32_t rows) {
    const tide::GridTransform t = tide::GridTransform::y_up({left, bottom}, cell_size, rows);
    return tide_grid_transform{t.origin.x, t.origin.y, t.cell_size, t.flip_x ? 1 : 0, t.flip_y ? 1 : 0};
}

namespace {

tide::GridTransform to_transform(const tide_grid_transform* t) {
    tide::GridTransform g;
    if (t) {
        g.origin = {t->origin_x, t->origin_y};
        g.cell_size = t->cell_size;
        g.flip_x = t->flip_x != 0;
        g.flip_y = t->flip_y != 0;
    }
    return g;
}

}  // namespace

tide_vec2 tide_grid_to_grid(const tide_grid_transform* transform, tide_vec2 world) {
    const tide::Vec2 g = to_transform(transform).to_grid({world.x, world.y});
    return tide_vec2{g.x, g.y};
}

tide_vec2 tide_grid_to_world(const tide_grid_transform* transform, tide_vec2 grid) {
    const tide::Vec2 w = to_transform(transform).to_world({grid.x, grid.y});
    return tide_vec2{w.x, w.y};
}

tide_cell tide_grid_cell_of(const tide_grid_transform* transform, tide_vec2 world) {
    const tide::Cell c = to_transform(transform).cell_of({world.x, world.y});
    return tide_cell{c.x, c.y};
}

tide_steer_params tide_steer_params_default(void) {
    const tide::SteerParams p;
    return tide_steer_params{p.radius, p.size, p.look_ahead, p.corners ? 1 : 0};
}

tide_steer_memory tide_steer_memory_empty(void) {
    const tide::SteerMemory m;
    return tide_steer_memory{m.from, m.seen, m.aim.x, m.aim.y};
}

tide_status tide_steering_create(const tide_field* field, const tide_map* map, const tide_steer_params* params,
                                 const tide_grid_transform* transform, tide_steering** out) {
    return guarded([&] {
        if (!field) return fail_null("field");
        if (!live(field, Kind::field)) return fail_dead("field");
        if (!map) return fail_null("map");
        if (!live(map, Kind::map)) return fail_dead("map");
        if (!out) return fail_null("out");
        tide::SteerParams p;
        if (params) {
            p.radius = params->radius;
            p.size = params->size;
            p.look_ahead = params->look_ahead;
            p.corners = params->corners != 0;
        }
        const tide::GridTransform t = to_transform(transform);
        auto made = tide::Steering::create(tide::FieldView(field->field), map->map.cost, p, t);
        if (!made) return fail(made.error());
        auto* handle = new tide_steering{const_cast<tide_map*>(map), std::move(*made)};
        {
            std::lock_guard lock(g_handles_mutex);
            ++handle->map->crowds;  // the map lives while the steering does
        }
        *out = registered(handle, Kind::steering);
        return TIDE_OK;
    });
}

void tide_steering_destroy(tide_steering* steering) {
    if (!unregister(steering, Kind::steering)) return;
    tide_map* map = steering->map;
    delete steering;
    std::unique_lock lock(g_handles_mutex);
    if (--map->crowds == 0 && map->freed) {
        lock.unlock();
        delete map;
    }
}

extern "C++" {
namespace {

template <class Query>
tide_vec2 steering_query(const tide_steering* steering, tide_vec2 position, Query&& query) {
    if (!live(steering, Kind::steering) || !std::isfinite(position.x) || !std::isfinite(position.y))
        return tide_vec2{0.0f, 0.0f};
    const tide::Vec2 v = query(steering->steering, tide::Vec2{position.x, position.y});
    return tide_vec2{v.x, v.y};
}

}  // namespace
}  // extern "C++"

tide_vec2 tide_steering_move(const tide_steering* steering, tide_vec2 position) {
    return steering_query(steering, position, [](const tide::Steering& s, tide::Vec2 p) { return s.move(p); });
}

tide_vec2 tide_steering_sample(const tide_steering* steering, tide_vec2 position) {
    return steering_query(steering, position, [](const tide::Steering& s, tide::Vec2 p) { return s.sample(p); });
}

tide_vec2 tide_steering_steer(const tide_steering* steering, tide_vec2 position) {
    return steering_query(steering, position, [](const tide::Steering& s, tide::Vec2 p) { return s.steer(p); });
}

tide_vec2 tide_steering_steer_memory(const tide_steering* steering, tide_vec2 position, tide_steer_memory* memory) {
    if (!memory) return tide_vec2{0.0f, 0.0f};
    return steering_query(steering, position, [memory](const tide::Steering& s, tide::Vec2 p) {
        return s.steer(p, *reinterpret_cast<tide::SteerMemory*>(memory));
    });
}

tide_status tide_steering_sample_batch(const tide_steering* steering, const float* xs, const float* ys, size_t count,
                                       float* out_x, float* out_y) {
    return guarded([&] {
        if (!steering) return fail_null("steering");
        if (!live(steering, Kind::steering)) return fail_dead("steering");
        if (const tide_status s = check_batch(xs, ys, count, out_x, out_y); s != TIDE_OK) return s;
        if (count > 0) steering->steering.sample({xs, count}, {ys, count}, {out_x, count}, {out_y, count});
        return TIDE_OK;
    });
}

tide_status tide_steering_steer_batch(const tide_steering* steering, const float* xs, const float* ys, size_t count,
                                      tide_steer_memory* memory, float* out_x, float* out_y) {
    return guarded([&] {
        if (!steering) return fail_null("steering");
        if (!live(steering, Kind::steering)) return fail_dead("steering");
        if (const tide_status s = check_batch(xs, ys, count, out_x, out_y); s != TIDE_OK) return s;
        if (count > 0 && !memory) return fail_null("memory");
        if (count > 0)
            steering->steering.steer({xs, count}, {ys, count}, {reinterpret_cast<tide::SteerMemory*>(memory), count},
                                     {out_x, count}, {out_y, count});
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
            std::lock_guard lock(g_handles_mutex);
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
    std::unique_lock lock(g_handles_mutex);
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
        tide::Result<void> r;
        if (jobs) {
            if (!jobs->parallel_for || jobs->max_concurrency < 1) {
                return fail(TIDE_ERROR_INVALID_ARGUMENT, "jobs needs a parallel_for and max_concurrency >= 1");
            }
            CJobs host(*jobs);
            r = crowd->crowd.step(dt, host);
        } else {
            r = crowd->crowd.step(dt);
        }
        if (!r) return fail(r.error());
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
