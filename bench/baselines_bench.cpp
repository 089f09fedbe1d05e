// Google Benchmark cases for the rows of `tide bench fields`: the textbook build, a 4-direction
// Dijkstra map, Boost.Graph's Dijkstra and A* per unit on the classic 256x256 random map (seed 1),
// and Tide's builds on 256x256 and 1024x1024, and a cold hierarchical route query on 1024x1024. The
// same baselines as the CLI (bench/harness/baselines).
// Run: build/bin/tide_bench_fields --benchmark_filter='BM_(Textbook|Dijkstra4|Boost|AStar|Tide|Hier)'

#include <benchmark/benchmark.h>

#include <stdexcept>

#include "baselines.hpp"
#include "hier_rows.hpp"
#include "tide/astar.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"

namespace {

/// The benchmark map of one size (seed 1) and its goal, chosen as `tide bench fields` does.
struct BenchMap {
    tide::CostField cost;
    tide::Cell goal;
};

BenchMap make_bench_map(int size) {
    auto cost = tide::generate_random_map({size, size, 0.20, 0.15, 0.07, 1});
    if (!cost) throw std::runtime_error(cost.error().message);
    auto goal = tide::bench::bench_goal(*cost);
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
    tide::bench::TextbookField out;
    for (auto _ : state) {
        tide::bench::textbook_field(m.cost, m.goal, out);
        benchmark::DoNotOptimize(out.direction.data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_Textbook)->Unit(benchmark::kMillisecond);

void BM_Dijkstra4(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    std::vector<double> out;
    for (auto _ : state) {
        tide::bench::dijkstra_map_4dir(m.cost, m.goal, out);
        benchmark::DoNotOptimize(out.data());
    }
    set_cells(state, m.cost);
}
BENCHMARK(BM_Dijkstra4)->Unit(benchmark::kMillisecond);

void BM_BoostDijkstra(benchmark::State& state) {
    const BenchMap& m = bench_map(256);
    tide::bench::BoostDijkstra boost(m.cost);  // graph built outside the timed loop
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
    const std::vector<tide::Cell> starts = tide::bench::random_reachable_starts(*field, m.goal, units, 0x5EED ^ 1);
    for (auto _ : state) {
        benchmark::DoNotOptimize(tide::bench::astar_units(*finder, starts, m.goal));
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

// A cold hierarchical route query on the 1024x1024 benchmark map (tide/hierarchy.hpp, defaults):
// a new plan for a goal near the bottom-right corner, routed from a start near the top-left one,
// until every route sector has its field; the sector graph is built once, outside the timing.
// Compare with BM_TideField/1024 (the flat field of the whole map). `tide bench fields
// --hier-sizes 1024,4096` has the same query with its breakdown.
void BM_HierRouteQuery(benchmark::State& state) {
    const BenchMap& m = bench_map(1024);
    static const tide::SectorGraph graph = [&] {
        auto g = tide::SectorGraph::build(m.cost, tide::SectorConfig{});
        if (!g) throw std::runtime_error(g.error().message);
        return std::move(g.value());
    }();
    // The cells `tide bench fields` routes between (bench/harness/hier_rows).
    const auto ends = tide::bench::corner_route(m.cost, graph);
    if (!ends) throw std::runtime_error(ends.error().message);
    const tide::Cell start = ends->first, goal = ends->second;
    std::size_t fields = 0;
    for (auto _ : state) {
        auto plan = tide::HierarchicalField::create(m.cost, graph, std::span<const tide::Cell>(&goal, 1));
        if (!plan) throw std::runtime_error(plan.error().message);
        auto stats = plan->route(std::span<const tide::Cell>(&start, 1));
        if (!stats) throw std::runtime_error(stats.error().message);
        fields = stats->fields_built;
    }
    state.counters["fields"] = static_cast<double>(fields);
}
BENCHMARK(BM_HierRouteQuery)->Unit(benchmark::kMillisecond);

// Incremental repair after a 3x3 wall stamp and its removal, at fixed pseudo-random places on the
// benchmark map (the same places every run); compare with BM_TideField of the same size (the
// repair target: at most 10% of a build). Each iteration times both repairs.
void BM_TideRepair3x3(benchmark::State& state) {
    const BenchMap& m = bench_map(static_cast<int>(state.range(0)));
    tide::CostField cost = m.cost;
    tide::FieldBuilder builder;
    tide::FlowField field;
    tide::FieldRepairState repair_state;
    if (!builder.build(cost, std::span<const tide::Cell>(&m.goal, 1), {}, field, repair_state)) {
        state.SkipWithError("build failed");
        return;
    }
    tide::SplitMix64 rng{12345};
    const auto span = static_cast<std::uint64_t>(cost.width() - 2);
    for (auto _ : state) {
        int x = 0, y = 0;
        do {
            x = static_cast<int>(rng.below(span));
            y = static_cast<int>(rng.below(span));
        } while (m.goal.x >= x && m.goal.x <= x + 2 && m.goal.y >= y && m.goal.y <= y + 2);
        tide::Cost saved[9];
        for (int k = 0; k < 9; ++k) saved[k] = cost.at(x + k % 3, y + k / 3);
        cost.fill_rect(x, y, x + 2, y + 2, tide::kCostWall);
        auto a = builder.repair_rect(cost, x, y, x + 2, y + 2, field, repair_state);
        for (int k = 0; k < 9; ++k) cost.set(x + k % 3, y + k / 3, saved[k]);
        auto b = builder.repair_rect(cost, x, y, x + 2, y + 2, field, repair_state);
        benchmark::DoNotOptimize(a);
        benchmark::DoNotOptimize(b);
    }
}
BENCHMARK(BM_TideRepair3x3)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace
