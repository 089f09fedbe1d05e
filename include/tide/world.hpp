#pragma once
/// \file world.hpp
/// A simulated world: a map, a crowd of units in groups, and the field service that builds each
/// group's field. Driven by commands (`apply`) and `tick`; no I/O, no threads of its own (builds
/// run on the job system's background tasks). Library target `tide::world`.
///
/// Orders: an order selects units (a box of positions or a list of handles) and gives them a goal
/// set; they leave their groups and form a new group with its own field ticket. Until that field
/// is published the units keep following their previous field, so nobody stops; then all of them
/// turn at the same tick. Groups left without members are dropped (but the last group stays, so a
/// world without units keeps its goals).
///
/// One request path for every map: each group holds a field-service ticket, and its crowd group
/// follows the ticket's FieldView. Big maps (WorldConfig::hierarchy_cells; see hierarchy.hpp) get
/// hierarchical plans from the service instead of whole-map fields: a plan is ready at once, so an
/// order's units turn and are routed before apply() returns; every tick first routes the units that stand in sectors
/// without a routed field (FieldService::route(); meanwhile they steer by the plan's coarse
/// direction). Paint goes to the service; its plans catch up at the next tick, once for all the
/// strokes since. Towers, flee orders, wall margins and congestion are refused there (the
/// service's check_options() says why).
///
/// Congestion (WorldConfig::congestion, SetCongestion; flat maps): every 1 / refresh_hz simulated
/// seconds, before the step, the world measures the crowd's density and asks the field service for
/// each goal group's field with that density term (a second ticket per group); the fields asked
/// for at one refresh are handed to the crowd as the groups' steering fields at the next one
/// (waiting for their builds then if needed), so what units steer by is a function of the
/// simulation alone, whatever the threads. Arrival and progress still read the plain field.
/// A terrain edit drops the steering fields until the next refresh brings new ones.
///
/// Not thread-safe: one thread calls everything (the simulation thread of a server, a game loop).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/congestion.hpp"
#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"
#include "tide/export.h"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"
#include "tide/jobs.hpp"
#include "tide/limits.hpp"
#include "tide/result.hpp"

