#pragma once
// The measuring run of `tide bench service`: the field service under a scripted real-time-strategy
// session, and builds in parallel against the same builds one after another.
//
// Per map size: (1) a single warm build (the yardstick); (2) 8 different goals built one after
// another by one FieldBuilder, then requested at once from a FieldService building on N threads;
// (3) a session on a World: groups sharing the units, each group re-ordered to a random reachable
// goal every `reorder_every` simulated seconds (one order in five repeats a recent goal), a 3x3
// terrain stamp every `edit_every` s, ticks back to back at dt = 1/60 s. Orders are timed from
// the command to the tick that publishes their field (and to the moment the field was ready).

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness.hpp"

namespace tide::bench {

/// Settings of `tide bench service` (the CLI checks their ranges).
struct ServiceBenchOptions {
    std::vector<int> sizes{256, 1024};  ///< Random map sides, 16..4096.
    int groups = 50;                    ///< Groups in the session.
    int agents = 10000;                 ///< Units in the session, at least `groups`.
    double seconds = 60.0;              ///< Simulated seconds of the session.
    double reorder_every = 2.0;         ///< Seconds between two orders of a group.
    double edit_every = 5.0;            ///< Seconds between two terrain edits.
    int threads = 2;                    ///< Threads for the crowd step and for the builds.
    std::size_t budget_mib = 256;       ///< Field cache budget, MiB.
    int reps = 11;                      ///< Timed rounds of the build comparison.
    std::uint64_t seed = 1;             ///< Map and script seed.
};

/// Runs every map size, printing the figures and the targets to `out` (progress on stderr); job
/// systems come from `make_jobs`. Returns the JSON report (machine, commit, settings, rows).
/// Throws BenchError when a library call fails.
nlohmann::json run_service_bench(const ServiceBenchOptions& options, const JobSystemFactory& make_jobs, std::FILE* out);

}  // namespace tide::bench
