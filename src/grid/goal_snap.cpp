// Goals moved off walls; see snap_goals() in cost_field.hpp.

#include <algorithm>

#include "tide/cost_field.hpp"

namespace tide {

std::vector<SnappedGoal> snap_goals(const CostField& cost, std::vector<Cell>& goals) {
    std::vector<SnappedGoal> moves;
    std::vector<Cell> out;
    for (const Cell g : goals) {
        Cell to = g;
        if (!cost.contains(g.x, g.y) || cost.at(g) == kCostWall) {
            const auto near = nearest_passable(cost, g);
            if (!near) return moves;  // an all-wall map: nothing to snap to, `goals` unchanged
            to = *near;
            moves.push_back({g, to});
        }
        if (std::find(out.begin(), out.end(), to) == out.end()) out.push_back(to);
    }
    goals = std::move(out);
    return moves;
}

}  // namespace tide
