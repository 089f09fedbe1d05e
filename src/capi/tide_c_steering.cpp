// The C API's steering and grid transforms (include/tide/tide.h, "Steering"): tide::Steering and
// tide::GridTransform for hosts that move their own units.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "capi_internal.hpp"

using namespace tide::capi;

extern "C" {

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
            std::lock_guard lock(handles_mutex());
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
    std::unique_lock lock(handles_mutex());
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

}  // extern "C"
