// The visibility-graph search of any_angle.hpp.

#include "any_angle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <utility>

namespace tide::navmesh {
namespace {

constexpr double kOffset = 3e-4;  // corner nodes this far off their corner, on each axis
constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

AnyAngle::AnyAngle(const CostField& cost) : cost_(cost) {
    for (int y = 1; y < cost.height(); ++y) {
        for (int x = 1; x < cost.width(); ++x) {
            const bool ul = wall(x - 1, y - 1), ur = wall(x, y - 1), dl = wall(x - 1, y), dr = wall(x, y);
            if (ul + ur + dl + dr != 1) continue;  // a convex corner has exactly one wall cell round it
            const bool left = ul || dl, above = ul || ur;
            nodes_.push_back(
                {x + (left ? kOffset : -kOffset), y + (above ? kOffset : -kOffset), (left ? 1 : 0) | (above ? 2 : 0)});
        }
    }
}

// A shortest path bending at a convex corner leaves it along a line that keeps the corner's wall
// cell on one side: a direction pointing into the wall's quadrant (or straight out of it) cuts
// the wall there or goes round nothing.
bool AnyAngle::tangent(const Node& n, double dx, double dy) const {
    const double sx = (n.quadrant & 1) ? -1.0 : 1.0, sy = (n.quadrant & 2) ? -1.0 : 1.0;  // toward the wall
    const double a = dx * sx, b = dy * sy;
    return !(a > 0.0 && b > 0.0) && !(a < 0.0 && b < 0.0);
}

bool AnyAngle::visible(Vec2 a, Vec2 b, double grow) const {
    const double ax = a.x, ay = a.y, dx = static_cast<double>(b.x) - ax, dy = static_cast<double>(b.y) - ay;
    auto hits = [&](int x, int y) {
        if (!wall(x, y)) return false;
        const double lo[2] = {x - grow, y - grow}, hi[2] = {x + 1 + grow, y + 1 + grow};
        const double o[2] = {ax, ay}, d[2] = {dx, dy};
        double t0 = 0.0, t1 = 1.0;
        for (int k = 0; k < 2; ++k) {
            if (std::fabs(d[k]) < 1e-15) {
                if (!(o[k] > lo[k] && o[k] < hi[k])) return false;
            } else {
                double ta = (lo[k] - o[k]) / d[k], tb = (hi[k] - o[k]) / d[k];
                if (ta > tb) std::swap(ta, tb);
                t0 = std::max(t0, ta);
                t1 = std::min(t1, tb);
                if (t0 >= t1) return false;
            }
        }
        return true;
    };
    // Walk the cells the segment crosses (Amanatides-Woo); a grown wall it touches is in the 3 x 3
    // round one of them.
    int cx = static_cast<int>(std::floor(ax)), cy = static_cast<int>(std::floor(ay));
    const int ex = static_cast<int>(std::floor(b.x)), ey = static_cast<int>(std::floor(b.y));
    const int stx = dx > 0 ? 1 : -1, sty = dy > 0 ? 1 : -1;
    const double tdx = dx != 0.0 ? std::fabs(1.0 / dx) : kInf, tdy = dy != 0.0 ? std::fabs(1.0 / dy) : kInf;
    double tmx = dx != 0.0 ? ((dx > 0 ? cx + 1 - ax : ax - cx) * tdx) : kInf;
    double tmy = dy != 0.0 ? ((dy > 0 ? cy + 1 - ay : ay - cy) * tdy) : kInf;
    const int steps = std::abs(ex - cx) + std::abs(ey - cy) + 2;
    for (int s = 0; s <= steps; ++s) {
        for (int oy = -1; oy <= 1; ++oy)
            for (int ox = -1; ox <= 1; ++ox)
                if (hits(cx + ox, cy + oy)) return false;
        if (cx == ex && cy == ey) return true;
        if (tmx < tmy) {
            tmx += tdx;
            cx += stx;
        } else {
            tmy += tdy;
            cy += sty;
        }
    }
    return true;
}

void AnyAngle::search(Vec2 goal) {
    goal_ = goal;
    const std::size_t n = nodes_.size();
    dist_.assign(n, kInf);
    std::vector<char> done(n, 0);
    using Item = std::pair<double, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    for (std::size_t v = 0; v < n; ++v) {
        const double d = std::hypot(nodes_[v].x - goal.x, nodes_[v].y - goal.y);
        if (tangent(nodes_[v], goal.x - nodes_[v].x, goal.y - nodes_[v].y) &&
            visible(goal, {static_cast<float>(nodes_[v].x), static_cast<float>(nodes_[v].y)})) {
            dist_[v] = d;
            open.push({d, v});
        }
    }
    while (!open.empty()) {
        const auto [du, u] = open.top();
        open.pop();
        if (done[u] || du > dist_[u]) continue;
        done[u] = 1;
        const Node& a = nodes_[u];
        for (std::size_t v = 0; v < n; ++v) {
            if (done[v]) continue;
            const Node& b = nodes_[v];
            const double ddx = b.x - a.x, ddy = b.y - a.y;
            const double d = du + std::hypot(ddx, ddy);
            if (d >= dist_[v] || !tangent(a, ddx, ddy) || !tangent(b, ddx, ddy)) continue;
            if (!visible({static_cast<float>(a.x), static_cast<float>(a.y)},
                         {static_cast<float>(b.x), static_cast<float>(b.y)}))
                continue;
            dist_[v] = d;
            open.push({d, v});
        }
    }
}

double AnyAngle::distance(Vec2 p) const {
    if (visible(p, goal_)) return std::hypot(static_cast<double>(p.x) - goal_.x, static_cast<double>(p.y) - goal_.y);
    // Candidates in order of the distance through them; the first one in sight is the answer.
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t v = 0; v < nodes_.size(); ++v) {
        if (!std::isfinite(dist_[v])) continue;
        const double dx = nodes_[v].x - p.x, dy = nodes_[v].y - p.y;
        if (!tangent(nodes_[v], dx, dy)) continue;
        order.push_back({dist_[v] + std::hypot(dx, dy), v});
    }
    std::sort(order.begin(), order.end());
    for (const auto& [d, v] : order) {
        if (visible(p, {static_cast<float>(nodes_[v].x), static_cast<float>(nodes_[v].y)})) return d;
    }
    return kInf;
}

}  // namespace tide::navmesh
