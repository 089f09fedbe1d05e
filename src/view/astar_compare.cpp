// A* per unit against one field; see astar_compare.hpp.

#include "tide/astar_compare.hpp"
#include "tide/field_builder.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include "tide/detail/compat.hpp"

#include "tide/astar.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Cell cell_of(Vec2 p) {
    return {static_cast<int>(std::floor(p.x)), static_cast<int>(std::floor(p.y))};
}

// Octile distance: the A* heuristic, used here to pick each unit's goal.
double octile(Cell a, Cell b) {
    const double dx = std::abs(a.x - b.x), dy = std::abs(a.y - b.y);
    return std::max(dx, dy) + (std::sqrt(2.0) - 1.0) * std::min(dx, dy);
}

}  // namespace

Result<AstarComparison> compare_astar(const World& world, UnitGroupId group, const AstarCompareParams& params) {
    if (group == 0) group = world.largest_group();
    const UnitGroup* g = world.group(group);
    if (!g) return Error{ErrorCode::not_found, "no group " + std::to_string(group)};
    if (g->flee) return Error{"group " + std::to_string(group) + " flees; A* needs a goal"};
    if (world.hierarchical()) return Error{ErrorCode::unsupported, "not available on hierarchical maps"};
    const CostField& cost = world.cost();

    std::vector<AgentId> members;
    for (const AgentId id : world.agents())
        if (world.group_of(id) == group) members.push_back(id);
    if (members.empty()) return Error{"group " + std::to_string(group) + " has no units"};
    const std::size_t n = std::min<std::size_t>(members.size(), static_cast<std::size_t>(std::max(1, params.samples)));

    AstarComparison out;
    out.group = group;
    out.units = members.size();
    // One field toward the group's goals on the same terrain (plain costs, size 1), timed.
    FieldBuilder builder;
    FlowField field;
    const auto tf = Clock::now();
    if (auto r = builder.build(cost, g->goals, FieldParams{}, field); !r) return r.error();
    out.field_ms = ms_since(tf);

    auto finder = PathFinder::create(cost);
    if (!finder) return finder.error();
    std::pmr::vector<Cell> path;
    double expanded = 0.0;
    const auto roster_index = [&](AgentId id) {
        const auto& all = world.agents();
        return static_cast<std::size_t>(std::find(all.begin(), all.end(), id) - all.begin());
    };
    for (std::size_t k = 0; k < n; ++k) {
        // A budget, not a count: 256 searches on a 1200 x 1200 map took seconds of the caller's thread.
        if (out.sampled > 0 && out.astar_ms_sampled >= params.search_budget_ms) break;
        const AgentId id = members[k * members.size() / n];  // spread over the roster
        Cell start = cell_of(world.crowd().position(id));
        if (!cost.passable(start.x, start.y)) {
            const auto near = nearest_passable(cost, start);
            if (!near) continue;
            start = *near;
        }
        Cell goal = g->goals.front();
        for (const Cell c : g->goals)
            if (octile(start, c) < octile(start, goal)) goal = c;
        const bool keep = out.paths.size() < params.paths_kept;
        const auto t0 = Clock::now();
        auto r = finder->find_path(start, goal, keep ? &path : nullptr);
        out.astar_ms_sampled += ms_since(t0);
        if (!r) continue;
        ++out.sampled;
        expanded += static_cast<double>(finder->expanded());
        if (!std::isfinite(*r)) ++out.no_path;
        if (keep) out.paths.push_back({roster_index(id), start, *r, std::vector<Cell>(path.begin(), path.end())});
    }
    if (out.sampled == 0) return Error{"none of the sampled units stands on an open cell"};
    out.astar_ms_per_unit = out.astar_ms_sampled / static_cast<double>(out.sampled);
    out.astar_ms_all = out.astar_ms_per_unit * static_cast<double>(out.units);
    out.expanded_per_unit = expanded / static_cast<double>(out.sampled);
    return out;
}

}  // namespace tide
