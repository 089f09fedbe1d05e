#pragma once
// Codes shared by the field builder and the repair (internal): Direction codes and tie ranks.

#include <bit>
#include <cstdint>
#include "tide/detail/compat.hpp"

#include "tide/flow_field.hpp"

namespace tide::fields_detail {

constexpr std::uint8_t kGoalCode = static_cast<std::uint8_t>(Direction::goal);
constexpr std::uint8_t kUnreachableCode = static_cast<std::uint8_t>(Direction::unreachable);
constexpr std::uint8_t kWallCode = static_cast<std::uint8_t>(Direction::wall);
static_assert(kWallCode == 10 && kUnreachableCode == 9 && kGoalCode == 8,
              "the builder writes Direction codes straight into the flow layer");

// During the search `via_` holds moves by tie rank, so the tie rule is one integer compare:
// straight moves first (E, S, W, N), then diagonals (SE, SW, NW, NE); the goal, unreachable and
// wall codes (8, 9, 10) rank after every move. The output pass maps ranks back to Direction codes.
constexpr std::uint8_t kRankE = 0, kRankS = 1, kRankW = 2, kRankN = 3;
constexpr std::uint8_t kRankSE = 4, kRankSW = 5, kRankNW = 6, kRankNE = 7;
constexpr std::uint8_t kRankToCode[11] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 9, 10};
// Rank of the move with Direction code k.
constexpr std::uint8_t kRankOfCode[kDirectionCount] = {kRankE, kRankSE, kRankS, kRankSW,
                                                       kRankW, kRankNW, kRankN, kRankNE};
// Rank of the move a neighbour makes into the settled cell, by the neighbour's direction k from
// it: the east neighbour (k = 0) moves west, the south-east one (k = 1) moves north-west, ...
constexpr std::uint8_t kOfferRank[kDirectionCount] = {kRankW, kRankNW, kRankN, kRankNE,
                                                      kRankE, kRankSE, kRankS, kRankSW};

// Direction code of the diagonal move between two of a cell's orthogonal neighbours: from the
// neighbour in direction o to the one in direction (o + 2) % 8 (o even): E -> S is south-west, and
// so on; the cell is a corner of that move. -1 for odd o.
constexpr int kCornerMove[kDirectionCount] = {3, -1, 5, -1, 7, -1, 1, -1};

// Integration value for the float layer: +inf for walls and cut-off cells, selected with a mask
// (walls are scattered at random, a branch would mispredict).
inline float to_float(std::uint64_t value, auto code, double scale) {
    const auto f = tide::detail::bit_cast<std::uint32_t>(static_cast<float>(static_cast<double>(value) * scale));
    const std::uint32_t cut = 0u - static_cast<std::uint32_t>(static_cast<std::uint8_t>(code) > kGoalCode);
    return tide::detail::bit_cast<float>((f & ~cut) | (tide::detail::bit_cast<std::uint32_t>(kUnreachable) & cut));
}

}  // namespace tide::fields_detail
