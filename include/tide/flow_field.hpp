#pragma once
/// \file flow_field.hpp
/// Integration and flow fields: what a build leaves, read by the crowd and the host (FieldBuilder,
/// field_builder.hpp, builds and repairs them).
///
/// Cost model (forward costs): a move from x to a neighbour y costs `length * cost(y)`,
/// length 1 for orthogonal moves and `diagonal_factor` (default sqrt 2) for diagonal ones.
/// A diagonal move is legal only when both orthogonally adjacent cells are passable (no corner
/// cutting). The integration value of x is the least total cost of a path x -> nearest goal.
/// Positions are in cell units (see cost_field.hpp).

#include <cstdint>
#include <limits>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/result.hpp"

namespace tide {

/// A 2-D vector in cell units.
struct Vec2 {
    float x = 0.0f;
    float y = 0.0f;
    friend bool operator==(const Vec2&, const Vec2&) = default;
};

/// Per-cell flow code: 0..7 is a move direction, the other values say why there is none.
/// Directions run clockwise on screen (y grows down), starting east; even = orthogonal, odd = diagonal.
enum class Direction : std::uint8_t {
    east = 0,
    south_east = 1,
    south = 2,
    south_west = 3,
    west = 4,
    north_west = 5,
    north = 6,
    north_east = 7,
    goal = 8,         ///< A goal cell: stop here.
    unreachable = 9,  ///< Passable but no path to any goal.
    wall = 10,        ///< Impassable cell.
};

/// Number of move directions.
inline constexpr int kDirectionCount = 8;
/// Column step of each move direction.
inline constexpr int kDirectionDx[kDirectionCount] = {1, 1, 0, -1, -1, -1, 0, 1};
/// Row step of each move direction.
inline constexpr int kDirectionDy[kDirectionCount] = {0, 1, 1, 1, 0, -1, -1, -1};
static_assert(static_cast<int>(Direction::north_east) == kDirectionCount - 1 &&
                  static_cast<int>(Direction::goal) == kDirectionCount,
              "move directions must be the codes 0..7, the no-direction codes above them");

/// True when `d` is one of the eight moves.
constexpr bool is_move(Direction d) noexcept {
    return static_cast<std::uint8_t>(d) < kDirectionCount;
}
/// True when `d` is a diagonal move.
constexpr bool is_diagonal(Direction d) noexcept {
    return is_move(d) && (static_cast<int>(d) & 1) != 0;
}

/// Neighbourhood used by a build.
enum class Connectivity : std::uint8_t {
    eight,  ///< Orthogonal and diagonal moves (the default).
    four,   ///< Orthogonal moves only (a "Dijkstra map").
};

/// How a field is built. Plain settings; defaults are the ones games want.
struct FieldParams {
    /// Length of a diagonal move relative to an orthogonal one; 1 <= factor <= 2
    /// (sqrt 2 exact, 1.4 reproduces textbook figures, 1 gives Chebyshev distance).
    double diagonal_factor = 1.4142135623730951;
    Connectivity connectivity = Connectivity::eight;  ///< 8 or 4 directions.
};

/// Integration value of a cell with no path to any goal (and of walls): +infinity, never a finite number.
inline constexpr float kUnreachable = std::numeric_limits<float>::infinity();

/// How far, in cells, a direction from FlowField::sample() (and HierarchicalField::sample()) is
/// guaranteed to lead over free cells.
inline constexpr float kSampleReach = 1.0f;

/// What a FlowField leads to.
enum class FieldKind : std::uint8_t {
    goal,  ///< Toward the nearest goal: integration = least cost to it (>= 0), `goal` cells stop.
    flee,  ///< Away from dangers (FieldBuilder::build_flee): integration = the flee value V (<= 0),
           ///< `goal` cells are the safe spots where no move is as good as staying.
};

/// How a flee field is built (FieldBuilder::build_flee, docs/flee.md). Plain settings.
struct FleeParams {
    /// Every cell starts at -factor x (its least cost to the nearest danger) before the
    /// relaxation; 0 < factor <= kMaxFleeFactor. 1 is the plain negation (runs into dead ends);
    /// above 1 a unit will run past the danger toward open space.
    double factor = 1.2;
};
/// Largest accepted FleeParams::factor (so every flee value fits the signed 64-bit fixed point).
inline constexpr double kMaxFleeFactor = 64.0;

/// The danger term of a mixed field (FieldBuilder::danger_cost_field, build_mixed): a cell whose
/// least cost D to the nearest danger is below `radius` costs `round(weight x (radius - D) /
/// radius)` more (so `weight` more on a danger, nothing from `radius` on), capped at kCostMax.
struct DangerCost {
    int weight = 8;       ///< Extra cost on a danger cell, 0..253.
    double radius = 8.0;  ///< Reach of the term, in cost units (8 = eight plain cells); 0 < radius <= 65536.
};

/// The finished result of one build: the integration field (least cost to the nearest goal, float,
/// +inf when unreachable) and the flow field (one `Direction` byte per cell): 5 bytes per cell.
/// Immutable once built, so any number of threads may read it; share it by `shared_ptr<const FlowField>`.
class TIDE_API FlowField {
public:
    /// An empty 0 x 0 field; its buffers come from `memory`.
    explicit FlowField(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
        : integration_(memory), directions_(memory), to_stop_(memory) {}

    int width() const noexcept { return width_; }    ///< Columns.
    int height() const noexcept { return height_; }  ///< Rows.
    /// True when (x, y) lies on the field.
    bool contains(int x, int y) const noexcept { return x >= 0 && y >= 0 && x < width_ && y < height_; }

    /// What the field leads to (goal field or flee field).
    FieldKind kind() const noexcept { return kind_; }
    /// Least total cost from every cell to its nearest goal, row-major; kUnreachable for walls and
    /// cut-off cells. For a flee field, the flee value V (<= 0; kUnreachable where no danger reaches).
    std::span<const float> integration() const noexcept { return integration_; }
    /// Cost of following the flow from every cell to where it stops (a goal, or a flee field's
    /// safe spot), row-major; kUnreachable for walls and cut-off cells. integration() for goal fields.
    std::span<const float> to_stop() const noexcept { return kind_ == FieldKind::flee ? to_stop_ : integration_; }
    /// Flow code of every cell, row-major.
    std::span<const Direction> directions() const noexcept { return directions_; }

    /// Integration value at (x, y) (asserts when off the field).
    float integration(int x, int y) const;
    /// Flow code at (x, y) (asserts when off the field).
    Direction direction(int x, int y) const;
    /// True when a path from (x, y) to a goal exists (goal cells included).
    bool reachable(int x, int y) const { return integration(x, y) != kUnreachable; }
    /// Unit vector of the move at (x, y); (0, 0) for goals, walls and unreachable cells.
    Vec2 vector(int x, int y) const;
    /// Linear index y*W+x of the cell the flow moves to from (x, y), or -1 when it has no move.
    std::int64_t next_index(int x, int y) const;

    /// Wall-safe flow direction at a continuous position `p` (cell units; cell (x, y) covers
    /// [x, x+1) x [y, y+1)): the blend() when it is safe, else the direction nearest to it, turned
    /// toward the move of the cell containing `p`, that is safe (at worst that move). Guarantee: for `p` in a cell with
    /// a move, a unit moving from `p` along the result by any distance up to kSampleReach (one cell) enters no wall
    /// cell, stays on the map and passes no wall corner (no step between two cells that touch only at a corner beside a
    /// wall: the corner rule of the moves). (0, 0) in goal cells (or safe spots), walls, cut-off cells and off the map.
    /// Unit length otherwise.
    Vec2 sample(Vec2 p) const;
    /// sample() for many positions (structure of arrays, equal lengths; `out_x`/`out_y` may not
    /// alias the inputs). No allocation.
    void sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                std::span<float> out_y) const;
    /// Smooth but not wall-safe: the bilinear blend of the unit vectors of the four cells whose
    /// centres surround `p`, skipping walls and cells without a move, falling back to the move of the
    /// cell containing `p` when the blend vanishes; normalised. Near a wall it can point into the wall
    /// (the crowd, which pushes units out of walls itself, steers by it). (0, 0) when `p` is off the
    /// map or neither gives a direction (at a goal, in a wall, or cut off).
    Vec2 blend(Vec2 p) const;

