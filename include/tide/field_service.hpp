#pragma once
/// \file field_service.hpp
/// The field service: many orders at once. Hosts ask for the field toward a goal set and get a
/// ticket at once; fields are built in the background on the host's job system, cached by
/// (goal set, options, terrain version) under a byte budget, and published whole at a point the
/// host chooses. Terrain edits go through the service, which repairs the cached fields (exactly,
/// touching only the cells that change) and builds what the tickets still need.
///
/// Every map takes this one path. Maps of at least FieldServiceConfig::hierarchy_cells cells are
/// planned hierarchically: a request gets a plan (HierarchicalField: sector fields built along the
/// routes units need, shared by the tickets with the same goals and class) instead of a whole-map
/// field; route() grows it where units stand. Both come out of a ticket as a FieldView, which the
/// crowd samples without knowing which it holds.
///
/// Lifecycle of a ticket: `request()` -> (build queued or running, or answered from the cache)
/// -> the field is *ready* -> `publish()` makes it `current()` (or at once with auto_publish).
/// A ticket is a standing request: after a terrain edit or a `retarget()`, `current()` keeps
/// returning the field it has until the new one is published, so units are never left without one.
///
/// Threads: every member function may be called from any thread at any time; builds run on
/// `JobSystem::enqueue` tasks. A published `FlowField` is immutable and shared: a reader that holds
/// the `shared_ptr` keeps it valid however many newer fields appear.

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/congestion_layer.hpp"
#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/field_builder.hpp"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"
#include "tide/jobs.hpp"
#include "tide/result.hpp"
#include "tide/unit_class.hpp"

