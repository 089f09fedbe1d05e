// The field service: workers. Jobs on the host's job system take queued builds one at a time
// (highest priority first), build or repair outside the lock, and hand the field to the cache
// and the tickets; publications are announced by one thread at a time.

#include <algorithm>
#include <optional>

#include "service_state.hpp"

namespace tide {
using namespace svc;

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
// One build, in three phases: taken from the queue and prepared under the lock (take_build()),
// built or repaired outside it (make_field()), handed out under it again (hand_out()).
bool FieldService::State::run_one(std::unique_lock<std::mutex>& lock) {
    BuildJob job;
    if (!take_build(job)) return false;
    lock.unlock();
    make_field(job);
    lock.lock();
    hand_out(job);
    if (!notify.empty() && !draining && !shutdown) {
        lock.unlock();
        drain();
        lock.lock();
    }
    return true;
}

// The queued build of highest priority, its worker, the goals still open, and for a repair the
// cells edited since its base (under the lock). False when nothing is queued.
bool FieldService::State::take_build(BuildJob& job) {
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
    job.build = b;
    job.worker = w;
    // Queued builds are always for the current terrain: edits re-key them.
    const int unit = classes[b->want.movement_class].size;
    job.map = classes[b->want.movement_class].planning;
    const CostField& cost = *job.map;
    w->goals.clear();
    for (const Cell& g : b->want.goals) {
        if (cost.at(g) != kCostWall) w->goals.push_back(g);  // goals walled in by edits are left out
    }
    w->dangers.clear();
    for (const Cell& d : b->want.dangers) {
        if (cost.at(d) != kCostWall) w->dangers.push_back(d);  // so are dangers
    }
    // A wall margin changes the costs of the cells within its radius of a changed wall.
    job.reach = has_margin(b->want.margin) ? b->want.margin.radius : 0;
    const int reach = job.reach;
    // A repair takes its base's state and the cells edited since the base's version.
    job.base = std::move(b->base_field);
    job.state = std::move(b->base_state);
    w->changed.clear();
    if (job.state) {
        const std::uint64_t since = b->base_version;
        std::size_t cells = 0;
        for (const LoggedEdit& e : edit_log) {
            if (e.version <= since) continue;
            cells += static_cast<std::size_t>(e.x1 - e.x0 + unit + 2 * reach) *
                     static_cast<std::size_t>(e.y1 - e.y0 + unit + 2 * reach);
        }
        // More edited cells than a repair could gain on: build (the repair would give up anyway).
        if (cells > cost.size() / 16) {
            job.state.reset();
        } else {
            // The sized cells an edited cell may change (sized_cells_touched), widened by the
            // wall margin's radius.
            for (const LoggedEdit& e : edit_log) {
                if (e.version <= since) continue;
                const CellRect r = sized_cells_touched(CellRect{e.x0 - reach, e.y0 - reach, e.x1 + reach, e.y1 + reach},
                                                       unit, cost.width(), cost.height());
                for (int y = r.y0; y <= r.y1; ++y)
                    for (int x = r.x0; x <= r.x1; ++x) w->changed.push_back({x, y});
            }
        }
    }
    trim_log();
    // Nobody else holds the base (no ticket, no host, no pending callback): it can be repaired
    // in place, without a copy. Nothing can take a new reference: it is in no cache or slot.
    job.base_alone = job.base && job.base.use_count() == 1;
    return true;
}

// The build or repair itself, outside the lock.
void FieldService::State::make_field(BuildJob& job) {
    const Build* b = job.build;
    Worker* w = job.worker;
    const CostField& cost = *job.map;
    const FieldParams params = b->want.params();
    std::shared_ptr<const FlowField> base = std::move(job.base);
    std::shared_ptr<FieldRepairState> state = std::move(job.state);
    const Clock::time_point started = Clock::now();
    // The costs the field plans on: the class's, or those plus the wall margin (a derived layer,
    // O(cells) to make, checked at request).
    const CostField* plan = &cost;
    std::optional<CostField> with_margin;
    if (job.reach > 0) {
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
    std::shared_ptr<FlowField> field = goals_match && job.base_alone
                                           ? std::const_pointer_cast<FlowField>(std::move(base))
                                           : std::allocate_shared<FlowField>(alloc, recycler);
    if (goals_match) {
        if (base) *field = *base;  // shared: repair a copy
        base.reset();
        const auto r = w->builder.repair(*plan, w->changed, *field, *state);
        job.repaired = r.ok() && !r->rebuilt;
        job.fell_back = !job.repaired;
        if (!r.ok()) state.reset();  // cannot happen (goals checked above): build below
    } else {
        state.reset();
    }
    if (!state) {
        base.reset();
        state = build_whole(*b, *w, *plan, params, *field);
    }
    job.map.reset();
    job.field = std::move(field);
    job.state = std::move(state);
    job.done = Clock::now();
    job.build_ms = std::chrono::duration<double, std::milli>(job.done - started).count();
}

// A full build of `b`'s field into `field`; returns the repair state made with it (none when
// repairs are off, for congestion fields, and for a field with every goal walled in).
std::shared_ptr<FieldRepairState> FieldService::State::build_whole(const Build& b, Worker& w, const CostField& plan,
                                                                   const FieldParams& params, FlowField& field) {
    std::shared_ptr<FieldRepairState> state;
    // A field with a congestion layer is made for one moment of the crowd and never cached
    // (the next refresh replaces it): no state to repair it from.
    if (config.repair && !b.want.congestion) {
        std::pmr::polymorphic_allocator<FieldRepairState> salloc(recycler);
        state = std::allocate_shared<FieldRepairState>(salloc, recycler);
    }
    // Goals, dangers and parameters were checked when the request came: a build cannot fail.
    if (w.goals.empty()) {
        w.builder.build_unreachable(plan, field);
        state.reset();  // nothing to repair from: the next edit builds
    } else if (b.want.kind == FieldKind::flee) {
        const FleeParams flee{b.want.flee_factor};
        (void)(state ? w.builder.build_flee(plan, w.goals, flee, params, field, *state)
                     : w.builder.build_flee(plan, w.goals, flee, params, field));
    } else if (!w.dangers.empty()) {
        const DangerCost& d = b.want.danger;
        (void)(state ? w.builder.build_mixed(plan, w.goals, w.dangers, d, params, field, *state)
                     : w.builder.build_mixed(plan, w.goals, w.dangers, d, params, field));
    } else if (state) {
        (void)w.builder.build(plan, w.goals, params, field, *state);  // (every danger walled in)
    } else {
        (void)w.builder.build(plan, w.goals, params, field);
    }
    return state;
}

// The finished field goes to the cache and the tickets (under the lock).
void FieldService::State::hand_out(BuildJob& job) {
    workers.push_back(job.worker);
    stats.repair_rebuilds += job.fell_back ? 1 : 0;
    finish(job.build, std::move(job.field), std::move(job.state), job.repaired, job.build_ms, job.done);
}

}  // namespace tide
