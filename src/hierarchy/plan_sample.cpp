// Directions at positions on a HierarchicalField: sample() (wall-safe, with the rule of
// FlowField::sample(), src/fields/flow_sample.hpp), blend() (not wall-safe) and coarse_direction()
// (cells of sectors without a field).

#include <cmath>

#include "../fields/flow_sample.hpp"
#include "plan_state.hpp"

namespace tide {

using hier_detail::kInf;

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
    const unsigned mask = detail::neighbour_mask(blocked, cx, cy);
    if (mask == 0) return v;
    return detail::make_wall_safe_mask(mask, p.x - static_cast<float>(cx), p.y - static_cast<float>(cy), v, own);
}

Vec2 HierarchicalField::coarse_direction(int x, int y) const {
    const State& s = *s_;
    if (!s.started || !s.cost->contains(x, y)) return {};
    const int sec = s.graph->sector_of(x, y);
    const double lo = s.graph->cheapest_cost();
    double best = kInf;
    Cell to{x, y};
    for (std::int32_t i = s.graph->node_begin(sec); i < s.graph->node_begin(sec + 1); ++i) {
        const SectorNode& n = s.graph->nodes()[static_cast<std::size_t>(i)];
        if (!(s.g[static_cast<std::size_t>(i)] < kInf)) continue;
        const double dx = n.cell.x - x, dy = n.cell.y - y;  // sqrt, not libm's hypot (lockstep)
        const double d = lo * std::sqrt(dx * dx + dy * dy) + s.g[static_cast<std::size_t>(i)];
        if (d < best) {
            best = d;
            to = n.cell == Cell{x, y} ? s.graph->nodes()[static_cast<std::size_t>(n.partner)].cell : n.cell;
        }
    }
    const float dx = static_cast<float>(to.x - x), dy = static_cast<float>(to.y - y);
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len == 0.0f) return {};
    return {dx / len, dy / len};
}

Vec2 HierarchicalField::blend(Vec2 p) const {
    const int w = s_->cost->width(), h = s_->cost->height();
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(w) && p.y < static_cast<float>(h))) return {};
    const float fx = p.x - 0.5f, fy = p.y - 0.5f;
    const int x0 = static_cast<int>(std::floor(fx)), y0 = static_cast<int>(std::floor(fy));
    const float tx = fx - static_cast<float>(x0), ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    const int cx[4] = {x0, x0 + 1, x0, x0 + 1};
    const int cy[4] = {y0, y0, y0 + 1, y0 + 1};
    float vx = 0.0f, vy = 0.0f;
    auto cell_vector = [&](int x, int y) -> Vec2 {
        if (s_->field_at(x, y) == nullptr) return s_->cost->passable(x, y) ? coarse_direction(x, y) : Vec2{};
        const Direction d = direction(x, y);
        return is_move(d) ? detail::kMoveUnit[static_cast<int>(d)] : Vec2{};
    };
    for (int i = 0; i < 4; ++i) {
        if (cx[i] < 0 || cy[i] < 0 || cx[i] >= w || cy[i] >= h) continue;
        const Vec2 v = cell_vector(cx[i], cy[i]);
        vx += weight[i] * v.x;
        vy += weight[i] * v.y;
    }
    return detail::normalised_or(vx, vy, [&] { return cell_vector(static_cast<int>(p.x), static_cast<int>(p.y)); });
}

}  // namespace tide
