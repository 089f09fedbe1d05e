#pragma once
/// \file field_builder.hpp
/// FieldBuilder, the engine that builds and repairs flow fields (goal, flee and mixed fields), and
/// what a repair keeps between builds (FieldRepairState). The fields themselves, the cost model
/// and the settings are in flow_field.hpp.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide {

namespace detail {
/// A cell's move by tie rank during a build (internal; see src/fields/integration.cpp).
enum class MoveRank : std::uint8_t {};
}  // namespace detail

/// What FieldBuilder::repair() needs to bring a field up to date after terrain edits: the exact
/// fixed-point integration, the move and the cost of every cell as of the last build or repair,
/// and the goals and settings of that build. 9 bytes per cell (plus a one-cell border), on top of
/// the field's 5. A flee field's state adds its exact flee values, moves and ends (13 bytes per cell); a
/// mixed field's adds the danger search's state and the combined costs (10). Filled by
/// FieldBuilder::build(..., state), build_flee(..., state) or build_mixed(..., state); owned by
/// whoever owns the field.
class TIDE_API FieldRepairState {
public:
    /// An empty state; its buffers come from `memory`.
    explicit FieldRepairState(std::pmr::memory_resource* memory = std::pmr::get_default_resource())
        : goals_(memory),
          words_(memory),
          ranks_(memory),
          flee_values_(memory),
          flee_moves_(memory),
          flee_ends_(memory),
          dangers_(memory),
          danger_state_(memory) {}

    bool empty() const noexcept { return words_.empty(); }  ///< True until a build fills it.
    int width() const noexcept { return width_; }           ///< Columns of the field it belongs to.
    int height() const noexcept { return height_; }         ///< Rows.
    /// The kind of field it repairs (a mixed field is a goal field with dangers()).
    FieldKind kind() const noexcept { return kind_; }
    /// The build's goals (a flee field's: its dangers), sorted by row then column, without duplicates.
    std::span<const Cell> goals() const noexcept { return goals_; }
    /// A mixed field's danger cells, sorted likewise; empty for other fields.
    std::span<const Cell> dangers() const noexcept { return dangers_; }
    /// The build's settings.
    const FieldParams& params() const noexcept { return params_; }
    /// Bytes held.
    std::size_t memory_bytes() const noexcept {
        std::size_t n = words_.capacity() * sizeof(std::uint64_t) + ranks_.capacity() +
                        (goals_.capacity() + dangers_.capacity()) * sizeof(Cell) +
                        flee_values_.capacity() * sizeof(std::int64_t) + flee_moves_.capacity() +
                        flee_ends_.capacity() * sizeof(std::int32_t);
        for (const FieldRepairState& d : danger_state_) n += d.memory_bytes();
        return n + (combined_ ? combined_->size() : 0);
    }

private:
    friend class FieldBuilder;
    int width_ = 0;
    int height_ = 0;
    int frac_ = 0;  // fixed-point fraction bits of the build
    FieldParams params_;
    std::pmr::vector<Cell> goals_;
    std::pmr::vector<std::uint64_t> words_;       // padded: (value << 8) | cost, as in the builder
    std::pmr::vector<detail::MoveRank> ranks_;    // padded: the move of each cell, by tie rank
    std::array<std::uint32_t, 256> histogram_{};  // cells of each cost (for the fixed-point scale)
    // Flee fields: words_/ranks_ hold the danger distance D; these the flee values and moves.
    FieldKind kind_ = FieldKind::goal;
    double flee_factor_ = 0.0;
    std::pmr::vector<std::int64_t>
        flee_values_;                            // padded: V, or the lowest int64 for walls and cells no danger reaches
    std::pmr::vector<std::uint8_t> flee_moves_;  // padded: the cell's Direction code
    std::pmr::vector<std::int32_t> flee_ends_;   // padded: the safe spot the cell's flow ends at
    // Mixed fields: words_/ranks_ hold the goal search on combined_ = costs + danger term; the
    // danger search (D) is danger_state_'s one element.
    std::pmr::vector<Cell> dangers_;
    DangerCost danger_{};
    std::pmr::vector<FieldRepairState> danger_state_;
    std::optional<CostField> combined_;
};

