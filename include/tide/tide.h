/* \file tide.h
   The C API (C99): maps, flow fields, sampling, the crowd and the field service, over the C++
   library (the World's is in tide_world.h). What C#
   (P/Invoke), Godot's GDExtension or any other FFI binds to.

   - Objects are opaque handles made by tide_*_create / _load / _build and freed by _destroy
     (destroying NULL does nothing). No function keeps a pointer it was given unless it says so.
   - Handles are checked: a handle destroyed (or never made by tide) is refused with
     TIDE_ERROR_INVALID_ARGUMENT by every call that returns a status, read as 0 / NULL by the
     others, and destroying it again does nothing (a registry of live handles, one lookup per
     call; memory reused for a new handle of the same kind can still fool it). A crowd keeps its
     map alive, and a group its field, so the order of the destroys does not matter. Outputs
     (`out` pointers) are never NULL.
   - Fallible functions return a tide_status: TIDE_OK (0) or an error code; no exception or abort
     crosses this API (misuse in the C++ asserts aside: an agent handle is always checked here).
     tide_last_error() gives the message of the calling thread's last failure.
   - Coordinates as in the C++ API: cell (x, y) is column x, row y (0 = first map line), flat
     arrays are row-major (y * width + x), positions are in cell units (cell (x, y) covers
     [x, x+1) x [y, y+1)), speeds in cells/s, time in seconds.
   - Threads: handles are not thread-safe; use each from one thread at a time. A built field is
     immutable and may be read from any thread. */
#ifndef TIDE_TIDE_H
#define TIDE_TIDE_H

#include <stddef.h>
#include <stdint.h>

#include "tide/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors ------------------------------------------------------------------------------- */

/** Result of a fallible call. 1..9 are the C++ tide::ErrorCode values. */
typedef enum tide_status {
    TIDE_OK = 0,
    TIDE_ERROR_INVALID_ARGUMENT = 1, /**< A value out of range, a NULL pointer where one is needed. */
    TIDE_ERROR_OFF_MAP = 2,          /**< A cell or position outside the map. */
    TIDE_ERROR_ON_WALL = 3,          /**< A cell or position on a wall. */
    TIDE_ERROR_NOT_FOUND = 4,        /**< An unknown or stale handle, group or name. */
    TIDE_ERROR_PARSE = 5,            /**< Malformed map text; the message names source and line. */
    TIDE_ERROR_IO = 6,               /**< A file could not be read. */
    TIDE_ERROR_TOO_LARGE = 7,        /**< Over a size limit (file, map, buffer too small). */
    TIDE_ERROR_UNSUPPORTED = 8,      /**< Not available in this configuration. */
    TIDE_ERROR_INTERNAL = 9,         /**< A bug in Tide. */
    TIDE_ERROR_OUT_OF_MEMORY = 10    /**< An allocation failed. */
} tide_status;

/** The library's version, "MAJOR.MINOR.PATCH" (0.1.0); the C API may change until 1.0. */
TIDE_API const char* tide_version(void);
/** Message of the calling thread's last failed call ("" when none); valid until its next failure. */
TIDE_API const char* tide_last_error(void);
/** Name of a status ("TIDE_ERROR_ON_WALL"). Never NULL. */
TIDE_API const char* tide_status_name(tide_status status);

/* ---- Plain values ------------------------------------------------------------------------- */

/** A cell: column x, row y. */
typedef struct tide_cell {
    int32_t x;
    int32_t y;
} tide_cell;

/** A position or velocity, cell units. */
typedef struct tide_vec2 {
    float x;
    float y;
} tide_vec2;

/** Cost of a wall cell; passable cells cost 1..254 (the price of entering them). */
#define TIDE_COST_WALL 255
/** Direction codes of tide_field_directions(): 0..7 a move (E, SE, S, SW, W, NW, N, NE: clockwise
    on screen from east, y growing down), then goal, unreachable and wall. */
#define TIDE_DIRECTION_GOAL 8
#define TIDE_DIRECTION_UNREACHABLE 9
#define TIDE_DIRECTION_WALL 10

/* ---- Maps --------------------------------------------------------------------------------- */

/** A map: a W x H grid of entry costs (1 byte per cell) and the unit classes of its file. */
typedef struct tide_map tide_map;