namespace tide {

/// Unit sizes a world offers: 1..kWorldUnitSizes cells per side (movement class = size - 1).
inline constexpr int kWorldUnitSizes = 3;
/// Movement class of a world's units of `size` cells (1..kWorldUnitSizes): size - 1. The field
/// service plans each class at its size, and the crowd groups and units of that size carry it.
inline constexpr MovementClass world_movement_class(int size) noexcept {
    return static_cast<MovementClass>(size - 1);
}

/// Most units of size 1 a world may hold on `cost` (inside `area` when given): kMaxUnitsPerFreeCell
/// per passable cell, at most kMaxWorldUnits. Hosts cap a respawn on a new map with it.
TIDE_WORLD_API int max_units(const CostField& cost, std::optional<CellRect> area = std::nullopt);

/// Id of a group of units: 1, 2, 3... never reused within a world (0 = none).
using UnitGroupId = std::uint32_t;

/// Unit settings applied to every unit.
struct UnitParams {
    float speed = 3.0f;       ///< Top speed on plain ground, cells/s (0.1..20).
    float separation = 6.0f;  ///< Separation strength (0..20).
    float radius = 0.16f;     ///< Radius of a unit of size 1, cells (0.05..0.5); a unit of size s
                              ///< gets radius + 0.45 * (s - 1).
};

/// A box of positions, half-open: units with x0 <= x < x1 and y0 <= y < y1 (cell units).
struct SelectBox {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// Sets the goals of a group (the units keep their field until the new one is published), or,
/// with group 0, puts every unit into one group with these goals.
struct SetGoals {
    std::vector<Cell> goals;  ///< 1..kMaxOrderGoals cells on the map, not walls.
    UnitGroupId group = 0;    ///< 0: all units.
    bool flee = false;        ///< The cells are dangers: the units flee from them (a flee field).
    bool exit = false;        ///< The cells are exits: units leave the world through them (removed on
                              ///< reaching one, see World::exited()) instead of gathering there.
};
/// Orders the selected units to a goal set: they form a new group.
struct Order {
    std::variant<SelectBox, std::vector<AgentId>> select;  ///< Units in a box, or these handles (stale ones skipped).
    std::vector<Cell> goals;                               ///< 1..kMaxOrderGoals cells on the map, not walls.
    bool flee = false;  ///< The cells are dangers: the units flee from them (a flee field).
    bool exit = false;  ///< The cells are exits: units leave the world through them (see SetGoals::exit).
    /// March in this formation (Crowd::set_group_formation; FormationShape::none: flow and pack).
    /// Not with flee or exit.
    Formation formation;
};
/// Paints a round brush of `radius` cells around (x, y) with `cost` (kCostWall for walls). Goal
/// cells are never walled; units caught in new walls move to the nearest open cell.
struct Paint {
    int x = 0, y = 0, radius = 0;
    Cost cost = kCostPlain;
};
/// Removes every unit (unless `add`) and spawns `count` units of `size` at random cells open to
/// them (inside `area`, cells inclusive, when given; else inside the map's spawn area, if load()
/// was given one); they form one group with the goals of the largest group (its field is built
/// before the command returns).
/// Refused when `count` units (size s counting s x s) exceed kMaxUnitsPerFreeCell per cell of
/// the area open to their size, or (with `add`) all units exceed that many per open map cell.
struct Spawn {
    int count = 0;
    bool in_area = false;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< The area, when in_area.
    int size = 1;                        ///< Unit size, 1..kWorldUnitSizes cells per side.
    bool add = false;                    ///< Keep the units there are (a new group for the new ones).
};
/// Walls the cells [x0, x1] x [y0, y1] (a tower, at most kMaxTowerSide a side) unless that would
/// cut a unit or a live spawner's area off from its goals or cover a goal (see
/// World::check_tower); refused then.
struct PlaceTower {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
/// Changes the unit settings of every unit.
struct SetUnitParams {
    UnitParams params;
};
/// Pauses or resumes the simulation (fields are still published while paused).
struct SetPaused {
    bool paused = false;
};
/// Sets the wall margin every group plans with (see WallMargin; {0, 0}: none). Every group's
/// field is requested again; units keep their fields until the new ones are published.
struct SetWallMargin {
    WallMargin margin;
};
/// Sets how congestion enters the groups' fields (see CongestionParams and World's file comment);
/// `params.enabled` turns it on or off. Flat maps only.
struct SetCongestion {
    CongestionParams params;
};
/// Removes the selected units from the world (their groups shrink; a group left empty goes).
struct RemoveUnits {
    std::variant<SelectBox, std::vector<AgentId>> select;  ///< Units in a box, or these handles (stale ones skipped).
};
/// Id of a spawner (World::spawners): 1, 2, 3... never reused within a world (0 = none).
using SpawnerId = std::uint32_t;
/// Most units one emission of a spawner may add.
inline constexpr int kMaxSpawnPerEmission = 1000;
/// A source of units on a schedule, in simulated time: tower-defense waves, a unit every N seconds.
/// Emissions fall every `every_s` from `start_s` after the command; with `wave_emissions` > 0 they
/// come in waves of that many, `wave_pause_s` apart, `waves` of them (0: endless). Each emission
/// adds `per_emission` units at random cells of `area` open to their size (the world's seeded
/// generator: the same on every machine); when the area (or the map) has no room, the emission's
/// units are skipped and counted. The units form one group walking to `goals`; with `exit` the
/// goals are sinks: units that reach them leave the world and count as sunk.
struct SpawnerSpec {
    CellRect area;              ///< Cells the units appear on (inclusive; clipped to the map).
    std::vector<Cell> goals;    ///< 1..kMaxOrderGoals cells on the map, not walls.
    bool exit = true;           ///< The goals are sinks (units leave there); false: units gather there.
    int size = 1;               ///< Unit size, 1..kWorldUnitSizes.
    double start_s = 0.0;       ///< From the command to the first emission, simulated seconds (0..86400).
    double every_s = 1.0;       ///< Between the emissions of a wave (0.001..86400).
    int per_emission = 1;       ///< Units per emission, 1..kMaxSpawnPerEmission.
    int wave_emissions = 0;     ///< Emissions per wave (0: one endless wave).
    double wave_pause_s = 0.0;  ///< From a wave's last emission to the next wave's first (0..86400).
    int waves = 0;              ///< Waves (0: endless); needs wave_emissions > 0.
};
/// Starts a spawner (CommandOutcome::spawner: its id). Refused: an area off the map or empty, bad
/// goals, values out of range.
struct AddSpawner {
    SpawnerSpec spec;
};
/// Stops a spawner (its units walk on; it stays listed, done). Refused for an unknown id.
struct RemoveSpawner {
    SpawnerId id = 0;
};
/// Everything apply() takes.
using WorldCommand = std::variant<SetGoals, Order, Paint, Spawn, SetUnitParams, SetPaused, PlaceTower, SetWallMargin,
                                  SetCongestion, RemoveUnits, AddSpawner, RemoveSpawner>;

/// What a command did: for an order or a goal change, the group and how many units it has; for
/// AddSpawner the spawner's id.
struct CommandOutcome {
    UnitGroupId group = 0;
    std::size_t units = 0;
    SpawnerId spawner = 0;
};

/// A spawner as the world reports it (World::spawners).
struct SpawnerInfo {
    SpawnerId id = 0;
    SpawnerSpec spec;
    UnitGroupId group = 0;        ///< The group its units join (made with the spawner, again if dropped).
    std::uint64_t emissions = 0;  ///< Emissions so far.
    std::uint64_t spawned = 0;    ///< Units added so far.
    std::uint64_t skipped = 0;    ///< Units not added: no room in the area or on the map.
    std::uint64_t sunk = 0;       ///< Of its units, left through its goals (exit spawners).
    int waves_done = 0;           ///< Waves whose last emission has been made.
    bool done = false;            ///< No emission left (all waves made, or removed).
    double next_s = -1.0;         ///< Simulated time (Crowd::time) of the next emission; -1 when done.
};

/// A group as the world reports it.
struct UnitGroup {
    UnitGroupId id = 0;
    std::vector<Cell> goals;         ///< Canonical order (by row, then column), as cells its units can stand on.
    int size = 1;                    ///< Size of its units (1..kWorldUnitSizes).
    bool flee = false;               ///< Its goals are dangers its units flee from.
    bool exit = false;               ///< Its goals are exits its units leave by.
    std::size_t members = 0;         ///< Units in the group.
    std::size_t exited = 0;          ///< Units that left through its exits so far.
    bool field_ready = false;        ///< Its members follow its own field (else still their previous one).
    std::uint64_t field_serial = 0;  ///< Bumped whenever the group's field changes (a new field published).
    std::chrono::steady_clock::time_point ordered;  ///< When the order (or goal change) was given.
    double order_to_field_ms = -1.0;                ///< From the order to its field's publication; -1 while waiting.
    double order_to_ready_ms = -1.0;  ///< From the order until its field was built (or found cached); -1 while waiting.
    std::size_t sector_fields = 0;    ///< Hierarchical maps: sector fields its plan holds (0 on flat maps).
    friend bool operator==(const UnitGroup&, const UnitGroup&) = default;
};

/// World counters.
struct WorldStats {
    CrowdStats crowd;        ///< Units, arrived, no path, stuck.
    double step_ms = 0.0;    ///< Last crowd step.
    double build_ms = 0.0;   ///< Build time of the last built field published (0 for a cache hit).
    double repair_ms = 0.0;  ///< Time of the last repair published (a field brought up to date after an edit).
    std::uint64_t repairs_published = 0;  ///< Repaired fields published so far.
    double order_to_field_ms = 0.0;       ///< Order to published field, for the last order answered.
    std::uint64_t tick = 0;               ///< Ticks simulated.
    std::uint64_t exited = 0;             ///< Units that left through exits so far (this map).
    std::uint64_t fields_published = 0;   ///< Group field changes so far.
    // Hierarchical maps (all zero on flat maps).
    bool hierarchical = false;       ///< The map plans hierarchically (WorldConfig::hierarchy_cells).
    double graph_build_ms = 0.0;     ///< Sector graph build of the last load (units of size 1).
    double graph_update_ms = 0.0;    ///< Last catch-up after paint: graph updates and the plans told, ms.
    std::size_t plans = 0;           ///< Plans the groups follow now (groups with the same goals and size share one).
    std::uint64_t plans_shared = 0;  ///< Orders and goal changes answered with an existing plan.
    std::size_t sector_fields = 0;   ///< Sector fields the groups' plans hold now, summed (shared plans once).
    std::size_t sector_field_bytes = 0;  ///< Bytes of those fields.
    double route_ms = 0.0;       ///< Routing of the last order or goal change (its units' sectors and routes), ms.
    double tick_route_ms = 0.0;  ///< Routing in the last tick (units that entered sectors without a field), ms.
    // Congestion (all zero while it is off).
    std::uint64_t congestion_refreshes = 0;  ///< Density measurements that asked for new group fields.
    double congestion_ms = 0.0;              ///< Last refresh: density, layers and requests, ms (not the builds).
    double congestion_wait_ms = 0.0;         ///< Last refresh: waiting for the previous refresh's builds, ms.
};

/// How a world is made. Plain settings.
struct WorldConfig {
    CrowdParams crowd;  ///< Crowd settings (radius, speed and separation follow UnitParams).
    std::size_t field_budget_bytes = std::size_t{256} << 20;  ///< The field cache budget.
    std::uint64_t seed = 1;                                   ///< Spawn positions.
    /// Where the field service allocates (fields, bookkeeping); must outlive the world and every
    /// field it hands out.
    std::pmr::memory_resource* field_memory = std::pmr::get_default_resource();
    /// Maps of at least this many cells plan hierarchically (0: every map; a huge value: none).
    std::int64_t hierarchy_cells = std::int64_t{2048} * 2048;
    /// Sectors and portals of hierarchical maps (one graph per unit size in use). No landmarks by
    /// default: SectorGraph::update() recomputes them over the whole graph after every paint.
    SectorConfig sectors = [] {
        SectorConfig c;
        c.landmarks = 0;
        return c;
    }();
    /// How the groups of hierarchical maps route (routes.jobs null: on the world's job system).
    RouteConfig routes;
    /// The wall margin every group plans with at first (SetWallMargin changes it; flat maps only).
    WallMargin wall_margin;
    /// Flee factor of flee orders (Order::flee, SetGoals::flee).
    FleeParams flee;
    /// Congestion-aware group fields (off by default; SetCongestion changes it; flat maps only).
    CongestionParams congestion;
    /// Lockstep (docs/determinism.md): fields are published only at fixed points, whatever the
    /// threads: tick() waits for every build in flight and publishes it before the step (nothing
    /// after it), an order waits for its field, and finish_builds_for() publishes only when every
    /// build is done. Off: fields go out as soon as they are built (the smoothest frames). Recording
    /// (start_recording) needs it on.
    bool lockstep = false;
};

/// What a tower would do (World::check_tower).
struct TowerCheck {
    bool blocks = false;                  ///< Refused: it would cut units off, or covers a goal or a danger.
    bool covers_goal = false;             ///< A group's goal lies under it.
    bool covers_danger = false;           ///< A flee group's danger lies under it (its units would lose their field).
    std::size_t units_cut_off = 0;        ///< Units that would lose every path to their goals.
    std::size_t cells_cut_off = 0;        ///< Cells (summed over the groups' fields) that would.
    std::size_t spawn_cells_cut_off = 0;  ///< Cells of live spawners' areas that would lose their way to their goals.
};

struct Recording;

/// The world. See the file comment.
class TIDE_WORLD_API World {
public:
    /// An empty world (a 1x1 map, no units); call load(). `jobs` runs the crowd step and the field
    /// builds and must outlive the world.
    explicit World(JobSystem& jobs, WorldConfig config = {});
    ~World();
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    /// Replaces the map: one group toward `goals` (checked), `units` spawned at random open cells
    /// (inside `spawn_area` when given: it also becomes where Spawn without an area puts units on
    /// this map). Its field is built (hierarchical maps: the sector graph, and the units' routes)
    /// before load() returns. Error (world unchanged) on bad goals, counts or sector settings, and
    /// when `units` exceeds max_units(cost, spawn_area).
    Result<void> load(std::string name, CostField cost, std::vector<Cell> goals, int units,
                      std::optional<CellRect> spawn_area = std::nullopt);
    /// Applies a command; error (world unchanged) for bad goals, an empty selection, an unknown
    /// group, paint off the map, counts or settings out of range. CommandOutcome::units: the units
    /// ordered, spawned or removed.
    Result<CommandOutcome> apply(const WorldCommand& command);
    /// Publishes finished fields (every group whose field changed turns now), advances the crowd
    /// by dt unless paused (or `force`, for single steps), then publishes what finished during the
    /// step: fields change only between steps. Error for a bad dt.
    Result<void> tick(float dt, bool force = false);
    /// Waits for every field build in flight and publishes the results (tests, loading screens).
    void finish_builds();
    /// Waits at most `ms` milliseconds for the builds in flight (on the job system; this thread
    /// builds nothing) and publishes what finished: a host can show an edit's repaired field
    /// before its next step. True when no build is left in flight.
    bool finish_builds_for(double ms);

