#pragma once
// The measuring run of `tide bench repair`: incremental repair and the "would this block?" query
// against full builds, in the same run on the benchmark map (random weighted, goal near the
// centre).
//
// Per edit (random positions, the same for every run with the same seed): the block query for a
// 3x3 wall stamp, the repair after placing it and after removing it, and the repair after a 3x3
// cost change and after undoing it. Then the worst case: a wall across the whole map next to the
// goal (sealing half of it) and its removal, five times. At the end the repaired field is compared
// with a fresh build, bit for bit.

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace tide::bench {

/// Settings of `tide bench repair` (the CLI checks their ranges).
struct RepairBenchOptions {
    int size = 1024;         ///< Map width and height, 16..16384.
    int edits = 200;         ///< Random 3x3 stamps and cost changes.
    int reps = 11;           ///< Timed full builds after one warm-up.
    std::uint64_t seed = 1;  ///< Map and edit seed.
};

/// What a repair run found.
struct RepairBenchReport {
    nlohmann::json json;  ///< Machine, commit, settings, ratios and one row per case.
    bool exact = false;   ///< The repaired field is bit-identical to a fresh build.
};

/// Runs the edits, printing the table and the targets to `out`. Throws BenchError when a library
/// call fails; an inexact repair is reported, not thrown.
RepairBenchReport run_repair_bench(const RepairBenchOptions& options, std::FILE* out);

}  // namespace tide::bench
