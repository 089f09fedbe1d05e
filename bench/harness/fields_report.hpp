#pragma once
// The report writers of `tide bench fields`: the text tables (printed as the run goes), the JSON
// report and the SVG chart (hand-written, no dependency). The host writes the files.

#include <cstdio>
#include <string>
#include <vector>

#include "fields_runs.hpp"

namespace tide::bench {

/// A time for the tables: 1 decimal from 100 ms, 3 from 1 ms, 4 below.
std::string format_ms(double ms);

/// A ratio for the tables: "12.3x faster" from 1, "0.52x" or "0.0012x" below.
std::string format_ratio(double ratio);

/// Prints one map's table (rows, ratios to the textbook build, checks, memory) to `out`.
void print_map_table(std::FILE* out, const MapResult& map, int reps);

/// Prints the header of the hierarchical rows to `out`.
void print_hier_header(std::FILE* out, const FieldsBenchOptions& options);

/// Prints one hierarchical row (beside the flat row of its size in `maps`, when it ran) to `out`.
void print_hier_row(std::FILE* out, const std::vector<MapResult>& maps, const HierBenchResult& row);

/// One line of the targets list ("PASS     Tide vs textbook (256x256) ...").
std::string target_line(const Target& target);

/// The JSON report of a run (machine, commit, options, every row of every map, the targets, the
/// crossover, the hierarchical rows), indented by 2, ending in a newline.
std::string fields_json(const FieldsBenchOptions& options, const FieldsBenchReport& report);

/// The SVG chart of a run: the 256x256 table as bars and build time against map cells.
std::string fields_svg(const FieldsBenchReport& report);

}  // namespace tide::bench
