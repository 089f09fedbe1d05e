// tide bench: side-by-side benchmark tables. `tide bench fields` times one field build against
// A* per unit, the textbook build, a 4-direction Dijkstra map and Boost.Graph's Dijkstra, then the
// hierarchical planner's route queries. This file parses and checks the options and writes the
// files; the runs and the report writers are the benchmark harness's (bench/harness/fields_*.hpp).

#include <algorithm>
#include <cstdio>
#include <memory>

#include "atomic_file.hpp"
#include "cli_common.hpp"
#include "fields_report.hpp"
#include "fields_runs.hpp"
#include "tide/tbb_jobs.hpp"

namespace tide::cli {
namespace {

using bench::FieldsBenchOptions;

/// The options of `tide bench fields`: the harness's settings and the output files.
struct BenchOptions : FieldsBenchOptions {
    std::string json;
    std::string svg;
};

/// Throws Failure naming the option for a value out of range.
void check_fields_options(const BenchOptions& o) {
    if (o.reps < 1 || o.reps > 100000) throw Failure{"--reps " + std::to_string(o.reps) + " is outside 1..100000"};
    if (o.reps < bench::kMinFieldsReps && !o.quick) {
        throw Failure{"--reps " + std::to_string(o.reps) + " is below " + std::to_string(bench::kMinFieldsReps) +
                      " (medians need at least 20 runs; --quick allows fewer for smoke tests)"};
    }
    if (o.seeds < 1 || o.seeds > 1000) throw Failure{"--seeds " + std::to_string(o.seeds) + " is outside 1..1000"};
    if (o.large_seeds < 1 || o.large_seeds > 1000) {
        throw Failure{"--large-seeds " + std::to_string(o.large_seeds) + " is outside 1..1000"};
    }
    for (int s : o.sizes) {
        if (s < 1 || s > kMaxDimension) throw Failure{"--sizes " + std::to_string(s) + " is outside 1..16384"};
    }
    for (int s : o.hier_sizes) {
        if (s == 0) continue;
        if (s < 1 || s > kMaxDimension) throw Failure{"--hier-sizes " + std::to_string(s) + " is outside 1..16384"};
    }
    if (o.settle < 0 || o.settle > 16) throw Failure{"--settle " + std::to_string(o.settle) + " is outside 0..16"};
    if (o.corner_reach < -1 || o.corner_reach > kMaxDimension) {
        throw Failure{"--corner-reach " + std::to_string(o.corner_reach) + " is outside -1.." +
                      std::to_string(kMaxDimension)};
    }
    if (o.hier_threads < 1 || o.hier_threads > kMaxThreads) {
        throw Failure{"--hier-threads " + std::to_string(o.hier_threads) + " is outside 1.." +
                      std::to_string(kMaxThreads)};
    }
    if (!bench::hier_sizes_to_run(o).empty() && (o.hier_reps < 1 || o.hier_reps > 1000)) {
        throw Failure{"--hier-reps " + std::to_string(o.hier_reps) + " is outside 1..1000"};
    }
}

void run_bench_fields(const BenchOptions& o) {
    check_fields_options(o);
    std::unique_ptr<TbbJobSystem> hier_pool;  // --hier-threads above 1: route fields built on it
    if (o.hier_threads > 1) hier_pool = std::make_unique<TbbJobSystem>(o.hier_threads);
    const bench::FieldsBenchReport report = bench::run_fields_bench(o, hier_pool.get(), stdout);
    if (!o.json.empty()) check(write_file_atomically(o.json, bench::fields_json(o, report)));
    if (!o.svg.empty()) check(write_file_atomically(o.svg, bench::fields_svg(report)));
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto* bench = app.add_subcommand("bench", "Benchmark tables: Tide against baselines, in one run");
    bench->require_subcommand(1);
    auto o = std::make_shared<BenchOptions>();
    auto* fields = bench->add_subcommand(
        "fields", "Field build vs A* per unit, the textbook build, a 4-direction Dijkstra map and Boost.Graph");
    fields->add_option("--sizes", o->sizes, "Random map sizes (side, cells), comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    fields->add_option("--seeds", o->seeds, "Random maps per size (seeds 1..N)")->capture_default_str();
    fields->add_option("--large-seeds", o->large_seeds, "At most this many seeds on maps over 1024x1024 cells")
        ->capture_default_str();
    fields->add_option("--reps", o->reps, "Timed runs per row and seed after one warm-up (at least 20)")
        ->capture_default_str();
    auto* mai = fields->add_option("--movingai", o->movingai,
                                   "Moving AI folder: adds its 3 largest maps (skipped when the default is absent; "
                                   "'' to disable)");
    mai->capture_default_str();
    fields->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    fields->add_option("--svg", o->svg, "Write a chart: the 256x256 table and build time vs map cells");
    fields->add_flag("--quick", o->quick, "Allow fewer than 20 runs (smoke tests only)");
    fields
        ->add_option("--hier-sizes", o->hier_sizes,
                     "Random map sizes for the hierarchical route-query rows (seed 1), comma-separated; 0: none")
        ->delimiter(',')
        ->capture_default_str();
    fields->add_flag("--huge", o->huge, "Add a 16384x16384 map to the hierarchical rows (no flat row there)");
    fields->add_option("--hier-reps", o->hier_reps, "Timed cold route queries per hierarchical row")
        ->capture_default_str();
    fields->add_option("--sector", o->sector, "Sector side of the hierarchical rows, 16..256")
        ->capture_default_str()
        ->check(CLI::Range(16, 256));  // refused before the flat rows run, not after
    fields->add_option("--settle", o->settle, "Settle budget of the hierarchical queries (RouteConfig), 0..16")
        ->capture_default_str();
    fields
        ->add_option("--corner-reach", o->corner_reach,
                     "Corner fill of the hierarchical queries only within this many cells of the route's way "
                     "(RouteConfig::corner_reach); -1: every corner")
        ->capture_default_str();
    fields
        ->add_option("--hier-threads", o->hier_threads,
                     "Threads building a hierarchical query's route fields (1: the calling thread)")
        ->capture_default_str();
    fields->callback([o, mai] {
        BenchOptions copy = *o;
        copy.movingai_given = mai->count() > 0;
        run_bench_fields(copy);
    });
    add_bench_crowd_command(*bench);
    add_bench_service_command(*bench);
    add_bench_repair_command(*bench);
    add_bench_sample_command(*bench);
    add_bench_navmesh_command(*bench);
}

}  // namespace tide::cli
