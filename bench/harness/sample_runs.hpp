#pragma once
// The measuring run of `tide bench sample`: what a host that moves its own units pays per
// direction, apart from building, caching and motion. On the 256x256 benchmark map (one goal field)
// and on a 4096x4096 map planned hierarchically (routed for its units' cells), single-threaded:
// the raw move, the bilinear blend, the wall-safe sample (single calls and the batch call, in cell
// units and through a y-up world transform) and the straightened steer() (stateless, and with a
// memory per unit while the units walk), in ns per direction; the field build (or plan and route)
// time of the same run next to them.

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace tide::bench {

/// Settings of `tide bench sample` (the CLI checks their ranges).
struct SampleBenchOptions {
    int positions = 1 << 20;  ///< Random positions on cells with a move, per map.
    int reps = 7;             ///< Timed passes over them (median reported).
    int units = 10000;        ///< Units of the walking run (steer() with memory).
    int frames = 300;         ///< Frames of the walking run.
    bool huge = true;         ///< Also the 4096x4096 hierarchical map.
    std::uint64_t seed = 1;   ///< Position seed.
};

/// What a sampling run found.
struct SampleBenchReport {
    nlohmann::json json;          ///< Machine, commit, settings and one row per map and query.
    double batch_safe_ns = 0.0;   ///< Wall-safe batch sample on the 256x256 map, ns per sample.
    double steer_over_raw = 0.0;  ///< Walking steer() with memory over the raw blend, same positions.
};

/// Runs the measurements, printing the table and the targets to `out`. Throws BenchError when a
/// library call fails.
SampleBenchReport run_sample_bench(const SampleBenchOptions& options, std::FILE* out);

}  // namespace tide::bench
