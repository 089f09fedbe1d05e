// tide bench repair: incremental repair and the would-block query against full builds. This file
// parses and checks the options and writes the JSON; the run is the benchmark harness's
// (bench/harness/repair_runs.hpp).

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "repair_runs.hpp"

namespace tide::cli {
namespace {

/// The options of `tide bench repair`: the harness's settings and the output file.
struct RepairBenchOptions : bench::RepairBenchOptions {
    std::string json;
};

void run_bench_repair(const RepairBenchOptions& o) {
    if (o.size < 16 || o.size > kMaxDimension)
        throw Failure{"--size " + std::to_string(o.size) + " is outside 16..16384"};
    if (o.edits < 1 || o.edits > 100000) throw Failure{"--edits " + std::to_string(o.edits) + " is outside 1..100000"};
    if (o.reps < 1 || o.reps > 1000) throw Failure{"--reps " + std::to_string(o.reps) + " is outside 1..1000"};
    const bench::RepairBenchReport report = bench::run_repair_bench(o, stdout);
    if (!o.json.empty()) write_json(o.json, report.json);
    if (!report.exact) throw Failure{"the repaired field differs from a fresh build"};
}

}  // namespace

void add_bench_repair_command(CLI::App& bench) {
    auto o = std::make_shared<RepairBenchOptions>();
    auto* cmd = bench.add_subcommand("repair", "Incremental repair and the would-block query against full builds");
    cmd->add_option("--size", o->size, "Map width and height")->capture_default_str();
    cmd->add_option("--edits", o->edits, "Random 3x3 stamps and cost changes")->capture_default_str();
    cmd->add_option("--reps", o->reps, "Timed full builds (after one warm-up)")->capture_default_str();
    cmd->add_option("--seed", o->seed, "Map and edit seed")->capture_default_str();
    cmd->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    cmd->callback([o] { run_bench_repair(*o); });
}

}  // namespace tide::cli
