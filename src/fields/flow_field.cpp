#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tide/assert.hpp"
#include "tide/flow_field.hpp"

#include "../grid/always_inline.hpp"
#include "flow_sample.hpp"

namespace tide {

using detail::floor_to_int;
using detail::kMoveUnit;

float FlowField::integration(int x, int y) const {
    TIDE_ASSERT(contains(x, y));
    return integration_[static_cast<std::size_t>(y) * width_ + x];
}

Direction FlowField::direction(int x, int y) const {
    TIDE_ASSERT(contains(x, y));
    return directions_[static_cast<std::size_t>(y) * width_ + x];
}

Vec2 FlowField::vector(int x, int y) const {
    const Direction d = direction(x, y);
    return is_move(d) ? kMoveUnit[static_cast<int>(d)] : Vec2{};
}

std::int64_t FlowField::next_index(int x, int y) const {
    const Direction d = direction(x, y);
    if (!is_move(d)) return -1;
    const int k = static_cast<int>(d);
    return static_cast<std::int64_t>(y + kDirectionDy[k]) * width_ + (x + kDirectionDx[k]);
}

namespace {

// The unit vector of every flow code: the eight moves, then (0, 0) for goal, unreachable and wall
// (and the unused codes), so a blend adds a code's vector without a branch. Adding (0, 0) leaves a
// sum bit for bit as it was, so the result is that of skipping those cells.
constexpr Vec2 kCodeUnit[16] = {
    kMoveUnit[0], kMoveUnit[1], kMoveUnit[2], kMoveUnit[3], kMoveUnit[4], kMoveUnit[5], kMoveUnit[6], kMoveUnit[7],
    {},           {},           {},           {},           {},           {},           {},           {}};

TIDE_ALWAYS_INLINE inline Vec2 code_unit(Direction d) {
    return kCodeUnit[static_cast<unsigned>(d) & 15u];
}

}  // namespace

// The blend of a point p on the field (checked by the caller).
TIDE_ALWAYS_INLINE inline Vec2 FlowField::blend_on_map(Vec2 p) const {
    // Cell centres sit at (i + 0.5, j + 0.5): the four cells around p start at floor(p - 0.5).
    const float fx = p.x - 0.5f;
    const float fy = p.y - 0.5f;
    const int x0 = floor_to_int(fx);
    const int y0 = floor_to_int(fy);
    const float tx = fx - static_cast<float>(x0);
    const float ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    Vec2 u[4];
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < width_ && y0 + 1 < height_) {  // all four on the map
        const Direction* const row0 = directions_.data() + static_cast<std::size_t>(y0) * width_ + x0;
        const Direction* const row1 = row0 + width_;
        u[0] = code_unit(row0[0]);
        u[1] = code_unit(row0[1]);
        u[2] = code_unit(row1[0]);
        u[3] = code_unit(row1[1]);
    } else {
        const int cx[4] = {x0, x0 + 1, x0, x0 + 1};
        const int cy[4] = {y0, y0, y0 + 1, y0 + 1};
        for (int i = 0; i < 4; ++i) {
            u[i] = contains(cx[i], cy[i]) ? code_unit(directions_[static_cast<std::size_t>(cy[i]) * width_ + cx[i]])
                                          : Vec2{};
        }
    }
    // Walls, goals and cut-off cells carry no direction: their (0, 0) adds nothing.
    float vx = 0.0f;
    float vy = 0.0f;
    for (int i = 0; i < 4; ++i) {
        vx += weight[i] * u[i].x;
        vy += weight[i] * u[i].y;
    }
    float len2 = vx * vx + vy * vy;
    if (len2 < 1e-8f) {
        const Vec2 own = vector(static_cast<int>(p.x), static_cast<int>(p.y));
        vx = own.x;
        vy = own.y;
        len2 = vx * vx + vy * vy;
        if (len2 == 0.0f) return {};
    }
    const float inv = 1.0f / std::sqrt(len2);
    return {vx * inv, vy * inv};
}

Vec2 FlowField::blend(Vec2 p) const {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(width_) && p.y < static_cast<float>(height_))) {
        return {};  // also rejects NaN
    }
    return blend_on_map(p);
}

