#pragma once
// The flee values shared by the flee build (flee_field.cpp) and its repair (flee_repair.cpp):
// their sentinel, the start value of a cell, and the move rule of the flow.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "move_codes.hpp"
#include "tide/cost_field.hpp"

namespace tide::fields_detail {

// V of walls and of cells no danger reaches: the lowest int64, which no offer is below.
constexpr std::int64_t kFleeNone = std::numeric_limits<std::int64_t>::min();

// Start value of a reached cell: -round(factor x D), D in fixed point.
inline std::int64_t start_value(double factor, std::uint64_t d) {
    return -static_cast<std::int64_t>(std::llround(factor * static_cast<double>(d)));
}

// The flee grid as one pass sees it: D's words (cost in the low byte, walls 255), V, prices.
struct FleeGrid {
    const std::uint64_t* dist;
    const std::int64_t* value;
    const std::uint64_t* orth;
    const std::uint64_t* diag;
    std::int32_t off[kDirectionCount];
    bool eight;

    bool wall(std::size_t i) const { return (dist[i] & 0xFF) == kCostWall; }
    std::int64_t price(int k, std::uint64_t c) const {
        return static_cast<std::int64_t>((k & 1) != 0 ? diag[c] : orth[c]);
    }
    // A diagonal move k from x needs both cells beside it open (the same for its reverse).
    bool corners_open(std::size_t x, int k) const {
        return (k & 1) == 0 || (!wall(x + off[k - 1]) && !wall(x + off[(k + 1) & 7]));
    }
    // Direction code of cell x: wall, unreachable, or the legal move of least (price + V(y)), ties
    // to the lower rank (E, S, W, N, SE, SW, NW, NE), when that equals V(x); else a safe spot.
    std::uint8_t move(std::size_t x) const {
        if (wall(x)) return kWallCode;
        if (value[x] == kFleeNone) return kUnreachableCode;
        constexpr int kMovesByRank[kDirectionCount] = {0, 2, 4, 6, 1, 3, 5, 7};
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        int best_k = -1;
        for (int r = 0; r < (eight ? kDirectionCount : kDirectionCount / 2); ++r) {
            const int k = kMovesByRank[r];
            const std::size_t to = x + off[k];
            if (value[to] == kFleeNone || !corners_open(x, k)) continue;  // a wall, the border
            const std::int64_t cand = value[to] + price(k, dist[to] & 0xFF);
            if (cand < best) {
                best = cand;
                best_k = k;
            }
        }
        return best_k >= 0 && best <= value[x] ? static_cast<std::uint8_t>(best_k) : kGoalCode;
    }
};

}  // namespace tide::fields_detail
