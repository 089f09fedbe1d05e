#include "tide/sample_check.hpp"

#include <algorithm>
#include <cmath>

#include "tide/assert.hpp"

namespace tide {

bool step_is_clear(const std::function<bool(int, int)>& blocked, Vec2 p, Vec2 d, double length, Cell* wall) {
    const double px = p.x, py = p.y, dx = d.x, dy = d.y;
    int cx = static_cast<int>(std::floor(px)), cy = static_cast<int>(std::floor(py));
    // Every grid-line crossing within the step: (t, axis, step sign).
    struct Crossing {
        double t;
        int axis;  // 0: a column line (x changes), 1: a row line
        int sign;
    };
    std::vector<Crossing> crossings;
    const auto lines = [&](double from, double delta, int axis) {
        if (delta > 0) {
            for (double k = std::floor(from) + 1; from + delta * length >= k; k += 1) {
                crossings.push_back({(k - from) / delta, axis, 1});
            }
        } else if (delta < 0) {
            // Leaving cell k for k - 1 as the coordinate drops below k.
            for (double k = std::floor(from); from + delta * length < k; k -= 1) {
                crossings.push_back({(k - from) / delta, axis, -1});
            }
        }
    };
    lines(px, dx, 0);
    lines(py, dy, 1);
    std::sort(crossings.begin(), crossings.end(), [](const Crossing& a, const Crossing& b) { return a.t < b.t; });
    const auto fail = [&](int x, int y) {
        if (wall) *wall = {x, y};
        return false;
    };
    if (blocked(cx, cy)) return fail(cx, cy);
    for (std::size_t i = 0; i < crossings.size(); ++i) {
        const Crossing& c = crossings[i];
        if (i + 1 < crossings.size() && crossings[i + 1].axis != c.axis && crossings[i + 1].t - c.t < 1e-7) {
            // Through a vertex: both cells beside it must be free, as for a diagonal move.
            const Crossing& e = crossings[i + 1];
            const int sx = c.axis == 0 ? c.sign : e.sign, sy = c.axis == 1 ? c.sign : e.sign;
            if (blocked(cx + sx, cy)) return fail(cx + sx, cy);
            if (blocked(cx, cy + sy)) return fail(cx, cy + sy);
            cx += sx;
            cy += sy;
            ++i;
        } else if (c.axis == 0) {
            cx += c.sign;
        } else {
            cy += c.sign;
        }
        if (blocked(cx, cy)) return fail(cx, cy);
    }
    return true;
}

SampleCheck check_sample_safety(const FieldView& view, int lattice) {
    return check_sample_safety(
        view, [&view](Vec2 p) { return view.sample(p); }, lattice);
}

SampleCheck check_sample_safety(const FieldView& view, const std::function<Vec2(Vec2)>& sampler, int lattice) {
    TIDE_ASSERT(view && lattice >= 1 && lattice <= 256);
    const int W = view.width(), H = view.height();
    const CostField* const plan_cost = view.plan() ? &view.plan()->cost() : nullptr;
    const std::function<bool(int, int)> blocked = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= W || y >= H) return true;
        return plan_cost ? !plan_cost->passable(x, y) : view.direction(x, y) == Direction::wall;
    };
    // A little short of the reach: the sampler works in float.
    const double length = static_cast<double>(kSampleReach) - 1e-3;
    SampleCheck out;
    for (int y = 0; y < H; ++y) {
        for (int x = 0; x < W; ++x) {
            if (blocked(x, y)) continue;
            bool near = false;
            for (int d = 0; d < kDirectionCount && !near; ++d) near = blocked(x + kDirectionDx[d], y + kDirectionDy[d]);
            if (!near) continue;
            ++out.cells;
            const bool has_move = is_move(view.direction(x, y));
            for (int j = 0; j < lattice; ++j) {
                for (int i = 0; i < lattice; ++i) {
                    const Vec2 p{static_cast<float>(x) + (static_cast<float>(i) + 0.5f) / static_cast<float>(lattice),
                                 static_cast<float>(y) + (static_cast<float>(j) + 0.5f) / static_cast<float>(lattice)};
                    ++out.positions;
                    const Vec2 v = sampler(p);
                    SampleFault fault{p, v, {x, y}, false};
                    if (v.x == 0.0f && v.y == 0.0f) {
                        if (!has_move) continue;
                        fault.no_direction = true;
                    } else if (step_is_clear(blocked, p, v, length, &fault.wall)) {
                        continue;
                    }
                    ++out.faults;
                    if (out.first.size() < 8) out.first.push_back(fault);
                }
            }
        }
    }
    return out;
}

}  // namespace tide
