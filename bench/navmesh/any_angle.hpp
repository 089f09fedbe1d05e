#pragma once
// The exact any-angle shortest distance from points of a grid map to one goal point, around wall
// cells: Dijkstra from the goal over the visibility graph of the walls' convex corners (the
// shortest path among polygonal obstacles bends only at their convex corners), keeping only edges
// tangent to the walls at both ends (an edge that would cut into the wall of its corner is never
// on a shortest path). Walls are grown by 1e-4 cells and corner nodes sit 3e-4 off their corner,
// so a path may not slip through the zero-width gap between two diagonal wall cells (Tide's
// no-corner-cutting rule). Cost O(corners^2): the yardstick of `tide bench navmesh`'s path quality,
// not a pathfinder.

#include <cstddef>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"

namespace tide::navmesh {

/// Distances to one goal point; build once, ask from many points.
class AnyAngle {
public:
    /// Convex wall corners of `cost` (the map's visibility graph nodes), without searching.
    explicit AnyAngle(const CostField& cost);
    /// Number of corner nodes (the search costs about its square).
    std::size_t corners() const noexcept { return nodes_.size(); }
    /// Runs the search from `goal` (a point in a passable cell).
    void search(Vec2 goal);
    /// Shortest distance from `p` to the goal of the last search(); +inf when none.
    double distance(Vec2 p) const;
    /// True when the segment a-b misses every wall cell grown by `grow` cells (negative: shrunk,
    /// so that a path touching wall corners and edges, as a mesh's straight path does, passes).
    bool visible(Vec2 a, Vec2 b, double grow = 1e-4) const;

private:
    struct Node {
        double x, y;
        int quadrant;  // which of the 4 cells round the corner is the wall: bit 0 x side (1: left), bit 1 y side (1:
                       // above)
    };
    bool tangent(const Node& n, double dx, double dy) const;
    bool wall(int x, int y) const { return cost_.contains(x, y) && !cost_.passable(x, y); }

    const CostField& cost_;
    std::vector<Node> nodes_;
    std::vector<double> dist_;
    Vec2 goal_{};
};

}  // namespace tide::navmesh
