#pragma once
// "Would these walls cut anyone off?" from the terrain alone, for planners without a whole-map
// field (the FieldService's hierarchical plans): reachability of the goals over the costs with the
// walls added, by the moves of the fields (8 directions with the corner rule, or 4). Same answer as
// FieldBuilder::would_block() on a field of the same goals and costs.

#include <span>

#include "tide/cost_field.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide::detail {

/// What walling `walls` (cells of `cost`, duplicates and walls already there allowed) would do to
/// the cells that reach `goals` by moves of `connectivity`: BlockAnswer as FieldBuilder::would_block
/// gives it (a spawn walled over counts as cut off). First a local check: when the free cells
/// around the walls stay connected to each other within a few cells of them, nothing is cut off
/// (any path through the walls can go round them there), and only the cells near the walls are
/// looked at; else two searches over the map (before and after). Errors: a wall or spawn off the map.
Result<BlockAnswer> reach_would_block(const CostField& cost, std::span<const Cell> goals, Connectivity connectivity,
                                      std::span<const Cell> walls, std::span<const Cell> spawns);

}  // namespace tide::detail
