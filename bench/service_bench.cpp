// Google Benchmark cases for the field service (the setting of `tide bench service`): 8 different
// goals on a random benchmark map, built one after another by one FieldBuilder (threads = 0), or
// requested at once from a FieldService building on `threads` background threads of oneTBB.
// Compare the two in the same run: the target is at most 0.6x the serial time with 2 threads on
// the 1024x1024 map.

#include <benchmark/benchmark.h>

#include <condition_variable>
#include <mutex>

#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"
#include "tide/generate.hpp"
#include "tide/tbb_jobs.hpp"

namespace {

void BM_EightGoals(benchmark::State& state) {
    const int size = static_cast<int>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    tide::CostField cost = std::move(tide::generate_random_map({size, size, 0.20, 0.15, 0.07, 1}).value());
    std::vector<tide::Cell> open;
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            if (cost.passable(x, y)) open.push_back({x, y});
    tide::SplitMix64 rng{3};
    auto goals = [&] {
        std::vector<tide::Cell> g;
        for (int k = 0; k < 8; ++k) g.push_back(open[rng.below(open.size())]);
        return g;
    };
    if (threads == 0) {
        tide::FieldBuilder builder;
        tide::FlowField field;
        (void)builder.build(cost, std::span<const tide::Cell>(&open[0], 1), {}, field);  // warm-up
        for (auto _ : state) {
            for (const tide::Cell& g : goals())
                (void)builder.build(cost, std::span<const tide::Cell>(&g, 1), {}, field);
        }
        return;
    }
    tide::TbbJobSystem jobs(1, threads);
    std::mutex m;
    std::condition_variable cv;
    int published = 0;
    tide::FieldServiceConfig config;
    config.auto_publish = true;
    config.max_parallel_builds = threads;
    config.on_publish = [&](const tide::Publication&) {
        std::lock_guard lock(m);
        ++published;
        cv.notify_all();
    };
    auto service = std::move(tide::FieldService::create(cost, jobs, config).value());
    auto round = [&](const std::vector<tide::Cell>& g) {
        std::vector<tide::FieldTicket> tickets;
        for (const tide::Cell& c : g) tickets.push_back(service->request(std::span<const tide::Cell>(&c, 1)).value());
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return published == 8; });
        return tickets;
    };
    for (const auto t : round(goals())) (void)service->release(t);  // warm-up: builders and field buffers
    service->clear_cache();
    for (auto _ : state) {
        state.PauseTiming();
        service->clear_cache();
        const std::vector<tide::Cell> g = goals();
        {
            std::lock_guard lock(m);
            published = 0;
        }
        state.ResumeTiming();
        const std::vector<tide::FieldTicket> tickets = round(g);
        state.PauseTiming();
        for (const auto t : tickets) (void)service->release(t);
        state.ResumeTiming();
    }
}
BENCHMARK(BM_EightGoals)
    ->Args({256, 0})
    ->Args({256, 2})
    ->Args({1024, 0})
    ->Args({1024, 1})
    ->Args({1024, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
