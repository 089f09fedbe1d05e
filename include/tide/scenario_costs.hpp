#pragma once
/// \file scenario_costs.hpp
/// The Moving AI scenario check (`tide scen`, the Python module's `scen`): the cost of Tide's path
/// from every row's start to its goal, to set beside the row's published optimal length. Rows come
/// from load_scenarios() and are checked with check_scenarios() first (map_io.hpp).

#include <cstddef>
#include <span>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/map_io.hpp"
#include "tide/result.hpp"

namespace tide {

/// The cost of Tide's path for every row of a scenario file.
struct ScenarioCosts {
    /// Per row, in row order: the cost of following the flow from the start to the goal, the moves'
    /// prices summed in double precision on the map's costs (flow_path_cost()); +inf when the goal
    /// cannot be reached.
    std::vector<double> costs;
    std::size_t fields = 0;  ///< Fields built: one per distinct goal.
};

/// Builds one field per distinct goal of `rows` (rows grouped by goal, so one field answers every
/// row that shares it) on `plan` (null: on `cost`), and follows each row's flow path from its start,
/// summing on `cost` (a wall-margin plan is planned with, never charged). The goals are spread
/// over `jobs`; the costs do not depend on the job system or its thread count. Errors: a goal whose
/// field cannot be built (a row not passed through check_scenarios()), naming the goal.
TIDE_API Result<ScenarioCosts> scenario_costs(const CostField& cost, std::span<const ScenarioRow> rows,
                                              const FieldParams& params, JobSystem& jobs,
                                              const CostField* plan = nullptr);

/// True when `computed` matches the published `optimal` length within the tolerance of `tide scen`:
/// |computed - optimal| <= 1e-4 * optimal + 1e-3 (published lengths carry 6 significant digits in
/// older files). False for +inf and NaN.
TIDE_API bool within_scenario_tolerance(double optimal, double computed) noexcept;

}  // namespace tide
