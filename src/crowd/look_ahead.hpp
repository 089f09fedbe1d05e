#pragma once
// Line of sight on the grid for the crowd's straight-line steering: whether a disc can slide along
// a segment over cells of one cost, and the furthest point along a flow field's path it can reach
// that way (string pulling on the field).

#include <algorithm>
#include <cstdint>

#include "tide/cost_field.hpp"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"
#include "tide/hierarchy.hpp"

namespace tide::detail {

/// No look-ahead cell (cell indices are below 2^28: maps are at most 16384 cells a side).
inline constexpr std::uint32_t kNoCell = 0xffffffffu;

/// What a look-ahead found: the furthest cell of the field's path the unit can reach straight
/// (kNoCell: none), and the point it aims at: that cell's centre, or where the path turns after it,
/// just off the corner it turns round (with `corners`) or 0.3 cells toward the path's next cell
/// centre.
struct Sight {
    std::uint32_t cell = kNoCell;
    Vec2 aim{0.0f, 0.0f};  ///< Cell units (field coordinates).
};

/// True when `field` is a goal field built on `cost` as it is now with the default diagonal factor:
/// every move charges the price of the cell it enters (one pass over the field, stopping at the
/// first difference). Line of sight only overrules such fields: a field built on a wall margin,
/// a class's costs or a danger term has its own reasons to bend.
bool built_on(const FlowField& field, const CostField& cost);

/// True when `plan` was made with the default diagonal factor: its sector fields charge every move
/// the price of the cell it enters in plan.cost(), as built_on() checks for flat fields. (Whether
/// those costs are the terrain's, a class's or sized ones, the look-ahead reads them: SightCosts.)
bool plans_on(const HierarchicalField& plan);

/// What a look-ahead reads: the map's terrain, the unit's size (a unit of size s covers the s x s
/// cells whose top-left cell is its field cell, see unit_class.hpp), and, for a plan made on other
/// costs than the terrain (a class's or sized costs), those costs, indexed by top-left cell.
struct SightCosts {
    const CostField* terrain = nullptr;
    int size = 1;
    const CostField* planned = nullptr;  ///< Checked too when set; null: the plan's costs are the terrain's.
};

/// True when a unit of `costs.size` (its disc of radius r centred (s-1)/2 cells right of and below
/// its top-left point), its top-left point moved from a to b (field coordinates, cell units), sweeps
/// with its disc only terrain cells of cost `terrain` (no wall, no wall corner, no costlier or
/// cheaper ground) and stays on the map, and, with planned costs, only touches top-left cells of
/// planned cost `planned` (blocks whose cells hold the disc). Conservative: it tests every top-left
/// cell the square of half-side max(r - (s-1)/2, 0) + 1/16 touches as its centre runs along the
/// segment (each cell once), and every terrain cell of their blocks.
bool segment_clear(const SightCosts& costs, Vec2 a, Vec2 b, float r, Cost terrain, Cost planned);
/// The same for a unit of size 1 on the terrain alone.
inline bool segment_clear(const CostField& cost, Vec2 a, Vec2 b, float r, Cost terrain) {
    return segment_clear(SightCosts{&cost, 1, nullptr}, a, b, r, terrain, 0);
}

/// The furthest cell along the flow path from `from` (a field cell index: the unit's top-left
/// cell) whose centre the unit at p (its top-left point) can reach straight (segment_clear), and
/// the point to aim at (Sight),
/// starting at `from`'s path and looking at most `max_moves` moves ahead; the walk stops at the
/// goal and at the first cell whose block is not all of `from`'s terrain cost (or whose planned
/// cost differs). Checks points at doubling distances (2, 4, 8, ... moves, and the last cell of the
/// walk) up to the first that is not clear, then halves the gap between the last clear one and it
/// a few times. Where the way goes on, with `corners` and a unit of size 1, the aim point is the
/// point just off a convex corner (of a vertex of that cell or the next one) from which the next
/// cell's centre is clear, the shortest way through such a point (the cell centres keep half a cell
/// from the corner: a unit swings wide of it); without, or when no such point is clear, it moves
/// 0.3 cells toward the next cell's centre when that is clear too. Cell kNoCell when not even 2 moves ahead
/// are clear (1 when a corner point is) or `from`'s block is not of one cost.
Sight look_ahead(const FlowField& field, const SightCosts& costs, Vec2 p, float r, std::uint32_t from, int max_moves,
                 bool corners = true);
/// The same along a hierarchical plan's flow: across sector borders while the sectors ahead have
/// fields (toward the next portals), stopping where a sector has none yet.
Sight look_ahead(const HierarchicalField& field, const SightCosts& costs, Vec2 p, float r, std::uint32_t from,
                 int max_moves, bool corners = true);
/// look_ahead() along whichever `view` holds (not empty).
inline Sight look_ahead(const FieldView& view, const SightCosts& costs, Vec2 p, float r, std::uint32_t from,
                        int max_moves, bool corners = true) {
    return view.flat() ? look_ahead(*view.flat(), costs, p, r, from, max_moves, corners)
                       : look_ahead(*view.plan(), costs, p, r, from, max_moves, corners);
}
/// Cells a unit that sees its goal walks before it looks again (look_again()).
inline constexpr int kGoalSightRecheck = 4;
/// The same for a unit that sees a point further along its field's path.
inline constexpr int kSightRecheck = 2;
/// ... or until that point is this close (cells, Chebyshev).
inline constexpr int kSightNear = 3;

/// True when a unit now on field cell `now` (an index on a map `width` cells wide), that last looked
/// from `from` and saw `seen` (kNoCell: nothing), should look again: always on a new cell after
/// seeing nothing; while it walks a clear line, only after kSightRecheck cells (kGoalSightRecheck
/// when it sees a goal cell of `view`) or when the point seen is near (past it, the way bends).
inline bool look_again(const FieldView& view, std::uint32_t width, std::uint32_t from, std::uint32_t seen,
                       std::uint32_t now) {
    if (from == now) return false;
    if (from == kNoCell || seen == kNoCell) return true;
    const auto cheb = [width](std::uint32_t a, std::uint32_t b) {
        const int dx = static_cast<int>(a % width) - static_cast<int>(b % width);
        const int dy = static_cast<int>(a / width) - static_cast<int>(b / width);
        return std::max(dx < 0 ? -dx : dx, dy < 0 ? -dy : dy);
    };
    const bool goal = view.direction(static_cast<int>(seen % width), static_cast<int>(seen / width)) == Direction::goal;
    return cheb(from, now) >= (goal ? kGoalSightRecheck : kSightRecheck) || (!goal && cheb(seen, now) <= kSightNear);
}

/// look_ahead() for a unit of size 1 on a field built on the terrain `cost` itself.
inline Sight look_ahead(const FlowField& field, const CostField& cost, Vec2 p, float r, std::uint32_t from,
                        int max_moves) {
    return look_ahead(field, SightCosts{&cost, 1, nullptr}, p, r, from, max_moves);
}

}  // namespace tide::detail
