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

// Added to the swept square's half-side: a segment whose disc passes a wall (or other ground)
// closer than this is not clear. It covers float rounding (on a 4096 map one ulp is 1/2048 cell)
// and keeps the margin of the first version, which sampled the segment every 1/8 cell with this
// much added: with 1/64 units took the default map's gap tighter and the small group of the gap
// swap stalled 5 s instead of 1-2 s (tide sim --scenario gap_swap).
constexpr float kSightSlack = 1.0f / 16.0f;
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
    // The top-left points of the sweep: the segment thickened by the square of half-side h (it holds
    // the disc; see the header). Row by row of top-left cells, the part of the segment whose square
    // reaches the row gives the row's x-interval: every cell is tested once (sampling the segment
    // every 1/8 cell, as this did first, cost the look-ahead half of its time).
    const int size = costs.size;
    const float h = std::max(r - 0.5f * static_cast<float>(size - 1), 0.0f) + kSightSlack;
    const int W = costs.terrain->width(), H = costs.terrain->height();
    const Cost* const cells = costs.terrain->cells().data();
    const Cost* const plan = costs.planned ? costs.planned->cells().data() : nullptr;
    const float dx = b.x - a.x, dy = b.y - a.y;
    const int ty0 = floor_to_int(std::min(a.y, b.y) - h), ty1 = floor_to_int(std::max(a.y, b.y) + h);
    if (ty0 < 0 || ty1 + size - 1 >= H) return false;
    // A (nearly) level segment: every row takes all of it (a superset; rows are few then).
    const bool level = !(std::fabs(dy) >= 1e-6f);
    const float inv_dy = level ? 0.0f : 1.0f / dy;
    for (int ty = ty0; ty <= ty1; ++ty) {
        float t0 = 0.0f, t1 = 1.0f;
        if (!level) {  // the segment's points s with s.y in [ty - h, ty + 1 + h]
            float u0 = (static_cast<float>(ty) - h - a.y) * inv_dy,
                  u1 = (static_cast<float>(ty) + 1.0f + h - a.y) * inv_dy;
            if (u0 > u1) std::swap(u0, u1);
            t0 = std::max(t0, u0);
            t1 = std::min(t1, u1);
            if (t0 > t1) t0 = t1 = std::clamp(0.5f * (t0 + t1), 0.0f, 1.0f);  // rounding at the ends of the range
        }
        const float xa = a.x + dx * t0, xb = a.x + dx * t1;
        const int x0 = floor_to_int(std::min(xa, xb) - h), x1 = floor_to_int(std::max(xa, xb) + h);
        if (x0 < 0 || x1 + size - 1 >= W) return false;
        for (int cy = ty; cy < ty + size; ++cy) {
            const Cost* const row = cells + static_cast<std::size_t>(cy) * W;
            for (int cx = x0; cx <= x1 + size - 1; ++cx)
                if (row[cx] != terrain) return false;
        }
        if (!plan) continue;
        const Cost* const prow = plan + static_cast<std::size_t>(ty) * W;
        for (int cx = x0; cx <= x1; ++cx)
            if (prow[cx] != planned) return false;
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
    // The walk, kept for the refinement (thread-local scratch: the step calls this from workers).
    // It goes only as far as the doubling search below asks (most looks on a map with walls end
    // after a few cells): each step reads two layers at a cell that is seldom in cache.
    thread_local std::vector<std::uint32_t> path;
    thread_local std::vector<Vec2> centres;  // the centre of path[i] (no division by W per look)
    path.clear();
    centres.clear();
    path.push_back(from);
    centres.push_back(centre(from));
    bool stopped = false;  // the walk reached the goal, other ground or max_moves
    auto walk_to = [&](int moves) {
        std::uint32_t cell = path.back();
        while (!stopped && static_cast<int>(path.size()) <= moves) {
            if (static_cast<int>(path.size()) > max_moves) {
                stopped = true;
                break;
            }
            const Direction d = dir(cell);
            if (!is_move(d)) {  // the goal (or no way on)
                stopped = true;
                break;
            }
            const int k = static_cast<int>(d);
            const std::uint32_t next = static_cast<std::uint32_t>(
                static_cast<int>(cell) + kDirectionDy[k] * static_cast<int>(W) + kDirectionDx[k]);
            if ((size == 1 ? cells[next] != terrain : !new_cells_of(cells, W, size, cell, next, terrain)) ||
                (plan && plan[next] != planned)) {
                stopped = true;
                break;
            }
            cell = next;
            path.push_back(cell);
            centres.push_back({centres.back().x + static_cast<float>(kDirectionDx[k]),
                               centres.back().y + static_cast<float>(kDirectionDy[k])});
        }
    };
    auto clear = [&](int i) { return clear_to(centres[static_cast<std::size_t>(i)]); };
    walk_to(2);
    if (path.size() < 3) return {};
    int good = 0, bad = -1;
    for (int m = 2;; m *= 2) {
        walk_to(m);
        const int at = std::min(m, static_cast<int>(path.size()) - 1);
        if (at == good) break;  // the walk ended at the cell checked last
        if (!clear(at)) {
            bad = at;
            break;
        }
        good = at;
        if (stopped && at == static_cast<int>(path.size()) - 1) break;
    }
    // Moves walked: where the search stopped short of the walk's end, good < last as for the whole walk.
    const int last = static_cast<int>(path.size()) - 1;
    for (int i = 0; i < kRefine && bad > good + 1; ++i) {
        const int mid = (good + bad) / 2;
        (clear(mid) ? good : bad) = mid;
    }
    Sight out{path[static_cast<std::size_t>(good)], centres[static_cast<std::size_t>(good)]};
    if (corners && good >= 1 && good < last && size == 1) {
        // The path turns round a corner after path[good]: aim just off the corner (a convex corner of
        // the ground the unit may not leave, at a vertex of path[good] or of the next cell) from
        // which the next cell's centre is clear, the shortest such way; the cell centres keep half a
        // cell from the corner, which made units swing wide of it.
        const Vec2 b = centres[static_cast<std::size_t>(good) + 1];
        const int H = cost.height();
        auto other = [&](int x, int y) {
            if (x < 0 || y < 0 || x >= static_cast<int>(W) || y >= H) return true;
            const std::size_t i = static_cast<std::size_t>(y) * W + static_cast<std::size_t>(x);
            return cells[i] != terrain || (plan && plan[i] != planned);
        };
        const float off = r + kSightSlack + 0.01f;  // segment_clear's half-side and a margin, per axis
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
