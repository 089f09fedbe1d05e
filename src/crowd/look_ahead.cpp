#include "look_ahead.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include "../grid/float_to_int.hpp"

namespace tide::detail {
namespace {

inline int floor_to_int(float v) {
    return clamped_floor(v, -kCellLimit, kCellLimit);
}

constexpr int kRefine = 4;         // halvings of the gap between the last clear check and the first blocked one
constexpr float kAimShift = 0.3f;  // cells from the last clear cell's centre toward the next (see below)

}  // namespace

bool built_on(const FlowField& field, const CostField& cost) {
    if (field.kind() != FieldKind::goal || field.width() != cost.width() || field.height() != cost.height())
        return false;
    const int W = field.width();
    const std::span<const Direction> dirs = field.directions();
    const float* const value = field.integration().data();
    const Cost* const cells = cost.cells().data();
    for (std::size_t c = 0; c < dirs.size(); ++c) {
        const Direction d = dirs[c];
        if (!is_move(d)) continue;
        const int k = static_cast<int>(d);
        const std::size_t n =
            static_cast<std::size_t>(static_cast<std::ptrdiff_t>(c) + kDirectionDy[k] * W + kDirectionDx[k]);
        const float price = static_cast<float>(cells[n]) * (is_diagonal(d) ? 1.41421356f : 1.0f);
        // Float values of exact fixed-point ones: a few ulps of the larger value apart at most.
        if (std::fabs(value[c] - value[n] - price) > 1e-4f + 1e-6f * value[c]) return false;
    }
    return true;
}

bool plans_on(const HierarchicalField& plan) {
    return plan.diagonal_factor() == FieldParams{}.diagonal_factor;
}

bool segment_clear(const SightCosts& costs, Vec2 a, Vec2 b, float r, Cost terrain, Cost planned) {
    constexpr float kStep = 0.125f;
    const int size = costs.size;
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    const int n = clamped_int(std::ceil(len / kStep), 1, kCellLimit);
    // Every point of the disc's sweep lies within r of the segment of its centre, hence within
    // r + kStep / 2 (per axis) of the centre at the nearest sample. The centre is (size-1)/2 right
    // of and below the top-left point; the block [q, q + size) of a top-left point q holds it too.
    const float h = std::max(r - 0.5f * static_cast<float>(size - 1), 0.0f) + 0.5f * kStep + 1e-4f;
    const int W = costs.terrain->width(), H = costs.terrain->height();
    const Cost* const cells = costs.terrain->cells().data();
    const Cost* const plan = costs.planned ? costs.planned->cells().data() : nullptr;
    int last_x0 = -1 << 30, last_y0 = -1 << 30, last_x1 = 0, last_y1 = 0;
    for (int k = 0; k <= n; ++k) {
        const float t = static_cast<float>(k) / static_cast<float>(n);
        const float x = a.x + dx * t, y = a.y + dy * t;
        // Top-left cells under the square; their blocks reach size - 1 further right and down.
        const int x0 = floor_to_int(x - h), x1 = floor_to_int(x + h);
        const int y0 = floor_to_int(y - h), y1 = floor_to_int(y + h);
        if (x0 == last_x0 && y0 == last_y0 && x1 == last_x1 && y1 == last_y1) continue;  // same cells
        last_x0 = x0, last_y0 = y0, last_x1 = x1, last_y1 = y1;
        if (x0 < 0 || y0 < 0 || x1 + size - 1 >= W || y1 + size - 1 >= H) return false;
        for (int cy = y0; cy <= y1 + size - 1; ++cy) {
            for (int cx = x0; cx <= x1 + size - 1; ++cx) {
                if (cells[static_cast<std::size_t>(cy) * W + cx] != terrain) return false;
            }
        }
        if (!plan) continue;
        for (int cy = y0; cy <= y1; ++cy) {
            for (int cx = x0; cx <= x1; ++cx) {
                if (plan[static_cast<std::size_t>(cy) * W + cx] != planned) return false;
            }
        }
    }
    return true;
}

namespace {

// True when every terrain cell of the size x size block at top-left cell `to` that is not in the
// block at `from` (an adjacent cell) costs `terrain`: with `from`'s block all of it, `to`'s is too.
bool new_cells_of(const Cost* cells, std::uint32_t W, int size, std::uint32_t from, std::uint32_t to, Cost terrain) {
    const int fx = static_cast<int>(from % W), fy = static_cast<int>(from / W);
    const int tx = static_cast<int>(to % W), ty = static_cast<int>(to / W);
    for (int y = ty; y < ty + size; ++y) {
        const bool shared_row = y >= fy && y < fy + size;
        const Cost* row = cells + static_cast<std::size_t>(y) * W;
        for (int x = tx; x < tx + size; ++x) {
            if (shared_row && x >= fx && x < fx + size) continue;
            if (row[x] != terrain) return false;
        }
    }
    return true;
}

// look_ahead() for any field: `dir(cell)` is the flow code of a cell index.
template <class DirectionAt>
Sight look_ahead_along(DirectionAt dir, const SightCosts& costs, Vec2 p, float r, std::uint32_t from, int max_moves,
                       bool corners) {
    const CostField& cost = *costs.terrain;
    const std::uint32_t W = static_cast<std::uint32_t>(cost.width());
    const int size = costs.size;
    const Cost* const cells = cost.cells().data();
    const Cost* const plan = costs.planned ? costs.planned->cells().data() : nullptr;
    const Cost terrain = cells[from];
    const Cost planned = plan ? plan[from] : Cost{0};
    if (size > 1) {  // the block the unit stands on must be of one cost (the field keeps blocks on the map)
        const std::uint32_t fx = from % W, fy = from / W;
        if (fx + static_cast<std::uint32_t>(size) > W ||
            fy + static_cast<std::uint32_t>(size) > static_cast<std::uint32_t>(cost.height()))
            return {};
        for (std::uint32_t y = fy; y < fy + static_cast<std::uint32_t>(size); ++y)
            for (std::uint32_t x = fx; x < fx + static_cast<std::uint32_t>(size); ++x)
                if (cells[y * W + x] != terrain) return {};
    }
    auto centre = [W](std::uint32_t cell) {
        return Vec2{static_cast<float>(cell % W) + 0.5f, static_cast<float>(cell / W) + 0.5f};
    };
    auto clear_to = [&](Vec2 q) { return segment_clear(costs, p, q, r, terrain, planned); };
    auto clear = [&](std::uint32_t cell) { return clear_to(centre(cell)); };
    // The walk, kept for the refinement (thread-local scratch: the step calls this from workers).
    thread_local std::vector<std::uint32_t> path;
    path.clear();
    path.push_back(from);
    std::uint32_t cell = from;
    while (static_cast<int>(path.size()) <= max_moves) {
        const Direction d = dir(cell);
        if (!is_move(d)) break;  // the goal (or no way on)
        const int k = static_cast<int>(d);
        const std::uint32_t next = static_cast<std::uint32_t>(static_cast<int>(cell) +
                                                              kDirectionDy[k] * static_cast<int>(W) + kDirectionDx[k]);
        if (size == 1 ? cells[next] != terrain : !new_cells_of(cells, W, size, cell, next, terrain)) break;
        if (plan && plan[next] != planned) break;
        cell = next;
        path.push_back(cell);
    }
    const int last = static_cast<int>(path.size()) - 1;  // moves walked
    if (last < 2) return {};
    int good = 0, bad = -1;
    for (int m = 2;; m *= 2) {
        const int at = std::min(m, last);
        if (!clear(path[at])) {
            bad = at;
            break;
        }
        good = at;
        if (at == last) break;
    }
    for (int i = 0; i < kRefine && bad > good + 1; ++i) {
        const int mid = (good + bad) / 2;
        (clear(path[mid]) ? good : bad) = mid;
    }
    Sight out{path[good], centre(path[good])};
    if (corners && good >= 1 && good < last && size == 1) {
        // The path turns round a corner after path[good]: aim just off the corner (a convex corner of
        // the ground the unit may not leave, at a vertex of path[good] or of the next cell) from
        // which the next cell's centre is clear, the shortest such way; the cell centres keep half a
        // cell from the corner, which made units swing wide of it.
        const Vec2 b = centre(path[good + 1]);
        const int H = cost.height();
        auto other = [&](int x, int y) {
            if (x < 0 || y < 0 || x >= static_cast<int>(W) || y >= H) return true;
            const std::size_t i = static_cast<std::size_t>(y) * W + static_cast<std::size_t>(x);
            return cells[i] != terrain || (plan && plan[i] != planned);
        };
        const float off = r + 0.0625f + 0.01f;  // segment_clear's half-side and a margin, per axis
        float best = std::numeric_limits<float>::infinity();
        Vec2 pick{};
        for (const std::uint32_t c : {path[good], path[good + 1]}) {
            const int cx = static_cast<int>(c % W), cy = static_cast<int>(c / W);
            for (int vy = cy; vy <= cy + 1; ++vy) {
                for (int vx = cx; vx <= cx + 1; ++vx) {
                    // The vertex (vx, vy) is a convex corner when exactly one of its four cells is other ground.
                    const bool nw = other(vx - 1, vy - 1), ne = other(vx, vy - 1), sw = other(vx - 1, vy),
                               se = other(vx, vy);
                    if (nw + ne + sw + se != 1) continue;
                    const float sx = nw || sw ? 1.0f : -1.0f, sy = nw || ne ? 1.0f : -1.0f;  // away from it
                    const Vec2 k{static_cast<float>(vx) + sx * off, static_cast<float>(vy) + sy * off};
                    // sqrt, not std::hypot: libm's hypot may round the last bit differently on
                    // another platform; sqrt is correctly rounded everywhere (lockstep).
                    const float kx = k.x - p.x, ky = k.y - p.y, bx = b.x - k.x, by = b.y - k.y;
                    const float to_k = std::sqrt(kx * kx + ky * ky);
                    const float via = to_k + std::sqrt(bx * bx + by * by);
                    if (via >= best || to_k < 0.25f) continue;
                    if (!clear_to(k) || !segment_clear(costs, k, b, r, terrain, planned)) continue;
                    best = via;
                    pick = k;
                }
            }
        }
        if (best < std::numeric_limits<float>::infinity()) {
            out.aim = pick;
            return out;
        }
    }
    if (good < 2) return {};
    if (good < last) {
        // The path turns or leaves this terrain after it: aim kAimShift toward its next cell when
        // that is clear too (a little toward the corner the path turns round).
        const int k = static_cast<int>(dir(path[good]));
        const float len = (k & 1) ? 0.70710678f : 1.0f;  // per axis, for a diagonal move
        const Vec2 shifted{out.aim.x + kAimShift * len * static_cast<float>(kDirectionDx[k]),
                           out.aim.y + kAimShift * len * static_cast<float>(kDirectionDy[k])};
        if (clear_to(shifted)) out.aim = shifted;
    }
    return out;
}

}  // namespace

Sight look_ahead(const FlowField& field, const SightCosts& costs, Vec2 p, float r, std::uint32_t from, int max_moves,
                 bool corners) {
    const std::span<const Direction> dirs = field.directions();
    return look_ahead_along([dirs](std::uint32_t cell) { return dirs[cell]; }, costs, p, r, from, max_moves, corners);
}

Sight look_ahead(const HierarchicalField& field, const SightCosts& costs, Vec2 p, float r, std::uint32_t from,
                 int max_moves, bool corners) {
    const std::uint32_t W = static_cast<std::uint32_t>(costs.terrain->width());
    return look_ahead_along(
        [&field, W](std::uint32_t cell) {
            return field.direction(static_cast<int>(cell % W), static_cast<int>(cell / W));
        },
        costs, p, r, from, max_moves, corners);
}

}  // namespace tide::detail
