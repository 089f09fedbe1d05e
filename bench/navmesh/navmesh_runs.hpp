#pragma once
// The measuring run of `tide bench navmesh`: a Recast/Detour navigation mesh (Unity's, Unreal's
// and Godot's navigation are built on or modelled after it) against Tide's fields on the same grid
// maps. Bake time and memory; N findPath + findStraightPath queries against one field build (and
// the hierarchical plan and route on the 1024x1024 map) and the crossover N; path quality of both
// against the exact any-angle optimum; DetourCrowd against Tide's crowd; a 3x3 obstacle dropped
// on the route (a re-baked tile and re-planned paths against Tide's repair); area costs against
// the cost field on weighted maps. Tables are Markdown, printed and returned.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tide::bench {

/// Settings of `tide bench navmesh` (the CLI checks their ranges).
struct NavmeshBenchOptions {
    /// Maps: default (64x40), random256 (the benchmark map), movingai (the file below), large (1024x1024).
    std::vector<std::string> maps{"default", "random256", "movingai", "large"};
    std::string movingai = "../shared/data/movingai/dao/brc202d.map";  ///< The Moving AI map.
    std::vector<int> units{1, 10, 100, 1000, 10000};                   ///< Query counts N.
    int quality_starts = 200;                                          ///< Start points of the path-quality table.
    std::size_t max_corners = 40000;                 ///< Largest visibility graph for the exact any-angle optimum.
    int reps = 5;                                    ///< Field builds timed per map (median).
    bool crowd = true;                               ///< Run the crowd side by side.
    std::vector<int> crowd_agents{128, 1000, 5000};  ///< Its agent counts (128: RecastDemo's crowd limit).
    float crowd_seconds = 90.0f;                     ///< Longest simulated time of a crowd run, s.
    std::uint64_t seed = 1;                          ///< Start point seed.
    std::string command = "tide bench navmesh";      ///< The command line, for the report.
};

/// What a run found.
struct NavmeshBenchReport {
    nlohmann::json json;   ///< Machine, commit, settings and every figure.
    std::string markdown;  ///< The tables as printed.
};

/// Runs the measurements, printing Markdown tables to `out` as they come. Throws BenchError when
/// a library call fails or the Moving AI map cannot be read.
NavmeshBenchReport run_navmesh_bench(const NavmeshBenchOptions& options, std::FILE* out);

}  // namespace tide::bench