Vec2 FlowField::sample(Vec2 p) const {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(width_) && p.y < static_cast<float>(height_))) {
        return {};  // also rejects NaN
    }
    const int cx = static_cast<int>(p.x), cy = static_cast<int>(p.y);
    const Direction* const at = directions_.data() + static_cast<std::size_t>(cy) * width_ + cx;
    if (!is_move(*at)) return {};
    // Which of the eight neighbours are walls (or off the map): bit k for move direction k.
    unsigned blocked = 0;
    if (cx > 0 && cy > 0 && cx + 1 < width_ && cy + 1 < height_) {
        const Direction* const up = at - width_;
        const Direction* const down = at + width_;
        constexpr Direction w = Direction::wall;
        blocked = static_cast<unsigned>(at[1] == w) | static_cast<unsigned>(down[1] == w) << 1 |
                  static_cast<unsigned>(down[0] == w) << 2 | static_cast<unsigned>(down[-1] == w) << 3 |
                  static_cast<unsigned>(at[-1] == w) << 4 | static_cast<unsigned>(up[-1] == w) << 5 |
                  static_cast<unsigned>(up[0] == w) << 6 | static_cast<unsigned>(up[1] == w) << 7;
    } else {
        for (int k = 0; k < kDirectionCount; ++k) {
            const int x = cx + kDirectionDx[k], y = cy + kDirectionDy[k];
            if (!contains(x, y) || directions_[static_cast<std::size_t>(y) * width_ + x] == Direction::wall)
                blocked |= 1u << k;
        }
    }
    const Vec2 v = blend_on_map(p);
    // Away from walls and the map's edge every direction is safe for a step of one cell.
    if (blocked == 0) return v;
    return detail::make_wall_safe_mask(blocked, p.x - static_cast<float>(cx), p.y - static_cast<float>(cy), v,
                                       kMoveUnit[static_cast<int>(*at)]);
}

void FlowField::sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                       std::span<float> out_y) const {
    TIDE_ASSERT(ys.size() == xs.size() && out_x.size() == xs.size() && out_y.size() == xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const Vec2 v = sample(Vec2{xs[i], ys[i]});
        out_x[i] = v.x;
        out_y[i] = v.y;
    }
}

namespace {

double move_price(const CostField& cost, const FieldParams& params, int x, int y, int d) {
    const double c = cost.at(x + kDirectionDx[d], y + kDirectionDy[d]);
    return (d & 1) ? c * params.diagonal_factor : c;
}

}  // namespace

double flow_path_cost(const CostField& cost, const FlowField& field, const FieldParams& params, Cell cell) {
    TIDE_ASSERT(cost.width() == field.width() && cost.height() == field.height());
    double sum = 0.0;
    int x = cell.x, y = cell.y;
    // A field's flow has no cycle, so a path visits at most W*H cells; the bound guards misuse.
    for (std::size_t steps = 0; steps <= static_cast<std::size_t>(field.width()) * field.height(); ++steps) {
        const Direction d = field.direction(x, y);
        if (d == Direction::goal) return sum;
        if (!is_move(d)) return std::numeric_limits<double>::infinity();
        const int k = static_cast<int>(d);
        sum += move_price(cost, params, x, y, k);
        x += kDirectionDx[k];
        y += kDirectionDy[k];
    }
    return std::numeric_limits<double>::infinity();
}

void flow_path_costs(const CostField& cost, const FlowField& field, const FieldParams& params, std::span<double> out) {
    const int w = field.width();
    const std::size_t n = static_cast<std::size_t>(w) * field.height();
    TIDE_ASSERT(cost.width() == w && cost.height() == field.height() && out.size() == n);
    constexpr double kUnknown = -1.0;
    std::fill(out.begin(), out.end(), kUnknown);
    std::vector<std::size_t> path;
    for (std::size_t start = 0; start < n; ++start) {
        if (out[start] != kUnknown) continue;
        // Walk until a cell whose cost is known (or a goal / no-move cell), then unwind.
        std::size_t c = start;
        path.clear();
        double base = 0.0;
        for (;;) {
            if (out[c] != kUnknown) {
                base = out[c];
                break;
            }
            const Direction d = field.directions()[c];
            if (d == Direction::goal) {
                out[c] = base = 0.0;
                break;
            }
            if (!is_move(d) || path.size() > n) {
                out[c] = base = std::numeric_limits<double>::infinity();
                break;
            }
            path.push_back(c);
            c = static_cast<std::size_t>(field.next_index(static_cast<int>(c % w), static_cast<int>(c / w)));
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
            const int x = static_cast<int>(*it % w), y = static_cast<int>(*it / w);
            base += move_price(cost, params, x, y, static_cast<int>(field.direction(x, y)));
            out[*it] = base;
        }
    }
}

}  // namespace tide
