#pragma once
/// \file unit_class.hpp
/// Movement classes: unit sizes and per-class terrain costs.
///
/// Size convention: a unit of size s stands on one cell and occupies the s x s block of cells
/// whose top-left cell is that cell, [x, x+s) x [y, y+s). Fields for such units are built on the
/// cost field `sized_cost_field` derives from the terrain, with the usual builder: a cell of it is
/// passable when the whole block is, and entering it costs the dearest cell of the block. A
/// diagonal move needs both orthogonally adjacent blocks passable, as for size 1.

#include <optional>
#include <string>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/limits.hpp"
#include "tide/result.hpp"

namespace tide {

/// An inclusive rectangle of cells, [x0, x1] x [y0, y1]; empty when x1 < x0 or y1 < y0.
struct CellRect {
    int x0 = 0;   ///< Left column.
    int y0 = 0;   ///< Top row.
    int x1 = -1;  ///< Right column (inclusive).
    int y1 = -1;  ///< Bottom row (inclusive).
    /// True when the rectangle holds no cell.
    bool empty() const noexcept { return x1 < x0 || y1 < y0; }
    friend bool operator==(const CellRect&, const CellRect&) = default;
};

/// A kind of unit: its size and, optionally, its own terrain costs.
struct UnitClass {
    /// Unique within a map; "default" (the map's own costs, size 1) is reserved.
    std::string name;
    /// Units occupy the size x size cells whose top-left cell is the one they stand on; 1..kMaxUnitSize.
    int size = 1;
    /// Own entry costs (the map's dimensions), or none: the map's costs.
    std::optional<CostField> costs;
};

/// The cost field seen by units of `size`: a cell is passable when the size x size block whose
/// top-left cell it is lies on the map and is all passable; entering it costs the largest cost in
/// the block. Size 1 returns a copy. A separable sliding maximum, O(W*H) whatever the size: walls
/// cost 255, the largest cost, so a block's maximum is a wall exactly when the block holds one.
/// Error for `size` outside 1..kMaxUnitSize. The result's cells come from `memory`.
TIDE_API Result<CostField> sized_cost_field(const CostField& terrain, int size,
                                            std::pmr::memory_resource* memory = std::pmr::get_default_resource());

/// The cells whose size x size block overlaps the terrain cells of `changed`: the sized cells (of
/// units of `size`) an edit of `changed` may change, up to size - 1 cells further up and left;
/// clipped to a width x height map (empty when `changed` is empty or lies off the map).
TIDE_API CellRect sized_cells_touched(CellRect changed, int size, int width, int height);

/// After the terrain cells in `changed` were edited, recomputes the cells of `sized` (made by
/// sized_cost_field for the same size from the terrain before the edit) whose block overlaps the
/// cells of `changed` on the map; returns the rectangle of sized cells it recomputed (clipped to
/// the map; empty when `changed` is or lies off the map). O(area of the returned rectangle * size).
/// Asserts when `size` is outside 1..kMaxUnitSize or the two fields differ in size.
TIDE_API CellRect update_sized_cost_field(const CostField& terrain, int size, CellRect changed, CostField& sized);

}  // namespace tide
