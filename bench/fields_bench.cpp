// Google Benchmark cases for field builds on the classic random benchmark maps
// (20% walls, 15% forest, 7% swamp). Run: build/bin/tide_bench_fields

#include <benchmark/benchmark.h>

#include "map_gen.hpp"
#include "tide/flow_field.hpp"

namespace {

tide::CostField make_map(int size, std::uint64_t seed) {
    auto cost = tide::cli::generate_random_map({size, size, 0.20, 0.15, 0.07, seed});
    auto field = std::move(cost.value());
    field.set(size / 2, size / 2, tide::kCostPlain);  // the goal near the centre is never a wall
    return field;
}

void BM_FieldBuild(benchmark::State& state) {
    const int size = static_cast<int>(state.range(0));
    const tide::CostField cost = make_map(size, 1);
    const tide::Cell goal{size / 2, size / 2};
    tide::FieldBuilder builder;
    tide::FlowField field;
    for (auto _ : state) {
        auto r = builder.build(cost, std::span<const tide::Cell>(&goal, 1), {}, field);
        benchmark::DoNotOptimize(r);
        benchmark::DoNotOptimize(field.integration().data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(size) * size);
}
BENCHMARK(BM_FieldBuild)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_IntegrationOnly(benchmark::State& state) {
    const int size = static_cast<int>(state.range(0));
    const tide::CostField cost = make_map(size, 1);
    const tide::Cell goal{size / 2, size / 2};
    tide::FieldBuilder builder;
    std::pmr::vector<float> integration;
    for (auto _ : state) {
        auto r = builder.build_integration(cost, std::span<const tide::Cell>(&goal, 1), {}, integration);
        benchmark::DoNotOptimize(r);
        benchmark::DoNotOptimize(integration.data());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(size) * size);
}
BENCHMARK(BM_IntegrationOnly)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
