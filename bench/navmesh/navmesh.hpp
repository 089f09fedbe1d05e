#pragma once
// A Recast/Detour navigation mesh of a Tide grid map, and a DetourCrowd on it, for
// `tide bench navmesh` (issue: NavMesh or flow field?). Only this benchmark builds them
// (Debian's librecast-dev); the library stays free of them.
//
// The mesh: every passable cell is walkable floor (2 x 2 voxels per cell by default, in cell
// units), walls are holes, agent radius 0, no simplification of the contours (they
// follow the cell edges exactly), tiles of `tile` cells (a Detour tile holds at most 65,535
// vertices), polygons of up to 6 vertices, watershed or monotone regions (BakeOptions), no detail
// mesh (the floor is flat; rcBuildPolyMeshDetail did not finish on it). Recast is y-up: the grid's
// x is Recast's x, the grid's y is Recast's z, the floor is at height 0.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"
#include "tide/unit_class.hpp"

namespace tide::navmesh {

/// How to bake.
struct BakeOptions {
    /// How Recast cuts the floor into regions (then convex polygons).
    enum class Partition {
        watershed,  ///< rcBuildRegions: RecastDemo's default, the best-shaped polygons; very slow
                    ///< where the floor has thousands of holes (105 s on the 256x256 benchmark map in a one-off trial,
                    ///< one voxel per cell).
        monotone,   ///< rcBuildRegionsMonotone: fast on any floor, long thin polygons.
    };
    Partition partition = Partition::watershed;  ///< Region partition.
    int tile = 128;                              ///< Tile side, cells (8..1024).
    int voxels_per_cell = 2;  ///< Voxels along each side of a cell (1..4). With 1, Recast leaves 2.8% of the
                              ///< cells of the random maps (one-cell nubs and passages) off the mesh; 2 keeps them.
    bool area_costs = false;  ///< Each distinct cell cost becomes a Detour area whose filter cost is that
                              ///< cost (at most 63 distinct costs); off: one walkable area of cost 1.
};

/// What a bake made and what it cost.
struct BakeStats {
    double bake_ms = 0.0;               ///< Recast (voxels to polygons) and Detour (tile data) for the whole map.
    std::size_t bytes = 0;              ///< Detour tile data (the mesh a game keeps).
    int tiles = 0;                      ///< Tiles with polygons.
    int polys = 0;                      ///< Polygons.
    int verts = 0;                      ///< Vertices.
    std::vector<std::string> warnings;  ///< Recast's warnings and errors (what it could not outline).
};

/// One path query's answer.
struct PathAnswer {
    bool found = false;         ///< A path to the goal's polygon (not a partial one).
    double length = 0.0;        ///< Length of the straight path (string-pulled corners), cells.
    std::vector<Vec2> corners;  ///< Its corners, start and end included (when asked for).
    bool out_of_nodes = false;  ///< The search ran out of its 65,535 nodes (Detour's limit): a partial path.
};

/// A baked mesh and a query on it (one thread).
class NavMesh {
public:
    /// Bakes `cost` (walls are holes; every other cost is walkable floor). Errors: a tile that
    /// Recast or Detour refuses (too many vertices, out of memory), named with its coordinates;
    /// more than 63 distinct costs with area_costs.
    static Result<std::unique_ptr<NavMesh>> bake(const CostField& cost, const BakeOptions& options = {});
    ~NavMesh();
    NavMesh(const NavMesh&) = delete;
    NavMesh& operator=(const NavMesh&) = delete;

    /// findNearestPoly + findPath + findStraightPath from a to b (cell units); not found when a
    /// or b is off the mesh. With `corners`, PathAnswer::corners is filled.
    PathAnswer path(Vec2 a, Vec2 b, bool corners = false);
    /// Per cell of `cost` (row-major): 1 when its centre lies on a polygon linked to the polygon
    /// under `goal` (0 for walls, cells off the mesh, and when the goal is off it).
    std::vector<std::uint8_t> reachable_cells(const CostField& cost, Vec2 goal);
    /// Re-bakes the tiles that `changed` (cells, inclusive) touches from `cost` (the map after the
    /// edit; same size and costs as baked otherwise) and swaps them into the mesh. Error as bake().
    Result<void> rebake(const CostField& cost, CellRect changed);
    /// What the bake made.
    const BakeStats& stats() const noexcept { return stats_; }

private:
    friend class DetourCrowd;
    struct Impl;
    explicit NavMesh(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
    BakeStats stats_;
};

/// DetourCrowd on a NavMesh: agents of one radius and top speed, every one steering to one target
/// with Detour's default obstacle avoidance (adaptive sampling, quality 3 of RecastDemo's presets)
/// and its separation, anticipate-turns and optimise-visibility/topology flags on, as the
/// RecastDemo sets them. Not thread-safe; the mesh must outlive it.
class DetourCrowd {
public:
    /// A crowd of at most `max_agents` agents. Error when Detour's init fails.
    static Result<std::unique_ptr<DetourCrowd>> create(NavMesh& mesh, int max_agents, float radius, float max_speed);
    ~DetourCrowd();
    DetourCrowd(const DetourCrowd&) = delete;
    DetourCrowd& operator=(const DetourCrowd&) = delete;

    /// Adds an agent at p moving to `target`. Error when p is off the mesh or the crowd is full.
    Result<void> add_agent(Vec2 p, Vec2 target);
    /// Re-plans every agent's path to `target` (dtCrowd::requestMoveTarget).
    void retarget(Vec2 target);
    /// One dtCrowd::update of `dt` seconds.
    void step(float dt);
    /// Agents in the crowd.
    int size() const noexcept;
    /// Position of agent i, cells.
    Vec2 position(int i) const;
    /// Agents whose path request is still queued or being searched (not yet valid).
    int waiting_for_path() const;

private:
    struct Impl;
    explicit DetourCrowd(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace tide::navmesh
