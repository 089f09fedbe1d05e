#include "look_ahead.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tide::detail {
namespace {

inline int floor_to_int(float v) {
    const int i = static_cast<int>(v);
    return i - (static_cast<float>(i) > v ? 1 : 0);
}

constexpr int kRefine = 4;  // halvings of the gap between the last clear check and the first blocked one

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

bool plans_on(const HierarchicalField& plan, const CostField& cost) {
    return &plan.cost() == &cost && plan.diagonal_factor() == FieldParams{}.diagonal_factor;
}

bool segment_clear(const CostField& cost, Vec2 a, Vec2 b, float r, Cost terrain) {
    constexpr float kStep = 0.125f;
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    const int n = std::max(1, static_cast<int>(std::ceil(len / kStep)));
    // Every point of the disc's sweep lies within r of the segment, hence within r + kStep / 2 (per
    // axis) of the nearest sample.
    const float h = r + 0.5f * kStep + 1e-4f;
    const int W = cost.width(), H = cost.height();
    const Cost* const cells = cost.cells().data();
    int last_x0 = -1 << 30, last_y0 = -1 << 30, last_x1 = 0, last_y1 = 0;
    for (int k = 0; k <= n; ++k) {
        const float t = static_cast<float>(k) / static_cast<float>(n);
        const float x = a.x + dx * t, y = a.y + dy * t;
        const int x0 = floor_to_int(x - h), x1 = floor_to_int(x + h);
        const int y0 = floor_to_int(y - h), y1 = floor_to_int(y + h);
        if (x0 == last_x0 && y0 == last_y0 && x1 == last_x1 && y1 == last_y1) continue;  // same cells
        last_x0 = x0, last_y0 = y0, last_x1 = x1, last_y1 = y1;
        if (x0 < 0 || y0 < 0 || x1 >= W || y1 >= H) return false;
        for (int cy = y0; cy <= y1; ++cy) {
            for (int cx = x0; cx <= x1; ++cx) {
                if (cells[static_cast<std::size_t>(cy) * W + cx] != terrain) return false;
            }
        }
    }
    return true;
}

namespace {

// look_ahead() for any field: `dir(cell)` is the flow code of a cell index.
template <class DirectionAt>
std::uint32_t look_ahead_along(DirectionAt dir, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                               int max_moves) {
    const std::uint32_t W = static_cast<std::uint32_t>(cost.width());
    const Cost* const cells = cost.cells().data();
    const Cost terrain = cells[from];
    auto clear = [&](std::uint32_t cell) {
        return segment_clear(cost, p, aim_point(cell, static_cast<int>(W)), r, terrain);
    };
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
        if (cells[next] != terrain) break;
        cell = next;
        path.push_back(cell);
    }
    const int last = static_cast<int>(path.size()) - 1;  // moves walked
    if (last < 2) return kNoCell;
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
    if (good < 2) return kNoCell;
    if (good < last) {  // the path turns or leaves this terrain after it: aim a little toward its next cell
        const std::uint32_t aimed = path[good] | (static_cast<std::uint32_t>(dir(path[good])) + 1u) << kAimShiftBits;
        if (segment_clear(cost, p, aim_point(aimed, static_cast<int>(W)), r, terrain)) return aimed;
    }
    return path[good];
}

}  // namespace

std::uint32_t look_ahead(const FlowField& field, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                         int max_moves) {
    const std::span<const Direction> dirs = field.directions();
    return look_ahead_along([dirs](std::uint32_t cell) { return dirs[cell]; }, cost, p, r, from, max_moves);
}

std::uint32_t look_ahead(const HierarchicalField& field, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                         int max_moves) {
    const std::uint32_t W = static_cast<std::uint32_t>(cost.width());
    return look_ahead_along(
        [&field, W](std::uint32_t cell) {
            return field.direction(static_cast<int>(cell % W), static_cast<int>(cell / W));
        },
        cost, p, r, from, max_moves);
}

}  // namespace tide::detail
