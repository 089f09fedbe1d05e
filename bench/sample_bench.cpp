// Google Benchmark cases for `tide bench sample`: directions for hosts on the classic 256x256
// random map (seed 1): the blend, the wall-safe sample (single calls and the batch) and the
// straightened steer with a memory per unit, per direction (items per second).
// Run: build/bin/tide_bench_fields --benchmark_filter=BM_Sample

#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "baselines.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/steering.hpp"

namespace {

struct SampleSetup {
    tide::CostField cost;
    std::shared_ptr<tide::FlowField> field = std::make_shared<tide::FlowField>();
    std::vector<float> xs, ys;
};

const SampleSetup& setup() {
    static const SampleSetup s = [] {
        SampleSetup out{tide::generate_random_map({}).value()};
        const auto goal = tide::bench::bench_goal(out.cost);
        if (!goal) throw std::runtime_error(goal.error().message);
        tide::FieldBuilder builder;
        if (!builder.build(out.cost, {&*goal, 1}, {}, *out.field)) throw std::runtime_error("build failed");
        tide::SplitMix64 rng{5};
        while (out.xs.size() < (1u << 16)) {
            const float x = static_cast<float>(rng.uniform() * 256.0), y = static_cast<float>(rng.uniform() * 256.0);
            if (!tide::is_move(out.field->direction(static_cast<int>(x), static_cast<int>(y)))) continue;
            out.xs.push_back(x);
            out.ys.push_back(y);
        }
        return out;
    }();
    return s;
}

void BM_SampleBlend(benchmark::State& state) {
    const SampleSetup& s = setup();
    for (auto _ : state) {
        for (std::size_t i = 0; i < s.xs.size(); ++i) benchmark::DoNotOptimize(s.field->blend({s.xs[i], s.ys[i]}));
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.xs.size()));
}
BENCHMARK(BM_SampleBlend);

void BM_SampleSafeSingle(benchmark::State& state) {
    const SampleSetup& s = setup();
    for (auto _ : state) {
        for (std::size_t i = 0; i < s.xs.size(); ++i) benchmark::DoNotOptimize(s.field->sample({s.xs[i], s.ys[i]}));
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.xs.size()));
}
BENCHMARK(BM_SampleSafeSingle);

void BM_SampleSafeBatch(benchmark::State& state) {
    const SampleSetup& s = setup();
    std::vector<float> ox(s.xs.size()), oy(s.xs.size());
    for (auto _ : state) {
        s.field->sample(s.xs, s.ys, ox, oy);
        benchmark::DoNotOptimize(ox.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.xs.size()));
}
BENCHMARK(BM_SampleSafeBatch);

// Steer with memory at fixed positions: after the first pass every unit remembers what it saw,
// so this is the cost of a unit that has not left its cell (the walking run of `tide bench
// sample` includes the looks).
void BM_SampleSteerRemembered(benchmark::State& state) {
    const SampleSetup& s = setup();
    auto steering = tide::Steering::create(tide::FieldView(std::shared_ptr<const tide::FlowField>(s.field)), s.cost);
    if (!steering) throw std::runtime_error(steering.error().message);
    std::vector<float> ox(s.xs.size()), oy(s.xs.size());
    std::vector<tide::SteerMemory> memory(s.xs.size());
    steering->steer(s.xs, s.ys, memory, ox, oy);
    for (auto _ : state) {
        steering->steer(s.xs, s.ys, memory, ox, oy);
        benchmark::DoNotOptimize(ox.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * s.xs.size()));
}
BENCHMARK(BM_SampleSteerRemembered);

}  // namespace