/** Reads a Moving AI .map or Tide text map (docs/formats.md). */
TIDE_API tide_status tide_map_load(const char* path, tide_map** out);
/** Parses map text held in memory; `source` names it in error messages (may be NULL). */
TIDE_API tide_status tide_map_parse(const char* text, size_t length, const char* source, tide_map** out);
/** A width x height map (1..16384 each) with the given row-major costs (copied; 0 is refused),
    or every cell cost 1 when `costs` is NULL. */
TIDE_API tide_status tide_map_create(int32_t width, int32_t height, const uint8_t* costs, tide_map** out);
/** A built-in map: "default" (the embedded 64x40 map), "random256", "maze", "large", "huge"; its
    default goal in `out_goal` (may be NULL). Error naming the known maps for another name. */
TIDE_API tide_status tide_map_builtin(const char* name, tide_map** out, tide_cell* out_goal);
/** Frees a map (NULL, or a handle already destroyed: nothing happens). Crowds made on it keep its
    terrain until the last of them is destroyed; the handle is dead at once. */
TIDE_API void tide_map_destroy(tide_map* map);
/** Columns. */
TIDE_API int32_t tide_map_width(const tide_map* map);
/** Rows. */
TIDE_API int32_t tide_map_height(const tide_map* map);
/** Row-major costs, width * height bytes; valid while the map lives. */
TIDE_API const uint8_t* tide_map_costs(const tide_map* map);
/** Sets the cost of (x, y) (1..255; 255 is a wall). Fields already built do not change; a crowd
    on this map sees the edit at its next step. */
TIDE_API tide_status tide_map_set_cost(tide_map* map, int32_t x, int32_t y, uint8_t cost);

/* ---- Flow fields -------------------------------------------------------------------------- */

/** An immutable flow field: per cell the least cost to the nearest goal and the move toward it. */
typedef struct tide_field tide_field;

/** How a field is built. Start from tide_field_params_default(). */
typedef struct tide_field_params {
    double diagonal_factor; /**< Length of a diagonal move, 1..2 (default sqrt 2). */
    int32_t connectivity;   /**< 8 (default) or 4 directions. */
} tide_field_params;

/** The defaults: sqrt 2, 8 directions. */
TIDE_API tide_field_params tide_field_params_default(void);
/** Builds the field toward `goals` on `map` (params NULL: defaults). Errors: no goal, a goal off
    the map or on a wall, bad params. */
TIDE_API tide_status tide_field_build(const tide_map* map, const tide_cell* goals, size_t goal_count,
                                      const tide_field_params* params, tide_field** out);
/** Builds the flee field of `dangers` (docs/flee.md): each cell starts at -flee_factor x its least
    cost to the nearest danger, relaxed over the usual moves; tide_field_integration() then holds the
    flee values (<= 0) and TIDE_DIRECTION_GOAL marks the safe spots. flee_factor 1.2 is the usual
    choice. Errors: no danger, a danger off the map or on a wall, a factor outside (0, 64], bad params. */
TIDE_API tide_status tide_field_build_flee(const tide_map* map, const tide_cell* dangers, size_t danger_count,
                                           double flee_factor, const tide_field_params* params, tide_field** out);
/** Builds a mixed field: the field toward `goals` on the map's costs plus a danger term (a cell whose
    least cost D to the nearest danger is below `danger_radius` costs round(danger_weight x (radius - D)
    / radius) more): "go there, but keep away from that". Errors: those of both builds, a weight
    outside 0..253, a radius outside (0, 65536]. */
TIDE_API tide_status tide_field_build_mixed(const tide_map* map, const tide_cell* goals, size_t goal_count,
                                            const tide_cell* dangers, size_t danger_count, int32_t danger_weight,
                                            double danger_radius, const tide_field_params* params, tide_field** out);
/** Frees a field (a crowd group following it keeps its own reference). */
TIDE_API void tide_field_destroy(tide_field* field);
/** 1 for a flee field (tide_field_build_flee), 0 otherwise. */
TIDE_API int tide_field_is_flee(const tide_field* field);
/** Row-major cost of following the flow from each cell to where it stops (a goal, or a flee field's
    safe spot); +infinity for walls and cells with no path. width * height floats. */
