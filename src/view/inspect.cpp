// Unit states and unit inspection; see inspect.hpp.

#include "tide/inspect.hpp"

#include <cmath>
#include <iterator>
#include <unordered_map>

namespace tide {

UnitState unit_state(const Crowd& crowd, AgentId id) {
    const AgentState s = crowd.state(id);
    if (s == AgentState::moving && crowd.stuck(id)) return UnitState::stuck;
    return static_cast<UnitState>(s);
}

const char* unit_state_name(UnitState state) noexcept {
    static const char* const names[kUnitStates] = {"moving", "arrived", "no path", "queued", "stuck"};
    const auto i = static_cast<std::size_t>(state);
    return i < std::size(names) ? names[i] : "moving";
}

std::vector<GroupStateCounts> group_state_counts(const World& world) {
    std::vector<GroupStateCounts> out;
    std::unordered_map<UnitGroupId, std::size_t> index;
    for (const UnitGroup& g : world.groups()) {
        index.emplace(g.id, out.size());
        out.push_back({g.id, {}});
    }
    const Crowd& crowd = world.crowd();
    for (const AgentId id : world.agents()) {
        const auto it = index.find(world.group_of(id));
        if (it == index.end()) continue;
        ++out[it->second].counts[static_cast<std::size_t>(unit_state(crowd, id))];
    }
    return out;
}

namespace {

Cell cell_of(Vec2 p) {
    return {static_cast<int>(std::floor(p.x)), static_cast<int>(std::floor(p.y))};
}

// The cost to go from `p` on the field (or plan) `group` follows; none where unknown.
std::optional<double> cost_to_go(const World& world, UnitGroupId group, Vec2 p) {
    const Cell c = cell_of(p);
    if (auto field = world.field(group)) {
        if (!field->contains(c.x, c.y)) return std::nullopt;
        const float value = field->to_stop()[static_cast<std::size_t>(c.y) * field->width() + c.x];
        if (value == kUnreachable) return std::nullopt;
        return value;
    }
    if (auto plan = world.plan(group)) {
        const float value = plan->integration(c.x, c.y);
        if (value == kUnreachable) return std::nullopt;
        return value;
    }
    return std::nullopt;
}

}  // namespace

std::optional<UnitInspection> inspect_unit(const World& world, Vec2 at, const InspectParams& params) {
    const Crowd& crowd = world.crowd();
    const auto& ids = world.agents();
    std::size_t best = ids.size();
    float best_d2 = params.pick_radius * params.pick_radius;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const Vec2 p = crowd.position(ids[i]);
        const float d2 = (p.x - at.x) * (p.x - at.x) + (p.y - at.y) * (p.y - at.y);
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
        }
    }
    if (best == ids.size()) return std::nullopt;
    UnitInspection u;
    u.roster_index = best;
    u.id = ids[best];
    u.group = world.group_of(u.id);
    u.size = world.unit_size(u.id);
    u.state = unit_state(crowd, u.id);
    u.position = crowd.position(u.id);
    u.velocity = crowd.velocity(u.id);
    u.desired_velocity = crowd.desired_velocity(u.id);
    const float r2 = params.neighbour_radius * params.neighbour_radius;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i == best) continue;
        const Vec2 q = crowd.position(ids[i]);
        if ((q.x - u.position.x) * (q.x - u.position.x) + (q.y - u.position.y) * (q.y - u.position.y) <= r2)
            ++u.neighbours;
    }
    u.cost_to_go = cost_to_go(world, u.group, u.position);
    return u;
}

}  // namespace tide
