#pragma once
// The measuring runs of `tide bench fields`: one field build against A* per unit, the textbook
// build, a 4-direction Dijkstra map and Boost.Graph's Dijkstra, on random maps (several seeds) and
// on the largest Moving AI maps; then the hierarchical rows (hier_rows.hpp); then the targets and
// the A* crossover. The tables are printed as each map finishes (fields_report.hpp).
//
// Method: for every map and every row, one untimed warm-up (which also checks the result against
// Tide's exact distances), then `reps` timed repetitions. The figure of a row is the median of all
// repetitions of all seeds pooled together. Rows run one after the other, each with its own
// warm-up, as Google Benchmark does.

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hier_rows.hpp"
#include "provenance.hpp"
#include "tide/hierarchy.hpp"
#include "tide/jobs.hpp"

namespace tide::bench {

/// Timed runs per row below which medians are refused (unless FieldsBenchOptions::quick).
inline constexpr int kMinFieldsReps = 20;
/// Largest relative difference allowed between a baseline's distances (double precision) and
/// Tide's (FieldBuilder::exact_integration): the bound that function documents for its 64-bit
/// fixed point. A different least-cost path differs by far more, so the check still proves every
/// row solves the same problem.
inline constexpr double kCheckTolerance = 1.5e-8;
/// Maps over this many cells are "large" (4096x4096): no A* rows (one A* to the centre expands
/// millions of cells) and only FieldsBenchOptions::large_seeds seeds.
inline constexpr std::size_t kLargeMapCells = 1024 * 1024;
/// Largest map a flat field is built for in the hierarchical rows' path check (and the largest the
/// flat rows are meant for): 4096x4096. A 16384x16384 flat field needs 1.3 GB plus the builder's
/// scratch and minutes per build.
inline constexpr std::size_t kFlatCheckCells = std::size_t{4096} * 4096;

/// Settings of `tide bench fields` (the CLI checks their ranges; the names are its options').
struct FieldsBenchOptions {
    std::vector<int> sizes{256, 1024, 4096};           ///< Random map sides, cells.
    int seeds = 3;                                     ///< Random maps per size (seeds 1..seeds).
    int large_seeds = 1;                               ///< At most this many seeds over kLargeMapCells.
    int reps = 20;                                     ///< Timed runs per row and seed after one warm-up.
    std::string movingai = "../shared/data/movingai";  ///< Folder of Moving AI maps; "" for none.
    bool movingai_given = false;                       ///< The folder was named by the user: its absence is an error.
    bool quick = false;                                ///< Fewer than kMinFieldsReps runs allowed (smoke tests).
    std::vector<int> hier_sizes{1024, 4096};           ///< Sides of the hierarchical rows' maps; 0 entries skipped.
    bool huge = false;                                 ///< Adds a 16384x16384 map to the hierarchical rows.
    int hier_reps = 5;                                 ///< Timed cold queries per hierarchical row.
    int settle = RouteConfig{}.settle_budget;          ///< RouteConfig::settle_budget of the queries.
    int corner_reach = RouteConfig{}.corner_reach;     ///< RouteConfig::corner_reach of the queries.
    int hier_threads = 1;                              ///< Threads building a query's route fields.
    int sector = 64;                                   ///< Sector side of the hierarchical rows.
};

/// One row of the table.
struct RowSpec {
    const char* key;   ///< JSON key ("astar_10", "tide").
    const char* name;  ///< Label in the table.
    int units;         ///< A* rows: units per repetition; 0 otherwise.
};
/// Every row, in table order.
inline constexpr RowSpec kRows[] = {
    {"astar_1", "A* x1", 1},
    {"astar_10", "A* x10", 10},
    {"astar_100", "A* x100", 100},
    {"astar_1000", "A* x1000", 1000},
    {"textbook", "textbook 8-dir Dijkstra + lowest-neighbour flow (baseline)", 0},
    {"dijkstra4", "4-dir Dijkstra map (textbook)", 0},
    {"boost", "Boost.Graph dijkstra_shortest_paths (CSR)", 0},
    {"tide", "Tide integration + flow (8-dir)", 0},
    {"tide_integration", "Tide integration only", 0},
};
/// Number of rows.
inline constexpr int kRowCount = static_cast<int>(std::size(kRows));

/// Index of the row with `key` in kRows; throws BenchError for an unknown key.
int row_index(std::string_view key);

/// What one row measured on one map.
struct RowResult {
    std::vector<double> samples;           ///< Every timed repetition of every instance, ms.
    std::vector<double> instance_medians;  ///< One per seed / map file, ms.
    double median_ms = 0.0;                ///< Median of all samples.
    /// True when the row ran on this map.
    bool ran() const { return !samples.empty(); }
};

/// One benchmark map: a random size (several seeds) or one Moving AI file.
struct MapCase {
    std::string name;   ///< "random 256x256" or "Moving AI <stem>".
    std::string label;  ///< Progress prefix: "256" or the file stem.
    std::string kind;   ///< "random" or "movingai".
    int width = 0, height = 0;
    std::vector<std::uint64_t> seeds;  ///< Random maps.
    std::string path;                  ///< Moving AI maps.
};

/// What every row measured on one map.
struct MapResult {
    MapCase map;
    std::vector<nlohmann::ordered_json> instances;  ///< Per seed / file: goal, reachable cells, checks.
    RowResult rows[kRowCount];                      ///< By kRows index.
    double memory_bytes_per_cell = 0.0;             ///< FlowField::memory_bytes() / cells, largest instance.
    std::vector<int> astar_units;                   ///< The A* rows run (units per repetition).
    /// Cells of the map.
    std::size_t cells() const { return static_cast<std::size_t>(map.width) * map.height; }
    /// The row with `key`.
    const RowResult& row(std::string_view key) const { return rows[row_index(key)]; }
};

/// A figure the benchmark is held to, with its threshold.
struct Target {
    std::string name;
    std::string figure;  ///< How the value is computed.
    double value = 0.0;
    double threshold = 0.0;
    bool at_least = true;  ///< value >= threshold passes, else value <= threshold.
    bool ran = false;
    std::string why_not;  ///< Why it did not run.
    /// True when it ran and met the threshold.
    bool pass() const { return ran && (at_least ? value >= threshold : value <= threshold); }
};

/// Measured crossover on the 256x256 map: the smallest group size N for which N A* searches cost
/// more than one Tide field build, with the per-unit A* time averaged from the x10 and x100 rows.
struct Crossover {
    bool ran = false;
    double per_unit_x10 = 0, per_unit_x100 = 0, per_unit = 0, field_ms = 0;
    int units = 0;
};

/// Everything one `tide bench fields` run measured.
struct FieldsBenchReport {
    Provenance provenance;
    std::vector<MapResult> maps;
    std::vector<HierBenchResult> hier;
    std::vector<Target> targets;
    Crossover crossover;
    double total_s = 0.0;  ///< Wall time of the whole run, s.
};

/// Runs the whole benchmark: prints the header, each map's table as it finishes, the
/// hierarchical rows, the targets, the crossover and the total time to `out`; progress on stderr.
/// `hier_jobs` builds the hierarchical queries' route fields (null: the calling thread). Throws
/// BenchError when a library call fails or a baseline disagrees with Tide.
FieldsBenchReport run_fields_bench(const FieldsBenchOptions& options, JobSystem* hier_jobs, std::FILE* out);

/// The hierarchical sizes a run covers: hier_sizes without zeros, plus 16384 with `huge`.
std::vector<int> hier_sizes_to_run(const FieldsBenchOptions& options);

/// The random map of side `size` among `maps`, or null.
const MapResult* find_random(const std::vector<MapResult>& maps, int size);

/// The flat build of the same size as `h` in this run (its "tide" row), or null.
const RowResult* flat_row(const std::vector<MapResult>& maps, const HierBenchResult& h);

/// Why a hierarchical row has no flat row beside it ("" when it has one).
std::string flat_note(const std::vector<MapResult>& maps, const HierBenchResult& h);

/// The targets, judged on the maps that ran.
std::vector<Target> evaluate_targets(const std::vector<MapResult>& maps);

/// The A* crossover on the 256x256 map (not run when that map or its A* rows did not run).
Crossover measure_crossover(const std::vector<MapResult>& maps);

}  // namespace tide::bench
