// tide bench crowd: crowd step times against a plain all-pairs separation step, and Tide's crowd
// side by side with an ORCA crowd (the algorithm of RVO2) on an open map. This file parses
// the options and writes the JSON; the run is the benchmark harness's (bench/harness/crowd_runs.hpp).

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "crowd_runs.hpp"
#include "tide/tbb_jobs.hpp"

namespace tide::cli {
namespace {

/// The options of `tide bench crowd`: the harness's settings and the output file.
struct CrowdBenchOptions : bench::CrowdBenchOptions {
    std::string json;
    bool no_orca = false;
};

void run_bench_crowd(const CrowdBenchOptions& o) {
    if (o.reps < 5) throw Failure{"--reps must be at least 5"};
    if (!(o.orca_seconds > 0.0f && o.orca_seconds <= 600.0f)) throw Failure{"--orca-seconds must be in (0, 600]"};
    const nlohmann::json report = bench::run_crowd_bench(o, make_tbb_jobs, stdout);
    if (!o.json.empty()) write_json(o.json, report);
}

}  // namespace

void add_bench_crowd_command(CLI::App& bench) {
    auto o = std::make_shared<CrowdBenchOptions>();
    auto* cmd =
        bench.add_subcommand("crowd", "Crowd step times vs a plain all-pairs separation step and an ORCA crowd");
    cmd->add_option("--reps", o->reps, "Timed steps per case after warm-up (default 20)");
    cmd->add_option("--agents", o->agents, "Agent counts, comma-separated, each 1..200000")
        ->delimiter(',')
        ->check(CLI::Range(1, 200000));
    cmd->add_option("--sizes", o->sizes, "Map sizes, comma-separated")->delimiter(',');
    cmd->add_option("--json", o->json, "Write the figures as JSON");
    cmd->add_flag("--no-orca", o->no_orca, "Skip the side-by-side with the ORCA reference");
    auto* orca_100k = cmd->add_flag("--orca-100k", o->orca_100k,
                                    "Also run the side-by-side with 100,000 agents (minutes; on by default when "
                                    "--agents lists 100000)");
    cmd->add_option("--orca-seconds", o->orca_seconds, "Simulated seconds of each side-by-side run (default 20)");
    auto* agents = cmd->get_option("--agents");
    cmd->callback([o, orca_100k, agents] {
        o->orca = !o->no_orca;
        // The default agent list holds 100000 too; only a list the user gave opts in.
        if (orca_100k->count() == 0 && agents->count() > 0)
            o->orca_100k = std::find(o->agents.begin(), o->agents.end(), 100000) != o->agents.end();
        run_bench_crowd(*o);
    });
}

}  // namespace tide::cli
