/* \file tide_world.h
   The World's C API (C99; library tide::world, or the single shared library libtide_c): a map, a
   crowd of units in groups, orders, paint and towers, ticks, bulk reads, the lockstep state hash
   and recordings. The same conventions as tide.h (read it first): opaque checked handles,
   tide_status results with tide_last_error(), cell units, row-major arrays.

   - Threads: a world is used from one thread at a time (the game's simulation thread). Its field
     builds run on the background queue given to tide_world_create() (none: on the calling thread,
     inside the calls that need them); the crowd step uses the given parallel_for.
   - Group ids are the world's (1, 2, 3..., never reused within a world; 0 = none); unit handles
     are tide_agent values, stale once the unit is removed.
   - Flags of orders and goal changes: TIDE_ORDER_FLEE (the cells are dangers), TIDE_ORDER_EXIT (the
     cells are exits: units leave the world through them). */
#ifndef TIDE_TIDE_WORLD_H
#define TIDE_TIDE_WORLD_H

#include "tide/tide.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A simulated world (tide::World). */
typedef struct tide_world tide_world;
/** A world's group id (tide::UnitGroupId): 1, 2, 3...; 0 = none. */
typedef uint32_t tide_group_id;

#define TIDE_ORDER_FLEE 1u /**< The order's cells are dangers the units flee from. */
#define TIDE_ORDER_EXIT 2u /**< The order's cells are exits: units leave through them. */

/** A rectangle of cells, inclusive: columns x0..x1, rows y0..y1. */
typedef struct tide_rect {
    int32_t x0, y0, x1, y1;
} tide_rect;

/** How a world is made (the common WorldConfig settings). Start from tide_world_config_default(). */
typedef struct tide_world_config {
    uint64_t seed;               /**< Spawn positions (default 1). */
    int64_t hierarchy_cells;     /**< Maps of at least this many cells plan hierarchically (default 2048^2). */
    int32_t lockstep;            /**< 1: fields published at fixed points (docs/determinism.md); default 0. */
    int32_t congestion;          /**< 1: congestion-aware group fields (flat maps); default 0. */
    float unit_speed;            /**< Top speed, cells/s (default 3). */
    float unit_radius;           /**< Radius of a size-1 unit, cells (default 0.16). */
    float unit_separation;       /**< Separation strength (default 6). */
    int32_t line_of_sight;       /**< 1 (default): units steer straight where they can see ahead. */
    uint64_t field_budget_bytes; /**< Field cache budget (default 256 MiB). */
} tide_world_config;

/** The defaults. */
TIDE_WORLD_API tide_world_config tide_world_config_default(void);
/** An empty world (load a map next). `config` NULL: defaults. `jobs`: the crowd step's parallel-for
    (NULL: on the calling thread); `background`: where field builds run (NULL: inside the calls that
    need them). Both are copied; their callbacks must stay valid while the world lives. */
TIDE_WORLD_API tide_status tide_world_create(const tide_world_config* config, const tide_jobs* jobs,
                                             const tide_background* background, tide_world** out);
/** Frees a world (waits for its builds in flight). */
TIDE_WORLD_API void tide_world_destroy(tide_world* world);
/** Replaces the map with a copy of `map`'s costs: one group toward `goals`, `units` spawned at random
    open cells (inside `spawn_area` when not NULL). `name` (may be NULL) names it in messages. Error
    (world unchanged): bad goals, counts, area. */
TIDE_WORLD_API tide_status tide_world_load(tide_world* world, const tide_map* map, const char* name,
                                           const tide_cell* goals, size_t goal_count, int32_t units,
                                           const tide_rect* spawn_area);
/** Adds `count` units of `size` (1..3) at random open cells (inside `area`, or the load's spawn area,
    or anywhere), forming a new group with the largest group's goals; with `replace` != 0 every other
    unit goes first. The new group's id in `out_group` (may be NULL). */
TIDE_WORLD_API tide_status tide_world_spawn(tide_world* world, int32_t count, int32_t size, const tide_rect* area,
                                            int32_t replace, tide_group_id* out_group);
/** Orders the units whose positions lie in [x0, x1) x [y0, y1) to `goals` (flags: TIDE_ORDER_*): they
    form a new group. Its id and unit count in `out_group`, `out_units` (may be NULL). Error: no unit
    selected, bad goals. */
TIDE_WORLD_API tide_status tide_world_order_box(tide_world* world, float x0, float y0, float x1, float y1,
                                                const tide_cell* goals, size_t goal_count, uint32_t flags,
                                                tide_group_id* out_group, size_t* out_units);