TIDE_API const float* tide_field_to_stop(const tide_field* field);
/** Columns. */
TIDE_API int32_t tide_field_width(const tide_field* field);
/** Rows. */
TIDE_API int32_t tide_field_height(const tide_field* field);
/** Row-major least cost to the nearest goal; +infinity for walls and cells with no path.
    width * height floats, valid while the field lives. */
TIDE_API const float* tide_field_integration(const tide_field* field);
/** Row-major direction codes (0..7 moves, TIDE_DIRECTION_*), width * height bytes. */
TIDE_API const uint8_t* tide_field_directions(const tide_field* field);
/** The wall-safe steering direction at a position (cell units): the bilinear blend of the four
    nearest cells' moves where that is safe, else turned toward the cell's own move until it is. A
    step of up to one cell along it enters no wall and cuts no wall corner. Unit length; (0, 0) at a
    goal, in a wall, off the map or where no path exists. */
TIDE_API tide_vec2 tide_field_sample(const tide_field* field, tide_vec2 position);
/** The plain bilinear blend (smooth, but near a wall it may point into it); (0, 0) as above. */
TIDE_API tide_vec2 tide_field_blend(const tide_field* field, tide_vec2 position);
/** tide_field_sample() for `count` positions: xs[i], ys[i] in, out_x[i], out_y[i] out (no
    allocation). Errors: a dead field, NULL arrays with count > 0. */
TIDE_API tide_status tide_field_sample_batch(const tide_field* field, const float* xs, const float* ys, size_t count,
                                             float* out_x, float* out_y);

/* ---- Steering for hosts that move their own units (tide/steering.hpp) ---------------------- */

/** Where the grid lies in the host's world: world = origin + cell_size * (+-x, +-y). */
typedef struct tide_grid_transform {
    float origin_x, origin_y; /**< World position of the outer corner of cell (0, 0). */
    float cell_size;          /**< World units per cell, finite and > 0. */
    int32_t flip_x;           /**< Nonzero: world x decreases as the column grows. */
    int32_t flip_y;           /**< Nonzero: world y decreases as the row grows (y-up worlds). */
} tide_grid_transform;
/** The identity: cell units. */
TIDE_API tide_grid_transform tide_grid_transform_identity(void);
/** A y-up world: the map's bottom-left corner at (left, bottom), `rows` rows, row 0 on top. */
TIDE_API tide_grid_transform tide_grid_transform_y_up(float left, float bottom, float cell_size, int32_t rows);

/** A world position in cell units. */
TIDE_API tide_vec2 tide_grid_to_grid(const tide_grid_transform* transform, tide_vec2 world);
/** A position in cell units in world units. */
TIDE_API tide_vec2 tide_grid_to_world(const tide_grid_transform* transform, tide_vec2 grid);
/** The cell a world position lies in: floor of tide_grid_to_grid() (-2^30 for NaN or beyond 2^30). */
TIDE_API tide_cell tide_grid_cell_of(const tide_grid_transform* transform, tide_vec2 world);

/** How a steering straightens. Start from tide_steer_params_default(). */
typedef struct tide_steer_params {
    float radius;       /**< Unit radius in cells, 0 <= radius < 8 (default 0). */
    int32_t size;       /**< Unit size in cells, 1..8 (default 1). */
    int32_t look_ahead; /**< Moves looked ahead for a straight way, 1..65536 (default 1024). */
    int32_t corners;    /**< Nonzero (default): aim just off the corners the path turns round. */
} tide_steer_params;
/** The defaults. */
TIDE_API tide_steer_params tide_steer_params_default(void);

/** What one unit remembers between tide_steering_steer_memory() calls. Start from
    tide_steer_memory_empty() (and again when the unit teleports or changes field). */
typedef struct tide_steer_memory {
    uint32_t from, seen;
    float aim_x, aim_y;
} tide_steer_memory;
/** A memory that has seen nothing. */
TIDE_API tide_steer_memory tide_steer_memory_empty(void);

/** Directions for one field on one map, in the host's world units (tide::Steering). Immutable:
    any thread may query it. Make a new one after editing the map or for a new field. */
typedef struct tide_steering tide_steering;
/** Makes a steering over `field` on `map` (the map the field was built on; kept alive while the
    steering lives). params NULL: defaults; transform NULL: cell units. Errors: dead handles, sizes
    that differ, params or transform out of range (the message names the value). */
TIDE_API tide_status tide_steering_create(const tide_field* field, const tide_map* map, const tide_steer_params* params,
                                          const tide_grid_transform* transform, tide_steering** out);
/** Frees a steering. */
TIDE_API void tide_steering_destroy(tide_steering* steering);
/** The raw move of the cell under a world position (world axes); (0, 0) at a goal, wall, off map. */
TIDE_API tide_vec2 tide_steering_move(const tide_steering* steering, tide_vec2 position);
/** The wall-safe direction at a world position (tide_field_sample() in world axes). */
TIDE_API tide_vec2 tide_steering_sample(const tide_steering* steering, tide_vec2 position);
/** The direction straightened by line of sight along the field (no zig-zag on open ground), kept
    clear of walls for the radius; looks every call. */
TIDE_API tide_vec2 tide_steering_steer(const tide_steering* steering, tide_vec2 position);
/** The same, looking again only every few cells, remembering in `memory` (one per unit). */
TIDE_API tide_vec2 tide_steering_steer_memory(const tide_steering* steering, tide_vec2 position,
                                              tide_steer_memory* memory);
/** tide_steering_sample() for `count` positions (no allocation). */
TIDE_API tide_status tide_steering_sample_batch(const tide_steering* steering, const float* xs, const float* ys,
                                                size_t count, float* out_x, float* out_y);
/** tide_steering_steer_memory() for `count` units, memory[i] for unit i (no allocation). */
TIDE_API tide_status tide_steering_steer_batch(const tide_steering* steering, const float* xs, const float* ys,
                                               size_t count, tide_steer_memory* memory, float* out_x, float* out_y);

/* ---- The host's job system ---------------------------------------------------------------- */

/** A range of work: process items [begin, end). */
typedef void (*tide_range_fn)(void* context, size_t begin, size_t end);
/** The host's parallel-for: must call task(context, b, e) on disjoint ranges covering
    [0, count) exactly once, each about `grain` items, and return when all calls finished. */
typedef struct tide_jobs {
    void (*parallel_for)(void* host, size_t count, size_t grain, tide_range_fn task, void* context);
    int32_t max_concurrency; /**< Threads that may run ranges at once (>= 1). */
    void* host;              /**< Passed back to parallel_for. */
} tide_jobs;

/* ---- The crowd ---------------------------------------------------------------------------- */

/** Agents steering along flow fields, in groups (one field per group). */
typedef struct tide_crowd tide_crowd;
/** A group handle: a slot and a generation, as tide_agent, so the handle of a removed group is
    refused (TIDE_ERROR_NOT_FOUND) and never names the group that reuses its slot. */
typedef struct tide_group {
    uint32_t index;
    uint32_t generation;
} tide_group;
/** An agent handle: a slot and a generation, so a stale handle is refused (TIDE_ERROR_NOT_FOUND). */
typedef struct tide_agent {
    uint32_t index;
    uint32_t generation;
} tide_agent;

/** Crowd-wide settings (the C++ tide::CrowdParams). Start from tide_crowd_params_default(). */
typedef struct tide_crowd_params {
    float radius;           /**< Default agent radius, cells. */
    float max_speed;        /**< Default top speed on cost-1 ground, cells/s. */
    float max_force;        /**< Largest steering acceleration, cells/s^2. */
    float separation;       /**< Strength of the push between overlapping agents. */
    float separation_range; /**< Agents push apart within this many times (ri + rj). */
    float arrival_distance; /**< Cost-to-go below which an agent is at its goal. */
    float settle_distance;  /**< Cost-to-go within which touching an arrived mate stops an agent. */
    float stuck_progress;   /**< Less progress than this in stuck_seconds: stuck. */
    float stuck_seconds;    /**< Window of the stuck check, s. */
    float max_substep;      /**< Longer steps are split, s (0, 0.1]. */
} tide_crowd_params;

