#pragma once
// The field service's internals (include/tide/field_service.hpp is the API): its state, shared by
// field_service.cpp (the API), tickets.cpp, cache.cpp, edit_log.cpp, plans.cpp and workers.cpp.
//
// One mutex guards all bookkeeping; builds run outside it. The pieces:
// - Slots: one per ticket (index + generation). A slot records what the ticket wants (its "want":
//   canonical goals, options, movement class, and the terrain version), the build it waits for,
//   the field published to it and a newer one ready for the next publish().
// - Builds: one per (want, terrain version) in flight, queued or running, with a count of the
//   tickets waiting for it. Requests for a key already in flight join its build (coalescing); a
//   queued build whose waiters all left (retarget, release, terrain edit) is dropped (cancelled).
//   Workers take the queued build of highest priority, oldest first.
// - The cache: finished fields of the current terrain version in least-recently-used order,
//   evicted from the back while their bytes exceed the budget. With repairs on, each entry also
//   holds its FieldRepairState (counted in its bytes).
// - Edits: the new version's changed cells go to an edit log; every cached field becomes a queued
//   *repair* (a build whose base is that field and its state, brought up to date with the log's
//   cells since the base's version: exact, and usually a few hundred cells of work); the cache is
//   then empty, as fields of an older terrain can never be asked for again. Queued builds are
//   re-keyed to the new version (they read the terrain when they start); tickets waiting for a
//   running build, or for nothing, ask again and usually join a repair. A build overtaken by an
//   edit while it ran hands its field and state to the queued build of the same want as a newer
//   base. The log keeps what the oldest pending base needs.
// - A finished build is offered to every ticket that wants the same goals and options and has
//   nothing newer for them, even when the terrain moved on while it ran: while a player keeps
//   painting, builds keep being overtaken by edits, and units should still get the newest field
//   there is rather than none.
// - Publications (ready -> current) are queued and their callbacks run by one thread at a time
//   (drain()), outside the mutex, so a callback may call the service.
//
// Memory: bookkeeping comes from a pool on the host's resource; fields and terrain snapshots from
// a BlockRecycler, so a warm service builds without allocating. Jobs keep the state alive by a
// reference count: a job the host's job system starts after the service is gone finds it marked
// shut down, drops its reference and the last one deletes the state. The destructor does not wait
// for such late jobs (a host may run its tasks on the very thread that destroys the service), so it
// gives back everything taken from the host's memory resource first: what a late job still
// touches (the mutex, the flags, the counters, the emptied pool) lives in the state itself,
// which comes from the global heap.

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include "tide/detail/compat.hpp"

#include "block_recycler.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"

namespace tide::svc {

using Clock = std::chrono::steady_clock;

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

// What a ticket asks for apart from the terrain version: canonical goals, parameters, class.
struct Want {
    explicit Want(std::pmr::memory_resource* m) : goals(m), dangers(m) {}
    Want(const Want& o, std::pmr::memory_resource* m)
        : goals(o.goals, m),
          dangers(o.dangers, m),
          danger(o.danger),
          diagonal(o.diagonal),
          connectivity(o.connectivity),
          movement_class(o.movement_class),
          kind(o.kind),
          flee_factor(o.flee_factor),
          margin(o.margin),
          congestion(o.congestion),
          hash(o.hash) {}
    std::pmr::vector<Cell> goals;    // sorted by row, then column; no duplicates
    std::pmr::vector<Cell> dangers;  // mixed fields: the danger term's cells (sorted likewise); else empty
    DangerCost danger{0, 0.0};       // mixed fields: the danger term; {0, 0} otherwise
    double diagonal = 0.0;           // the default in 4-direction mode, where it plays no part
    Connectivity connectivity = Connectivity::eight;
    MovementClass movement_class = 0;
    FieldKind kind = FieldKind::goal;
    double flee_factor = 0.0;                           // 0 for goal fields
    WallMargin margin;                                  // {0, 0} when it changes nothing
    std::shared_ptr<const CongestionLayer> congestion;  // goal fields planned with a crowd density term
    std::uint64_t hash = 0;

    bool same_congestion(const Want& o) const {
        if (congestion == o.congestion) return true;
        return congestion && o.congestion && congestion->hash == o.congestion->hash &&
               congestion->extra == o.congestion->extra;
    }