    /// Would walling [x0, x1] x [y0, y1] cut any unit, or a cell of a live spawner's area, off from
    /// its goals, for any group (each for its unit size)? Answers from the groups' fields without a build (hierarchical
    /// maps: from the terrain, FieldService::would_block). Errors: a rectangle off the map, empty, or over
    /// kMaxTowerSide a side.
    Result<TowerCheck> check_tower(int x0, int y0, int x1, int y1) const;
    /// Size of a unit (0 for a stale handle).
    int unit_size(AgentId id) const noexcept;

    /// The units selected by a box, in roster order.
    std::vector<AgentId> select(const SelectBox& box) const;

    const std::string& name() const noexcept { return name_; }  ///< Map name.
    /// Current terrain (the service's snapshot: valid until the next edit or load).
    const CostField& cost() const noexcept { return *terrain_; }
    std::uint64_t terrain_version() const noexcept { return terrain_version_; }  ///< +1 per edit or load.
    const Crowd& crowd() const noexcept { return *crowd_; }                      ///< The units.
    /// Turns the units' line of sight on or off from the next tick (CrowdParams::line_of_sight; the
    /// initial setting is WorldConfig::crowd.line_of_sight, kept by load()).
    void set_line_of_sight(bool on);
    /// True when units steer by line of sight where they can.
    bool line_of_sight() const noexcept { return config_.crowd.line_of_sight; }
    /// Every unit, in roster order (stable until spawn, load or a unit is removed).
    const std::vector<AgentId>& agents() const noexcept { return agents_; }
    /// +1 whenever the roster changes (spawn, load, a unit removed).
    std::uint64_t roster_version() const noexcept { return roster_version_; }
    /// Units that left through their group's exits during the last tick (their handles are stale
    /// now), in slot order.
    std::span<const AgentId> exited() const noexcept { return exited_; }
    /// The group of a unit (0 for a stale handle).
    UnitGroupId group_of(AgentId id) const noexcept;
    /// The groups, by id.
    const std::vector<UnitGroup>& groups() const noexcept { return groups_view_; }
    /// +1 whenever groups() changes (a group comes or goes, changes goals, members or field).
    std::uint64_t groups_version() const noexcept { return groups_version_; }
    /// A group by id, or nullptr.
    const UnitGroup* group(UnitGroupId id) const noexcept;
    /// False while the field a group follows is older than its goals or the terrain (an edit's
    /// repair or a new build not published yet); true otherwise, also for unknown groups and
    /// hierarchical plans (they catch up within the tick).
    bool field_up_to_date(UnitGroupId id) const;
    /// The arrival region of a group's units (CrowdParams::arrival_regions; inactive for an
    /// unknown group or one whose first field is not published yet).
    ArrivalRegion arrival_region(UnitGroupId id) const;
    /// The group's formation as the last tick left it (Crowd::group_formation; inactive without one).
    FormationState formation(UnitGroupId id) const;
    /// The group with the most units (ties: the lowest id); 0 when there is none.
    UnitGroupId largest_group() const noexcept;
    /// The field a group follows now (nullptr while its first field is being built, for an unknown
    /// id, and on hierarchical maps: see plan()).
    std::shared_ptr<const FlowField> field(UnitGroupId id) const;
    /// True when the loaded map plans hierarchically (WorldConfig::hierarchy_cells).
    bool hierarchical() const noexcept { return stats_.hierarchical; }
    /// Hierarchical maps: the plan a group follows (nullptr on flat maps or for an unknown id). Read
    /// it between ticks (the world routes it in tick() and apply()).
    std::shared_ptr<const HierarchicalField> plan(UnitGroupId id) const;
    /// Hierarchical maps: the sector graph units of `size` plan on (nullptr on flat maps, or when no
    /// group of that size was made on this map yet).
    const SectorGraph* sector_graph(int size = 1) const noexcept;
    /// Goals of every group (what painting may not wall over).
    std::vector<Cell> all_goals() const;
    const UnitParams& params() const noexcept { return params_; }            ///< Unit settings.
    const WallMargin& wall_margin() const noexcept { return wall_margin_; }  ///< The margin groups plan with.
    /// How congestion enters the groups' fields (CongestionParams::enabled: whether it does).
    const CongestionParams& congestion() const noexcept { return config_.congestion; }
    bool paused() const noexcept { return paused_; }             ///< Paused?
    const WorldStats& stats() const noexcept { return stats_; }  ///< Counters.
    /// The field service's counters.
    FieldServiceStats service_stats() const;
    /// The spawners of this map (by id; a load() ends them).
    const std::vector<SpawnerInfo>& spawners() const noexcept { return spawners_; }

