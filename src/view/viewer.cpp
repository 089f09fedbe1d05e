// A viewer's selection and shown group; see viewer.hpp.

#include "tide/viewer.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace tide {

UnitGroupId majority_group(const World& world, std::span<const AgentId> units) {
    std::vector<std::pair<UnitGroupId, std::size_t>> counts;
    for (const AgentId id : units) {
        const UnitGroupId g = world.group_of(id);
        if (g == 0) continue;
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == g; });
        if (it == counts.end()) {
            counts.push_back({g, 1});
        } else {
            ++it->second;
        }
    }
    UnitGroupId best = 0;
    std::size_t most = 0;
    for (const auto& [g, n] : counts) {
        if (n > most || (n == most && g < best)) {
            best = g;
            most = n;
        }
    }
    return best;
}

void Viewer::select(const World& world, const std::optional<SelectBox>& box) {
    selection_ = box ? world.select(*box) : std::vector<AgentId>{};
}

bool Viewer::drop_departed(const World& world) {
    return std::erase_if(selection_, [&](AgentId a) { return !world.crowd().valid(a); }) > 0;
}

Result<void> Viewer::show(const World& world, UnitGroupId group) {
    if (group != 0 && !world.group(group)) return Error{ErrorCode::not_found, "no group " + std::to_string(group)};
    chosen_ = group;
    return {};
}

UnitGroupId Viewer::shown_group(const World& world) const {
    if (chosen_ != 0 && world.group(chosen_)) return chosen_;
    if (const UnitGroupId g = majority_group(world, selection_); g != 0) return g;
    return world.largest_group();
}

Result<Order> Viewer::order(std::vector<Cell> goals, bool flee) const {
    if (selection_.empty()) return Error{"nothing is selected: drag a box around some units first"};
    Order o;
    o.select = selection_;
    o.goals = std::move(goals);
    o.flee = flee;
    return o;
}

}  // namespace tide
