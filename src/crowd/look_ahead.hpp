#pragma once
// Line of sight on the grid for the crowd's straight-line steering: whether a disc can slide along
// a segment over cells of one cost, and the furthest point along a flow field's path it can reach
// that way (string pulling on the field).

#include <cstdint>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"

namespace tide::detail {

/// No look-ahead cell.
inline constexpr std::uint32_t kNoCell = 0xffffffffu;
/// A look-ahead is a cell index (below 2^28: maps are at most 16384 cells a side) and, in the top
/// 4 bits, 0 or 1 + the move direction toward which the aim point leaves the cell's centre by
/// kAimShift cells (toward the corner the path turns round next).
inline constexpr int kAimShiftBits = 28;
inline constexpr std::uint32_t kAimCellMask = (1u << kAimShiftBits) - 1;
inline constexpr float kAimShift = 0.3f;
static_assert(16384u * 16384u - 1u <= kAimCellMask && kDirectionCount + 1 < 15,
              "cell indices and aim codes must share 32 bits without making kNoCell");
/// The point a look-ahead aims at, cell units.
inline Vec2 aim_point(std::uint32_t sight, int width) {
    const std::uint32_t cell = sight & kAimCellMask, code = sight >> kAimShiftBits;
    Vec2 p{static_cast<float>(cell % static_cast<std::uint32_t>(width)) + 0.5f,
           static_cast<float>(cell / static_cast<std::uint32_t>(width)) + 0.5f};
    if (code != 0) {
        const int k = static_cast<int>(code) - 1;
        const float len = (k & 1) ? 0.70710678f : 1.0f;
        p.x += kAimShift * len * static_cast<float>(kDirectionDx[k]);
        p.y += kAimShift * len * static_cast<float>(kDirectionDy[k]);
    }
    return p;
}

/// True when `field` is a goal field built on `cost` as it is now with the default diagonal factor:
/// every move charges the price of the cell it enters (one pass over the field, stopping at the
/// first difference). Line of sight only overrules such fields: a field built on a wall margin,
/// a class's costs or a danger term has its own reasons to bend.
bool built_on(const FlowField& field, const CostField& cost);

/// True when `plan` plans on `cost` itself (not a class's sized costs) with the default diagonal
/// factor: its sector fields charge every move the price of the cell it enters, as built_on().
bool plans_on(const HierarchicalField& plan, const CostField& cost);

/// True when a disc of radius r moved from a to b (cell units) touches only cells of cost `cost`
/// (so no wall, no wall corner, no costlier or cheaper terrain) and stays on the map. Conservative:
/// it tests the square of half-side r + 1/16 cell around points 1/8 cell apart.
bool segment_clear(const CostField& cost, Vec2 a, Vec2 b, float r, Cost terrain);

/// The furthest cell along the flow path from `from` (a cell index) whose centre the disc at p can
/// reach straight (segment_clear), starting at `from`'s path and looking at most `max_moves` moves
/// ahead; the walk stops at the goal and at the first cell of another cost than `from`'s. Checks
/// points at doubling distances (2, 4, 8, ... moves, and the last cell of the walk) up to the first
/// that is not clear, then halves the gap between the last clear one and it a few times; where the
/// way goes on, the aim point moves kAimShift toward the next cell of the path when that is clear
/// too (see kAimShiftBits). kNoCell when not even 2 moves ahead are clear.
std::uint32_t look_ahead(const FlowField& field, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                         int max_moves);
/// The same along a hierarchical plan's flow: across sector borders while the sectors ahead have
/// fields (toward the next portals), stopping where a sector has none yet.
std::uint32_t look_ahead(const HierarchicalField& field, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                         int max_moves);

}  // namespace tide::detail
