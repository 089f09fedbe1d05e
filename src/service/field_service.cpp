// The field service; see include/tide/field_service.hpp.
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

#include "tide/field_service.hpp"

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

#include "../grid/cell_checks.hpp"
#include "block_recycler.hpp"
#include "tide/field_builder.hpp"

namespace tide {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
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
        return hash == o.hash && std::bit_cast<std::uint64_t>(diagonal) == std::bit_cast<std::uint64_t>(o.diagonal) &&
               connectivity == o.connectivity && movement_class == o.movement_class && kind == o.kind &&
               std::bit_cast<std::uint64_t>(flee_factor) == std::bit_cast<std::uint64_t>(o.flee_factor) &&
               margin == o.margin && danger.weight == o.danger.weight &&
               std::bit_cast<std::uint64_t>(danger.radius) == std::bit_cast<std::uint64_t>(o.danger.radius) &&
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

std::uint64_t key_hash(const Want& w, std::uint64_t version) {
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
    // Published: what current() returns.
    std::shared_ptr<const FlowField> field;
    std::uint64_t field_serial = 0, field_version = 0;
    // Ready for the next publish().
    std::shared_ptr<const FlowField> next;
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

// Cells changed by the edit that made terrain version `version`.
struct LoggedEdit {
    std::uint64_t version = 0;
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // inclusive rectangle
};

}  // namespace

struct FieldService::State {
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
    void offer(std::uint32_t index, const std::shared_ptr<const FlowField>& field, std::uint64_t serial,
               std::uint64_t version, bool from_cache, bool repaired, double build_ms, Clock::time_point ready_time);
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

    // ---- without the mutex ------------------------------------------------------------------
    void start_jobs(int n);
    void drain();
    void job();
    bool run_one(std::unique_lock<std::mutex>& lock);
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

Result<void> FieldService::State::make_want(std::span<const Cell> goals, const FieldOptions& options, Want& out) const {
    const FieldParams& p = options.params;
    if (!(p.diagonal_factor >= 1.0 && p.diagonal_factor <= 2.0)) {
        return Error{"diagonal factor " + std::to_string(p.diagonal_factor) + " is outside 1..2"};
    }
    if (p.connectivity != Connectivity::eight && p.connectivity != Connectivity::four) {
        return Error{"connectivity " + std::to_string(static_cast<int>(p.connectivity)) + " is neither 8 nor 4"};
    }
    const bool flee = options.kind == FieldKind::flee;
    if (options.kind != FieldKind::goal && !flee) {
        return Error{"field kind " + std::to_string(static_cast<int>(options.kind)) + " is unknown"};
    }
    const double factor = options.flee.factor;
    if (flee && !(factor > 0.0 && factor <= kMaxFleeFactor)) {
        char text[80];
        std::snprintf(text, sizeof text, "flee factor %g is outside (0, %g]", factor, kMaxFleeFactor);
        return Error{text};
    }
    if (auto r = wall_margin_cost_field(CostField::create(1, 1).value(), options.wall_margin); !r) return r.error();
    const bool mixed = !options.dangers.empty();
    if (mixed && flee) {
        return Error{"a flee field takes its dangers as its cells: FieldOptions::dangers is for mixed goal fields"};
    }
    if (mixed) {
        const DangerCost& d = options.danger;
        if (d.weight < 0 || d.weight > kCostMax - 1) {
            return Error{"danger weight " + std::to_string(d.weight) + " is outside 0..253"};
        }
        if (!(d.radius > 0.0 && d.radius <= 65536.0)) {
            char text[80];
            std::snprintf(text, sizeof text, "danger radius %g is outside (0, 65536]", d.radius);
            return Error{text};
        }
    }
    if (options.congestion && flee) return Error{"a congestion layer is for goal fields, not flee fields"};
    const char* const what = flee ? "danger" : "goal";
    if (goals.empty()) return Error{std::string("no ") + what + " given"};
    if (options.movement_class >= classes.size()) {
        return Error{ErrorCode::not_found, "movement class " + std::to_string(options.movement_class) +
                                               " is unknown (the service has " + std::to_string(classes.size()) +
                                               " classes, 0.." + std::to_string(classes.size() - 1) + ")"};
    }
    const CostField& map = *classes[options.movement_class].planning;
    auto check_cells = [&](std::span<const Cell> cells, const char* name) -> Result<void> {
        for (const Cell& g : cells) {
            if (auto r = detail::check_open_cell(map, g, name); !r) {
                if (options.movement_class == 0) return r.error();
                return Error{r.error().code, r.error().message + " for " + class_text(options.movement_class)};
            }
        }
        return {};
    };
    if (auto r = check_cells(goals, what); !r) return r.error();
    if (auto r = check_cells(options.dangers, "danger"); !r) return r.error();
    if (const CongestionLayer* layer = options.congestion.get();
        layer && (layer->width != map.width() || layer->height != map.height() ||
                  layer->extra.size() != static_cast<std::size_t>(map.width()) * map.height())) {
        return Error{"the congestion layer is " + std::to_string(layer->width) + "x" + std::to_string(layer->height) +
                     ", the map is " + std::to_string(map.width()) + "x" + std::to_string(map.height())};
    }
    auto canonical = [](std::span<const Cell> cells, std::pmr::vector<Cell>& to) {
        to.assign(cells.begin(), cells.end());
        std::sort(to.begin(), to.end(), [](Cell a, Cell b) { return a.y != b.y ? a.y < b.y : a.x < b.x; });
        to.erase(std::unique(to.begin(), to.end()), to.end());
    };
    canonical(goals, out.goals);
    canonical(options.dangers, out.dangers);
    out.danger = mixed ? options.danger : DangerCost{0, 0.0};
    out.connectivity = p.connectivity;
    out.diagonal = p.connectivity == Connectivity::four ? FieldParams{}.diagonal_factor : p.diagonal_factor;
    out.movement_class = options.movement_class;
    out.kind = options.kind;
    out.flee_factor = flee ? factor : 0.0;
    out.margin = has_margin(options.wall_margin) ? options.wall_margin : WallMargin{};
    out.congestion = options.congestion;
    std::uint64_t h = mix(0x7469646566696C64ULL, std::bit_cast<std::uint64_t>(out.diagonal));
    h = mix(h, static_cast<std::uint64_t>(out.connectivity) | (static_cast<std::uint64_t>(out.movement_class) << 8) |
                   (static_cast<std::uint64_t>(out.kind) << 16));
    h = mix(h, std::bit_cast<std::uint64_t>(out.flee_factor));
    h = mix(h, (static_cast<std::uint64_t>(out.margin.radius) << 32) | static_cast<std::uint32_t>(out.margin.extra));
    for (const Cell& g : out.goals) {
        h = mix(h,
                (static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.y)) << 32) | static_cast<std::uint32_t>(g.x));
    }
    if (mixed) {
        h = mix(h, static_cast<std::uint64_t>(out.danger.weight) | (std::uint64_t{1} << 40));
        h = mix(h, std::bit_cast<std::uint64_t>(out.danger.radius));
        for (const Cell& d : out.dangers) {
            h = mix(h, (static_cast<std::uint64_t>(static_cast<std::uint32_t>(d.y)) << 32) |
                           static_cast<std::uint32_t>(d.x));
        }
    }
    if (out.congestion) h = mix(h, out.congestion->hash ^ 0x636F6E6765737469ULL);
    out.hash = h;
    return {};
}

