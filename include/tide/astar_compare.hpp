#pragma once
/// \file astar_compare.hpp
/// Why flow fields (target tide::world): what one A* search per unit would cost a group of a
/// World, against the one field build that serves the whole group. Times are wall-clock
/// milliseconds measured on the calling thread; cells and costs as in flow_field.hpp.

#include <cstddef>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide {

/// How compare_astar() samples and how long it may search.
struct AstarCompareParams {
    int samples = 64;                ///< Units of the group planned with A* (at least 1), spread over the roster.
    std::size_t paths_kept = 6;      ///< Paths returned (of the first units searched).
    double search_budget_ms = 30.0;  ///< The searches stop once they took this long (at least one runs).
};

/// One A* path of a comparison.
struct AstarPath {
    std::size_t unit = 0;     ///< The unit's place in World::agents().
    Cell start;               ///< Its cell (the nearest open cell when it stands on a wall).
    double cost = 0.0;        ///< The path's cost; +inf when there is none.
    std::vector<Cell> cells;  ///< The path, start to goal (empty when there is none).
};

/// What compare_astar() measured.
struct AstarComparison {
    UnitGroupId group = 0;         ///< The group compared.
    std::size_t units = 0;         ///< Its units.
    std::size_t sampled = 0;       ///< A* searches run (at most AstarCompareParams::samples).
    std::size_t no_path = 0;       ///< Of those, the ones that found no path.
    double astar_ms_sampled = 0;   ///< Time of those searches, summed.
    double astar_ms_per_unit = 0;  ///< astar_ms_sampled / sampled.
    double astar_ms_all = 0;       ///< astar_ms_per_unit * units: one A* per unit of the group.
    double expanded_per_unit = 0;  ///< Nodes expanded per search, mean.
    double field_ms = 0;           ///< One field build toward the group's goals on the same terrain.
    std::vector<AstarPath> paths;  ///< The first AstarCompareParams::paths_kept searches' paths.
};

/// Plans `group` (0: World::largest_group()) with A* (tide::PathFinder, astar.hpp) from the cells of
/// up to params.samples of its units, each to the goal of the group nearest it by the octile
/// heuristic, and times one field build toward the group's goals (plain costs, units of size 1).
/// Errors: no such group, a flee group, a group without units, a hierarchical map, or none of the
/// sampled units near an open cell. Runs on the calling thread: the searches stop after
/// params.search_budget_ms; the field build takes what it takes.
TIDE_WORLD_API Result<AstarComparison> compare_astar(const World& world, UnitGroupId group,
                                                     const AstarCompareParams& params = {});

}  // namespace tide
