// tide bench crowd: crowd step times against a plain all-pairs separation step. This file parses
// the options and writes the JSON; the run is the benchmark harness's (bench/harness/crowd_runs.hpp).

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "crowd_runs.hpp"
#include "tbb_jobs.hpp"

namespace tide::cli {
namespace {

/// The options of `tide bench crowd`: the harness's settings and the output file.
struct CrowdBenchOptions : bench::CrowdBenchOptions {
    std::string json;
};

void run_bench_crowd(const CrowdBenchOptions& o) {
    if (o.reps < 5) throw Failure{"--reps must be at least 5"};
    const nlohmann::json report = bench::run_crowd_bench(o, make_tbb_jobs, stdout);
    if (!o.json.empty()) write_json(o.json, report);
}

}  // namespace

void add_bench_crowd_command(CLI::App& bench) {
    auto o = std::make_shared<CrowdBenchOptions>();
    auto* cmd = bench.add_subcommand("crowd", "Crowd step times vs a plain all-pairs separation step");
    cmd->add_option("--reps", o->reps, "Timed steps per case after warm-up (default 20)");
    cmd->add_option("--agents", o->agents, "Agent counts, comma-separated")->delimiter(',');
    cmd->add_option("--sizes", o->sizes, "Map sizes, comma-separated")->delimiter(',');
    cmd->add_option("--json", o->json, "Write the figures as JSON");
    cmd->callback([o] { run_bench_crowd(*o); });
}

}  // namespace tide::cli