/** The same for a list of units (stale handles skipped). */
TIDE_WORLD_API tide_status tide_world_order_units(tide_world* world, const tide_agent* units, size_t unit_count,
                                                  const tide_cell* goals, size_t goal_count, uint32_t flags,
                                                  tide_group_id* out_group, size_t* out_units);
/** Formation shapes (tide_formation::shape). */
#define TIDE_FORMATION_NONE 0   /**< No formation: the units flow and pack round the goal. */
#define TIDE_FORMATION_LINE 1   /**< One rank across the way. */
#define TIDE_FORMATION_COLUMN 2 /**< One file along it. */
#define TIDE_FORMATION_BOX 3    /**< Ranks of `columns` (0: about square). */
#define TIDE_FORMATION_WEDGE 4  /**< A V pointing ahead. */
#define TIDE_FORMATION_CUSTOM 5 /**< `offsets`, one slot per unit. */

/** A formation for an order (tide::Formation): slots around an anchor that walks the group's field,
    x to the right of its heading and y ahead, in cells. */
typedef struct tide_formation {
    int32_t shape;            /**< TIDE_FORMATION_*. */
    float spacing;            /**< Cells between neighbouring slots, 0.3..8. */
    int32_t columns;          /**< Box: slots per rank (0: about square). */
    const tide_vec2* offsets; /**< Custom: the slots (x right, y ahead). */
    size_t offset_count;
    tide_vec2 facing; /**< At the goal it faces this way ((0, 0): the way it came). */
} tide_formation;
/** A box formation with spacing 1 (set `shape` for another). */
TIDE_WORLD_API tide_formation tide_formation_default(void);
/** tide_world_order_box() in a formation: the selected units form a group that marches in it and
    stands in it at the goal. Error: a formation's value out of range (the message names it). */
TIDE_WORLD_API tide_status tide_world_order_box_formation(tide_world* world, float x0, float y0, float x1, float y1,
                                                          const tide_cell* goals, size_t goal_count,
                                                          const tide_formation* formation, tide_group_id* out_group,
                                                          size_t* out_units);
/** A group's formation as the last tick left it (tide::FormationState). */
typedef struct tide_formation_state {
    int32_t active;            /**< 1: the group marches in a formation. */
    int32_t arrived;           /**< 1: its anchor stands at the goal. */
    tide_vec2 anchor;          /**< Its centre, cells. */
    tide_vec2 heading;         /**< The way it faces. */
    float error;               /**< Mean distance of its units to their slots, cells. */
    uint64_t reassignments;    /**< Times its slots were handed out. */
    uint64_t units_reassigned; /**< Units whose slot changed then. */
    size_t slot_count;         /**< Its slots. */
} tide_formation_state;
/** The formation of `group` into `out`, and its slots' places (where each unit heads) into `slots`
    (may be NULL; `capacity` entries; TIDE_ERROR_TOO_LARGE when they do not fit). A group without
    one: active 0. Error: no such group. */
TIDE_WORLD_API tide_status tide_world_formation(const tide_world* world, tide_group_id group, tide_formation_state* out,
                                                tide_vec2* slots, size_t capacity);

/** Sets a group's goals (group 0: every unit into one group with them); the units turn once the new
    field is published. */
TIDE_WORLD_API tide_status tide_world_set_goals(tide_world* world, tide_group_id group, const tide_cell* goals,
                                                size_t goal_count, uint32_t flags);
/** Removes the listed units (stale handles skipped); how many in `out_removed` (may be NULL). */
TIDE_WORLD_API tide_status tide_world_remove_units(tide_world* world, const tide_agent* units, size_t unit_count,
                                                   size_t* out_removed);
/** Removes the units whose positions lie in [x0, x1) x [y0, y1). */
TIDE_WORLD_API tide_status tide_world_remove_box(tide_world* world, float x0, float y0, float x1, float y1,
                                                 size_t* out_removed);
/** Paints a round brush of `radius` cells around (x, y) with `cost` (1..254, TIDE_COST_WALL); goal
    cells are never walled, units caught in new walls move out. The fields are repaired. */
TIDE_WORLD_API tide_status tide_world_paint(tide_world* world, int32_t x, int32_t y, int32_t radius, uint8_t cost);

/** What a tower would do (tide_world_check_tower). */
typedef struct tide_tower_check {
    int32_t blocks;      /**< 1: refused (it would cut units or a spawner's area off, or covers a goal or a danger). */
    int32_t covers_goal; /**< A group's goal lies under it. */
    int32_t covers_danger;        /**< A flee group's danger lies under it. */
    uint64_t units_cut_off;       /**< Units that would lose every path to their goals. */
    uint64_t cells_cut_off;       /**< Cells (summed over the groups' fields) that would. */
    uint64_t spawn_cells_cut_off; /**< Cells of live spawners' areas that would lose their way to their goals. */
} tide_tower_check;
/** Would walling `rect` (at most 8 cells a side) cut any unit or live spawner's area off? Answered
    from the fields, no build. */
