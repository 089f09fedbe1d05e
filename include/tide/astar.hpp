#pragma once
/// \file astar.hpp
/// A* for single units: the same cost model and corner rule as the fields (see flow_field.hpp),
/// an admissible octile heuristic, flat arrays and no per-node allocation. Few units, or units
/// with different goals, are better served by A* than by a whole field: see choose_planner().

#include <cstdint>
#include <span>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide {

/// A* search engine over one cost field snapshot. Keeps its buffers between searches, so repeated
/// searches on the same map allocate nothing once warm. One instance per thread.
class TIDE_API PathFinder {
public:
    /// An engine for `cost` (copied: later edits need reset()), with buffers from `memory`.
    /// Errors: a bad diagonal factor.
    static Result<PathFinder> create(const CostField& cost, const FieldParams& params = {},
                                     std::pmr::memory_resource* memory = std::pmr::get_default_resource());

    /// Takes a new snapshot of `cost` (after terrain edits); keeps the buffers when the size is unchanged.
    void reset(const CostField& cost);

    /// Least cost from `start` to `goal` (+infinity when no path exists). When `path` is given it
    /// receives the cells from start to goal inclusive (empty when there is no path).
    /// Errors: start or goal off the map or on a wall.
    Result<double> find_path(Cell start, Cell goal, std::pmr::vector<Cell>* path = nullptr);

    /// Cells expanded by the last search (for statistics).
    std::size_t expanded() const noexcept { return expanded_; }

private:
    PathFinder(const FieldParams& params, std::pmr::memory_resource* memory);

    struct Entry {
        double f;
        double g;
        std::int32_t cell;
    };

    FieldParams params_;
    int width_ = 0, height_ = 0, pw_ = 0;
    double min_cost_ = 1.0;
    std::pmr::vector<Cost> cost_;            // padded with a wall border
    std::pmr::vector<double> g_;             // best known cost from start
    std::pmr::vector<std::uint32_t> seen_;   // generation stamp: g_/parent_ valid when == generation_
    std::pmr::vector<std::uint8_t> parent_;  // move that reached the cell (direction code)
    std::pmr::vector<Entry> heap_;           // binary heap, lazy deletion
    std::uint32_t generation_ = 0;
    std::size_t expanded_ = 0;
};

/// Which planner suits a group of units sharing one goal.
enum class Planner { astar_per_unit, flow_field };

/// Group size from which one flow field costs less than one A* per unit, measured by
/// `tide bench fields` on the classic weighted 256x256 map (20% walls, forest 3, swamp 6): one
/// field build costs about as much as two to three A* searches (docs/performance/baselines.md).
/// On open uniform-cost maps A* stays cheaper for larger groups; measure yours and use the
/// three-argument overload.
inline constexpr int kFlowFieldCrossoverUnits = 3;

/// Picks A* per unit below kFlowFieldCrossoverUnits units sharing a goal, a flow field from there on.
constexpr Planner choose_planner(int units_sharing_goal) noexcept {
    return units_sharing_goal >= kFlowFieldCrossoverUnits ? Planner::flow_field : Planner::astar_per_unit;
}

/// Picks the cheaper plan from the host's own measurements: a field when one build costs no more
/// than `units_sharing_goal` A* searches.
constexpr Planner choose_planner(int units_sharing_goal, double field_build_ms, double astar_ms_per_unit) noexcept {
    return field_build_ms <= units_sharing_goal * astar_ms_per_unit ? Planner::flow_field : Planner::astar_per_unit;
}

}  // namespace tide
