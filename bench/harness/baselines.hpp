#pragma once
// Baselines for `tide bench fields` and the Google Benchmark cases in bench/: the textbook
// flow-field build tutorials show, a 4-direction Dijkstra map, Boost.Graph's Dijkstra on the same
// graph, and A* per unit. Same cost model as Tide (a move x -> y costs length * cost(y), sqrt 2
// diagonals, no corner cutting). These are yardsticks, kept plain on purpose; none is used by the
// library.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tide/astar.hpp"
#include "tide/cost_field.hpp"
#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"

namespace tide::bench {

/// Output of the textbook build, row-major: least cost to the goal per cell (+inf when unreachable or a
/// wall) and the move of each cell as a Direction code (0..7 = kDirectionDx/Dy, 8 = no move).
struct TextbookField {
    std::vector<double> dist;
    std::vector<std::uint8_t> direction;
};

/// The textbook flow-field build as tutorials write it: a std::priority_queue Dijkstra from the goal
/// over 8 directions with vectors sized per call, then a "lowest-integration neighbour" flow pass.
/// (The lowest neighbour is not the best move where costs differ; Tide's flow pass fixes that.)
/// Throws std::runtime_error when the goal is off the map or on a wall (as do the other baselines).
void textbook_field(const CostField& cost, Cell goal, TextbookField& out);

/// A 4-direction Dijkstra map in the same textbook style: least cost to the goal per cell, +inf when
/// unreachable. `out` is replaced by a vector sized in the call.
void dijkstra_map_4dir(const CostField& cost, Cell goal, std::vector<double>& out);

/// Boost.Graph's Dijkstra (dijkstra_shortest_paths_no_color_map, its fastest variant) on the reversed move graph of a
/// map, held in a compressed_sparse_row_graph with a double weight per edge: edge y -> x with weight length * cost(y)
/// for every legal move x -> y, so distances from the goal are forward costs to it. The graph is built
/// once in the constructor; run() times only the search.
class BoostDijkstra {
public:
    explicit BoostDijkstra(const CostField& cost);
    ~BoostDijkstra();
    BoostDijkstra(const BoostDijkstra&) = delete;
    BoostDijkstra& operator=(const BoostDijkstra&) = delete;

    /// Distances from `goal` into a reused vector (predecessors go to a dummy map).
    void run(Cell goal);
    /// Distances of the last run(), row-major, +inf when unreachable or a wall.
    std::span<const double> distances() const noexcept { return dist_; }
    /// Edges in the graph (legal moves).
    std::size_t edge_count() const noexcept;

private:
    struct Graph;
    std::unique_ptr<Graph> graph_;
    int width_ = 0;
    std::vector<double> dist_;
};

/// Runs A* from every start to `goal` (costs only, no path output); returns the summed least costs.
/// Throws std::runtime_error when a search errs or finds no path (the starts must be reachable).
double astar_units(PathFinder& finder, std::span<const Cell> starts, Cell goal);

/// Largest relative difference between `values` (row-major, +inf for no path) and the last build of
/// `builder` (FieldBuilder::exact_integration); +inf when reachability differs anywhere.
double max_relative_difference(std::span<const double> values, const FieldBuilder& builder, int width, int height);

/// Goal for a benchmark map: among the cells of the largest connected region (8 directions, no corner
/// cutting), the one nearest the map centre (ties: lowest row, then column). Never in a small pocket.
/// Error when the map has no passable cell.
Result<Cell> bench_goal(const CostField& cost);

/// `count` random cells reachable from `goal` (other than the goal), drawn with a fixed-seed generator;
/// the first k of the result do not depend on `count`. `field` must be built for `goal`.
std::vector<Cell> random_reachable_starts(const FlowField& field, Cell goal, int count, std::uint64_t seed);

}  // namespace tide::bench