/// What one FieldBuilder::repair() did.
struct RepairStats {
    std::size_t changed_cells = 0;  ///< Cells whose cost actually differed.
    std::size_t affected_cells =
        0;  ///< Cells whose path used a dearer or closed move, recomputed from their neighbours.
    std::size_t touched_cells = 0;  ///< Cells whose value or move was rewritten.
    bool rebuilt = false;           ///< A full build was done instead (cheaper, or the fixed-point scale changed).
};

/// What walling some cells would do to a field's reachability (FieldBuilder::would_block).
struct BlockAnswer {
    bool blocks = false;             ///< A reachable cell (or, when spawns are given, a spawn) would lose every path.
    std::size_t cut_off_cells = 0;   ///< Reachable cells, other than the walled ones, that would lose every path.
    std::size_t cut_off_spawns = 0;  ///< Given spawn cells that would (a spawn walled over counts).
    std::size_t examined_cells = 0;  ///< Cells whose flow ran through the walled cells: the work done.
};

/// Builds integration and flow fields. Keeps its scratch buffers between builds, so building a new
/// field on a map of the same size allocates nothing. One builder per thread; builders are cheap.
class TIDE_API FieldBuilder {
public:
    /// A builder whose scratch buffers come from `memory`.
    explicit FieldBuilder(std::pmr::memory_resource* memory = std::pmr::get_default_resource());

    /// Builds both layers for `goals` (the nearest goal wins) into `out` (its buffers are reused).
    /// Errors: no goal, a goal off the map or on a wall, a bad diagonal factor. On error `out` is unchanged.
    Result<void> build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params, FlowField& out);

    /// build(), also keeping in `state` what repair() needs (the exact values and moves).
    Result<void> build(const CostField& cost, std::span<const Cell> goals, const FieldParams& params, FlowField& out,
                       FieldRepairState& state);

    /// Brings `field` and `state` (made together by a build with a state, then maybe repaired) up to
    /// date after cells of `cost` got new costs; `changed` lists them (unchanged or repeated cells
    /// are harmless). Touches only the cells whose value or move changes, or rebuilds when that is
    /// cheaper; the result is bit-identical to a fresh build on `cost`. Errors, with nothing
    /// changed: an empty state, other dimensions, a listed cell off the map, a goal made a wall.
    Result<RepairStats> repair(const CostField& cost, std::span<const Cell> changed, FlowField& field,
                               FieldRepairState& state);
    /// Flee fields (state from build_flee) and mixed fields (from build_mixed) are repaired the same
    /// way, bit-identical to a fresh build_flee() / build_mixed(); an edit that walls a danger is
    /// refused like one that walls a goal.
    /// repair() for the cells of the rectangle [x0, x1] x [y0, y1] (clipped to the map).
    Result<RepairStats> repair_rect(const CostField& cost, int x0, int y0, int x1, int y1, FlowField& field,
                                    FieldRepairState& state);

    /// Would setting `walls` to wall leave a currently reachable cell of `field` (built on `cost`
    /// with `params`) without a path to its goals? With `spawns` given, `blocks` asks about those
    /// cells only. Modifies nothing; costs O(cells whose flow runs through the walls), not a build.
    /// Errors: other dimensions, a cell off the map.
    Result<BlockAnswer> would_block(const CostField& cost, const FlowField& field, const FieldParams& params,
                                    std::span<const Cell> walls, std::span<const Cell> spawns = {});

    /// Builds only the integration layer into `out` (row-major, resized to W*H); same errors as build().
    Result<void> build_integration(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                                   std::pmr::vector<float>& out);

    /// Builds the flee field of `dangers` (one or many) into `out` (kind() == FieldKind::flee).
    /// D(x) = least cost from x to the nearest danger (the usual integration); every cell starts at
    /// -factor x D(x), relaxed over the usual moves: V(x) = min(-factor x D(x), min over legal moves
    /// x -> y of (move cost + V(y))), exact in signed 64-bit fixed point (docs/flee.md). The flow is
    /// the argmin of (move cost + V(y)) where that equals V(x); cells where every move is dearer
    /// are the safe spots (Direction::goal); cells no danger reaches are unreachable. Errors: no
    /// danger, a danger off the map or on a wall, a factor outside (0, kMaxFleeFactor] or NaN, a bad
    /// diagonal factor. On error `out` is unchanged. Afterwards exact_integration() gives D.
    Result<void> build_flee(const CostField& cost, std::span<const Cell> dangers, const FleeParams& flee,
                            const FieldParams& params, FlowField& out);
    /// build_flee(), also keeping in `state` what repair() needs.
    Result<void> build_flee(const CostField& cost, std::span<const Cell> dangers, const FleeParams& flee,
                            const FieldParams& params, FlowField& out, FieldRepairState& state);

    /// The costs of a mixed field: `cost` plus the danger term of `dangers` (DangerCost), computed
    /// from the exact fixed-point danger distance; walls stay walls. Errors: as build_flee() for the
    /// dangers, a weight outside 0..253, a radius outside (0, 65536] or NaN.
    Result<CostField> danger_cost_field(const CostField& cost, std::span<const Cell> dangers, const DangerCost& danger,
                                        const FieldParams& params);
    /// A mixed field: the ordinary goal field of `goals` on danger_cost_field(cost, dangers, danger)
    /// ("go there, but keep away from that"), exact like any goal field. Errors: those of both calls
    /// (a goal may lie on a danger).
    Result<void> build_mixed(const CostField& cost, std::span<const Cell> goals, std::span<const Cell> dangers,
                             const DangerCost& danger, const FieldParams& params, FlowField& out);
    /// build_mixed(), also keeping in `state` what repair() needs.
    Result<void> build_mixed(const CostField& cost, std::span<const Cell> goals, std::span<const Cell> dangers,
                             const DangerCost& danger, const FieldParams& params, FlowField& out,
                             FieldRepairState& state);

    /// The field of a goal set that lies entirely in walls: every passable cell unreachable, walls
    /// marked as walls (what a planner shows when terrain edits bury every goal).
    void build_unreachable(const CostField& cost, FlowField& out);

    /// Least cost from (x, y) to the nearest goal as computed by the last build (or repair: then
    /// valid while its state lives), at full precision
    /// (relative error below 1.5e-8, or 4e-6 on maps of over ~1e8 open cells with dear costs; the
    /// FlowField stores it as float; flow_path_cost() sums in double); +inf for walls and cut-off
    /// cells. Valid until the next build.
    double exact_integration(int x, int y) const;

    /// Number of cells settled by the last build (reachable cells), for statistics.
    std::size_t settled_cells() const noexcept { return settled_; }