Slot* FieldService::State::slot_of(FieldTicket t) {
    if (t.index >= slots.size()) return nullptr;
    Slot& s = slots[t.index];
    return s.live && s.generation == t.generation ? &s : nullptr;
}

const Slot* FieldService::State::slot_of(FieldTicket t) const {
    return const_cast<State*>(this)->slot_of(t);
}

std::shared_ptr<const FlowField> FieldService::State::cache_find(const Want& w, std::uint64_t v) {
    const auto [lo, hi] = cache_index.equal_range(key_hash(w, v));
    for (auto it = lo; it != hi; ++it) {
        const EntryList::iterator e = it->second;
        if (e->version == v && e->want.same(w)) {
            lru.splice(lru.begin(), lru, e);  // most recently used
            return e->field;
        }
    }
    return nullptr;
}

void FieldService::State::evict_to(std::size_t budget) {
    while (stats.bytes_cached > budget && !lru.empty()) {
        const EntryList::iterator e = std::prev(lru.end());
        const auto [lo, hi] = cache_index.equal_range(key_hash(e->want, e->version));
        for (auto it = lo; it != hi; ++it) {
            if (it->second == e) {
                cache_index.erase(it);
                break;
            }
        }
        stats.bytes_cached -= e->bytes;
        --stats.fields_cached;
        ++stats.evictions;
        lru.erase(e);  // the field lives on wherever a ticket or the host holds it
    }
    update_spare_limit();
}

void FieldService::State::cache_insert(const Want& w, std::uint64_t v, std::shared_ptr<const FlowField> field,
                                       std::shared_ptr<FieldRepairState> state) {
    const std::size_t bytes = field->memory_bytes() + (state ? state->memory_bytes() : 0);
    if (bytes > config.budget_bytes) return;  // could never fit: delivered, not cached
    if (cache_find(w, v)) return;
    evict_to(config.budget_bytes - bytes);
    lru.emplace_front(w, &pool);
    Entry& e = lru.front();
    e.version = v;
    e.field = std::move(field);
    e.state = std::move(state);
    e.bytes = bytes;
    cache_index.emplace(key_hash(w, v), lru.begin());
    stats.bytes_cached += bytes;
    ++stats.fields_cached;
    stats.peak_bytes_cached = std::max(stats.peak_bytes_cached, stats.bytes_cached);
    update_spare_limit();
}

void FieldService::State::cache_clear(bool invalidation) {
    if (invalidation) stats.invalidations += lru.size();
    cache_index.clear();
    lru.clear();
    stats.bytes_cached = 0;
    stats.fields_cached = 0;
    update_spare_limit();
}

