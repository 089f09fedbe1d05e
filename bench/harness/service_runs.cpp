// The measuring run of `tide bench service`; see service_runs.hpp.

#include "service_runs.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <memory_resource>
#include <mutex>

#include "provenance.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"
#include "tide/generate.hpp"
#include "tide/world.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

// Counts what the field service asks of the heap (thread-safe: builds allocate on workers).
class CountingMemory final : public std::pmr::memory_resource {
public:
    std::size_t allocations() const { return allocations_.load(); }
    void reset() { allocations_ = 0; }

private:
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        allocations_.fetch_add(1, std::memory_order_relaxed);
        return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
        std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
    std::atomic<std::size_t> allocations_{0};
};

struct MapSetup {
    CostField cost;
    Cell centre;
    std::vector<Cell> reachable;  // cells connected to the centre: goals and nothing else
};

MapSetup make_map(int size, std::uint64_t seed) {
    auto cost = generate_random_map({size, size, 0.20, 0.15, 0.07, seed});
    require_ok(cost);
    MapSetup m{std::move(cost.value()), {size / 2, size / 2}, {}};
    m.cost.set(m.centre.x, m.centre.y, kCostPlain);
    auto f = build_flow_field(m.cost, std::span<const Cell>(&m.centre, 1));
    require_ok(f);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            if (f->reachable(x, y)) m.reachable.push_back({x, y});
        }
    }
    return m;
}

struct BuildFigures {
    double single_ms = 0, serial_ms = 0, parallel_ms = 0;
    // Per round, parallel / serial (both timed back to back, so a slow phase of a shared machine
    // hits both): the median, the lowest and the highest.
    double ratio = 0, ratio_min = 0, ratio_max = 0;
};

// A single warm build; 8 goals one after another; the same 8 through a service on `threads`.
BuildFigures time_builds(const MapSetup& m, int threads, int reps, SplitMix64& rng, const JobSystemFactory& make_jobs) {
    BuildFigures out;
    FieldBuilder builder;
    FlowField field;
    auto goal = [&] { return m.reachable[rng.below(m.reachable.size())]; };
    std::vector<double> single, serial, parallel, ratios;
    for (int r = 0; r <= reps; ++r) {  // the first round warms up and is not counted
        const Cell g = goal();
        auto t0 = std::chrono::steady_clock::now();
        require_ok(builder.build(m.cost, std::span<const Cell>(&g, 1), {}, field));
        if (r > 0) single.push_back(ms_since(t0));
    }
    const std::unique_ptr<JobSystem> jobs_owner = make_jobs(1, threads);
    JobSystem& jobs = *jobs_owner;
    FieldServiceConfig config;
    config.auto_publish = true;
    config.max_parallel_builds = threads;
    std::mutex mutex;
    std::condition_variable cv;
    int published = 0;
    config.on_publish = [&](const Publication&) {
        std::lock_guard lock(mutex);
        ++published;
        cv.notify_all();
    };
    auto service = FieldService::create(m.cost, jobs, config);
    require_ok(service);
    FieldService& svc = **service;
    constexpr int kGoals = 8;
    for (int r = 0; r <= reps; ++r) {
        std::vector<Cell> goals;
        for (int k = 0; k < kGoals; ++k) goals.push_back(goal());
        auto t0 = std::chrono::steady_clock::now();
        for (const Cell& g : goals) require_ok(builder.build(m.cost, std::span<const Cell>(&g, 1), {}, field));
        if (r > 0) serial.push_back(ms_since(t0));

        svc.clear_cache();
        {
            std::lock_guard lock(mutex);
            published = 0;
        }
        std::vector<FieldTicket> tickets;
        t0 = std::chrono::steady_clock::now();
        for (const Cell& g : goals) tickets.push_back(svc.request(std::span<const Cell>(&g, 1)).value());
        {
            std::unique_lock lock(mutex);
            cv.wait(lock, [&] { return published == kGoals; });
        }
        if (r > 0) {
            parallel.push_back(ms_since(t0));
            ratios.push_back(parallel.back() / serial.back());
        }
        for (const FieldTicket t : tickets) require_ok(svc.release(t));
    }
    out.single_ms = median(single);
    out.serial_ms = median(serial);
    out.parallel_ms = median(parallel);
    out.ratio_min = *std::min_element(ratios.begin(), ratios.end());
    out.ratio_max = *std::max_element(ratios.begin(), ratios.end());
    out.ratio = median(ratios);
    return out;
}