    bool same(const Want& o) const {
        return hash == o.hash &&
               tide::detail::bit_cast<std::uint64_t>(diagonal) == tide::detail::bit_cast<std::uint64_t>(o.diagonal) &&
               connectivity == o.connectivity && movement_class == o.movement_class && kind == o.kind &&
               tide::detail::bit_cast<std::uint64_t>(flee_factor) ==
                   tide::detail::bit_cast<std::uint64_t>(o.flee_factor) &&
               margin == o.margin && danger.weight == o.danger.weight &&
               tide::detail::bit_cast<std::uint64_t>(danger.radius) ==
                   tide::detail::bit_cast<std::uint64_t>(o.danger.radius) &&
               goals == o.goals && dangers == o.dangers && same_congestion(o);
    }
    FieldParams params() const { return FieldParams{diagonal, connectivity}; }
    void assign(const Want& o) {
        goals.assign(o.goals.begin(), o.goals.end());
        dangers.assign(o.dangers.begin(), o.dangers.end());
        danger = o.danger;
        diagonal = o.diagonal;
        connectivity = o.connectivity;
        movement_class = o.movement_class;
        kind = o.kind;
        flee_factor = o.flee_factor;
        margin = o.margin;
        congestion = o.congestion;
        hash = o.hash;
    }
};

inline std::uint64_t key_hash(const Want& w, std::uint64_t version) {
    return mix(w.hash, version);
}

struct Build {
    Build(const Want& w, std::pmr::memory_resource* m) : want(w, m) {}
    Want want;
    std::uint64_t version = 0;
    int priority = 0;
    std::uint64_t seq = 0;
    int waiters = 0;
    bool running = false;
    bool urgent = false;  // a waiting ticket has no field for its goals yet (not a terrain refresh)
    // A repair: the field and state to bring up to date from base_version (state null: a full build).
    std::shared_ptr<const FlowField> base_field;
    std::shared_ptr<FieldRepairState> base_state;
    std::uint64_t base_version = 0;
    std::list<Build, std::pmr::polymorphic_allocator<Build>>::iterator self;
};
using BuildList = std::list<Build, std::pmr::polymorphic_allocator<Build>>;

struct Entry {
    Entry(const Want& w, std::pmr::memory_resource* m) : want(w, m) {}
    Want want;
    std::uint64_t version = 0;
    std::shared_ptr<const FlowField> field;
    std::shared_ptr<FieldRepairState> state;  // null with repairs off
    std::size_t bytes = 0;
};
using EntryList = std::list<Entry, std::pmr::polymorphic_allocator<Entry>>;

struct Slot {
    explicit Slot(std::pmr::memory_resource* m) : want(m) {}
    std::uint32_t generation = 0;
    bool live = false;
    Want want;
    std::uint64_t want_serial = 0;   // +1 per request/retarget of this slot
    std::uint64_t want_version = 0;  // terrain version asked for
    int priority = 0;
    Build* waiting = nullptr;  // the build this ticket waits for, if any
    Clock::time_point requested;
    // Published: what view() returns (a whole-map field: also current()).
    FieldView field;
    std::uint64_t field_serial = 0, field_version = 0;
    // Ready for the next publish().
    FieldView next;
    std::uint64_t next_serial = 0, next_version = 0;
    bool next_from_cache = false;
    bool next_repaired = false;
    double next_build_ms = 0.0;
    Clock::time_point next_ready;
    bool in_ready_list = false;
};

// A worker's tools: a builder (its scratch is reused from build to build), goal and cell buffers.
struct Worker {
    explicit Worker(std::pmr::memory_resource* m) : builder(m), goals(m), dangers(m), changed(m) {}
    FieldBuilder builder;
    std::pmr::vector<Cell> goals;
    std::pmr::vector<Cell> dangers;
    std::pmr::vector<Cell> changed;
};

// One build in the hands of a worker, from its phase under the lock to the one outside and back.
struct BuildJob {
    Build* build = nullptr;
    Worker* worker = nullptr;
    std::shared_ptr<const CostField> map;      // the class's costs it reads
    int reach = 0;                             // the wall margin's radius (0: none)
    std::shared_ptr<const FlowField> base;     // a repair's base field
    std::shared_ptr<FieldRepairState> state;   // a repair's base state; then the new field's
    bool base_alone = false;                   // nobody else holds the base: repair it in place
    std::shared_ptr<const FlowField> field;    // the result
    bool repaired = false, fell_back = false;  // repaired; a repair that rebuilt instead
    double build_ms = 0.0;
    Clock::time_point done;
};

// Cells changed by the edit that made terrain version `version`.
struct LoggedEdit {
    std::uint64_t version = 0;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // inclusive rectangle
};

}  // namespace tide::svc

