// The struct layouts tide.mjs reads and writes in the module's memory, checked when the module is
// built: a change to a C struct that the JavaScript layer does not follow fails the WebAssembly
// build here instead of corrupting memory at run time.
#include <cstddef>

#include "tide/tide.h"
#include "tide/tide_world.h"

static_assert(sizeof(void*) == 4 && sizeof(size_t) == 4, "tide.mjs assumes wasm32");
static_assert(sizeof(tide_cell) == 8 && offsetof(tide_cell, y) == 4);
static_assert(sizeof(tide_vec2) == 8 && offsetof(tide_vec2, y) == 4);
static_assert(sizeof(tide_agent) == 8 && offsetof(tide_agent, generation) == 4);
static_assert(sizeof(tide_rect) == 16 && offsetof(tide_rect, x1) == 8);
static_assert(sizeof(tide_field_params) == 16 && offsetof(tide_field_params, connectivity) == 8);
static_assert(sizeof(tide_world_config) == 48);
static_assert(offsetof(tide_world_config, seed) == 0 && offsetof(tide_world_config, hierarchy_cells) == 8 &&
              offsetof(tide_world_config, lockstep) == 16 && offsetof(tide_world_config, congestion) == 20 &&
              offsetof(tide_world_config, unit_speed) == 24 && offsetof(tide_world_config, unit_radius) == 28 &&
              offsetof(tide_world_config, unit_separation) == 32 && offsetof(tide_world_config, line_of_sight) == 36 &&
              offsetof(tide_world_config, field_budget_bytes) == 40);
static_assert(sizeof(tide_world_stats) == 72);
static_assert(offsetof(tide_world_stats, tick) == 0 && offsetof(tide_world_stats, units) == 8 &&
              offsetof(tide_world_stats, arrived) == 16 && offsetof(tide_world_stats, no_path) == 24 &&
              offsetof(tide_world_stats, stuck) == 32 && offsetof(tide_world_stats, exited) == 40 &&
              offsetof(tide_world_stats, step_ms) == 48 && offsetof(tide_world_stats, hierarchical) == 56 &&
              offsetof(tide_world_stats, terrain_version) == 64);
static_assert(sizeof(tide_world_group) == 56);
static_assert(offsetof(tide_world_group, id) == 0 && offsetof(tide_world_group, size) == 4 &&
              offsetof(tide_world_group, flee) == 8 && offsetof(tide_world_group, exit) == 12 &&
              offsetof(tide_world_group, field_ready) == 16 && offsetof(tide_world_group, members) == 24 &&
              offsetof(tide_world_group, exited) == 32 && offsetof(tide_world_group, arrived) == 40 &&
              offsetof(tide_world_group, field_serial) == 48);
static_assert(sizeof(tide_tower_check) == 40);
static_assert(offsetof(tide_tower_check, blocks) == 0 && offsetof(tide_tower_check, covers_goal) == 4 &&
              offsetof(tide_tower_check, covers_danger) == 8 && offsetof(tide_tower_check, units_cut_off) == 16 &&
              offsetof(tide_tower_check, cells_cut_off) == 24 && offsetof(tide_tower_check, spawn_cells_cut_off) == 32);

static_assert(sizeof(tide_service_config) == 32 && offsetof(tide_service_config, max_parallel_builds) == 8 &&
              offsetof(tide_service_config, auto_publish) == 12 && offsetof(tide_service_config, repair) == 16 &&
              offsetof(tide_service_config, hierarchy_cells) == 24);
static_assert(sizeof(tide_ticket) == 8);
static_assert(sizeof(tide_steer_params) == 16 && offsetof(tide_steer_params, size) == 4 &&
              offsetof(tide_steer_params, look_ahead) == 8 && offsetof(tide_steer_params, corners) == 12);
static_assert(sizeof(tide_steer_memory) == 16);

/// 1: the module was built with the layouts above (tide.mjs calls it once when it loads).
extern "C" int tide_js_layout_check(void) {
    return 1;
}