private:
    using Fixed = std::uint64_t;  // distance in units of 2^-frac_ (see the .cpp)
    using Code = detail::MoveRank;
    struct Search;  // the phases of integrate() (src/fields/integration.cpp)
    Result<void> integrate(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                           std::pmr::vector<Fixed>& dist, std::pmr::vector<Code>& via);
    void set_prices(int frac, double diagonal_factor);
    static int fraction_bits(std::size_t open_cells, Cost hi);
    void write_field(const CostField& cost, FlowField& out) const;
    int start_changes(const FieldRepairState& state);
    Result<void> check_repair(const CostField& cost, const FlowField& field, const FieldRepairState& state) const;
    struct GoalRepair;  // the phases of repair_changes() (src/fields/repair.cpp)
    Result<RepairStats> repair_changes(const CostField& cost, FlowField* field, FieldRepairState& state);
    Result<void> rebuild(const CostField& cost, FlowField* field, FieldRepairState& state);
    void keep_search(const CostField& cost, std::span<const Cell> goals, const FieldParams& params,
                     FieldRepairState& state) const;
    Result<void> check_flee_factor(double factor) const;
    Result<void> check_danger_cost(const DangerCost& danger) const;
    void flee_relax(const CostField& cost, const Fixed* dist, const Code* via, double factor, bool eight,
                    FlowField& out, FieldRepairState* state);
    void flee_output(const std::int64_t* value, const std::uint8_t* moves, const std::int32_t* ends,
                     std::span<const std::int32_t> cells, FlowField& out) const;
    void danger_costs(const CostField& cost, const Fixed* dist, const Code* via, int frac, const DangerCost& danger,
                      std::span<const std::int32_t> cells, CostField& out) const;
    Result<RepairStats> repair_kind(const CostField& cost, FlowField& field, FieldRepairState& state);
    struct FleeRepair;  // the phases of repair_flee() (src/fields/flee_repair.cpp)
    Result<RepairStats> repair_flee(const CostField& cost, FlowField& field, FieldRepairState& state);
    Result<RepairStats> repair_mixed(const CostField& cost, FlowField& field, FieldRepairState& state);

    struct Link {
        std::int32_t next;
        std::int32_t prev;
    };
    int pw_ = 0, ph_ = 0;  // padded size: map plus a one-cell wall border
    static constexpr int kFractionBits = 25;
    static constexpr Fixed kNotReached = Fixed{1} << 55;  // above any real value
    int frac_ = kFractionBits;                            // fraction bits of the last build
    std::pmr::vector<Fixed> dist_;                        // padded words: (value << 8) | cost; walls 255
    Fixed orth_price_[256] = {};                          // price of an orthogonal move into a cell of each cost
    Fixed diag_price_[256] = {};                          // ... and of a diagonal move
    // Code is a byte type that, unlike unsigned char, does not alias everything: stores to it let
    // the compiler keep the search state in registers.
    std::pmr::vector<Code> via_;                // padded: best move so far, by tie rank (see the .cpp)
    const Fixed* last_dist_ = nullptr;          // the last build's values: dist_ or a state's words
    const Code* last_via_ = nullptr;            // ... and moves
    std::pmr::vector<Link> links_;              // bucket lists: one node per padded cell, then sentinels
    std::pmr::vector<std::uint64_t> occupied_;  // one bit per possibly non-empty bucket
    std::size_t settled_ = 0;
    // Repair scratch: per padded cell flags, the cells flagged, and the repair's priority queue.
    struct QueueEntry {
        Fixed value;
        std::int32_t cell;
    };
    std::pmr::vector<std::uint8_t> flags_;
    std::pmr::vector<std::int32_t> affected_;
    std::pmr::vector<std::int32_t> touched_;
    struct Change {
        std::int32_t cell;  // padded index
        Cost before;
        Cost after;
    };
    std::pmr::vector<Change> changed_;
    struct BlockQuery;                            // the phases of would_block() (src/fields/block_query.cpp)
    std::pmr::vector<std::uint8_t> block_flags_;  // would_block(): per cell, unpadded
    std::pmr::vector<std::int32_t> rescue_;       // would_block(): cells found connected
    std::pmr::vector<QueueEntry> heap_;
    // Flee scratch (src/fields/flee_field.cpp, flee_repair.cpp): signed fixed-point values, settle order, queues.
    struct FleeEntry {
        std::int64_t value;
        std::int32_t cell;
    };
    Result<void> check_dangers(const CostField& cost, std::span<const Cell> dangers) const;
    std::pmr::vector<std::int64_t> flee_value_;  // padded: V, or kFleeNone for walls and cells no danger reaches
    std::pmr::vector<std::uint8_t> flee_move_;   // padded: each cell's Direction code
    std::pmr::vector<std::int32_t> flee_end_;    // padded: the safe spot each cell's flow ends at
    std::pmr::vector<std::int32_t> flee_list_;   // repair: cells whose move or end is recomputed
    std::pmr::vector<std::int32_t> flee_dirty_;  // repair: cells the danger search rewrote
    std::pmr::vector<Change> flee_changes_;      // repair: the terrain changes (changed_ is reused)
    std::pmr::vector<std::int32_t> flee_order_;  // padded cells in the order they were settled (ascending V)
    std::pmr::vector<FleeEntry> flee_seeds_;     // every reached cell with its start value, sorted by bucket
    std::pmr::vector<FleeEntry> flee_sorted_;    // counting sort output
    std::pmr::vector<std::size_t> flee_count_;   // counting sort: cells per bucket
    std::pmr::vector<std::pmr::vector<FleeEntry>> flee_ring_;  // improved cells, by bucket modulo the ring
};

/// Convenience: builds a fresh field with a temporary builder.
TIDE_API Result<FlowField> build_flow_field(const CostField& cost, std::span<const Cell> goals,
                                            const FieldParams& params = {});

}  // namespace tide
