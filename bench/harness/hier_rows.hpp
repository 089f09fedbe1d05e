#pragma once
// The hierarchical rows of `tide bench fields`: the sector graph build (one-off) and cold
// cross-map route queries (tide/hierarchy.hpp) on a random benchmark map.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/hierarchy.hpp"
#include "tide/result.hpp"

namespace tide::bench {

/// Settings of the hierarchical rows.
struct HierBenchSettings {
    int sector = 64;    ///< SectorConfig::sector_size.
    int reps = 5;       ///< Timed queries after one untimed warm-up.
    bool exact = true;  ///< Also build one flat field for the query's goal (untimed) for the path ratio.
    int settle_budget = RouteConfig{}.settle_budget;  ///< RouteConfig::settle_budget of the queries.
    int corner_reach = RouteConfig{}.corner_reach;    ///< RouteConfig::corner_reach of the queries.
    /// Where route fields are built in parallel (RouteConfig::jobs); null: on the calling thread.
    JobSystem* jobs = nullptr;
};

/// What the rows measured on one map. Times in ms; medians over the timed queries.
struct HierBenchResult {
    int width = 0, height = 0;
    Cell start, goal;             ///< Near the top-left and the bottom-right corner, joined by a path.
    double graph_ms = 0.0;        ///< SectorGraph::build, serial, once.
    std::size_t graph_bytes = 0;  ///< SectorGraph::memory_bytes().
    std::size_t nodes = 0, portals = 0, sectors = 0;
    std::vector<double> query_samples;  ///< create + route({start}) of each timed query.
    double query_ms = 0.0;              ///< Median of query_samples.
    double first_field_ms = 0.0;        ///< Median RouteStats::first_field_ms.
    double search_ms = 0.0;             ///< Median RouteStats::search_ms.
    double fields_ms = 0.0;             ///< Median RouteStats::fields_ms.
    double settle_ms = 0.0;             ///< Median RouteStats::settle_ms (part of fields_ms).
    std::size_t fields_built = 0;       ///< RouteStats::fields_built of the last query.
    std::size_t route_sectors = 0;      ///< RouteStats::route_sectors of the last query.
    std::size_t nodes_settled = 0;      ///< RouteStats::nodes_settled of the last query.
    std::size_t field_bytes = 0;        ///< HierarchicalField::field_bytes() after the last query.
    std::size_t memory_bytes = 0;       ///< HierarchicalField::memory_bytes() after the last query.
    int sector_cells = 0;               ///< Cells of a full sector.
    double path_cost = 0.0;             ///< hierarchical_path_cost() from the start (after the warm-up).
    double exact_cost =
        std::numeric_limits<double>::quiet_NaN();  ///< flow_path_cost() of a flat field; NaN when not run.
    /// Sector build time per cell, ns: fields_ms / (fields_built * sector_cells).
    double sector_ns_per_cell() const {
        return fields_built > 0 ? fields_ms * 1e6 / (static_cast<double>(fields_built) * sector_cells) : 0.0;
    }
};

/// The rows' query: a goal near the bottom-right corner and a start near the top-left one that a
/// path joins (`first` the start, `second` the goal). Error when no such cells are found.
Result<std::pair<Cell, Cell>> corner_route(const CostField& cost, const SectorGraph& graph);

/// Runs the rows on `cost` (a random benchmark map). `progress` gets a short note before each
/// phase. Error from the library, or when no corner cells are joined by a path.
Result<HierBenchResult> run_hier_bench(const CostField& cost, const HierBenchSettings& settings,
                                       const std::function<void(const std::string&)>& progress);

}  // namespace tide::bench
