#pragma once
/// \file hier_checks.hpp
/// Helpers of the hierarchy tests: weighted random maps, connectivity labels from a flood fill,
/// a walk along a HierarchicalField that checks every step, and a field-by-field comparison of two
/// sector graphs.

#include <cstdint>
#include <string>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"

namespace tide::test {

/// How the costs of weighted_map() are drawn.
enum class HierCosts {
    presets,     ///< generate_random_map: plain, forest 3, swamp 6.
    full_range,  ///< Uniform 1..254.
    dear,        ///< Uniform 5..40 (the cheapest cost is above 1).
};

/// A `width` x `height` map with about `walls` of its cells walls; deterministic per `seed`.
CostField weighted_map(int width, int height, double walls, HierCosts costs, std::uint64_t seed);

/// A printable name of `params` ("factor 1.414214" or "four-connected").
std::string params_text(const FieldParams& params);

/// Label of every cell's connected part under the move rules of `params` (legal moves both ways),
/// row-major; -1 for walls.
std::vector<int> flood_labels(const CostField& cost, const FieldParams& params);

/// A passable cell drawn uniformly (retrying); the map must have one.
Cell random_open_cell(const CostField& cost, std::uint64_t& state);

/// True when the cells `f` shows unreachable really have no path: `SectorField::complete` where
/// the API has that flag (a field built before the search settled its sector's nodes may show a
/// cell unreachable that has a path), else always.
template <class Field>
bool final_reachability(const Field& f) {
    if constexpr (requires { f.complete; }) {
        return f.complete;
    } else {
        return true;
    }
}

/// What walk_flow() saw.
struct FlowWalk {
    bool reached = false;  ///< Arrived at a goal cell.
    double cost = 0.0;     ///< Sum of the true move costs (double).
    std::size_t steps = 0;
    std::string fault;  ///< Empty when every step was fine.
};

/// Follows `field` from `start` (building sector fields as needed with ensure_field), checking
/// every step: the move is legal under `params` (never into a wall, never across a wall corner),
/// the value drops by at least the move's cost (so the flow cannot loop), and the walk ends at a
/// goal or a cell whose code says it has no path within W*H steps.
FlowWalk walk_flow(HierarchicalField& field, const CostField& cost, const FieldParams& params, Cell start);

/// Empty when `got` and `want` have the same sectors, portals (every field), nodes (cells,
/// partners, portals), intra-sector costs (bit for bit), cheapest cost and component partition;
/// else a description of the first differences.
std::string compare_graphs(const SectorGraph& got, const SectorGraph& want);

}  // namespace tide::test