/** Settings of one agent (the C++ tide::AgentParams). */
typedef struct tide_agent_params {
    float radius;           /**< Disc radius, cells, (0, 4]. */
    float max_speed;        /**< Top speed on cost-1 ground, cells/s, (0, 100]. */
    uint8_t movement_class; /**< Movement class: the agent joins only groups of this class. */
    uint64_t user_tag;      /**< The host's value (an entity id); never read by the crowd. */
} tide_agent_params;

/** Agent states of tide_crowd_read_agents(). */
#define TIDE_AGENT_MOVING 0
#define TIDE_AGENT_ARRIVED 1
#define TIDE_AGENT_NO_PATH 2
#define TIDE_AGENT_QUEUED 3 /**< Waiting behind others (or at its pack's edge): not stuck, by design. */

/** The C++ defaults. */
TIDE_API tide_crowd_params tide_crowd_params_default(void);
/** A crowd on `map` (params NULL: defaults). It keeps the map's terrain alive (the map may be
    destroyed first); edits made through the map handle while it lives are seen at the next step. */
TIDE_API tide_status tide_crowd_create(const tide_map* map, const tide_crowd_params* params, tide_crowd** out);
/** Frees a crowd. */
TIDE_API void tide_crowd_destroy(tide_crowd* crowd);
/** The crowd-wide defaults as agent settings (class 0, tag 0). */
TIDE_API tide_agent_params tide_crowd_default_agent_params(const tide_crowd* crowd);
/** Adds a group of units `unit_size` cells a side (1 for ordinary units) following `field` (the
    group keeps a reference: the caller may destroy its handle); its id in *out (NULL: refused). */
TIDE_API tide_status tide_crowd_add_group(tide_crowd* crowd, const tide_field* field, int32_t unit_size,
                                          tide_group* out);
/** tide_crowd_add_group() for units of `movement_class` (tide_crowd_add_group makes class 0): only
    agents of that class may join the group (TIDE_ERROR_INVALID_ARGUMENT otherwise). */
TIDE_API tide_status tide_crowd_add_group_of_class(tide_crowd* crowd, const tide_field* field, int32_t unit_size,
                                                   uint8_t movement_class, tide_group* out);
/** Reads a group's movement class into *out. TIDE_ERROR_NOT_FOUND for an unknown group. */
TIDE_API tide_status tide_crowd_get_group_movement_class(const tide_crowd* crowd, tide_group group, uint8_t* out);
/** Changes a group's movement class; TIDE_ERROR_INVALID_ARGUMENT while a member is of another class. */
TIDE_API tide_status tide_crowd_set_group_movement_class(tide_crowd* crowd, tide_group group, uint8_t movement_class);
/** Points a group at a new field from the next step. */
TIDE_API tide_status tide_crowd_set_group_field(tide_crowd* crowd, tide_group group, const tide_field* field);
/** Removes an empty group (its handle is stale from now on; a new group may reuse its slot). */
TIDE_API tide_status tide_crowd_remove_group(tide_crowd* crowd, tide_group group);
/** Adds an agent (params NULL: the defaults); its handle in *out (NULL: refused, the handle would be
    lost). Errors: off the map, on a wall, unknown group, bad params. */
TIDE_API tide_status tide_crowd_add_agent(tide_crowd* crowd, tide_vec2 position, tide_group group,
                                          const tide_agent_params* params, tide_agent* out);
/** Removes an agent. */
TIDE_API tide_status tide_crowd_remove_agent(tide_crowd* crowd, tide_agent agent);
/** Replaces an agent's settings (its movement class must stay its group's). */
TIDE_API tide_status tide_crowd_set_agent_params(tide_crowd* crowd, tide_agent agent, const tide_agent_params* params);
/** Reads an agent's settings. */
TIDE_API tide_status tide_crowd_get_agent_params(const tide_crowd* crowd, tide_agent agent, tide_agent_params* out);
/** Moves an agent to another group (a new order); TIDE_ERROR_INVALID_ARGUMENT for a group of
    another movement class. */
TIDE_API tide_status tide_crowd_set_agent_group(tide_crowd* crowd, tide_agent agent, tide_group group);
/** Moves an agent to another group and replaces its settings at once: how an agent changes
    movement class (params->movement_class must be the group's). Nothing changes on error. */