struct SessionFigures {
    std::size_t orders = 0, repeats = 0, superseded = 0, answered = 0, edits = 0;
    FieldServiceStats service;
    std::vector<double> to_ready, to_published, steps;
    double wall_s = 0;
    std::size_t warm_allocations = 0;
    std::uint64_t warm_builds = 0;
    std::size_t max_cached = 0;
    std::size_t max_in_use = 0;
};

SessionFigures run_session(const MapSetup& m, const ServiceBenchOptions& o, SplitMix64& rng,
                           const JobSystemFactory& make_jobs) {
    SessionFigures out;
    const std::unique_ptr<JobSystem> jobs_owner = make_jobs(o.threads, o.threads);
    JobSystem& jobs = *jobs_owner;
    CountingMemory memory;
    WorldConfig config;
    config.seed = o.seed;
    config.field_budget_bytes = o.budget_mib << 20;
    config.field_memory = &memory;
    World world(jobs, config);
    require_ok(world.load("bench", m.cost, {m.centre}, o.agents));
    const float dt = 1.0f / 60.0f;

    auto open_goal = [&] {
        for (;;) {
            const Cell c = m.reachable[rng.below(m.reachable.size())];
            if (world.cost().passable(c.x, c.y)) return c;
        }
    };
    // The groups: units dealt round-robin, each group ordered to its own random goal.
    std::vector<UnitGroupId> groups;
    std::vector<std::vector<AgentId>> members(static_cast<std::size_t>(o.groups));
    for (std::size_t i = 0; i < world.agents().size(); ++i) {
        members[i % members.size()].push_back(world.agents()[i]);
    }
    for (auto& units : members) {
        Order order;
        order.select = units;
        order.goals = {open_goal()};
        auto r = world.apply(order);
        require_ok(r);
        groups.push_back(r->group);
    }
    world.finish_builds();

    std::vector<Cell> recent;  // the last goals ordered, for the repeats
    std::vector<double> next_order(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        next_order[g] = o.reorder_every * static_cast<double>(g + 1) / static_cast<double>(groups.size());
    }
    std::vector<char> waiting(groups.size(), 0);
    double next_edit = o.edit_every;
    const int ticks = static_cast<int>(std::lround(o.seconds / dt));
    const auto wall0 = std::chrono::steady_clock::now();
    std::uint64_t builds_at_half = 0;
    for (int t = 1; t <= ticks; ++t) {
        const double now = t * static_cast<double>(dt);
        if (t == ticks / 2) {  // warm: count allocations from here on
            memory.reset();
            builds_at_half = world.service_stats().builds;
        }
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (now < next_order[g]) continue;
            next_order[g] += o.reorder_every;
            Cell goal;
            const bool repeat = !recent.empty() && rng.below(5) == 0;
            goal = repeat ? recent[rng.below(recent.size())] : open_goal();
            if (!world.cost().passable(goal.x, goal.y)) goal = open_goal();
            auto r = world.apply(SetGoals{{goal}, groups[g]});
            if (!r) continue;  // the group lost every unit (cannot happen here) or the goal was walled
            ++out.orders;
            out.repeats += repeat;
            if (waiting[g]) ++out.superseded;
            waiting[g] = 1;
            recent.push_back(goal);
            if (recent.size() > 16) recent.erase(recent.begin());
        }
        if (now >= next_edit) {
            next_edit += o.edit_every;
            const Cell c = open_goal();
            const Cost kinds[] = {kCostWall, kCostSwamp, kCostPlain};
            require_ok(world.apply(Paint{c.x, c.y, 1, kinds[out.edits % 3]}));
            ++out.edits;
        }
        require_ok(world.tick(dt));
        out.steps.push_back(world.stats().step_ms);
        const FieldServiceStats now_stats = world.service_stats();
        out.max_cached = std::max(out.max_cached, now_stats.bytes_cached);
        out.max_in_use = std::max(out.max_in_use, now_stats.bytes_in_use);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (!waiting[g]) continue;
            const UnitGroup* u = world.group(groups[g]);
            if (!u || u->order_to_field_ms < 0.0) continue;
            waiting[g] = 0;
            ++out.answered;
            out.to_published.push_back(u->order_to_field_ms);
            out.to_ready.push_back(u->order_to_ready_ms >= 0.0 ? u->order_to_ready_ms : u->order_to_field_ms);
        }
    }
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    out.service = world.service_stats();
    out.warm_allocations = memory.allocations();
    out.warm_builds = out.service.builds - builds_at_half;
    return out;
}

}  // namespace