namespace tide {

/// Movement class of the units a field is for, part of every cache key: 0 is the default class
/// (the terrain as given, units of one cell); k > 0 is FieldServiceConfig::classes[k - 1].
using MovementClass = std::uint8_t;

/// What a field is built for, besides its goals. Plain settings.
struct FieldOptions {
    FieldParams params;                ///< Diagonal factor, 8 or 4 directions.
    MovementClass movement_class = 0;  ///< Unit class (see MovementClass).
    /// FieldKind::flee asks for the flee field of the given cells, which are then the dangers
    /// (FieldBuilder::build_flee). Part of the key.
    FieldKind kind = FieldKind::goal;
    FleeParams flee;  ///< Flee factor of flee fields (part of their key; ignored for goal fields).
    /// Plan on the class's costs with this wall margin (wall_margin_cost_field). Part of the key.
    WallMargin wall_margin;
    /// Goal fields only: with dangers, a mixed field ("go there, but keep away from that":
    /// FieldBuilder::build_mixed with `danger`). Order and duplicates do not matter. Part of the key.
    std::vector<Cell> dangers;
    DangerCost danger;  ///< The danger term of mixed fields (ignored without dangers). Part of the key.
    /// Goal fields only: plan on the class's costs (with the wall margin) plus this crowd density
    /// term (congestion_cost_field). Part of the key (by its hash); such fields are rebuilt after
    /// edits and never cached (the next refresh brings another layer). Null: none.
    std::shared_ptr<const CongestionLayer> congestion;
    /// Queued builds run highest priority first; among equals, new orders before terrain refreshes,
    /// then oldest first.
    int priority = 0;
};

/// A handle to a standing field request: an index and a generation, so a released ticket is
/// detected instead of naming another request.
struct FieldTicket {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    friend bool operator==(const FieldTicket&, const FieldTicket&) = default;
};

/// Where a ticket stands.
struct TicketStatus {
    bool live = false;             ///< False for a released or unknown ticket (everything below is then zero).
    bool has_field = false;        ///< current() returns a field.
    bool up_to_date = false;       ///< current() answers the ticket's latest goals and options on the current terrain.
    bool answers_request = false;  ///< current() answers the latest goals and options (maybe on an older terrain).
    bool ready = false;            ///< A newer field is finished and waits for publish().
    bool building = false;         ///< A build the ticket waits for is running.
    bool queued = false;           ///< A build the ticket waits for has not started yet.
    std::uint64_t field_terrain_version = 0;  ///< Terrain version current() was built on.
    std::uint32_t blocked_goals = 0;          ///< Goals that are walls on the current terrain (left out of the builds).
};

/// One field made visible by publish(), for the callback.
struct Publication {
    FieldTicket ticket;                      ///< Whose field changed.
    std::shared_ptr<const FlowField> field;  ///< The field now current (null for a plan: see view).
    FieldView view;                          ///< The field or plan now current.
    std::uint64_t terrain_version = 0;       ///< Terrain it was built on.
    bool up_to_date = false;                 ///< Answers the ticket's latest request on the current terrain.
    bool answers_request = false;            ///< Answers the ticket's latest goals and options.
    bool from_cache = false;                 ///< Answered from the cache, no build.
    bool repaired = false;                   ///< Made by repairing an older field (or a plan) after terrain edits.
    double build_ms = 0.0;                   ///< How long its build or repair took (0 from the cache).
    std::chrono::steady_clock::time_point requested;  ///< When the ticket asked (request, retarget or terrain edit).
    std::chrono::steady_clock::time_point ready;      ///< When the field was finished (or found in the cache).
};

/// Service counters. Lookups count requests, retargets and the re-requests of terrain edits.
struct FieldServiceStats {
    std::uint64_t requests = 0;          ///< request() and retarget() calls accepted.
    std::uint64_t hits = 0;              ///< Lookups answered from the cache.
    std::uint64_t misses = 0;            ///< Lookups that needed a build (new, or joined one in flight).
    std::uint64_t coalesced = 0;         ///< Misses that joined a build already queued or running.
    std::uint64_t builds = 0;            ///< Full builds finished.
    std::uint64_t repairs = 0;           ///< Fields brought up to date after edits by an incremental repair.
    std::uint64_t repair_rebuilds = 0;   ///< Repairs that rebuilt instead (cheaper, or a goal was walled).
    std::uint64_t builds_cancelled = 0;  ///< Queued builds dropped before they started: nobody waits any more.
    std::uint64_t evictions = 0;         ///< Fields dropped from the cache to keep within the budget.
    std::uint64_t invalidations = 0;     ///< Cached fields dropped because the terrain changed.
    std::uint64_t publications = 0;      ///< Ticket updates made visible.
    std::size_t bytes_cached = 0;        ///< Bytes of the fields in the cache (never above budget_bytes).
    std::size_t peak_bytes_cached = 0;   ///< Largest bytes_cached so far.
    std::size_t fields_cached = 0;       ///< Fields in the cache.
    std::size_t budget_bytes = 0;        ///< The cache budget.
    std::size_t bytes_spare = 0;         ///< Freed field buffers kept for the next builds (bounded, not cached).
    /// Bytes of every field and terrain snapshot alive: cached, current, held or being built.
    std::size_t bytes_in_use = 0;
    std::size_t queued = 0;             ///< Builds waiting for a worker.
    std::size_t running = 0;            ///< Builds in progress.
    std::size_t tickets = 0;            ///< Live tickets.
    std::uint64_t terrain_version = 0;  ///< Version of the current terrain (0 at creation, +1 per edit).
    // Hierarchical maps (FieldServiceConfig::hierarchy_cells):
    std::size_t plans = 0;               ///< Plans alive (each shared by the tickets with its goals and class).
    std::uint64_t plans_shared = 0;      ///< Requests answered with a plan that already existed.
    std::size_t sector_fields = 0;       ///< Sector fields the live plans hold.
    std::size_t sector_field_bytes = 0;  ///< Their bytes.
    std::uint64_t graphs_built = 0;      ///< Sector graphs built (one per class, on first use).
    double graph_build_ms = 0.0;         ///< Time of the last graph build, ms.
    double graph_update_ms = 0.0;        ///< Time of the last catch-up after edits (graphs updated, plans told), ms.
};

/// Called once per publication. From publish() on the thread that calls it; with auto_publish
/// from the worker that finished the build. Must not block for long; may call the service.
using PublishCallback = std::function<void(const Publication&)>;

/// How a service runs. Plain settings.
struct FieldServiceConfig {
    std::size_t budget_bytes = std::size_t{256} << 20;  ///< Cache budget, bytes (at least 1).
    int max_parallel_builds = 0;  ///< Builds at once; 0 = the job system's background_concurrency().
    bool auto_publish = false;    ///< Publish each field as soon as it is built (no publish() calls needed).
    /// Keep with every cached field what an incremental repair needs (FieldRepairState: 9 more
    /// bytes per cell, 22 for a flee field and 19 for a mixed one, counted in the budget) and, after
    /// a terrain edit, repair the cached fields
    /// instead of rebuilding them. False: edits empty the cache and live tickets get full builds.
    bool repair = true;
    PublishCallback on_publish;  ///< Optional.
    /// Movement classes 1, 2, ... (at most 255): each plans on its own costs (or the terrain) seen
    /// by units of its size (sized_cost_field). Edits apply to every class's costs alike (a wall is
    /// a wall for everyone, a cost V is V for everyone). Names are for messages only.
    std::vector<UnitClass> classes;
    /// Maps of at least this many cells are planned hierarchically (see the file comment); flee
    /// and mixed fields, wall margins and congestion layers are not available
    /// there. Default: no map; 0: every map.
    std::int64_t hierarchy_cells = std::numeric_limits<std::int64_t>::max();
    SectorConfig sectors;  ///< Hierarchical maps: sectors and portals (one graph per class in use).
    RouteConfig routes;    ///< Hierarchical maps: how plans route (routes.jobs null: the service's job system).
};

/// The field service over one terrain. See the file comment.
class TIDE_API FieldService {
public:
    /// A service owning `terrain`, building on `jobs` (which must outlive the service and run
    /// every task it is given). Bookkeeping and field buffers come from `memory`, which must
    /// outlive every field the service hands out. Errors: a budget of 0; more than 255 classes,
    /// a class size outside 1..kMaxUnitSize or class costs of other dimensions than the terrain.
    static Result<std::unique_ptr<FieldService>> create(
        CostField terrain, JobSystem& jobs, FieldServiceConfig config = {},
        std::pmr::memory_resource* memory = std::pmr::get_default_resource());
    /// Drops queued builds and waits for running ones (not for tasks the job system has not
    /// started: those find the service gone and return). Gives back all memory taken from
    /// `memory` except the blocks of fields still held, which stay valid.
    ~FieldService();
    FieldService(const FieldService&) = delete;
    FieldService& operator=(const FieldService&) = delete;

    /// Asks for the field toward `goals` (nearest goal wins; order and duplicates do not matter), or
    /// away from them with FieldKind::flee. Returns at once. Errors: no goal, a goal off the map or
    /// impassable for the movement class, a bad diagonal factor, flee factor or wall margin, an
    /// unknown class; dangers on a flee field, a danger off the map or on a wall, a bad danger term;
    /// a congestion layer on a flee field or of another size than the map.
    /// Every kind (goal, flee, mixed, with or without a wall margin) is repaired after terrain
    /// edits; a goal or danger walled in by edits is left out, and then the field is rebuilt.
    /// Fields with a congestion layer are rebuilt (each is made for one moment of the crowd).
    Result<FieldTicket> request(std::span<const Cell> goals, const FieldOptions& options = {});
    /// Points a live ticket at new goals/options (a new order for the same group): current() keeps
    /// the old field until the new one is published; a build nobody else waits for is cancelled
    /// if it has not started. Same errors as request(), plus a ticket that is not live.
    Result<void> retarget(FieldTicket ticket, std::span<const Cell> goals, const FieldOptions& options = {});
    /// Ends a ticket. A build nobody else waits for is cancelled if it has not started. The field
    /// stays valid for whoever holds it. Error for a ticket that is not live.
    Result<void> release(FieldTicket ticket);

    /// The ticket's published field, or nullptr (nothing published yet, the ticket is not live, or
    /// it holds a plan: see view()).
    std::shared_ptr<const FlowField> current(FieldTicket ticket) const;
    /// The ticket's published field or plan (an empty view when nothing is published yet or the
    /// ticket is not live). A whole-map field outlives the service; a plan reads the service's
    /// sector graph and costs, so it must not be read once the service is gone.
    FieldView view(FieldTicket ticket) const;
    /// Makes sure units standing on `starts` have fields all the way to the goals of the ticket's
    /// published plan (HierarchicalField::route()), after bringing the plans up to date with the
    /// edits since the last planning call. Nothing to do for a whole-map field, which covers every
    /// cell. A planning call: make it between the steps of whoever reads the plan, as publish().
    /// It plans under the service's lock (other calls wait; builds of whole-map fields do not).
    /// Errors: a ticket that is not live, a start off the map.
    Result<RouteStats> route(FieldTicket ticket, std::span<const Cell> starts);
    /// Checks goals and options as request() does, changing nothing.
    Result<void> check(std::span<const Cell> goals, const FieldOptions& options = {}) const;
    /// Checks the options alone (what request() refuses whatever the cells: ranges, an unknown
    /// class, what hierarchical maps do not offer), changing nothing.
    Result<void> check_options(const FieldOptions& options) const;
    /// True when requests get hierarchical plans (FieldServiceConfig::hierarchy_cells).
    bool hierarchical() const;
    /// Hierarchical maps: the sector graph class `c` plans on (nullptr before its first plan, and
    /// on other maps). Read it between planning calls.
    const SectorGraph* sector_graph(MovementClass c) const;
    /// Would walling `walls` (cells as the ticket's class sees them) leave any of `spawns` (or,
    /// with none, any reachable cell) without a path to the ticket's goals? Answered from its
    /// published field without a build (FieldBuilder::would_block); on hierarchical maps from the
    /// class's costs as they are now (a local check round the walls, the whole map only when that
    /// cannot tell). Errors: a ticket that is not live or (flat maps) has no field yet, a cell off
    /// the map.
    Result<BlockAnswer> would_block(FieldTicket ticket, std::span<const Cell> walls,
                                    std::span<const Cell> spawns = {}) const;
    /// Where the ticket stands.
    TicketStatus status(FieldTicket ticket) const;
    /// The canonical goals (sorted by row then column, no duplicates) a live ticket asks for; empty if not live.
    std::vector<Cell> goals(FieldTicket ticket) const;

    /// Makes every finished field current for its tickets, all at once, and calls on_publish for
    /// each (hierarchical maps: first brings the plans up to date with the edits since the last
    /// planning call, and publishes the plans that changed again). Returns the number of tickets
    /// whose field changed. Call at the start of a tick.
    std::size_t publish();
    /// Blocks until no build is queued or running (then publish() shows everything requested so
    /// far). The calling thread runs queued builds itself while it waits. Not from on_publish.
    void wait_idle();
    /// Blocks until no build is queued or running, for at most `budget`, building nothing itself
    /// (the job system's threads do): true when the service is idle.
    bool wait_idle_for(std::chrono::steady_clock::duration budget);

    /// Sets every cell of [x0, x1] x [y0, y1] (clipped to the map) to `cost` (kCostWall for
    /// walls; on hierarchical maps, cells under a live plan's goal blocks are not walled: a plan
    /// needs open goals) and brings the fields up to date (plans: at the next planning call): every cached field is
    /// repaired in the background (see FieldServiceConfig::repair), live tickets without one get a build. Errors: cost
    /// 0, a rectangle entirely off the map or with x0 > x1 or y0 > y1. Goals walled in are left out of the next builds;
    /// a ticket whose goals are all walls gets a field where every cell is unreachable.
    Result<void> edit_rect(int x0, int y0, int x1, int y1, Cost cost);
    /// Sets every listed cell to `cost` (hierarchical maps: as edit_rect(), goal blocks of live
    /// plans stay open). Errors (nothing changed): cost 0, a cell off the map.
    Result<void> edit_cells(std::span<const Cell> cells, Cost cost);
    /// The current terrain (an immutable snapshot; edits make a new one).
    std::shared_ptr<const CostField> terrain() const;
    /// The costs movement class `c` plans on now (its own costs at its size; the terrain for class
    /// 0), or nullptr for an unknown class. An immutable snapshot.
    std::shared_ptr<const CostField> planning_costs(MovementClass c) const;
    /// Number of movement classes, the default one included.
    int class_count() const;
    /// Version of the current terrain: 0 at creation, +1 per edit that changed a cell.
    std::uint64_t terrain_version() const;

    /// Counters and sizes.
    FieldServiceStats stats() const;
    /// Changes the cache budget, evicting least recently used fields as needed. Error for 0.
    Result<void> set_budget(std::size_t bytes);
    /// Empties the cache (fields held elsewhere stay valid).
    void clear_cache();

    struct State;  ///< Internal.

private:
    explicit FieldService(State* state) : state_(state) {}
    State* state_;
};

}  // namespace tide