    /// A hash of the simulation state (every unit's slot, state, position and velocity, the ticks
    /// simulated, the terrain version, every group's id, members and field serial): equal on every
    /// machine for the same commands in lockstep (docs/determinism.md). Cheap: one pass over the units.
    std::uint64_t state_hash() const;
    /// Appends every load, applied command, tick (with the state hash after it), finish_builds and
    /// line-of-sight change from now on to `recording` (which must outlive the world or
    /// stop_recording()); it starts with this world's settings. Error (nothing recorded) unless
    /// WorldConfig::lockstep is on and no map was loaded yet. See recording.hpp.
    Result<void> start_recording(Recording& recording);
    /// Stops appending to the recording.
    void stop_recording() noexcept { recording_ = nullptr; }

private:
    struct Group;
    Result<std::vector<Cell>> check_goals(const std::vector<Cell>& goals) const;
    std::vector<Cell> goals_for_size(const std::vector<Cell>& goals, int size) const;
    float radius_for(int size) const noexcept { return params_.radius + 0.45f * static_cast<float>(size - 1); }
    Result<CommandOutcome> order(std::vector<AgentId> units, std::vector<Cell> goals, bool flee, bool exit,
                                 const Formation& formation = {});
    Result<CommandOutcome> order_one_size(const std::vector<AgentId>& units, const std::vector<Cell>& goals, int size,
                                          bool flee, bool exit, const Formation& formation);
    void remove_exited();
    std::vector<AgentId> selection(const std::variant<SelectBox, std::vector<AgentId>>& select) const;
    std::size_t remove_units(std::vector<AgentId> units);
    FieldOptions field_options(int size, bool flee) const;
    Result<void> set_wall_margin(const WallMargin& margin);
    Result<void> set_congestion(const CongestionParams& params);
    void refresh_congestion();
    void drop_steering();
    Result<void> place_tower(const PlaceTower& c);
    void evict_units_from_walls();
    void terrain_changed();
    void take_ready(Group& g);
    double route_units(const Group* only = nullptr);
    void refresh_plan_stats();
    Result<CommandOutcome> set_goals(const SetGoals& c);
    Result<SpawnerId> add_spawner(const SpawnerSpec& spec);
    Result<void> remove_spawner(SpawnerId id);
    void run_spawners();
    void emit(SpawnerInfo& s);
    void schedule_next(SpawnerInfo& s);
    Group* spawner_group(SpawnerInfo& s);
    bool spawner_feeds(UnitGroupId id) const;
    void spawner_done(SpawnerInfo& s);
    Result<void> paint(const Paint& c);
    Result<void> spawn(const Spawn& c);
    Result<void> check_spawn(const Spawn& c) const;
    Result<std::vector<std::uint32_t>> spawn_cells(const Spawn& c) const;
    Result<Group*> spawn_group(const Spawn& c);
    void place_units(const Spawn& c, const std::vector<std::uint32_t>& free_cells, Group& target);
    Result<void> set_unit_params(const UnitParams& p);
    Group* find(UnitGroupId id);
    const Group* find(UnitGroupId id) const;
    Group& new_group(std::vector<Cell> goals, FieldTicket ticket, int size);
    void move_unit(AgentId id, Group& to);
    void leave(Group& g);
    bool apply_fields();
    bool publish_ready();
    void on_publish(const Publication& p);
    bool drop_empty_groups();
    void refresh_view();