// The ticket stops waiting for its build; a queued build nobody waits for any more is dropped.
void FieldService::State::detach(Slot& s) {
    Build* b = s.waiting;
    s.waiting = nullptr;
    if (!b || --b->waiters > 0 || b->running) return;
    const auto [lo, hi] = build_index.equal_range(key_hash(b->want, b->version));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            build_index.erase(it);
            break;
        }
    }
    builds.erase(b->self);
    --queued;
    ++stats.builds_cancelled;
    idle_cv.notify_all();
}

// Looks up what the slot wants: from the cache, else by joining or queuing a build.
void FieldService::State::attach(std::uint32_t index, Clock::time_point now) {
    Slot& s = slots[index];
    s.requested = now;
    if (auto field = cache_find(s.want, s.want_version)) {
        ++stats.hits;
        offer(index, field, s.want_serial, s.want_version, true, false, 0.0, now);
        return;
    }
    ++stats.misses;
    // A ticket with no field for its goals at all (a new order) comes before tickets that only
    // need their field brought up to date with the terrain: those still have a field to follow.
    const bool urgent = !((s.field && s.field_serial == s.want_serial) || (s.next && s.next_serial == s.want_serial));
    const std::uint64_t h = key_hash(s.want, s.want_version);
    if (Build* b = find_build(s.want, s.want_version)) {
        ++stats.coalesced;
        ++b->waiters;
        b->priority = std::max(b->priority, s.priority);
        b->urgent = b->urgent || urgent;
        s.waiting = b;
        return;
    }
    builds.emplace_back(s.want, &pool);
    Build* b = &builds.back();
    b->self = std::prev(builds.end());
    b->version = s.want_version;
    b->priority = s.priority;
    b->urgent = urgent;
    b->seq = next_seq++;
    b->waiters = 1;
    build_index.emplace(h, b);
    ++queued;
    s.waiting = b;
}

Build* FieldService::State::find_build(const Want& w, std::uint64_t v) {
    const auto [lo, hi] = build_index.equal_range(key_hash(w, v));
    for (auto it = lo; it != hi; ++it) {
        if (it->second->version == v && it->second->want.same(w)) return it->second;
    }
    return nullptr;
}

// Files a queued build under another terrain version.
void FieldService::State::rekey(Build* b, std::uint64_t v) {
    const auto [lo, hi] = build_index.equal_range(key_hash(b->want, b->version));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            build_index.erase(it);
            break;
        }
    }
    b->version = v;
    build_index.emplace(key_hash(b->want, v), b);
}

// Drops the log entries no pending build can need: a repair needs the edits after its base, a
// running build (which may become a base when it finishes) those after its version.
void FieldService::State::trim_log() {
    std::uint64_t oldest = version;
    for (const Build& b : builds) {
        if (b.base_state) oldest = std::min(oldest, b.base_version);
        if (b.running) oldest = std::min(oldest, b.version);
    }
    const auto keep =
        std::find_if(edit_log.begin(), edit_log.end(), [oldest](const LoggedEdit& e) { return e.version > oldest; });
    edit_log.erase(edit_log.begin(), keep);
}

// Hands a field to a slot if it is newer than what the slot has for its current want.
void FieldService::State::offer(std::uint32_t index, const std::shared_ptr<const FlowField>& field,
                                std::uint64_t serial, std::uint64_t version, bool from_cache, bool repaired,
                                double build_ms, Clock::time_point ready_time) {
    Slot& s = slots[index];
    if (s.field == field) {  // already current (a retarget back to the goals it has): nothing to publish
        s.field_serial = serial;
        s.field_version = version;
        s.next.reset();
        return;
    }
    const bool next_counts = s.next && s.next_serial == serial;
    const bool field_counts = s.field && s.field_serial == serial;
    if ((next_counts && s.next_version >= version) || (!next_counts && field_counts && s.field_version >= version)) {
        return;  // has this one or a newer one already
    }
    s.next = field;
    s.next_serial = serial;
    s.next_version = version;
    s.next_from_cache = from_cache;
    s.next_repaired = repaired;
    s.next_build_ms = build_ms;
    s.next_ready = ready_time;
    if (config.auto_publish) {
        publish_slot(index);
    } else if (!s.in_ready_list) {
        s.in_ready_list = true;
        ready.push_back(index);
    }
}

void FieldService::State::publish_slot(std::uint32_t index) {
    Slot& s = slots[index];
    s.in_ready_list = false;
    if (!s.live || !s.next) return;
    s.field = std::move(s.next);
    s.field_serial = s.next_serial;
    s.field_version = s.next_version;
    ++stats.publications;
    if (config.on_publish) {
        Publication p;
        p.ticket = FieldTicket{index, s.generation};
        p.field = s.field;
        p.terrain_version = s.field_version;
        p.answers_request = s.field_serial == s.want_serial;
        p.up_to_date = p.answers_request && s.field_version == version;
        p.build_ms = s.next_build_ms;
        p.from_cache = s.next_from_cache;
        p.repaired = s.next_repaired;
        p.requested = s.requested;
        p.ready = s.next_ready;
        notify.push_back(std::move(p));
    }
}

std::size_t FieldService::State::publish_all() {
    std::size_t n = 0;
    for (const std::uint32_t i : ready) {
        if (slots[i].in_ready_list && slots[i].next) ++n;
        publish_slot(i);
    }
    ready.clear();
    return n;
}