nlohmann::json run_service_bench(const ServiceBenchOptions& o, const JobSystemFactory& make_jobs, std::FILE* out) {
    const Provenance prov = provenance();
    std::fprintf(out, "tide bench service: %d groups, %d units, %.0f simulated s, %d threads, budget %zu MiB\n",
                 o.groups, o.agents, o.seconds, o.threads, o.budget_mib);
    std::fprintf(out, "%s\n", prov.line().c_str());
    nlohmann::json rows = nlohmann::json::array();
    for (const int size : o.sizes) {
        std::fprintf(stderr, "[service] %dx%d: builds...\n", size, size);
        const MapSetup m = make_map(size, o.seed);
        SplitMix64 rng{o.seed * 7919 + static_cast<std::uint64_t>(size)};
        const BuildFigures b = time_builds(m, o.threads, o.reps, rng, make_jobs);
        std::fprintf(stderr, "[service] %dx%d: session...\n", size, size);
        const SessionFigures s = run_session(m, o, rng, make_jobs);

        const double lookups = static_cast<double>(s.service.hits + s.service.misses);
        const double hit_rate = lookups > 0 ? static_cast<double>(s.service.hits) / lookups : 0.0;
        const double pub_med = percentile(s.to_published, 0.5), pub_p99 = percentile(s.to_published, 0.99);
        const double ready_med = percentile(s.to_ready, 0.5), ready_p99 = percentile(s.to_ready, 0.99);
        double step_mean = 0;
        for (double v : s.steps) step_mean += v;
        step_mean /= std::max<std::size_t>(1, s.steps.size());
        const double ratio = b.ratio;
        const double order_ratio = pub_med / b.single_ms;
        const bool under_budget = s.service.peak_bytes_cached <= (o.budget_mib << 20);

        std::fprintf(out, "\nmap %dx%d (random, seed %llu), %zu reachable cells\n", size, size,
                     static_cast<unsigned long long>(o.seed), m.reachable.size());
        std::fprintf(out, "  single build (warm FieldBuilder)             %9.3f ms\n", b.single_ms);
        std::fprintf(out, "  8 goals one after another                    %9.3f ms\n", b.serial_ms);
        std::fprintf(out,
                     "  8 goals at once, service on %d threads        %9.3f ms  (%.2fx the serial time: median of %d "
                     "rounds, %.2f..%.2f)\n",
                     o.threads, b.parallel_ms, ratio, o.reps, b.ratio_min, b.ratio_max);
        std::fprintf(out, "  session: %zu ticks in %.1f s wall, %zu orders (%zu repeats), %zu terrain edits\n",
                     s.steps.size(), s.wall_s, s.orders, s.repeats, s.edits);
        std::fprintf(
            out,
            "  cache hit rate %.1f%% (%llu hits / %.0f lookups), builds %llu, repairs %llu (%llu rebuilt), cancelled "
            "%llu, coalesced %llu\n",
            100.0 * hit_rate, static_cast<unsigned long long>(s.service.hits), lookups,
            static_cast<unsigned long long>(s.service.builds), static_cast<unsigned long long>(s.service.repairs),
            static_cast<unsigned long long>(s.service.repair_rebuilds),
            static_cast<unsigned long long>(s.service.builds_cancelled),
            static_cast<unsigned long long>(s.service.coalesced));
        std::fprintf(out, "  order -> field ready      median %8.3f ms, p99 %8.3f ms\n", ready_med, ready_p99);
        std::fprintf(out,
                     "  order -> field published  median %8.3f ms, p99 %8.3f ms  (%.2fx a single build; %zu of %zu "
                     "orders answered, %zu overtaken by the next order)\n",
                     pub_med, pub_p99, order_ratio, s.answered, s.orders, s.superseded);
        std::fprintf(out,
                     "  peak cached %.1f MiB of %zu MiB (%s the budget); fields alive at most %.1f MiB (cached, "
                     "followed by groups, or building)\n",
                     static_cast<double>(s.service.peak_bytes_cached) / (1 << 20), o.budget_mib,
                     under_budget ? "never above" : "ABOVE", static_cast<double>(s.max_in_use) / (1 << 20));
        std::fprintf(out, "  allocations once warm: %zu in %llu builds (second half of the session)\n",
                     s.warm_allocations, static_cast<unsigned long long>(s.warm_builds));
        std::fprintf(out, "  crowd step (%d units): mean %.3f ms, median %.3f ms, p99 %.3f ms\n", o.agents, step_mean,
                     percentile(s.steps, 0.5), percentile(s.steps, 0.99));
        if (size == 1024) {
            std::fprintf(out, "  %s  8 goals in parallel: %.2fx the serial time (target <= 0.6x with 2 threads)\n",
                         ratio <= 0.6 ? "PASS" : "MISS", ratio);
        }
        if (size == 256) {
            std::fprintf(out, "  %s  order -> published median %.2fx a single build (target <= 2x)\n",
                         order_ratio <= 2.0 ? "PASS" : "MISS", order_ratio);
        }
        std::fprintf(out, "  %s  cached bytes never above the budget\n", under_budget ? "PASS" : "MISS");
        std::fprintf(out, "  %s  no allocation per build once warm (%zu allocations in %llu builds)\n",
                     s.warm_allocations == 0 ? "PASS" : "MISS", s.warm_allocations,
                     static_cast<unsigned long long>(s.warm_builds));
        rows.push_back({{"size", size},
                        {"reachable_cells", m.reachable.size()},
                        {"single_build_ms", b.single_ms},
                        {"serial_8_ms", b.serial_ms},
                        {"parallel_8_ms", b.parallel_ms},
                        {"parallel_ratio", ratio},
                        {"parallel_ratio_min", b.ratio_min},
                        {"parallel_ratio_max", b.ratio_max},
                        {"orders", s.orders},
                        {"repeats", s.repeats},
                        {"edits", s.edits},
                        {"answered", s.answered},
                        {"overtaken", s.superseded},
                        {"hits", s.service.hits},
                        {"misses", s.service.misses},
                        {"hit_rate", hit_rate},
                        {"builds", s.service.builds},
                        {"builds_cancelled", s.service.builds_cancelled},
                        {"repairs", s.service.repairs},
                        {"repair_rebuilds", s.service.repair_rebuilds},
                        {"coalesced", s.service.coalesced},
                        {"order_to_ready_median_ms", ready_med},
                        {"order_to_ready_p99_ms", ready_p99},
                        {"order_to_published_median_ms", pub_med},
                        {"order_to_published_p99_ms", pub_p99},
                        {"order_to_published_vs_single_build", order_ratio},
                        {"peak_cached_bytes", s.service.peak_bytes_cached},
                        {"budget_bytes", o.budget_mib << 20},
                        {"peak_bytes_in_use", s.max_in_use},
                        {"warm_allocations", s.warm_allocations},
                        {"warm_builds", s.warm_builds},
                        {"step_mean_ms", step_mean},
                        {"step_median_ms", percentile(s.steps, 0.5)},
                        {"step_p99_ms", percentile(s.steps, 0.99)},
                        {"session_wall_s", s.wall_s}});
    }
    nlohmann::json j = provenance_json(prov);
    j.update(
        {{"groups", o.groups}, {"agents", o.agents}, {"seconds", o.seconds}, {"threads", o.threads}, {"rows", rows}});
    return j;
}

}  // namespace tide::bench