namespace tide {

struct FieldService::State {
    using Clock = svc::Clock;
    using Want = svc::Want;
    using Build = svc::Build;
    using BuildList = svc::BuildList;
    using Entry = svc::Entry;
    using EntryList = svc::EntryList;
    using Slot = svc::Slot;
    using Worker = svc::Worker;
    using LoggedEdit = svc::LoggedEdit;
    using BuildJob = svc::BuildJob;
    State(CostField terrain_in, JobSystem& jobs_in, FieldServiceConfig config_in, std::pmr::memory_resource* memory)
        : jobs(jobs_in),
          config(std::move(config_in)),
          upstream(memory),
          pool(memory),
          recycler(new detail::BlockRecycler(memory)),
          builds(&pool),
          build_index(&pool),
          lru(&pool),
          cache_index(&pool),
          slots(&pool),
          free_slots(&pool),
          ready(&pool),
          notify(&pool),
          notifying(&pool),
          workers(&pool),
          edit_log(&pool),
          scratch(&pool) {
        max_jobs =
            config.max_parallel_builds > 0 ? config.max_parallel_builds : std::max(1, jobs.background_concurrency());
        // The slack: a field and a terrain snapshot (plus control blocks) per build in flight, and
        // two more; with repairs also a repair state (9 bytes per cell, padded) each.
        const std::size_t cells = terrain_in.size();
        const std::size_t per_build = config.repair
                                          ? 16 * (cells + 2 * (static_cast<std::size_t>(terrain_in.width()) +
                                                               static_cast<std::size_t>(terrain_in.height()) + 2))
                                          : 6 * cells;
        slack_bytes = (static_cast<std::size_t>(max_jobs) + 2) * (per_build + 1024);
        ticket_field_bytes = 5 * cells + 1024;
        update_spare_limit();
        std::pmr::polymorphic_allocator<CostField> alloc(recycler);
        terrain = std::allocate_shared<CostField>(alloc, terrain_in, recycler);
        classes.resize(1 + config.classes.size());
        classes[0].name = "default";
        for (std::size_t k = 0; k < config.classes.size(); ++k) {
            const UnitClass& c = config.classes[k];
            ClassLayer& layer = classes[k + 1];
            layer.name = c.name;
            layer.size = c.size;
            if (c.costs) layer.own = std::allocate_shared<CostField>(alloc, *c.costs, recycler);
        }
        refresh_classes(nullptr, {});
    }
    // Gives back everything that came from the host's memory resource (called once, by the
    // service's destructor, with no build running). Fields handed out keep their blocks; the
    // orphaned recycler goes with the last of them.
    void release_memory() {
        auto drop = [](auto& c) {
            std::remove_reference_t<decltype(c)> empty(c.get_allocator());
            c.swap(empty);
        };
        terrain.reset();
        classes.clear();
        plans.clear();
        plan_layers.clear();
        drop(lru);
        drop(cache_index);
        drop(builds);
        drop(build_index);
        drop(slots);
        drop(free_slots);
        drop(ready);
        drop(notify);
        drop(notifying);
        drop(workers);
        drop(edit_log);
        drop(scratch.goals);
        drop(scratch.dangers);
        all_workers.clear();
        pool.release();
        recycler->orphan();
        recycler = nullptr;
    }

    JobSystem& jobs;
    FieldServiceConfig config;
    std::pmr::memory_resource* upstream;
    std::pmr::unsynchronized_pool_resource pool;  // bookkeeping, always under `mutex`
    detail::BlockRecycler* recycler;              // fields and terrain snapshots (own lock)
    std::atomic<int> refs{1};                     // the service + jobs enqueued and not yet finished

    mutable std::mutex mutex;
    std::condition_variable idle_cv;
    bool shutdown = false;
    std::shared_ptr<CostField> terrain;
    // Movement classes; [0] is the default. A class of size 1 plans on its own costs or the
    // terrain directly (planning shares that snapshot); bigger ones on a sized copy kept up to date.
    struct ClassLayer {
        std::string name;
        int size = 1;
        std::shared_ptr<CostField> own;       // the class's own costs, edited like the terrain; or null
        std::shared_ptr<CostField> planning;  // what its builds read
    };
    std::vector<ClassLayer> classes;
    std::uint64_t version = 0;
    std::uint64_t next_seq = 0;

    BuildList builds;
    std::pmr::unordered_multimap<std::uint64_t, Build*> build_index;
    std::size_t queued = 0, running = 0;
    int jobs_active = 0, max_jobs = 1;

    EntryList lru;  // front: most recently used
    std::pmr::unordered_multimap<std::uint64_t, EntryList::iterator> cache_index;

    std::pmr::vector<Slot> slots;
    std::pmr::vector<std::uint32_t> free_slots;
    std::pmr::vector<std::uint32_t> ready;  // slots with a field waiting for publish()
    std::pmr::vector<Publication> notify;   // publications whose callbacks have not run
    std::pmr::vector<Publication> notifying;
    bool draining = false;

