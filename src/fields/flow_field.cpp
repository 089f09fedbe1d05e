#include <cmath>

#include "tide/assert.hpp"
#include "tide/flow_field.hpp"

namespace tide {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr Vec2 kUnit[kDirectionCount] = {{1, 0},  {kInvSqrt2, kInvSqrt2},   {0, 1},  {-kInvSqrt2, kInvSqrt2},
                                         {-1, 0}, {-kInvSqrt2, -kInvSqrt2}, {0, -1}, {kInvSqrt2, -kInvSqrt2}};

}  // namespace

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
    return is_move(d) ? kUnit[static_cast<int>(d)] : Vec2{};
}

std::int64_t FlowField::next_index(int x, int y) const {
    const Direction d = direction(x, y);
    if (!is_move(d)) return -1;
    const int k = static_cast<int>(d);
    return static_cast<std::int64_t>(y + kDirectionDy[k]) * width_ + (x + kDirectionDx[k]);
}

Vec2 FlowField::sample(Vec2 p) const {
    if (!(p.x >= 0.0f && p.y >= 0.0f && p.x < static_cast<float>(width_) && p.y < static_cast<float>(height_))) {
        return {};  // also rejects NaN
    }
    // Cell centres sit at (i + 0.5, j + 0.5): the four cells around p start at floor(p - 0.5).
    const float fx = p.x - 0.5f;
    const float fy = p.y - 0.5f;
    const int x0 = static_cast<int>(std::floor(fx));
    const int y0 = static_cast<int>(std::floor(fy));
    const float tx = fx - static_cast<float>(x0);
    const float ty = fy - static_cast<float>(y0);
    const float weight[4] = {(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty};
    const int cx[4] = {x0, x0 + 1, x0, x0 + 1};
    const int cy[4] = {y0, y0, y0 + 1, y0 + 1};
    float vx = 0.0f;
    float vy = 0.0f;
    for (int i = 0; i < 4; ++i) {
        if (!contains(cx[i], cy[i])) continue;
        const Direction d = directions_[static_cast<std::size_t>(cy[i]) * width_ + cx[i]];
        if (!is_move(d)) continue;  // walls, goals and cut-off cells carry no direction
        vx += weight[i] * kUnit[static_cast<int>(d)].x;
        vy += weight[i] * kUnit[static_cast<int>(d)].y;
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

}  // namespace tide
