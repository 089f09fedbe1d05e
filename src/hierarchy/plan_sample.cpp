// HierarchicalField::sample(): the wall-safe direction on a plan, with the rule of
// FlowField::sample() (src/fields/flow_sample.hpp).

#include "../fields/flow_sample.hpp"
#include "tide/hierarchy.hpp"

namespace tide {

Vec2 HierarchicalField::sample(Vec2 p) const {
    const CostField& c = cost();
    const int W = c.width(), H = c.height();
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(W) && p.y < static_cast<float>(H))) return {};
    const int cx = static_cast<int>(p.x), cy = static_cast<int>(p.y);
    if (!c.passable(cx, cy)) return {};
    const auto blocked = [&c](int x, int y) { return !c.contains(x, y) || !c.passable(x, y); };
    // The cell's own move: its sector field's, or the legal move nearest the coarse direction.
    Vec2 own{};
    if (sector_field(graph().sector_of(cx, cy)) != nullptr) {
        const Direction d = direction(cx, cy);
        if (!is_move(d)) return {};  // a goal, or cut off
        own = detail::kMoveUnit[static_cast<int>(d)];
    } else {
        const Vec2 coarse = coarse_direction(cx, cy);
        if (coarse.x == 0.0f && coarse.y == 0.0f) return {};
        own = detail::nearest_legal_move(blocked, cx, cy, coarse);
        if (own.x == 0.0f && own.y == 0.0f) return {};
    }
    Vec2 v = blend(p);
    if (v.x == 0.0f && v.y == 0.0f) v = own;
    unsigned mask = 0;
    for (int k = 0; k < kDirectionCount; ++k)
        if (blocked(cx + kDirectionDx[k], cy + kDirectionDy[k])) mask |= 1u << k;
    if (mask == 0) return v;
    return detail::make_wall_safe_mask(mask, p.x - static_cast<float>(cx), p.y - static_cast<float>(cy), v, own);
}

}  // namespace tide