    /// Bytes held by the layers (5 per cell; 9 for a flee field, which also keeps to_stop()).
    std::size_t memory_bytes() const noexcept {
        return integration_.capacity() * sizeof(float) + directions_.capacity() * sizeof(Direction) +
               to_stop_.capacity() * sizeof(float);
    }

private:
    friend class FieldBuilder;
    Vec2 blend_on_map(Vec2 p) const;
    int width_ = 0;
    int height_ = 0;
    FieldKind kind_ = FieldKind::goal;
    std::pmr::vector<float> integration_;
    std::pmr::vector<Direction> directions_;
    std::pmr::vector<float> to_stop_;  // flee fields only
};

/// Cost of following the flow from `cell` to its goal, summed move by move in double precision:
/// the cell's integration value to full precision (the builder's fixed point rounds each diagonal
/// price to 2^-25). +inf for walls and cut-off cells. `cost` and `params` must be the build's.
/// O(length of the path).
TIDE_API double flow_path_cost(const CostField& cost, const FlowField& field, const FieldParams& params, Cell cell);

/// flow_path_cost() for every cell at once, row-major into `out` (size W*H), in O(W*H): each path
/// is walked once and shared suffixes are reused.
TIDE_API void flow_path_costs(const CostField& cost, const FlowField& field, const FieldParams& params,
                              std::span<double> out);

}  // namespace tide
