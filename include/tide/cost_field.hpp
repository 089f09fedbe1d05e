#pragma once
/// \file cost_field.hpp
/// The cost field: one byte per cell, the price of *entering* the cell.
///
/// Conventions used throughout Tide:
/// - Cell (x, y): x is the column (0 at the left), y the row (0 = first map line, growing down).
/// - Flat arrays are indexed `y * width + x`.
/// - Continuous positions are in cell units: cell (x, y) covers [x, x+1) x [y, y+1); its centre is (x+0.5, y+0.5).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/export.h"
#include "tide/limits.hpp"
#include "tide/result.hpp"

namespace tide {

/// Cost of entering a cell: 1..254 passable, 255 wall.
using Cost = std::uint8_t;

inline constexpr Cost kCostPlain = 1;   ///< Open ground.
inline constexpr Cost kCostForest = 3;  ///< Forest: 3x the price of plain ground.
inline constexpr Cost kCostSwamp = 6;   ///< Swamp: 6x the price of plain ground.
inline constexpr Cost kCostMax = 254;   ///< Largest passable cost.
inline constexpr Cost kCostWall = 255;  ///< Impassable.

/// Integer cell coordinates.
struct Cell {
    int x = 0;  ///< Column.
    int y = 0;  ///< Row.
    friend bool operator==(const Cell&, const Cell&) = default;
};

/// A W x H grid of entry costs. Owns its bytes; allocation goes through the given memory resource.
/// Not thread-safe for concurrent writes; concurrent reads are fine.
class TIDE_API CostField {
public:
    /// Creates a `width` x `height` field filled with `fill`; error when a dimension is
    /// outside 1..kMaxDimension or `fill` is 0.
    static Result<CostField> create(int width, int height, Cost fill = kCostPlain,
                                    std::pmr::memory_resource* memory = std::pmr::get_default_resource());

    CostField(const CostField& other, std::pmr::memory_resource* memory = std::pmr::get_default_resource())
        : width_(other.width_), height_(other.height_), cells_(other.cells_, memory) {}
    CostField(CostField&&) noexcept = default;
    CostField& operator=(const CostField&) = default;
    CostField& operator=(CostField&&) noexcept = default;

    int width() const noexcept { return width_; }                ///< Columns.
    int height() const noexcept { return height_; }              ///< Rows.
    std::size_t size() const noexcept { return cells_.size(); }  ///< width * height.

    /// True when (x, y) lies on the map.
    bool contains(int x, int y) const noexcept { return x >= 0 && y >= 0 && x < width_ && y < height_; }
    bool contains(Cell c) const noexcept { return contains(c.x, c.y); }

    /// Cost of entering (x, y); asserts (hookable) when off the map.
    Cost at(int x, int y) const;
    Cost at(Cell c) const { return at(c.x, c.y); }
    /// True when (x, y) is on the map and not a wall.
    bool passable(int x, int y) const noexcept {
        return contains(x, y) && cells_[static_cast<std::size_t>(y) * width_ + x] != kCostWall;
    }

    /// Sets the cost of (x, y); asserts when off the map or when `cost` is 0.
    void set(int x, int y, Cost cost);
    /// Sets every cell of the rectangle [x0, x1] x [y0, y1] (clipped to the map) to `cost`.
    void fill_rect(int x0, int y0, int x1, int y1, Cost cost);

    /// Row-major cells, `y * width + x`.
    std::span<const Cost> cells() const noexcept { return cells_; }
    std::span<Cost> cells() noexcept { return cells_; }

    /// Incremented by every mutation; lets caches know when the terrain changed.
    std::uint64_t version() const noexcept { return version_; }

private:
    CostField(int w, int h, Cost fill, std::pmr::memory_resource* memory)
        : width_(w), height_(h), cells_(static_cast<std::size_t>(w) * h, fill, memory) {}
    int width_ = 0;
    int height_ = 0;
    std::pmr::vector<Cost> cells_;
    std::uint64_t version_ = 0;
};

/// A wall margin (wall_margin_cost_field): passable cells within `radius` cells of a wall (a wall
/// among the (2 radius + 1)^2 cells centred on them; the map edge counts as a wall) cost `extra`
/// more, capped at kCostMax, so paths stop grazing walls. {0, 0} (the default) is no margin.
struct WallMargin {
    int radius = 0;  ///< Cells, 0..kMaxWallMarginRadius.
    int extra = 0;   ///< Added cost, 0..253.
    friend bool operator==(const WallMargin&, const WallMargin&) = default;
};
/// Largest accepted WallMargin::radius.
inline constexpr int kMaxWallMarginRadius = 64;

/// True when `margin` changes any cost (radius and extra both above 0).
constexpr bool has_margin(const WallMargin& margin) noexcept {
    return margin.radius > 0 && margin.extra > 0;
}

/// `cost` with `margin` applied: a derived layer, `cost` is not changed. O(W*H) whatever the
/// radius. Errors: a radius outside 0..kMaxWallMarginRadius, an extra outside 0..253.
TIDE_API Result<CostField> wall_margin_cost_field(const CostField& cost, const WallMargin& margin);

/// The passable cell nearest `from` (Euclidean distance between cells; ties: first in row-major
/// order), or none on an all-wall map. `from` may lie off the map. O(r^2) for a nearest cell r away.
TIDE_API std::optional<Cell> nearest_passable(const CostField& cost, Cell from);

/// A goal moved off a wall by snap_goals(): the cell asked for and the cell it went to.
struct SnappedGoal {
    Cell from, to;
};
/// Moves every goal of `goals` that lies off the map or on a wall to nearest_passable() of it, in
/// place, and drops the duplicates that makes (first kept); returns the moves, in goal order. On an
/// all-wall map nothing moves and `goals` is left as it was (a world refuses such goals).
TIDE_API std::vector<SnappedGoal> snap_goals(const CostField& cost, std::vector<Cell>& goals);

}  // namespace tide