void FieldService::State::finish(Build* b, std::shared_ptr<const FlowField> field,
                                 std::shared_ptr<FieldRepairState> state, bool repaired, double build_ms,
                                 Clock::time_point ready_time) {
    ++(repaired ? stats.repairs : stats.builds);
    --running;
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
        Slot& s = slots[i];
        if (!s.live) continue;
        if (s.waiting == b) s.waiting = nullptr;
        if (s.want_version >= b->version && s.want.same(b->want)) {
            offer(i, field, s.want_serial, b->version, false, repaired, build_ms, ready_time);
        }
    }
    const auto [lo, hi] = build_index.equal_range(key_hash(b->want, b->version));
    for (auto it = lo; it != hi; ++it) {
        if (it->second == b) {
            build_index.erase(it);
            break;
        }
    }
    if (b->version == version && !b->want.congestion) {  // a congestion layer is never asked for twice
        cache_insert(b->want, b->version, field, std::move(state));
    } else if (state) {
        // Overtaken by an edit: a newer base for the queued build of the same want, if it has none as new.
        Build* next = find_build(b->want, version);
        if (next && !next->running && (!next->base_state || next->base_version < b->version)) {
            next->base_field = field;
            next->base_state = std::move(state);
            next->base_version = b->version;
        }
    }
    builds.erase(b->self);
    trim_log();
    idle_cv.notify_all();
}

Build* FieldService::State::pick() {
    Build* best = nullptr;
    for (Build& b : builds) {
        if (b.running) continue;
        if (!best || b.priority > best->priority ||
            (b.priority == best->priority &&
             (b.urgent > best->urgent ||
              (b.urgent == best->urgent &&
               ((b.base_state != nullptr) > (best->base_state != nullptr) ||
                ((b.base_state != nullptr) == (best->base_state != nullptr) && b.seq < best->seq)))))) {
            best = &b;
        }
    }
    return best;
}

// A snapshot to edit: copied first when a build, a class or the host reads it.
CostField& FieldService::State::writable(std::shared_ptr<CostField>& snapshot) {
    if (snapshot.use_count() > 1) {
        std::pmr::polymorphic_allocator<CostField> alloc(recycler);
        snapshot = std::allocate_shared<CostField>(alloc, *snapshot, recycler);
    }
    return *snapshot;
}

// The terrain to edit. Classes that share its snapshot let go of it first, so it is not copied
// for them (refresh_classes() points them at the edited one).
CostField& FieldService::State::writable_terrain() {
    for (ClassLayer& c : classes) {
        if (c.planning == terrain) c.planning.reset();
    }
    return writable(terrain);
}

// Brings the classes' costs up to date after the terrain cells of `rect` (or `cells`) were set
// (both absent: builds everything, at creation).
void FieldService::State::refresh_classes(const CellRect* rect, std::span<const Cell> cells) {
    for (std::size_t k = 0; k < classes.size(); ++k) {
        ClassLayer& c = classes[k];
        if (c.own && (rect || !cells.empty())) {
            if (c.planning == c.own) c.planning.reset();  // so the edit does not copy it for the alias
            CostField& own = writable(c.own);
            const CostField& map = *terrain;
            if (rect) {
                for (int y = rect->y0; y <= rect->y1; ++y)
                    for (int x = rect->x0; x <= rect->x1; ++x) own.set(x, y, map.at(x, y));
            }
            for (const Cell& p : cells) own.set(p.x, p.y, map.at(p));
        }
        std::shared_ptr<CostField>& source = c.own ? c.own : terrain;
        if (c.size == 1) {
            c.planning = source;
            continue;
        }
        if (!c.planning || (!rect && cells.empty())) {
            std::pmr::polymorphic_allocator<CostField> alloc(recycler);
            // Sizes were checked at creation: this cannot fail.
            c.planning = std::allocate_shared<CostField>(alloc, sized_cost_field(*source, c.size).value(), recycler);
            continue;
        }
        CostField& planning = writable(c.planning);
        if (rect) update_sized_cost_field(*source, c.size, *rect, planning);
        for (const Cell& p : cells) update_sized_cost_field(*source, c.size, CellRect{p.x, p.y, p.x, p.y}, planning);
    }
}

std::string FieldService::State::class_text(MovementClass c) const {
    const ClassLayer& layer = classes[c];
    return "movement class " + std::to_string(c) + (layer.name.empty() ? "" : " '" + layer.name + "'") + " (size " +
           std::to_string(layer.size) + ")";
}