TIDE_WORLD_API tide_status tide_world_check_tower(const tide_world* world, tide_rect rect, tide_tower_check* out);
/** Walls `rect` unless tide_world_check_tower() says it blocks: then TIDE_ERROR_ON_WALL when it
    covers a goal or a danger, TIDE_ERROR_INVALID_ARGUMENT when it would cut units or a spawner's
    area off (the message says which and how many). */
TIDE_WORLD_API tide_status tide_world_place_tower(tide_world* world, tide_rect rect);
/** Unit settings of every unit: speed 0.1..20 cells/s, separation 0..20, radius 0.05..0.5 cells. */
TIDE_WORLD_API tide_status tide_world_set_unit_params(tide_world* world, float speed, float separation, float radius);
/** Pauses (1) or resumes (0) the simulation. */
TIDE_WORLD_API tide_status tide_world_set_paused(tide_world* world, int32_t paused);
/** Wall margin every group plans with (radius 0..kMaxWallMarginRadius cells, extra cost 0..253; 0, 0: none). */
TIDE_WORLD_API tide_status tide_world_set_wall_margin(tide_world* world, int32_t radius, int32_t extra);
/** Congestion-aware group fields on (1) or off (0), default parameters (flat maps). */
TIDE_WORLD_API tide_status tide_world_set_congestion(tide_world* world, int32_t on);
/** Units steer by line of sight (1) or cell by cell (0), from the next tick. */
TIDE_WORLD_API tide_status tide_world_set_line_of_sight(tide_world* world, int32_t on);
/** Advances the world by dt seconds (0 < dt <= 10): publishes finished fields, steps the crowd. */
TIDE_WORLD_API tide_status tide_world_tick(tide_world* world, float dt);
/** Waits for every field build in flight and publishes it (loading screens, tests). */
TIDE_WORLD_API tide_status tide_world_finish_builds(tide_world* world);

/** A spawner: units added on a schedule (tide::SpawnerSpec; waves with wave_emissions > 0). */
typedef struct tide_spawner_spec {
    tide_rect area;         /**< Cells the units appear on. */
    const tide_cell* goals; /**< Where they walk (copied by tide_world_add_spawner). */
    size_t goal_count;      /**< 1..16. */
    int32_t exit;           /**< 1: the goals are sinks (units leave the world there and count as sunk). */
    int32_t size;           /**< Unit size, 1..3. */
    double start_s;         /**< From the call to the first emission, simulated seconds. */
    double every_s;         /**< Between the emissions of a wave. */
    int32_t per_emission;   /**< Units per emission, 1..1000. */
    int32_t wave_emissions; /**< Emissions per wave (0: one endless wave). */
    double wave_pause_s;    /**< From a wave's last emission to the next wave's first. */
    int32_t waves;          /**< Waves (0: endless). */
} tide_spawner_spec;
/** A spawner's counters. */
typedef struct tide_spawner_info {
    uint32_t id;
    tide_group_id group; /**< The group its units join (made with the spawner). */
    uint64_t emissions, spawned, skipped, sunk;
    int32_t waves_done;
    int32_t done;  /**< 1: no emission left. */
    double next_s; /**< Simulated time of the next emission (-1 when done). */
} tide_spawner_info;
/** Starts a spawner; its id in `out_id` (may be NULL). */
TIDE_WORLD_API tide_status tide_world_add_spawner(tide_world* world, const tide_spawner_spec* spec, uint32_t* out_id);
/** Stops a spawner (TIDE_ERROR_NOT_FOUND for an unknown id). */
TIDE_WORLD_API tide_status tide_world_remove_spawner(tide_world* world, uint32_t id);
/** Spawners of this map (stopped ones included). */
TIDE_WORLD_API size_t tide_world_spawner_count(const tide_world* world);
/** Copies the spawners (by id) into `out` (TIDE_ERROR_TOO_LARGE when they do not fit). */
TIDE_WORLD_API tide_status tide_world_read_spawners(const tide_world* world, tide_spawner_info* out, size_t capacity,
                                                    size_t* out_count);

/** Units in the world. */
TIDE_WORLD_API size_t tide_world_unit_count(const tide_world* world);
/** Copies every unit, in roster order, into the arrays given (each may be NULL; the others are filled):
    handles, positions, velocities, states (TIDE_AGENT_*), group ids, sizes. `capacity` entries each;
    TIDE_ERROR_TOO_LARGE (nothing written) when the units do not fit. Their number in `out_count`. */
