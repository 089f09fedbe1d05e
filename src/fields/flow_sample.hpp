#pragma once
// Sampling a flow at a continuous position, shared by whole-map fields (FlowField) and
// hierarchical plans (HierarchicalField): the bilinear blend of the four cells around a point and
// the wall-safe correction of a direction (flow_field.hpp states the guarantee).

#include <cmath>

#include "../grid/always_inline.hpp"
#include "tide/flow_field.hpp"

namespace tide::detail {

inline constexpr float kInvSqrt2 = 0.70710678118654752f;
/// Unit vector of each move direction.
inline constexpr Vec2 kMoveUnit[kDirectionCount] = {
    {1, 0},  {kInvSqrt2, kInvSqrt2},   {0, 1},  {-kInvSqrt2, kInvSqrt2},
    {-1, 0}, {-kInvSqrt2, -kInvSqrt2}, {0, -1}, {kInvSqrt2, -kInvSqrt2}};

/// floor() for values well inside the int range, without the libm call (x86-64 has no floor
/// instruction before SSE4.1); exactly static_cast<int>(std::floor(v)) there.
TIDE_ALWAYS_INLINE inline int floor_to_int(float v) {
    const int i = static_cast<int>(v);
    return i - (static_cast<float>(i) > v ? 1 : 0);
}

/// How far a wall-safe direction is guaranteed clear, in cells (kSampleReach in flow_field.hpp).
inline constexpr float kSafeReach = kSampleReach;
/// Two grid-line crossings closer than this (in units of the step) count as passing through
/// their common vertex: the step then needs both cells beside the corner free, as a diagonal move
/// does. Conservative against rounding: a step that passes within 1e-4 cells of a wall's corner
/// is treated as touching it.
inline constexpr float kVertexSlack = 1e-4f;

/// Bit of the neighbour at (dx, dy) (each -1..1) in a neighbour mask: bit k for move direction k
/// (kDirectionDx/Dy), 0 for the cell itself.
inline constexpr unsigned kNeighbourBit[9] = {1u << 5, 1u << 6, 1u << 7,   // dy = -1: north-west, north, north-east
                                              1u << 4, 0u,      1u << 0,   // dy =  0: west, -, east
                                              1u << 3, 1u << 2, 1u << 1};  // dy = +1: south-west, south, south-east
/// The neighbour bit of (dx, dy).
TIDE_ALWAYS_INLINE inline unsigned neighbour_bit(int dx, int dy) {
    return kNeighbourBit[(dy + 1) * 3 + (dx + 1)];
}

/// The neighbour mask of cell (cx, cy): bit k set when blocked(x, y) (a wall, or off the map) holds
/// for its neighbour in move direction k.
template <class Blocked>
inline unsigned neighbour_mask(const Blocked& blocked, int cx, int cy) {
    unsigned mask = 0;
    for (int k = 0; k < kDirectionCount; ++k)
        if (blocked(cx + kDirectionDx[k], cy + kDirectionDy[k])) mask |= 1u << k;
    return mask;
}

/// The neighbour mask of the cell at `at` in a flow's direction layer of row length `width`, its
/// eight neighbours all on the map: bit k set when the neighbour in move direction k is a wall.
TIDE_ALWAYS_INLINE inline unsigned interior_wall_mask(const Direction* at, int width) {
    const Direction* const up = at - width;
    const Direction* const down = at + width;
    constexpr Direction w = Direction::wall;
    return static_cast<unsigned>(at[1] == w) | static_cast<unsigned>(down[1] == w) << 1 |
           static_cast<unsigned>(down[0] == w) << 2 | static_cast<unsigned>(down[-1] == w) << 3 |
           static_cast<unsigned>(at[-1] == w) << 4 | static_cast<unsigned>(up[-1] == w) << 5 |
           static_cast<unsigned>(up[0] == w) << 6 | static_cast<unsigned>(up[1] == w) << 7;
}

/// True when the step from the point (lx, ly) of a cell (0 <= lx, ly < 1) along the unit vector v,
/// over kSafeReach cells, enters none of the cell's neighbours set in `blocked` (a neighbour_mask())
/// and passes no vertex with a blocked cell beside it. Cells are half-open: cell x covers
/// [x, x + 1). The step crosses at most one column line and one row line (it is at most one cell
/// long), so it visits the cell, one or both side cells and the diagonal one: those cells as a
/// mask, tested at once, with few branches.
TIDE_ALWAYS_INLINE inline bool step_clear_mask(unsigned blocked, float lx, float ly, Vec2 v) {
    const float ex = lx + v.x * kSafeReach, ey = ly + v.y * kSafeReach;
    const int sx = static_cast<int>(ex >= 1.0f) - static_cast<int>(ex < 0.0f);
    const int sy = static_cast<int>(ey >= 1.0f) - static_cast<int>(ey < 0.0f);
    const unsigned side_x = neighbour_bit(sx, 0), side_y = neighbour_bit(0, sy);
    // Both lines crossed (then the corner bit is set): which first? tx = gx / |v.x| against
    // ty = gy / |v.y| (gx, gy: the distances to the lines), compared without dividing.
    const float gx = sx > 0 ? 1.0f - lx : lx, gy = sy > 0 ? 1.0f - ly : ly;
    const float ax = std::fabs(v.x), ay = std::fabs(v.y);
    const float slack = kVertexSlack * ax * ay;
    const float a = gx * ay, b = gy * ax;  // tx < ty  <=>  a < b
    const unsigned first = a < b - slack ? side_x : b < a - slack ? side_y : side_x | side_y;
    const unsigned need = neighbour_bit(sx, sy) | (sx != 0 && sy != 0 ? first : side_x | side_y);
    return (blocked & need) == 0;
}

/// v (a unit vector) made wall-safe at the point (lx, ly) of a cell whose neighbour_mask() is
/// `blocked`: v itself when its step is clear (step_clear_mask()), else the direction nearest v on
/// the arc from v to `own` whose step is clear (a few halvings), else `own`. `own` must be a legal
/// move of the cell (a move to a free cell, a diagonal only between two free cells): from anywhere
/// in the cell its step stays in the cell, the target and (diagonally) the two side cells, so it is
/// always clear.
inline Vec2 make_wall_safe_mask(unsigned blocked, float lx, float ly, Vec2 v, Vec2 own) {
    if (step_clear_mask(blocked, lx, ly, v)) return v;
    Vec2 best = own;
    float lo = 0.0f, hi = 1.0f;
    for (int i = 0; i < 5; ++i) {
        const float t = 0.5f * (lo + hi);
        const float wx = v.x + t * (own.x - v.x), wy = v.y + t * (own.y - v.y);
        const float len2 = wx * wx + wy * wy;
        if (len2 < 1e-6f) {
            lo = t;
            continue;
        }
        const float inv = 1.0f / std::sqrt(len2);
        const Vec2 w{wx * inv, wy * inv};
        if (step_clear_mask(blocked, lx, ly, w)) {
            hi = t;
            best = w;
        } else {
            lo = t;
        }
    }
    return best;
}

/// The blend sum (vx, vy) as a unit vector; where it vanishes, own() (the move of the cell the
/// point lies in: a unit vector, or (0, 0) for none) instead.
template <class Own>
inline Vec2 normalised_or(float vx, float vy, const Own& own) {
    float len2 = vx * vx + vy * vy;
    if (len2 < 1e-8f) {
        const Vec2 o = own();
        vx = o.x;
        vy = o.y;
        len2 = vx * vx + vy * vy;
        if (len2 == 0.0f) return {};
    }
    const float inv = 1.0f / std::sqrt(len2);
    return {vx * inv, vy * inv};
}

/// The legal move of cell (x, y) nearest in angle to the direction `want` (largest dot product), or
/// (0, 0) when the cell has none: a move to a free cell, a diagonal only between two free cells.
template <class Blocked>
inline Vec2 nearest_legal_move(const Blocked& blocked, int x, int y, Vec2 want) {
    Vec2 best{};
    float best_dot = -2.0f;
    for (int d = 0; d < kDirectionCount; ++d) {
        const int nx = x + kDirectionDx[d], ny = y + kDirectionDy[d];
        if (blocked(nx, ny)) continue;
        if ((d & 1) != 0 && (blocked(nx, y) || blocked(x, ny))) continue;
        const float dot = kMoveUnit[d].x * want.x + kMoveUnit[d].y * want.y;
        if (dot > best_dot) {
            best_dot = dot;
            best = kMoveUnit[d];
        }
    }
    return best;
}

}  // namespace tide::detail