// After an edit of the rectangle (or of `cells`, when given): a new terrain version, cached fields
// turned into repairs, queued builds re-keyed, and every live ticket not waiting for one of
// those asks again. Returns the number of jobs to start once the lock is released.
int FieldService::State::terrain_changed(int x0, int y0, int x1, int y1, std::span<const Cell> cells) {
    ++version;
    if (config.repair) {
        if (cells.empty()) {
            edit_log.push_back({version, x0, y0, x1, y1});
        } else {
            for (const Cell& c : cells) edit_log.push_back({version, c.x, c.y, c.x, c.y});
        }
        // Every cached field becomes a repair for the new terrain.
        for (Entry& e : lru) {
            if (!e.state) continue;
            builds.emplace_back(e.want, &pool);
            Build* b = &builds.back();
            b->self = std::prev(builds.end());
            b->version = version;
            b->seq = next_seq++;
            b->base_field = std::move(e.field);
            b->base_state = std::move(e.state);
            b->base_version = e.version;
            build_index.emplace(key_hash(b->want, version), b);
            ++queued;
        }
    }
    std::size_t dropped = 0;
    for (const Entry& e : lru) dropped += e.field ? 1 : 0;  // those that did not become repairs
    stats.invalidations += dropped;
    cache_clear(false);
    for (Build& b : builds) {
        if (!b.running && b.version != version) rekey(&b, version);
    }
    const auto now = Clock::now();
    for (std::uint32_t i = 0; i < slots.size(); ++i) {
        Slot& slot = slots[i];
        if (!slot.live) continue;
        slot.want_version = version;
        slot.requested = now;
        if (slot.waiting && !slot.waiting->running) continue;  // its queued build now answers the new terrain
        detach(slot);
        attach(i, now);
    }
    // Repairs nobody waits for still run: the next order for those goals finds them cached.
    trim_log();
    return jobs_to_start();
}

int FieldService::State::jobs_to_start() {
    const int want = static_cast<int>(std::min<std::size_t>(queued, static_cast<std::size_t>(max_jobs)));
    const int n = std::max(0, want - jobs_active);
    jobs_active += n;
    refs.fetch_add(n, std::memory_order_relaxed);
    return n;
}

void FieldService::State::start_jobs(int n) {
    for (int k = 0; k < n; ++k) jobs.enqueue(&State::run_job, this);
}

void FieldService::State::drain() {
    std::unique_lock lock(mutex);
    if (draining) return;  // the thread draining now takes these too
    draining = true;
    while (!notify.empty() && !shutdown) {
        notifying.swap(notify);
        lock.unlock();
        for (const Publication& p : notifying) config.on_publish(p);
        lock.lock();
        notifying.clear();
    }
    notify.clear();  // after shutdown nobody is called any more
    draining = false;
    idle_cv.notify_all();
}

void FieldService::State::job() {
    std::unique_lock lock(mutex);
    while (!shutdown && run_one(lock)) {
    }
    --jobs_active;
    idle_cv.notify_all();
}