    JobSystem* jobs_;
    WorldConfig config_;
    SplitMix64 rng_;
    std::string name_ = "empty";
    // The service's terrain as of the last edit (the crowd reads it too; the service owns the
    // terrain and every class's costs).
    std::shared_ptr<const CostField> terrain_;
    std::uint64_t terrain_version_ = 0;
    std::unique_ptr<FieldService> service_;  // plans every group: fields, or plans on big maps
    std::optional<CellRect> spawn_area_;     // where Spawn without an area puts units on this map
    std::vector<Group*> plan_of_;            // scratch of route_units(): crowd group slot -> group
    std::vector<std::vector<Cell>> starts_;  // scratch of route_units(): cells to route, per crowd group
    std::unique_ptr<Crowd> crowd_;
    std::vector<AgentId> agents_;
    std::vector<AgentId> exited_;  // exited() of the last tick
    std::uint64_t roster_version_ = 0;
    std::vector<UnitGroupId> unit_group_;  // by AgentId::index
    std::vector<std::uint8_t> unit_size_;  // by AgentId::index
    std::vector<std::unique_ptr<Group>> groups_;
    std::vector<UnitGroup> groups_view_;
    std::uint64_t groups_version_ = 0;
    std::vector<Publication> published_;  // filled by on_publish() during apply_fields()
    UnitGroupId next_group_ = 1;
    UnitParams params_;
    bool paused_ = false;
    WallMargin wall_margin_;
    CrowdDensity density_;           // congestion: the crowd measured at the last refresh
    double congestion_clock_ = 0.0;  // congestion: simulated seconds until the next refresh
    WorldStats stats_;
    Recording* recording_ = nullptr;  // start_recording()
    std::vector<SpawnerInfo> spawners_;
    std::vector<SpawnerId> unit_spawner_;  // by AgentId::index: the spawner that added the unit (0: none)
    SpawnerId next_spawner_ = 1;
    std::uint64_t loads_ = 0;  // load() calls that succeeded
};

}  // namespace tide