TIDE_WORLD_API tide_status tide_world_read_units(const tide_world* world, tide_agent* ids, tide_vec2* positions,
                                                 tide_vec2* velocities, uint8_t* states, tide_group_id* groups,
                                                 uint8_t* sizes, size_t capacity, size_t* out_count);

/** A group as the world reports it. */
typedef struct tide_world_group {
    tide_group_id id;
    int32_t size;          /**< Its units' size. */
    int32_t flee;          /**< 1: its goals are dangers. */
    int32_t exit;          /**< 1: its goals are exits. */
    int32_t field_ready;   /**< 1: its units follow its own field (else still their previous one). */
    uint64_t members;      /**< Units in it. */
    uint64_t exited;       /**< Units that left through its exits. */
    uint64_t arrived;      /**< Of its members, arrived now. */
    uint64_t field_serial; /**< +1 whenever its field changes (re-fetch tide_world_group_field then). */
} tide_world_group;
/** Groups in the world. */
TIDE_WORLD_API size_t tide_world_group_count(const tide_world* world);
/** Copies the groups (by id) into `out` (capacity entries; TIDE_ERROR_TOO_LARGE when they do not fit). */
TIDE_WORLD_API tide_status tide_world_read_groups(const tide_world* world, tide_world_group* out, size_t capacity,
                                                  size_t* out_count);
/** A group's goals into `out` (capacity cells; TIDE_ERROR_TOO_LARGE when they do not fit). */
TIDE_WORLD_API tide_status tide_world_group_goals(const tide_world* world, tide_group_id group, tide_cell* out,
                                                  size_t capacity, size_t* out_count);
/** The field a group follows now, as a field handle (destroy it; it stays valid after the group
    changes). TIDE_ERROR_NOT_FOUND: unknown group, field not built yet; TIDE_ERROR_UNSUPPORTED on
    hierarchical maps (their plans are not whole-map fields). */
TIDE_WORLD_API tide_status tide_world_group_field(const tide_world* world, tide_group_id group, tide_field** out);

/** World counters. */
typedef struct tide_world_stats {
    uint64_t tick;            /**< Ticks simulated (not while paused). */
    uint64_t units;           /**< Units. */
    uint64_t arrived;         /**< Arrived now. */
    uint64_t no_path;         /**< Standing with no path. */
    uint64_t stuck;           /**< Flagged stuck. */
    uint64_t exited;          /**< Left through exits so far. */
    double step_ms;           /**< Last crowd step, ms. */
    int32_t hierarchical;     /**< 1: the map plans hierarchically. */
    uint64_t terrain_version; /**< +1 per edit or load. */
} tide_world_stats;
/** The world's counters. */
TIDE_WORLD_API tide_status tide_world_get_stats(const tide_world* world, tide_world_stats* out);
/** Columns of the loaded map (1 before a load). */
TIDE_WORLD_API int32_t tide_world_width(const tide_world* world);
/** Rows of the loaded map. */
TIDE_WORLD_API int32_t tide_world_height(const tide_world* world);
/** The current terrain, row-major, width * height bytes; valid until the next edit or load. */
TIDE_WORLD_API const uint8_t* tide_world_costs(const tide_world* world);

/* ---- Lockstep (docs/determinism.md) --------------------------------------------------------- */

/** World::state_hash(): every unit's state, the ticks, the terrain version and the groups; equal on
    every machine for the same commands in lockstep. Cheap enough for every tick. 0 for a dead handle. */
TIDE_WORLD_API uint64_t tide_world_state_hash(const tide_world* world);
/** Starts recording everything the world is told into memory (the world must be made with lockstep
    = 1 and have no map loaded yet). */
TIDE_WORLD_API tide_status tide_world_record_start(tide_world* world);
/** Writes the recording so far to `path` (text, docs/formats.md); `tide sim --replay` runs it. */
TIDE_WORLD_API tide_status tide_world_record_save(const tide_world* world, const char* path);

/** What tide_replay_file() found. */
typedef struct tide_replay_result {
    uint64_t ticks;         /**< Ticks replayed. */
    uint64_t final_hash;    /**< State hash after the last tick. */
    int64_t first_mismatch; /**< First tick whose hash differs from the recording's; -1: none. */
    uint64_t recorded_hash; /**< The recording's hash there (0 without a mismatch). */
    uint64_t replayed_hash; /**< The replay's hash there. */
} tide_replay_result;
/** Replays a recording file on a new world (`jobs` and `background` as in tide_world_create) and
    compares every tick's hash. A mismatch is a result (first_mismatch >= 0), not an error. */
TIDE_WORLD_API tide_status tide_replay_file(const char* path, const tide_jobs* jobs, const tide_background* background,
                                            tide_replay_result* out);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_TIDE_WORLD_H */
