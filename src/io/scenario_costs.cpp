// The scenario check; see scenario_costs.hpp.

#include "tide/scenario_costs.hpp"
#include "tide/field_builder.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tide {

Result<ScenarioCosts> scenario_costs(const CostField& cost, std::span<const ScenarioRow> rows,
                                     const FieldParams& params, JobSystem& jobs, const CostField* plan) {
    // Rows by goal, goals in (x, y) order: one field per distinct goal.
    std::map<std::pair<int, int>, std::vector<std::size_t>> by_goal;
    for (std::size_t i = 0; i < rows.size(); ++i) by_goal[{rows[i].goal.x, rows[i].goal.y}].push_back(i);
    std::vector<const std::vector<std::size_t>*> members;
    std::vector<Cell> goals;
    for (const auto& [g, idx] : by_goal) {
        members.push_back(&idx);
        goals.push_back({g.first, g.second});
    }

    ScenarioCosts out;
    out.costs.assign(rows.size(), 0.0);
    out.fields = goals.size();
    // Each range writes its own goals' rows and its own failure slot: no sharing between ranges.
    std::vector<std::optional<Error>> failed(goals.size());
    auto build_range = [&](std::size_t begin, std::size_t end) {
        FieldBuilder builder;
        FlowField field;
        for (std::size_t g = begin; g < end; ++g) {
            const auto r = builder.build(plan ? *plan : cost, std::span<const Cell>(&goals[g], 1), params, field);
            if (!r) {
                failed[g] = r.error();
                continue;
            }
            for (const std::size_t i : *members[g]) out.costs[i] = flow_path_cost(cost, field, params, rows[i].start);
        }
    };
    // A few ranges per thread: a builder's scratch is reused across the goals of a range.
    const std::size_t threads = static_cast<std::size_t>(std::max(1, jobs.max_concurrency()));
    const std::size_t grain = std::max<std::size_t>(1, goals.size() / (4 * threads));
    parallel_for(jobs, goals.size(), grain, build_range);
    for (std::size_t g = 0; g < goals.size(); ++g) {
        if (failed[g]) {
            return Error{failed[g]->code, "goal (" + std::to_string(goals[g].x) + ", " + std::to_string(goals[g].y) +
                                              "): " + failed[g]->message};
        }
    }
    return out;
}

bool within_scenario_tolerance(double optimal, double computed) noexcept {
    return std::isfinite(computed) && std::fabs(computed - optimal) <= 1e-4 * optimal + 1e-3;
}

}  // namespace tide
