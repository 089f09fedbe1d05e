#pragma once
/// \file grid_transform.hpp
/// Where the grid lies in a host's world: an origin, a cell size and the direction of each axis.
/// Tide works in cell units (cell (x, y) covers [x, x+1) x [y, y+1), row 0 first); a host that keeps
/// its units in world units converts through one GridTransform so every call rounds the same way:
/// a world point lies in the cell floor(to_grid(point)). A world on the XZ plane (Unity, Godot)
/// passes (x, z) as the Vec2.

#include <cmath>
#include <string>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide {

/// world = origin + cell_size * (±grid.x, ±grid.y); the default is the identity (cell units).
struct GridTransform {
    Vec2 origin{0.0f, 0.0f};  ///< World position of the grid point (0, 0): the outer corner of cell (0, 0).
    float cell_size = 1.0f;   ///< World units per cell; finite and > 0.
    bool flip_x = false;      ///< World x decreases as the column grows.
    bool flip_y = false;      ///< World y decreases as the row grows (y-up worlds with row 0 on top).

    /// A y-up world whose map has `rows` rows, its bottom-left corner at `bottom_left`: row 0 is the
    /// top row, as in a .map file drawn on screen.
    static GridTransform y_up(Vec2 bottom_left, float cell_size, int rows) noexcept {
        return {{bottom_left.x, bottom_left.y + cell_size * static_cast<float>(rows)}, cell_size, false, true};
    }

    /// Error unless the origin is finite and the cell size finite and > 0 (names the value).
    Result<void> check() const {
        if (!std::isfinite(origin.x) || !std::isfinite(origin.y))
            return Error{ErrorCode::invalid_argument, "grid origin (" + std::to_string(origin.x) + ", " +
                                                          std::to_string(origin.y) + ") is not finite"};
        if (!(cell_size > 0.0f) || !std::isfinite(cell_size))
            return Error{ErrorCode::invalid_argument,
                         "cell size " + std::to_string(cell_size) + " must be finite and greater than 0"};
        return {};
    }

    /// A world position in cell units.
    Vec2 to_grid(Vec2 world) const noexcept {
        const float gx = (world.x - origin.x) / cell_size, gy = (world.y - origin.y) / cell_size;
        return {flip_x ? -gx : gx, flip_y ? -gy : gy};
    }
    /// A position in cell units in world units.
    Vec2 to_world(Vec2 grid) const noexcept {
        return {origin.x + cell_size * (flip_x ? -grid.x : grid.x), origin.y + cell_size * (flip_y ? -grid.y : grid.y)};
    }
    /// A direction (or velocity per cell) in cell units turned into world axes; lengths keep their
    /// unit (a unit vector stays a unit vector).
    Vec2 direction_to_world(Vec2 d) const noexcept { return {flip_x ? -d.x : d.x, flip_y ? -d.y : d.y}; }
    /// A world direction in grid axes (the inverse of direction_to_world()).
    Vec2 direction_to_grid(Vec2 d) const noexcept { return direction_to_world(d); }
    /// The cell a world position lies in (may be off the map; check with CostField::contains()). A
    /// NaN or a coordinate beyond 2^30 cells gives -2^30 for that coordinate (off every map).
    Cell cell_of(Vec2 world) const noexcept {
        const Vec2 g = to_grid(world);
        return {floor_cell(g.x), floor_cell(g.y)};
    }
    /// World position of a cell's centre.
    Vec2 cell_centre(Cell c) const noexcept {
        return to_world({static_cast<float>(c.x) + 0.5f, static_cast<float>(c.y) + 0.5f});
    }
    /// floor(v) as a cell coordinate, guarded: -2^30 for NaN and values outside +-2^30.
    static int floor_cell(float v) noexcept {
        constexpr float kFar = 1073741824.0f;
        return v > -kFar && v < kFar ? static_cast<int>(std::floor(v)) : -(1 << 30);
    }
    /// True for the identity transform (cell units).
    bool identity() const noexcept {
        return origin.x == 0.0f && origin.y == 0.0f && cell_size == 1.0f && !flip_x && !flip_y;
    }
};

}  // namespace tide
