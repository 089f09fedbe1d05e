// tide bench sample: what a host pays per direction (raw move, blend, wall-safe sample single and
// batch, straightened steer) on the benchmark map and a hierarchical 4096x4096 map. This file
// parses and checks the options and writes the JSON; the run is the benchmark harness's
// (bench/harness/sample_runs.hpp).

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "sample_runs.hpp"

namespace tide::cli {
namespace {

struct SampleBenchOptions : bench::SampleBenchOptions {
    std::string json;
};

void run_bench_sample(const SampleBenchOptions& o) {
    if (o.positions < 1000 || o.positions > (1 << 26))
        throw Failure{"--positions " + std::to_string(o.positions) + " is outside 1000..67108864"};
    if (o.reps < 1 || o.reps > 1000) throw Failure{"--reps " + std::to_string(o.reps) + " is outside 1..1000"};
    if (o.units < 1 || o.units > 1000000)
        throw Failure{"--units " + std::to_string(o.units) + " is outside 1..1000000"};
    if (o.frames < 1 || o.frames > 100000)
        throw Failure{"--frames " + std::to_string(o.frames) + " is outside 1..100000"};
    const bench::SampleBenchReport report = bench::run_sample_bench(o, stdout);
    if (!o.json.empty()) write_json(o.json, report.json);
}

}  // namespace

void add_bench_sample_command(CLI::App& bench) {
    auto o = std::make_shared<SampleBenchOptions>();
    auto* cmd = bench.add_subcommand("sample", "Directions for hosts: raw, wall-safe and straightened, per call");
    cmd->add_option("--positions", o->positions, "Random positions per map")->capture_default_str();
    cmd->add_option("--reps", o->reps, "Timed passes (median reported)")->capture_default_str();
    cmd->add_option("--units", o->units, "Units of the walking run")->capture_default_str();
    cmd->add_option("--frames", o->frames, "Frames of the walking run")->capture_default_str();
    cmd->add_option("--seed", o->seed, "Position seed")->capture_default_str();
    cmd->add_flag("!--no-huge", o->huge, "Skip the 4096x4096 hierarchical map");
    cmd->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    cmd->callback([o] { run_bench_sample(*o); });
}

}  // namespace tide::cli
