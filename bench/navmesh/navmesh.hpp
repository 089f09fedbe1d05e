#pragma once
// A Recast/Detour navigation mesh of a Tide grid map, for `tide bench navmesh` (issue: NavMesh or
// flow field?). Only the benchmark builds this (librecast-dev); the library stays free of it.
//
// The mesh: every passable cell is a walkable voxel of the floor (cell size 1, so one voxel per
// cell, in cell units), walls are holes, agent radius 0, no simplification of the contours (they
// follow the cell edges exactly), tiles of `tile` cells (a Detour tile holds at most 65,535
// vertices), polygons of up to 6 vertices. Recast is y-up: the grid's x is Recast's x, the grid's
// y is Recast's z, the floor is at height 0.

#include <cstddef>
#include <memory>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide::navmesh {

/// What a bake made and what it cost.
struct BakeStats {
    double bake_ms = 0.0;    ///< Recast (voxels to polygons) and Detour (tile data) for the whole map.
    std::size_t bytes = 0;   ///< Detour tile data (the mesh a game keeps).
    int tiles = 0;           ///< Tiles with polygons.
    int polys = 0;           ///< Polygons.
    int verts = 0;           ///< Vertices.
};

/// One path query's answer.
struct PathAnswer {
    bool found = false;          ///< A path to the goal's polygon (not a partial one).
    double length = 0.0;         ///< Length of the straight path (string-pulled corners), cells.
    std::vector<Vec2> corners;   ///< Its corners, start and end included (when asked for).
};

/// A baked mesh and a query on it (one thread).
class NavMesh {
public:
    /// Bakes `cost` (walls are holes; every other cost is walkable floor). Errors: a tile that
    /// Recast or Detour refuses (too many vertices, out of memory), named with its coordinates.
    static Result<std::unique_ptr<NavMesh>> bake(const CostField& cost, int tile = 128);
    ~NavMesh();
    NavMesh(const NavMesh&) = delete;
    NavMesh& operator=(const NavMesh&) = delete;

    /// findNearestPoly + findPath + findStraightPath from a to b (cell units). With `corners`,
    /// PathAnswer::corners is filled.
    PathAnswer path(Vec2 a, Vec2 b, bool corners = false);
    /// What the bake made.
    const BakeStats& stats() const noexcept { return stats_; }

private:
    struct Impl;
    explicit NavMesh(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
    BakeStats stats_;
};

}  // namespace tide::navmesh
