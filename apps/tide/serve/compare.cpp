// A* against one field, and unit inspection; see compare.hpp.

#include "compare.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "protocol.hpp"
#include "tide/astar.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide::serve {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double round3(double v) {
    return std::round(v * 1e3) / 1e3;
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

Result<std::string> astar_compare_json(const World& world, UnitGroupId group, int samples) {
    if (group == 0) group = world.largest_group();
    const UnitGroup* g = world.group(group);
    if (!g) return Error{"astar_compare: no group " + std::to_string(group)};
    if (g->flee) return Error{"astar_compare: group " + std::to_string(group) + " flees; A* needs a goal"};
    if (world.hierarchical()) return Error{"astar_compare: not available on hierarchical maps"};
    const CostField& cost = world.cost();

    std::vector<AgentId> members;
    for (const AgentId id : world.agents())
        if (world.group_of(id) == group) members.push_back(id);
    if (members.empty()) return Error{"astar_compare: group " + std::to_string(group) + " has no units"};
    const std::size_t n = std::min<std::size_t>(members.size(), static_cast<std::size_t>(std::max(1, samples)));

    // One field toward the group's goals on the same terrain (plain costs, size 1), timed.
    FieldBuilder builder;
    FlowField field;
    const auto tf = Clock::now();
    if (auto r = builder.build(cost, g->goals, FieldParams{}, field); !r) return r.error();
    const double field_ms = ms_since(tf);

    auto finder = PathFinder::create(cost);
    if (!finder) return finder.error();
    json paths = json::array(), units = json::array();
    std::pmr::vector<Cell> path;
    double astar_ms = 0.0, expanded = 0.0;
    std::size_t searched = 0, no_path = 0;
    const auto roster_index = [&](AgentId id) {
        const auto& all = world.agents();
        return static_cast<std::size_t>(std::find(all.begin(), all.end(), id) - all.begin());
    };
    for (std::size_t k = 0; k < n; ++k) {
        // The searches stop once they have taken kCompareSearchMs (the reply's `sampled` says how
        // many ran): 256 searches on a 1200 x 1200 map took seconds of the simulation thread.
        if (searched > 0 && astar_ms >= kCompareSearchMs) break;
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
        const bool keep = static_cast<int>(paths.size()) < kAstarPathsShown;
        const auto t0 = Clock::now();
        auto r = finder->find_path(start, goal, keep ? &path : nullptr);
        astar_ms += ms_since(t0);
        if (!r) continue;
        ++searched;
        expanded += static_cast<double>(finder->expanded());
        if (!std::isfinite(*r)) ++no_path;
        if (keep) {
            json cells = json::array();
            for (const Cell c : path) cells.push_back({c.x, c.y});
            paths.push_back({{"unit", roster_index(id)},
                             {"start", {start.x, start.y}},
                             {"cost", std::isfinite(*r) ? json(round3(*r)) : json(nullptr)},
                             {"cells", std::move(cells)}});
        }
    }
    if (searched == 0) return Error{"astar_compare: none of the sampled units stands on an open cell"};
    const double per_unit = astar_ms / static_cast<double>(searched);
    const double all_units = per_unit * static_cast<double>(members.size());
    return json{{"type", "astar"},
                {"group", group},
                {"units", members.size()},
                {"sampled", searched},
                {"no_path", no_path},
                {"astar_ms_sampled", round3(astar_ms)},
                {"astar_ms_per_unit", std::round(per_unit * 1e4) / 1e4},
                {"astar_ms_all", round3(all_units)},
                {"expanded_per_unit", std::round(expanded / static_cast<double>(searched))},
                {"field_ms", round3(field_ms)},
                {"ratio", field_ms > 0.0 ? std::round(all_units / field_ms * 10.0) / 10.0 : 0.0},
                {"paths", std::move(paths)}}
        .dump();
}

std::string inspect_json(const World& world, float x, float y) {
    const Crowd& crowd = world.crowd();
    const auto& ids = world.agents();
    std::size_t best = ids.size();
    float best_d2 = 4.0f;  // within 2 cells
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const Vec2 p = crowd.position(ids[i]);
        const float d2 = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y);
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
        }
    }
    if (best == ids.size()) return json{{"type", "inspected"}, {"unit", nullptr}}.dump();
    const AgentId id = ids[best];
    const Vec2 p = crowd.position(id), v = crowd.velocity(id), d = crowd.desired_velocity(id);
    std::size_t neighbours = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i == best) continue;
        const Vec2 q = crowd.position(ids[i]);
        if ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y) <= 1.5f * 1.5f) ++neighbours;
    }
    const UnitGroupId group = world.group_of(id);
    json cost_to_go = nullptr;
    if (auto field = world.field(group)) {
        const Cell c = cell_of(p);
        if (field->contains(c.x, c.y)) {
            const float value = field->to_stop()[static_cast<std::size_t>(c.y) * field->width() + c.x];
            if (value != kUnreachable) cost_to_go = round3(value);
        }
    } else if (auto plan = world.plan(group)) {
        const Cell c = cell_of(p);
        const float value = plan->integration(c.x, c.y);
        if (value != kUnreachable) cost_to_go = round3(value);
    }
    return json{{"type", "inspected"},
                {"unit", best},
                {"group", group},
                {"size", world.unit_size(id)},
                {"state", unit_state_name(unit_state(crowd, id))},
                {"x", round3(p.x)},
                {"y", round3(p.y)},
                {"vx", round3(v.x)},
                {"vy", round3(v.y)},
                {"speed", round3(std::hypot(v.x, v.y))},
                {"dvx", round3(d.x)},
                {"dvy", round3(d.y)},
                {"cost_to_go", cost_to_go},
                {"neighbours", neighbours}}
        .dump();
}

}  // namespace tide::serve
