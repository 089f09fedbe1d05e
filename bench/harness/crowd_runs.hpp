#pragma once
// The measuring run of `tide bench crowd`: crowd step times (median after a 1 s warm-up) for
// several agent counts on random benchmark maps with 1 and 2 threads, agents on the move and
// packed at the goal (the dense case), next to a plain all-pairs separation step (the textbook
// reference) at 2,000 agents; then Tide's crowd beside an ORCA crowd (orca_reference.hpp) on an
// open map: step times and overlaps over a run.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "harness.hpp"

namespace tide::bench {

/// Settings of `tide bench crowd` (the CLI checks their ranges).
struct CrowdBenchOptions {
    int reps = 20;                                 ///< Timed steps per case after the warm-up, at least 5.
    std::vector<int> agents{1000, 10000, 100000};  ///< Agent counts.
    std::vector<int> sizes{256, 1024};             ///< Map sides, cells.
    bool orca = true;                              ///< Add the side-by-side with the ORCA reference.
    bool orca_100k = false;                        ///< Also run it with 100,000 agents (minutes).
    float orca_seconds = 20.0f;                    ///< Simulated seconds of each side-by-side run, (0, 600].
};

/// Runs every case, printing the table and the targets to `out` (progress on stderr); job systems
/// of 1 and 2 threads come from `make_jobs`. Returns the JSON report {rows, reps}. Throws
/// BenchError when a library call fails.
nlohmann::json run_crowd_bench(const CrowdBenchOptions& options, const JobSystemFactory& make_jobs, std::FILE* out);

}  // namespace tide::bench
