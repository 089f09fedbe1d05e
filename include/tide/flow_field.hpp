#pragma once
/// \file flow_field.hpp
/// Integration and flow fields, and the engine that builds them.
///
/// Cost model (forward costs): a move from x to a neighbour y costs `length * cost(y)`,
/// length 1 for orthogonal moves and `diagonal_factor` (default sqrt 2) for diagonal ones.
/// A diagonal move is legal only when both orthogonally adjacent cells are passable (no corner
/// cutting). The integration value of x is the least total cost of a path x -> nearest goal.
/// Positions are in cell units (see cost_field.hpp).

#include <cstdint>
#include <limits>
#include <memory_resource>
#include <span>
#include <vector>

#include "tide/cost_field.hpp"
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

/// The finished result of one build: the integration field (least cost to the nearest goal, float,
/// +inf when unreachable) and the flow field (one `Direction` byte per cell): 5 bytes per cell.
/// Immutable once built, so any number of threads may read it; share it by `shared_ptr<const FlowField>`.
class FlowField {
public:
    /// An empty 0 x 0 field; its buffers come from `memory`.
    explicit FlowField(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
        : integration_(memory), directions_(memory) {}

    int width() const noexcept { return width_; }    ///< Columns.
    int height() const noexcept { return height_; }  ///< Rows.
    /// True when (x, y) lies on the field.
    bool contains(int x, int y) const noexcept { return x >= 0 && y >= 0 && x < width_ && y < height_; }

    /// Least total cost from every cell to its nearest goal, row-major; kUnreachable for walls and cut-off cells.
    std::span<const float> integration() const noexcept { return integration_; }
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

    /// Flow direction at a continuous position: bilinear blend of the unit vectors of the four cells
    /// whose centres surround `p`, skipping walls and cells without a move, falling back to the move
    /// of the cell containing `p` when the blend vanishes; normalised. (0, 0) when `p` is off the map
    /// or neither gives a direction (at a goal, in a wall, or cut off).
    Vec2 sample(Vec2 p) const;

    /// Bytes held by the two layers (the 5-bytes-per-cell budget).
    std::size_t memory_bytes() const noexcept {
        return integration_.capacity() * sizeof(float) + directions_.capacity() * sizeof(Direction);
    }

private:
    friend class FieldBuilder;
    int width_ = 0;
    int height_ = 0;
    std::pmr::vector<float> integration_;
    std::pmr::vector<Direction> directions_;
};

/// Builds integration and flow fields. Keeps its scratch buffers between builds, so building a new
/// field on a map of the same size allocates nothing. One builder per thread; builders are cheap.
class FieldBuilder {
public:
    /// A builder whose scratch buffers come from `memory`.
    explicit FieldBuilder(std::pmr::memory_resource* memory = std::pmr::get_default_resource());

    /// Builds both layers for `goals` (the nearest goal wins) into `out` (its buffers are reused).
    /// Errors: no goal, a goal off the map or on a wall, a bad diagonal factor. On error `out` is unchanged.
    Result<void> build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params, FlowField& out);

    /// Builds only the integration layer into `out` (row-major, resized to W*H); same errors as build().
    Result<void> build_integration(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                   std::pmr::vector<float>& out);

    /// The field of a goal set that lies entirely in walls: every passable cell unreachable, walls
    /// marked as walls (what a planner shows when terrain edits bury every goal).
    void build_unreachable(const CostField& cost, FlowField& out);

    /// Least cost from (x, y) to the nearest goal as computed by the last build, at full precision
    /// (relative error below 1.5e-8, or 4e-6 on maps of over ~1e8 open cells with dear costs; the
    /// FlowField stores it as float; flow_path_cost() sums in double); +inf for walls and cut-off
    /// cells. Valid until the next build.
    double exact_integration(int x, int y) const;

    /// Number of cells settled by the last build (reachable cells), for statistics.
    std::size_t settled_cells() const noexcept { return settled_; }

private:
    Result<void> integrate(const CostField& cost, std::span<const Cell> goals, const FieldParams& params);

    struct Link {
        std::int32_t next;
        std::int32_t prev;
    };
    int pw_ = 0, ph_ = 0;         // padded size: map plus a one-cell wall border
    using Fixed = std::uint64_t;  // distance in units of 2^-frac_ (see the .cpp)
    static constexpr int kFractionBits = 25;
    static constexpr Fixed kNotReached = Fixed{1} << 55;  // above any real value
    int frac_ = kFractionBits;                            // fraction bits of the last build
    std::pmr::vector<Fixed> dist_;                        // padded words: (value << 8) | cost; walls 255
    Fixed orth_price_[256] = {};                          // price of an orthogonal move into a cell of each cost
    Fixed diag_price_[256] = {};                          // ... and of a diagonal move
    // A byte type that, unlike unsigned char, does not alias everything: stores to it let the
    // compiler keep the search state in registers.
    enum class Code : std::uint8_t {};
    std::pmr::vector<Code> via_;                // padded: best move so far, by tie rank (see the .cpp)
    std::pmr::vector<Link> links_;              // bucket lists: one node per padded cell, then sentinels
    std::pmr::vector<std::uint64_t> occupied_;  // one bit per possibly non-empty bucket
    std::size_t settled_ = 0;
};

/// Cost of following the flow from `cell` to its goal, summed move by move in double precision:
/// the cell's integration value to full precision (the builder's fixed point rounds each diagonal
/// price to 2^-25). +inf for walls and cut-off cells. `cost` and `params` must be the build's.
/// O(length of the path).
double flow_path_cost(const CostField& cost, const FlowField& field, const FieldParams& params, Cell cell);

/// flow_path_cost() for every cell at once, row-major into `out` (size W*H), in O(W*H): each path
/// is walked once and shared suffixes are reused.
void flow_path_costs(const CostField& cost, const FlowField& field, const FieldParams& params, std::span<double> out);

/// Convenience: builds a fresh field with a temporary builder.
Result<FlowField> build_flow_field(const CostField& cost, std::span<const Cell> goals, const FieldParams& params = {});

}  // namespace tide
