// Google Benchmark cases for the crowd step (the same setting as `tide bench crowd`): agents on
// the 256x256 benchmark map heading to the centre, stepped at 1/60 s on a oneTBB job system.

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>

#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/scenarios.hpp"
#include "tide/tbb_jobs.hpp"
#include "tide/world.hpp"

namespace {

// The 256x256 benchmark map with its centre open.
tide::CostField bench_map() {
    tide::CostField cost = std::move(tide::generate_random_map({256, 256, 0.20, 0.15, 0.07, 1}).value());
    cost.set(128, 128, tide::kCostPlain);
    return cost;
}

// `agents` units spread over the benchmark map (spawn seed 7), one group heading to the centre.
struct BenchCrowd {
    explicit BenchCrowd(int agents)
        : cost(bench_map()),
          field(std::make_shared<const tide::FlowField>(
              std::move(tide::build_flow_field(cost, std::span<const tide::Cell>(&kGoal, 1)).value()))),
          crowd(cost) {
        const tide::GroupId g = crowd.add_group(field).value();
        tide::SplitMix64 rng{7};
        while (crowd.size() < static_cast<std::size_t>(agents)) {
            const tide::Vec2 p{static_cast<float>(rng.uniform() * 256), static_cast<float>(rng.uniform() * 256)};
            if (field->reachable(static_cast<int>(p.x), static_cast<int>(p.y))) (void)crowd.add_agent(p, g);
        }
    }
    static constexpr tide::Cell kGoal{128, 128};
    tide::CostField cost;  // before crowd, which reads it
    std::shared_ptr<const tide::FlowField> field;
    tide::Crowd crowd;
};

void BM_CrowdStep(benchmark::State& state) {
    const int agents = static_cast<int>(state.range(0));
    const int threads = static_cast<int>(state.range(1));
    BenchCrowd bench(agents);
    tide::Crowd& crowd = bench.crowd;
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

// Times `step` and then `hash` in every iteration; the counters give both times (ms) and the
// hash's share of the step, measured in the same iterations. `step_name` names the first counter.
template <class Step, class Hash>
void time_step_and_hash(benchmark::State& state, const char* step_name, Step&& step, Hash&& hash) {
    using Clock = std::chrono::steady_clock;
    double step_s = 0.0, hash_s = 0.0;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        auto r = step();
        const auto t1 = Clock::now();
        const std::uint64_t h = hash();
        const auto t2 = Clock::now();
        benchmark::DoNotOptimize(r);
        benchmark::DoNotOptimize(h);
        step_s += std::chrono::duration<double>(t1 - t0).count();
        hash_s += std::chrono::duration<double>(t2 - t1).count();
    }
    const double n = static_cast<double>(state.iterations());
    state.counters[step_name] = 1e3 * step_s / n;
    state.counters["hash_ms"] = 1e3 * hash_s / n;
    state.counters["hash_share_pct"] = 100.0 * hash_s / step_s;
}

// The lockstep hash a host may take every tick (docs/determinism.md; target: at most 2% of a
// 10,000-unit step): each iteration steps the crowd, then hashes it.
void BM_CrowdStateHashShare(benchmark::State& state) {
    const int agents = static_cast<int>(state.range(0));
    BenchCrowd bench(agents);
    tide::Crowd& crowd = bench.crowd;
    tide::SerialJobSystem jobs;
    for (int i = 0; i < 60; ++i) (void)crowd.step(1.0f / 60.0f, jobs);
    time_step_and_hash(
        state, "step_ms", [&] { return crowd.step(1.0f / 60.0f, jobs); }, [&] { return crowd.state_hash(); });
}
BENCHMARK(BM_CrowdStateHashShare)->Arg(10000)->Unit(benchmark::kMillisecond);

// The same for the hash a lockstep World records every tick (World::state_hash: the crowd's plus
// the tick, the terrain version and every group), against a whole World::tick of a lockstep world:
// 10,000 units to the 256x256 benchmark map's goal.
void BM_WorldStateHashShare(benchmark::State& state) {
    auto map = tide::make_builtin_map("random256");
    if (!map) {
        state.SkipWithError(map.error().message.c_str());
        return;
    }
    tide::SerialJobSystem jobs;
    tide::WorldConfig config;
    config.lockstep = true;
    tide::World world(jobs, config);
    if (auto r = world.load("random256", map->cost, map->goals, static_cast<int>(state.range(0))); !r) {
        state.SkipWithError(r.error().message.c_str());
        return;
    }
    for (int i = 0; i < 60; ++i) (void)world.tick(1.0f / 60.0f);
    time_step_and_hash(
        state, "tick_ms", [&] { return world.tick(1.0f / 60.0f); }, [&] { return world.state_hash(); });
}
BENCHMARK(BM_WorldStateHashShare)->Arg(10000)->Unit(benchmark::kMillisecond);

// A formation's cost (issue target: a 1,000-unit formation steps within 1.3x the same units
// without one): the formation_march scenario (1,000 units in a 40-wide box across an open field)
// against formation_march_plain (the same units flowing), lockstep Worlds on one thread; after
// 15 s (formed, on the march), 1,200 ticks (20 s, before anyone arrives) timed. Arg 1: formation.
void BM_FormationMarch(benchmark::State& state) {
    const bool formation = state.range(0) != 0;
    auto scenario = tide::make_scenario(formation ? "formation_march" : "formation_march_plain");
    if (!scenario) {
        state.SkipWithError(scenario.error().message.c_str());
        return;
    }
    tide::SerialJobSystem jobs;
    tide::WorldConfig config;
    config.lockstep = true;
    tide::World world(jobs, config);
    if (auto r = tide::load_scenario(world, *scenario); !r) {
        state.SkipWithError(r.error().message.c_str());
        return;
    }
    for (int i = 0; i < 60 * 15; ++i) (void)world.tick(1.0f / 60.0f);
    for (auto _ : state) {
        auto r = world.tick(1.0f / 60.0f);
        benchmark::DoNotOptimize(r);
    }
    state.SetLabel(formation ? "40-wide box" : "flowing");
}
BENCHMARK(BM_FormationMarch)->Arg(1)->Arg(0)->Iterations(1200)->Unit(benchmark::kMillisecond);

}  // namespace