TIDE_API tide_status tide_crowd_set_agent_group_and_params(tide_crowd* crowd, tide_agent agent, tide_group group,
                                                           const tide_agent_params* params);
/** Teleports an agent (velocity reset). */
TIDE_API tide_status tide_crowd_set_position(tide_crowd* crowd, tide_agent agent, tide_vec2 position);
/** Advances by dt seconds, (0, 10]; jobs NULL runs on the calling thread. Results are identical
    for any job system. */
TIDE_API tide_status tide_crowd_step(tide_crowd* crowd, float dt, const tide_jobs* jobs);
/** Live agents. */
TIDE_API size_t tide_crowd_size(const tide_crowd* crowd);
/** Bulk read: writes every live agent, in slot order, into each non-NULL array (each must hold
    `capacity` >= tide_crowd_size() items; TIDE_ERROR_TOO_LARGE otherwise) and sets *count (may be
    NULL). states receive TIDE_AGENT_*. */
TIDE_API tide_status tide_crowd_read_agents(const tide_crowd* crowd, size_t capacity, tide_agent* ids,
                                            tide_vec2* positions, tide_vec2* velocities, uint8_t* states,
                                            uint64_t* user_tags, size_t* count);
/** 64-bit hash of every agent's state (equal hashes: identical crowds). */
TIDE_API uint64_t tide_crowd_state_hash(const tide_crowd* crowd);

/* ---- The field service -------------------------------------------------------------------- */

/** Background work for the field service and the World: `enqueue` must run task(context) once,
    soon, on some thread (a worker pool). Without one, builds run inside the calls that need them. */
typedef void (*tide_task_fn)(void* context);
typedef struct tide_background {
    void (*enqueue)(void* host, tide_task_fn task, void* context);
    int32_t concurrency; /**< Tasks that may run at once (>= 1): builds in parallel. */
    void* host;          /**< Passed back to enqueue. */
} tide_background;

/** Fields on demand over one terrain (tide::FieldService): tickets, a cache with a budget,
    coalescing, builds in the background, publication at fixed points, repair after edits.
    Threads: unlike the other handles, a service may be called from any thread at any time (its
    calls lock); the fields it hands out are immutable. Destroy it from one thread, once. */
typedef struct tide_service tide_service;
/** A ticket: one requester's wish for a field (index and generation; stale once released). */
typedef struct tide_ticket {
    uint32_t index;
    uint32_t generation;
} tide_ticket;

/** How a service is made. Start from tide_service_config_default(). */
typedef struct tide_service_config {
    uint64_t budget_bytes;       /**< Cache budget (default 256 MiB, at least 1). */
    int32_t max_parallel_builds; /**< 0 (default): the background's concurrency. */
    int32_t auto_publish;        /**< 1: each field is published as soon as it is built. Default 0. */
    int32_t repair;              /**< 1 (default): edits repair cached fields instead of rebuilding. */
    int64_t hierarchy_cells;     /**< Maps of at least this many cells plan hierarchically (default: none). */
} tide_service_config;
/** The defaults. */
TIDE_API tide_service_config tide_service_config_default(void);

/** What a ticket asks for. Start from tide_field_options_default(). */
typedef struct tide_field_options {
    tide_field_params params;   /**< Diagonal factor and connectivity. */
    int32_t movement_class;     /**< 0: the map's costs at size 1; 1..: the map's unit classes in order. */
    int32_t flee;               /**< 1: a flee field from the cells (they are dangers). */
    double flee_factor;         /**< Flee factor (default 1.2). */
    int32_t wall_margin_radius; /**< Wall margin, cells (0: none). */
    int32_t wall_margin_extra;  /**< Cost added within the margin, 0..253. */
    int32_t priority;           /**< Queued builds run highest priority first. */
} tide_field_options;
/** The defaults: a goal field on the map's costs, no margin. */
TIDE_API tide_field_options tide_field_options_default(void);

/** A service owning a copy of `map`'s terrain (its unit classes become movement classes 1, 2...).
    `config` NULL: defaults; `background` NULL: builds run inside request() and the other calls
    (copied; it must stay valid while the service lives). */
TIDE_API tide_status tide_service_create(const tide_map* map, const tide_service_config* config,
                                         const tide_background* background, tide_service** out);
