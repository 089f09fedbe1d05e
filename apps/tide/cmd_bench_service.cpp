// tide bench service: the field service under a scripted real-time-strategy session, and builds
// in parallel against the same builds one after another. This file parses and checks the options
// and writes the JSON; the run is the benchmark harness's (bench/harness/service_runs.hpp).

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "service_runs.hpp"
#include "tide/tbb_jobs.hpp"

namespace tide::cli {
namespace {

/// The options of `tide bench service`: the harness's settings and the output file.
struct ServiceBenchOptions : bench::ServiceBenchOptions {
    std::string json;
};

void run_bench_service(const ServiceBenchOptions& o) {
    if (o.groups < 1 || o.groups > 1000) throw Failure{"--groups must be 1..1000"};
    if (o.agents < o.groups || o.agents > kMaxWorldUnits) {
        throw Failure{"--agents must be at least --groups and at most " + std::to_string(kMaxWorldUnits)};
    }
    if (o.threads < 1 || o.threads > 64) throw Failure{"--threads must be 1..64"};
    if (!(o.seconds > 0 && o.seconds <= 3600)) throw Failure{"--seconds must be in (0, 3600]"};
    if (!(o.reorder_every > 0) || !(o.edit_every > 0)) throw Failure{"--reorder and --edit must be positive"};
    if (o.reps < 3) throw Failure{"--reps must be at least 3"};
    if (o.budget_mib < 1) throw Failure{"--budget-mib must be at least 1"};
    for (const int size : o.sizes) {
        if (size < 16 || size > 4096) throw Failure{"--sizes: " + std::to_string(size) + " is outside 16..4096"};
    }
    const nlohmann::json report = bench::run_service_bench(o, make_tbb_jobs, stdout);
    if (!o.json.empty()) write_json(o.json, report);
}

}  // namespace

void add_bench_service_command(CLI::App& bench) {
    auto o = std::make_shared<ServiceBenchOptions>();
    auto* cmd = bench.add_subcommand(
        "service", "Field service: parallel builds, and a scripted RTS session (orders, cache, edits, crowd)");
    cmd->add_option("--sizes", o->sizes, "Random map sizes, comma-separated")->delimiter(',')->capture_default_str();
    cmd->add_option("--groups", o->groups, "Groups in the session")->capture_default_str();
    cmd->add_option("--agents", o->agents, "Units in the session")->capture_default_str();
    cmd->add_option("--seconds", o->seconds, "Simulated seconds")->capture_default_str();
    cmd->add_option("--reorder", o->reorder_every, "Seconds between two orders of a group")->capture_default_str();
    cmd->add_option("--edit", o->edit_every, "Seconds between two terrain edits")->capture_default_str();
    cmd->add_option("--threads", o->threads, "Threads for the crowd step and for the builds")->capture_default_str();
    cmd->add_option("--budget-mib", o->budget_mib, "Field cache budget, MiB")->capture_default_str();
    cmd->add_option("--reps", o->reps, "Timed rounds of the build comparison (after one warm-up)")
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "Map and script seed")->capture_default_str();
    cmd->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    cmd->callback([o] { run_bench_service(*o); });
}

}  // namespace tide::cli
