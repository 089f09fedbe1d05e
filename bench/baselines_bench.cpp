// Google Benchmark cases for the rows of `tide bench fields`: the textbook build, a 4-direction
// Dijkstra map, Boost.Graph's Dijkstra and A* per unit on the classic 256x256 random map (seed 1),
// and Tide's builds on 256x256 and 1024x1024. The same baselines as the CLI (apps/tide/bench_baselines).
// Run: build/bin/tide_bench_fields --benchmark_filter='BM_(Textbook|Dijkstra4|Boost|AStar|Tide)'

#include <benchmark/benchmark.h>

#include <stdexcept>

#include "bench_baselines.hpp"
#include "tide/astar.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"

namespace {

/// The benchmark map of one size (seed 1) and its goal, chosen as `tide bench fields` does.
struct BenchMap {
    tide::CostField cost;
    tide::Cell goal;
};

BenchMap make_bench_map(int size) {
    auto cost = tide::generate_random_map({size, size, 0.20, 0.15, 0.07, 1});
    if (!cost) throw std::runtime_error(cost.error().message);
    auto goal = tide::cli::bench_goal(*cost);
    if (!goal) throw std::runtime_error(goal.error().message);
    return {std::move(cost.value()), *goal};
}

const BenchMap& bench_map(int size) {
    static const BenchMap m256 = make_bench_map(256);
    static const BenchMap m1024 = make_bench_map(1024);
    return size == 256 ? m256 : m1024;
}

void set_cells(benchmark::State& state, const tide::CostField& cost) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(cost.size()));
}

void BM_Textbook(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    tide::cli::TextbookField out;
    for (auto _ : state) {
        tide::cli::textbook_field(m.cost, m.goal, out);
        benchmark::DoNotOptimize(out.direction.data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_Textbook)->Unit(benchmark::kMillisecond);

void BM_Dijkstra4(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    std::vector<double> out;
    for (auto _ : state) {
        tide::cli::dijkstra_map_4dir(m.cost, m.goal, out);
        benchmark::DoNotOptimize(out.data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_Dijkstra4)->Unit(benchmark::kMillisecond);

void BM_BoostDijkstra(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    tide::cli::BoostDijkstra boost(m.cost);  // graph built outside the timed loop
    for (auto _ : state) {
        boost.run(m.goal);
        benchmark::DoNotOptimize(boost.distances().data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_BoostDijkstra)->Unit(benchmark::kMillisecond);

void BM_AStarUnits(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    const int units = static_cast<int>(state.range(0));
    auto field = tide::build_flow_field(m.cost, std::span<const tide::Cell>(&m.goal, 1));
    auto finder = tide::PathFinder::create(m.cost);
    if (!field || !finder) {
        state.SkipWithError("setup failed");
        return;
    }
    const std::vector<tide::Cell> starts = tide::cli::random_reachable_starts(*field, m.goal, units, 0x5EED ^ 1);
    for (auto _ : state) {
        benchmark::DoNotOptimize(tide::cli::astar_units(*finder, starts, m.goal));
    }
    state.SetItemsProcessed(state.iterations() * units);
}
BENCHMARK(BM_AStarUnits)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_TideField(benchmark::State& state) {
    const BenchMap& m = bench_map(static_cast<int>(state.range(0)));
    tide::FieldBuilder builder;
    tide::FlowField field;
    for (auto _ : state) {
        auto r = builder.build(m.cost, std::span<const tide::Cell>(&m.goal, 1), {}, field);
        benchmark::DoNotOptimize(r);
        benchmark::DoNotOptimize(field.directions().data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_TideField)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_TideIntegration(benchmark::State& state) {
    const BenchMap& m = bench_map(static_cast<int>(state.range(0)));
    tide::FieldBuilder builder;
    std::pmr::vector<float> integration;
    for (auto _ : state) {
        auto r = builder.build_integration(m.cost, std::span<const tide::Cell>(&m.goal, 1), {}, integration);
        benchmark::DoNotOptimize(r);
        benchmark::DoNotOptimize(integration.data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_TideIntegration)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace
