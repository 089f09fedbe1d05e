// Google Benchmark cases for the crowd step (the same setting as `tide bench crowd`): agents on
// the 256x256 benchmark map heading to the centre, stepped at 1/60 s on a oneTBB job system.

#include <benchmark/benchmark.h>

#include <memory>

#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/tbb_jobs.hpp"

namespace {

void BM_CrowdStep(benchmark::State& state) {
    const int agents = static_cast<int>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    tide::CostField cost = std::move(tide::generate_random_map({256, 256, 0.20, 0.15, 0.07, 1}).value());
    const tide::Cell goal{128, 128};
    cost.set(goal.x, goal.y, tide::kCostPlain);
    auto field = std::make_shared<const tide::FlowField>(
        std::move(tide::build_flow_field(cost, std::span<const tide::Cell>(&goal, 1)).value()));
    tide::Crowd crowd(cost);
    const tide::GroupId g = crowd.add_group(field).value();
    tide::SplitMix64 rng{7};
    while (crowd.size() < static_cast<std::size_t>(agents)) {
        const tide::Vec2 p{static_cast<float>(rng.uniform() * 256), static_cast<float>(rng.uniform() * 256)};
        if (field->reachable(static_cast<int>(p.x), static_cast<int>(p.y))) (void)crowd.add_agent(p, g);
    }
    tide::TbbJobSystem jobs(threads);
    for (int i = 0; i < 60; ++i) (void)crowd.step(1.0f / 60.0f, jobs);  // warm-up: agents on the move
    for (auto _ : state) {
        auto r = crowd.step(1.0f / 60.0f, jobs);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations() * agents);
}
BENCHMARK(BM_CrowdStep)
    ->Args({1000, 1})
    ->Args({1000, 2})
    ->Args({10000, 1})
    ->Args({10000, 2})
    ->Args({100000, 2})
    ->Unit(benchmark::kMillisecond);

}  // namespace