    std::pmr::vector<Worker*> workers;  // idle workers (each made once, reused)
    std::vector<std::unique_ptr<Worker>> all_workers;
    std::pmr::vector<LoggedEdit> edit_log;  // oldest first
    Want scratch;                           // request validation buffer

    // Hierarchical maps (config.hierarchy_cells): per class, the sector graph and the costs it
    // (and every plan of the class) reads: the class's planning snapshot as of the last catch-up.
    bool hierarchical = false;
    struct PlanLayer {
        std::shared_ptr<CostField> costs;
        std::unique_ptr<SectorGraph> graph;
    };
    std::vector<PlanLayer> plan_layers;  // by class, made on first use
    struct PlanEntry {
        explicit PlanEntry(const Want& w, std::pmr::memory_resource* m) : want(w, m) {}
        Want want;
        std::weak_ptr<HierarchicalField> plan;  // alive while a ticket, the crowd or the host holds it
    };
    std::list<PlanEntry> plans;  // oldest first
    CellRect pending_edit;       // cells edited since the plans last caught up (empty: none)
    FieldBuilder query_builder;  // would_block(), under `mutex`

    FieldServiceStats stats;
    std::size_t slack_bytes = 0;
    std::size_t ticket_field_bytes = 0;  // a field per live ticket: what a burst of refreshes needs

    // ---- helpers, all called with `mutex` held
    // Freed buffers are kept for the next builds within what the cache leaves of the budget, and
    // never less than the slack plus a field per live ticket (so a full cache still recycles what
    // it evicts, and the burst of new fields after an edit, made while the tickets still hold
    // their old ones, finds buffers).
    void update_spare_limit() {
        const std::size_t room =
            config.budget_bytes > stats.bytes_cached ? config.budget_bytes - stats.bytes_cached : 0;
        const std::size_t tickets = slots.size() - free_slots.size();
        recycler->set_spare_limit(std::max(room, slack_bytes + tickets * ticket_field_bytes));
    }
    Result<void> check_options(const FieldOptions& options) const;
    Result<void> make_want(std::span<const Cell> goals, const FieldOptions& options, Want& out) const;
    Slot* slot_of(FieldTicket t);
    const Slot* slot_of(FieldTicket t) const;
    std::shared_ptr<const FlowField> cache_find(const Want& w, std::uint64_t v);
    void cache_insert(const Want& w, std::uint64_t v, std::shared_ptr<const FlowField> field,
                      std::shared_ptr<FieldRepairState> state);
    Build* find_build(const Want& w, std::uint64_t v);
    void rekey(Build* b, std::uint64_t v);
    void trim_log();
    void cache_clear(bool invalidation);
    void evict_to(std::size_t budget);
    void attach(std::uint32_t index, Clock::time_point now);
    void detach(Slot& s);
    void offer(std::uint32_t index, const FieldView& field, std::uint64_t serial, std::uint64_t version,
               bool from_cache, bool repaired, double build_ms, Clock::time_point ready_time);
    void publish_slot(std::uint32_t index);
    std::size_t publish_all();
    void finish(Build* b, std::shared_ptr<const FlowField> field, std::shared_ptr<FieldRepairState> state,
                bool repaired, double build_ms, Clock::time_point ready_time);
    Build* pick();
    int jobs_to_start();
    CostField& writable_terrain();
    CostField& writable(std::shared_ptr<CostField>& snapshot);
    void refresh_classes(const CellRect* rect, std::span<const Cell> cells);
    std::string class_text(MovementClass c) const;
    int terrain_changed(int x0, int y0, int x1, int y1, std::span<const Cell> cells);
    // Hierarchical maps.
    Result<PlanLayer*> plan_layer(MovementClass c);
    void attach_plan(std::uint32_t index, Clock::time_point now);
    void catch_up_plans();
    void hand_again(std::uint32_t index, const FieldView& view);
    bool in_goal_block(int x, int y) const;
    RouteConfig route_config() {
        RouteConfig c = config.routes;
        if (c.jobs == nullptr) c.jobs = &jobs;
        return c;
    }

    // ---- without the mutex ------------------------------------------------------------------
    void start_jobs(int n);
    void drain();
    void job();
    bool run_one(std::unique_lock<std::mutex>& lock);
    bool take_build(BuildJob& job);
    void make_field(BuildJob& job);
    std::shared_ptr<FieldRepairState> build_whole(const Build& b, Worker& w, const CostField& plan,
                                                  const FieldParams& params, FlowField& field);
    void hand_out(BuildJob& job);
    // Nothing queued, running or waiting to be announced (under the mutex).
    bool idle() const { return builds.empty() && !draining && notify.empty(); }
    void unref() {
        if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
    static void run_job(void* context) {
        auto* s = static_cast<State*>(context);
        s->job();
        s->unref();
    }
};

}  // namespace tide