/** Frees a service (drops queued builds, waits for running ones); fields handed out stay valid. */
TIDE_API void tide_service_destroy(tide_service* service);
/** Asks for the field toward `goals` (or away from them with options->flee); returns at once with a
    ticket. Errors: no goal, a goal off the map or impassable for the class, bad options. */
TIDE_API tide_status tide_service_request(tide_service* service, const tide_cell* goals, size_t goal_count,
                                          const tide_field_options* options, tide_ticket* out);
/** Points a live ticket at new goals (the old field stays current until the new one is published). */
TIDE_API tide_status tide_service_retarget(tide_service* service, tide_ticket ticket, const tide_cell* goals,
                                           size_t goal_count, const tide_field_options* options);
/** Ends a ticket (its field stays valid for whoever holds it). */
TIDE_API tide_status tide_service_release(tide_service* service, tide_ticket ticket);
/** Makes every finished field current, all at once (call at the start of a tick); how many changed. */
TIDE_API size_t tide_service_publish(tide_service* service);
/** Waits until no build is queued or running (the calling thread builds too), then publish() shows all. */
TIDE_API tide_status tide_service_wait_idle(tide_service* service);
/** The ticket's published field as a field handle (destroy it). TIDE_ERROR_NOT_FOUND: nothing
    published yet or a dead ticket; TIDE_ERROR_UNSUPPORTED on hierarchical maps. */
TIDE_API tide_status tide_service_current(const tide_service* service, tide_ticket ticket, tide_field** out);

/** Where a ticket stands. */
typedef struct tide_ticket_status {
    int32_t live;                   /**< 0 for a released or unknown ticket. */
    int32_t has_field;              /**< A field is published for it. */
    int32_t up_to_date;             /**< That field answers its latest goals on the current terrain. */
    int32_t ready;                  /**< A newer field waits for publish(). */
    int32_t building;               /**< A build it waits for is running. */
    int32_t queued;                 /**< A build it waits for has not started. */
    uint32_t blocked_goals;         /**< Goals walled by edits (left out of the builds). */
    uint64_t field_terrain_version; /**< Terrain version its field was built on. */
} tide_ticket_status;
/** A ticket's status (a dead ticket: live = 0, not an error). */
TIDE_API tide_status tide_service_status(const tide_service* service, tide_ticket ticket, tide_ticket_status* out);
/** Sets the cells of [x0, x1] x [y0, y1] (clipped) to `cost` (1..255) and brings the fields up to
    date: cached fields are repaired, live tickets get new fields at a later publish(). */
TIDE_API tide_status tide_service_edit_rect(tide_service* service, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                            uint8_t cost);
/** Sets the listed cells to `cost` (nothing changes when one is off the map). */
TIDE_API tide_status tide_service_edit_cells(tide_service* service, const tide_cell* cells, size_t count, uint8_t cost);
/** Would walling `walls` leave any reachable cell without a path to the ticket's goals? From its
    published field, no build: *out_blocks 1 or 0, *out_cut_off the cells cut off (may be NULL). */
TIDE_API tide_status tide_service_would_block(const tide_service* service, tide_ticket ticket, const tide_cell* walls,
                                              size_t wall_count, int32_t* out_blocks, uint64_t* out_cut_off);

/** Service counters. */
typedef struct tide_service_stats {
    uint64_t requests, hits, misses, coalesced, builds, repairs, repair_rebuilds, evictions, publications;
    uint64_t bytes_cached, fields_cached, budget_bytes, queued, running, tickets, terrain_version;
} tide_service_stats;
/** The service's counters. */
TIDE_API tide_status tide_service_get_stats(const tide_service* service, tide_service_stats* out);
/** The current terrain as a new map (destroy it): what the fields plan on after the edits. */
TIDE_API tide_status tide_service_terrain(const tide_service* service, tide_map** out);
/** Changes the cache budget (bytes, at least 1), evicting the least recently used fields. */
TIDE_API tide_status tide_service_set_budget(tide_service* service, uint64_t bytes);
/** Empties the cache (fields held elsewhere stay valid). */
TIDE_API tide_status tide_service_clear_cache(tide_service* service);

#ifdef __cplusplus
}
#endif

#endif /* TIDE_TIDE_H */
