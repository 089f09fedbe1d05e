#pragma once
// Why flow fields: what one A* per unit would cost for a group, against one field build
// (`astar_compare`), and what a single unit is doing (`inspect`). docs/protocol.md.

#include <string>

#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide::serve {

/// Paths an `astar` reply carries at most (the page draws them beside the flow of the same units).
inline constexpr int kAstarPathsShown = 6;
/// The A* searches of one comparison stop after this long (at least one runs): the per-unit time
/// is measured on the samples that ran, and the simulation thread is not held for seconds.
inline constexpr double kCompareSearchMs = 30.0;

/// The `astar` reply for `group` (0: the largest): A* (tide::PathFinder) from the cells of up to
/// `samples` of its units, spread over the roster, to the goal nearest each (by the octile
/// heuristic), timed and scaled to the whole group, against one field build toward the group's goals
/// on the same terrain, timed now. Errors: no such group, a flee group, a hierarchical map.
/// Runs on the calling thread: the searches stop after kCompareSearchMs, the one field build
/// takes what it takes (tens of milliseconds on the largest flat maps).
Result<std::string> astar_compare_json(const World& world, UnitGroupId group, int samples);

/// The `inspected` reply: the unit nearest position (x, y) within 2 cells (its roster index, group,
/// size, state, position, velocity and speed, desired velocity, cost to go on its group's field and
/// neighbours within 1.5 cells), or `"unit": null` when none is that close.
std::string inspect_json(const World& world, float x, float y);

}  // namespace tide::serve