// Runs the best queued build on this thread; false when none is queued. Called with the lock held,
// returns with it held (it is released during the build).
bool FieldService::State::run_one(std::unique_lock<std::mutex>& lock) {
    {
        Build* b = pick();
        if (!b) return false;
        b->running = true;
        --queued;
        ++running;
        Worker* w;
        if (workers.empty()) {
            all_workers.push_back(std::make_unique<Worker>(upstream));
            w = all_workers.back().get();
        } else {
            w = workers.back();
            workers.pop_back();
        }
        // Queued builds are always for the current terrain: edits re-key them.
        const int unit = classes[b->want.movement_class].size;
        std::shared_ptr<const CostField> map = classes[b->want.movement_class].planning;
        const CostField& cost = *map;
        w->goals.clear();
        for (const Cell& g : b->want.goals) {
            if (cost.at(g) != kCostWall) w->goals.push_back(g);  // goals walled in by edits are left out
        }
        w->dangers.clear();
        for (const Cell& d : b->want.dangers) {
            if (cost.at(d) != kCostWall) w->dangers.push_back(d);  // so are dangers
        }
        // A wall margin changes the costs of the cells within its radius of a changed wall.
        const int reach = has_margin(b->want.margin) ? b->want.margin.radius : 0;
        const FieldParams params = b->want.params();
        // A repair takes its base's state and the cells edited since the base's version.
        std::shared_ptr<const FlowField> base = std::move(b->base_field);
        std::shared_ptr<FieldRepairState> state = std::move(b->base_state);
        w->changed.clear();
        if (state) {
            const std::uint64_t since = b->base_version;
            std::size_t cells = 0;
            for (const LoggedEdit& e : edit_log) {
                if (e.version <= since) continue;
                cells += static_cast<std::size_t>(e.x1 - e.x0 + unit + 2 * reach) *
                         static_cast<std::size_t>(e.y1 - e.y0 + unit + 2 * reach);
            }
            // More edited cells than a repair could gain on: build (the repair would give up anyway).
            if (cells > cost.size() / 16) {
                state.reset();
            } else {
                // A sized cell changes when its block overlaps an edited cell: up to size - 1 cells
                // up and left of the edit; with a wall margin, the cells within its radius of those.
                for (const LoggedEdit& e : edit_log) {
                    if (e.version <= since) continue;
                    const int y1 = std::min(cost.height() - 1, e.y1 + reach);
                    const int x1 = std::min(cost.width() - 1, e.x1 + reach);
                    for (int y = std::max(0, e.y0 - unit + 1 - reach); y <= y1; ++y)
                        for (int x = std::max(0, e.x0 - unit + 1 - reach); x <= x1; ++x) w->changed.push_back({x, y});
                }
            }
        }
        trim_log();
        // Nobody else holds the base (no ticket, no host, no pending callback): it can be repaired
        // in place, without a copy. Nothing can take a new reference: it is in no cache or slot.
        const bool base_alone = base && base.use_count() == 1;
        lock.unlock();

        const Clock::time_point started = Clock::now();
        // The costs the field plans on: the class's, or those plus the wall margin (a derived layer,
        // O(cells) to make, checked at request).
        const CostField* plan = &cost;
        std::optional<CostField> with_margin;
        if (reach > 0) {
            with_margin.emplace(wall_margin_cost_field(cost, b->want.margin).value());
            plan = &*with_margin;
        }
        // Plus the crowd's density term (its size was checked at request; classes share the map's size).
        std::optional<CostField> with_congestion;
        if (b->want.congestion) {
            with_congestion.emplace(congestion_cost_field(*plan, *b->want.congestion).value());
            plan = &*with_congestion;
        }
        // The base's goals are those open when it was built: when edits walled or freed a goal since,
        // the goal set differs and only a build gives the right field.
        const bool goals_match =
            state && state->kind() == b->want.kind &&
            std::equal(w->goals.begin(), w->goals.end(), state->goals().begin(), state->goals().end()) &&
            std::equal(w->dangers.begin(), w->dangers.end(), state->dangers().begin(), state->dangers().end());
        std::pmr::polymorphic_allocator<FlowField> alloc(recycler);
        // The service made every field as a non-const FlowField, so writing to a sole base is fine.
        std::shared_ptr<FlowField> field = goals_match && base_alone
                                               ? std::const_pointer_cast<FlowField>(std::move(base))
                                               : std::allocate_shared<FlowField>(alloc, recycler);
        bool repaired = false;
        bool fell_back = false;
        if (goals_match) {
            if (base) *field = *base;  // shared: repair a copy
            base.reset();
            const auto r = w->builder.repair(*plan, w->changed, *field, *state);
            repaired = r.ok() && !r->rebuilt;
            fell_back = !repaired;
            if (!r.ok()) state.reset();  // cannot happen (goals checked above): build below
        } else {
            state.reset();
        }
        if (!state) {
            base.reset();
            // A field with a congestion layer is made for one moment of the crowd and never cached
            // (the next refresh replaces it): no state to repair it from.
            if (config.repair && !b->want.congestion) {
                std::pmr::polymorphic_allocator<FieldRepairState> salloc(recycler);
                state = std::allocate_shared<FieldRepairState>(salloc, recycler);
            }
            // Goals, dangers and parameters were checked when the request came: a build cannot fail.
            if (w->goals.empty()) {
                w->builder.build_unreachable(*plan, *field);
                state.reset();  // nothing to repair from: the next edit builds
            } else if (b->want.kind == FieldKind::flee) {
                const FleeParams flee{b->want.flee_factor};
                (void)(state ? w->builder.build_flee(*plan, w->goals, flee, params, *field, *state)
                             : w->builder.build_flee(*plan, w->goals, flee, params, *field));
            } else if (!w->dangers.empty()) {
                const DangerCost& d = b->want.danger;
                (void)(state ? w->builder.build_mixed(*plan, w->goals, w->dangers, d, params, *field, *state)
                             : w->builder.build_mixed(*plan, w->goals, w->dangers, d, params, *field));
            } else if (state) {
                (void)w->builder.build(*plan, w->goals, params, *field, *state);  // (every danger walled in)
            } else {
                (void)w->builder.build(*plan, w->goals, params, *field);
            }
        }
        map.reset();
        const Clock::time_point done = Clock::now();

        lock.lock();
        workers.push_back(w);
        stats.repair_rebuilds += fell_back ? 1 : 0;
        finish(b, std::move(field), std::move(state), repaired,
               std::chrono::duration<double, std::milli>(done - started).count(), done);
        if (!notify.empty() && !draining && !shutdown) {
            lock.unlock();
            drain();
            lock.lock();
        }
    }
    return true;
}

// =================================================================================================

