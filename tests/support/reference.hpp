#pragma once
/// \file reference.hpp
/// An obviously-correct reference for the integration and flow rules, written independently of
/// src/fields: plain Dijkstra with std::priority_queue over the forward-cost graph.

#include <span>
#include <string>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"

namespace tide::test {

/// Length of a move in direction `dir` (0..7) under `params`: 1 orthogonal, the factor diagonal.
double move_length(int dir, const FieldParams& params);

/// True when moving from (x, y) in direction `dir` is legal: the move exists for the connectivity,
/// both cells are on the map and passable, and a diagonal does not cut a wall corner.
bool legal_move(const CostField& cost, int x, int y, int dir, const FieldParams& params);

/// Cost of a legal move from (x, y) in direction `dir`: length x cost of the cell entered.
double move_cost(const CostField& cost, int x, int y, int dir, const FieldParams& params);

/// Least cost from every cell to its nearest goal (+inf for walls and cut-off cells), row-major.
std::vector<double> reference_distances(const CostField& cost, std::span<const Cell> goals, const FieldParams& params);

/// reference_distances() for paths that stay inside the rectangle [x0, x1) x [y0, y1) (clipped to
/// the map): cells outside it are never entered (they read +inf, as do goals outside it).
std::vector<double> reference_distances_in_rect(const CostField& cost, std::span<const Cell> goals,
                                                const FieldParams& params, int x0, int y0, int x1, int y1);

/// True when `got` matches the reference value `want` within 1e-4 relative plus 1e-6 absolute
/// (both infinite also matches).
bool close_to_reference(double got, double want);

/// Checks `field` against the reference distances: reachability, values, directions of goals,
/// walls and unreachable cells, and that every move is legal and optimal. When `exact_ties` is
/// set (all move costs are integers), also checks the tie order E,S,W,N,SE,SW,NW,NE.
/// Returns an empty string on success, else a description of the first few faults.
std::string check_field(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                        const FlowField& field, const std::vector<double>& ref, bool exact_ties);

/// Follows next_index from every cell; empty string when every reachable cell arrives at a goal
/// within W*H steps, else a description of the first fault.
std::string check_paths_reach_goal(const FlowField& field);

}  // namespace tide::test