Result<std::unique_ptr<FieldService>> FieldService::create(CostField terrain, JobSystem& jobs,
                                                           FieldServiceConfig config,
                                                           std::pmr::memory_resource* memory) {
    if (config.budget_bytes == 0) return Error{"field cache budget of 0 bytes: give at least 1 byte"};
    if (config.max_parallel_builds < 0) {
        return Error{"max_parallel_builds " + std::to_string(config.max_parallel_builds) + " is negative"};
    }
    if (config.classes.size() > 255) {
        return Error{ErrorCode::too_large,
                     std::to_string(config.classes.size()) + " movement classes: at most 255 besides the default"};
    }
    for (std::size_t k = 0; k < config.classes.size(); ++k) {
        const UnitClass& c = config.classes[k];
        const std::string name = "movement class " + std::to_string(k + 1) + " '" + c.name + "'";
        if (c.size < 1 || c.size > kMaxUnitSize) {
            return Error{name + ": size " + std::to_string(c.size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
        }
        if (c.costs && (c.costs->width() != terrain.width() || c.costs->height() != terrain.height())) {
            return Error{name + ": its costs are " + std::to_string(c.costs->width()) + "x" +
                         std::to_string(c.costs->height()) + ", the terrain " + std::to_string(terrain.width()) + "x" +
                         std::to_string(terrain.height())};
        }
    }
    auto* state = new State(std::move(terrain), jobs, std::move(config), memory);
    state->stats.budget_bytes = state->config.budget_bytes;
    return std::unique_ptr<FieldService>(new FieldService(state));
}

FieldService::~FieldService() {
    State& s = *state_;
    {
        std::unique_lock lock(s.mutex);
        s.shutdown = true;
        for (Slot& slot : s.slots) {
            if (slot.live) s.detach(slot);  // drops the queued builds
        }
        // Running builds finish (their callbacks are skipped) and no callback is still running.
        s.idle_cv.wait(lock, [&] { return s.running == 0 && !s.draining; });
        s.release_memory();
    }
    state_->unref();
}

Result<FieldTicket> FieldService::request(std::span<const Cell> goals, const FieldOptions& options) {
    State& s = *state_;
    int start = 0;
    FieldTicket ticket;
    {
        std::lock_guard lock(s.mutex);
        if (auto r = s.make_want(goals, options, s.scratch); !r) return r.error();
        std::uint32_t index;
        if (!s.free_slots.empty()) {
            index = s.free_slots.back();
            s.free_slots.pop_back();
        } else {
            index = static_cast<std::uint32_t>(s.slots.size());
            s.slots.emplace_back(&s.pool);
        }
        s.update_spare_limit();
        Slot& slot = s.slots[index];
        slot.live = true;
        slot.want.assign(s.scratch);
        ++slot.want_serial;
        slot.want_version = s.version;
        slot.priority = options.priority;
        ++s.stats.requests;
        s.attach(index, Clock::now());
        start = s.jobs_to_start();
        ticket = FieldTicket{index, slot.generation};
    }
    s.start_jobs(start);
    if (s.config.auto_publish) s.drain();
    return ticket;
}

Result<void> FieldService::retarget(FieldTicket ticket, std::span<const Cell> goals, const FieldOptions& options) {
    State& s = *state_;
    int start = 0;
    {
        std::lock_guard lock(s.mutex);
        Slot* slot = s.slot_of(ticket);
        if (!slot)
            return Error{ErrorCode::not_found,
                         "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
        if (auto r = s.make_want(goals, options, s.scratch); !r) return r.error();
        s.detach(*slot);
        slot->want.assign(s.scratch);
        ++slot->want_serial;
        slot->want_version = s.version;
        slot->priority = options.priority;
        // A ready field for the old goals is no use to the new order.
        slot->next.reset();
        ++s.stats.requests;
        s.attach(ticket.index, Clock::now());
        start = s.jobs_to_start();
    }
    s.start_jobs(start);
    if (s.config.auto_publish) s.drain();
    return {};
}

Result<void> FieldService::release(FieldTicket ticket) {
    State& s = *state_;
    std::lock_guard lock(s.mutex);
    Slot* slot = s.slot_of(ticket);
    if (!slot)
        return Error{ErrorCode::not_found,
                     "ticket " + std::to_string(ticket.index) + " is not live (released or never issued)"};
    s.detach(*slot);
    slot->live = false;
    ++slot->generation;
    slot->field.reset();
    slot->next.reset();
    slot->want.goals.clear();
    s.free_slots.push_back(ticket.index);
    s.update_spare_limit();
    return {};
}

std::shared_ptr<const FlowField> FieldService::current(FieldTicket ticket) const {
    std::lock_guard lock(state_->mutex);
    const Slot* slot = state_->slot_of(ticket);
    return slot ? slot->field : nullptr;
}

TicketStatus FieldService::status(FieldTicket ticket) const {
    const State& s = *state_;
    std::lock_guard lock(s.mutex);
    TicketStatus out;
    const Slot* slot = s.slot_of(ticket);
    if (!slot) return out;
    out.live = true;
    out.has_field = slot->field != nullptr;
    out.answers_request = out.has_field && slot->field_serial == slot->want_serial;
    out.up_to_date = out.answers_request && slot->field_version == s.version;
    out.ready = slot->next != nullptr;
    out.building = slot->waiting && slot->waiting->running;
    out.queued = slot->waiting && !slot->waiting->running;
    out.field_terrain_version = slot->field_version;
    const CostField& map = *s.classes[slot->want.movement_class].planning;
    for (const Cell& g : slot->want.goals) out.blocked_goals += map.at(g) == kCostWall;
    return out;
}

std::vector<Cell> FieldService::goals(FieldTicket ticket) const {
    std::lock_guard lock(state_->mutex);
    const Slot* slot = state_->slot_of(ticket);
    if (!slot) return {};
    return std::vector<Cell>(slot->want.goals.begin(), slot->want.goals.end());
}

std::size_t FieldService::publish() {
    State& s = *state_;
    std::size_t n;
    {
        std::lock_guard lock(s.mutex);
        n = s.publish_all();
    }
    s.drain();
    return n;
}

void FieldService::wait_idle() {
    State& s = *state_;
    std::unique_lock lock(s.mutex);
    // The waiting thread lends a hand: it runs queued builds itself, and only sleeps while the
    // last ones run elsewhere (so waiting never depends on the job system getting to its tasks).
    while (!s.idle()) {
        if (!s.run_one(lock)) s.idle_cv.wait(lock);
    }
}

bool FieldService::wait_idle_for(std::chrono::steady_clock::duration budget) {
    // Unlike wait_idle(), this thread builds nothing itself: a host's simulation thread waiting a
    // few milliseconds for an edit's repairs must not pick up a whole queued build (hundreds of
    // milliseconds on a big map) and run it to its end.
    State& s = *state_;
    const auto deadline = std::chrono::steady_clock::now() + budget;
    std::unique_lock lock(s.mutex);
    return s.idle_cv.wait_until(lock, deadline, [&] { return s.idle(); });
}

namespace {
std::string rect_text(int x0, int y0, int x1, int y1) {
    return "[" + std::to_string(x0) + ", " + std::to_string(x1) + "] x [" + std::to_string(y0) + ", " +
           std::to_string(y1) + "]";
}
}  // namespace

Result<void> FieldService::edit_rect(int x0, int y0, int x1, int y1, Cost cost) {
    State& s = *state_;
    int start = 0;
    {
        std::lock_guard lock(s.mutex);
        if (cost == 0) return Error{"terrain cost 0 is not a cost (1..254, 255 for walls)"};
        const int w = s.terrain->width(), h = s.terrain->height();
        if (x0 > x1 || y0 > y1) return Error{"edit rectangle " + rect_text(x0, y0, x1, y1) + " is empty"};
        if (x1 < 0 || y1 < 0 || x0 >= w || y0 >= h) {
            return Error{ErrorCode::off_map, "edit rectangle " + rect_text(x0, y0, x1, y1) + " lies outside the " +
                                                 std::to_string(w) + "x" + std::to_string(h) + " map"};
        }
        x0 = std::max(x0, 0);
        y0 = std::max(y0, 0);
        x1 = std::min(x1, w - 1);
        y1 = std::min(y1, h - 1);
        bool changed = false;
        for (int y = y0; y <= y1 && !changed; ++y) {
            for (int x = x0; x <= x1 && !changed; ++x) changed = s.terrain->at(x, y) != cost;
        }
        if (!changed) return {};
        s.writable_terrain().fill_rect(x0, y0, x1, y1, cost);
        const CellRect rect{x0, y0, x1, y1};
        s.refresh_classes(&rect, {});
        start = s.terrain_changed(x0, y0, x1, y1, {});
    }
    s.start_jobs(start);
    return {};
}

Result<void> FieldService::edit_cells(std::span<const Cell> cells, Cost cost) {
    State& s = *state_;
    int start = 0;
    {
        std::lock_guard lock(s.mutex);
        if (cost == 0) return Error{"terrain cost 0 is not a cost (1..254, 255 for walls)"};
        const CostField& map = *s.terrain;
        bool changed = false;
        for (const Cell& c : cells) {
            if (!map.contains(c)) return detail::outside_error("edited cell", c, map.width(), map.height());
            changed = changed || map.at(c) != cost;
        }
        if (!changed) return {};
        CostField& edited = s.writable_terrain();
        for (const Cell& c : cells) edited.set(c.x, c.y, cost);
        s.refresh_classes(nullptr, cells);
        start = s.terrain_changed(0, 0, -1, -1, cells);
    }
    s.start_jobs(start);
    return {};
}

std::shared_ptr<const CostField> FieldService::terrain() const {
    std::lock_guard lock(state_->mutex);
    return state_->terrain;
}

std::shared_ptr<const CostField> FieldService::planning_costs(MovementClass c) const {
    std::lock_guard lock(state_->mutex);
    return c < state_->classes.size() ? state_->classes[c].planning : nullptr;
}

int FieldService::class_count() const {
    std::lock_guard lock(state_->mutex);
    return static_cast<int>(state_->classes.size());
}

std::uint64_t FieldService::terrain_version() const {
    std::lock_guard lock(state_->mutex);
    return state_->version;
}

FieldServiceStats FieldService::stats() const {
    const State& s = *state_;
    std::lock_guard lock(s.mutex);
    FieldServiceStats out = s.stats;
    out.budget_bytes = s.config.budget_bytes;
    out.bytes_spare = s.recycler->spare_bytes();
    out.bytes_in_use = s.recycler->live_bytes();
    out.queued = s.queued;
    out.running = s.running;
    out.tickets = s.slots.size() - s.free_slots.size();
    out.terrain_version = s.version;
    return out;
}

Result<void> FieldService::set_budget(std::size_t bytes) {
    if (bytes == 0) return Error{"field cache budget of 0 bytes: give at least 1 byte"};
    std::lock_guard lock(state_->mutex);
    state_->config.budget_bytes = bytes;
    state_->evict_to(bytes);
    return {};
}

void FieldService::clear_cache() {
    std::lock_guard lock(state_->mutex);
    state_->stats.evictions += state_->lru.size();
    state_->cache_clear(false);
}

}  // namespace tide
