#pragma once
/// \file steering.hpp
/// "Which way?" for engines that move their own units (their own physics, character controller or
/// integrator) and use Tide only for directions. A Steering reads one field or plan (a FieldView:
/// what FieldService::view() or a FieldBuilder gives) on one terrain, in the host's world units
/// (GridTransform), and answers three questions of increasing quality:
///   - move(): the raw move of the cell a point lies in (8 directions);
///   - sample(): the wall-safe flow direction (FlowField::sample(): smooth, never into a wall);
///   - steer(): the direction straightened by line of sight along the field's path, as Tide's own
///     crowd walks (no zig-zag on open ground, corners taken round), kept clear of walls for the
///     unit's radius. With a SteerMemory per unit, the line of sight is looked for again only every
///     few cells, as the crowd does; without, every call looks.
/// Every query has a batch form (structure of arrays, no allocation). examples/host_steering.cpp
/// moves units with its own integrator.
///
/// Threads: a Steering is immutable once made; any number of threads may query it (each unit's
/// SteerMemory belongs to one thread at a time). The terrain and the field must outlive it and stay
/// unchanged while it is queried: after a terrain edit or a new field generation, make a new one.

#include <cstdint>
#include <span>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"
#include "tide/grid_transform.hpp"
#include "tide/result.hpp"

namespace tide {

/// How a Steering straightens. Plain settings.
struct SteerParams {
    /// Unit radius in cells, 0 <= radius < 8: straight lines keep the unit's disc this far from
    /// walls and costlier ground, and steer() turns the unit's step away from walls it would touch.
    float radius = 0.0f;
    /// Unit size in cells, 1..kMaxUnitSize (unit_class.hpp): a unit of size s reads the field at its
    /// top-left cell, (s - 1) / 2 cells up and left of its centre (the field must be built for it).
    int size = 1;
    /// How many moves along the field's path a unit looks for a straight way, 1..65536.
    int look_ahead = 1024;
    /// Aim just off the corner the path turns round (tight corners, a unit alone) instead of at the
    /// cell centres half a cell off the walls (better among many units).
    bool corners = true;
};

/// What one unit remembers between steer() calls: where it last looked and what it saw. Host-owned,
/// one per unit; a default-constructed one has seen nothing (reset it when the unit teleports or
/// changes field, or it will simply look again when it enters another cell).
struct SteerMemory {
    std::uint32_t from = 0xffffffffu;  ///< Field cell the unit looked from (none yet).
    std::uint32_t seen = 0xffffffffu;  ///< Furthest path cell it saw (none).
    Vec2 aim{0.0f, 0.0f};              ///< Point it aims at, cell units.
};

/// Directions for a host's own movement code. See the file comment.
class TIDE_API Steering {
public:
    /// A steering over `view` (not empty) on `terrain` (the map the field was built on, same size),
    /// in the world of `transform`. Straightening applies when the field charges every move the
    /// terrain's price (a goal field or plan built on the terrain, or on its sized costs for
    /// params.size > 1); on other fields (flee, mixed, margins, a class's costs) steer() is sample().
    /// O(cells) once, to check that. Errors: an empty view, a size mismatch, params or transform out
    /// of range (the message names the value).
    static Result<Steering> create(FieldView view, const CostField& terrain, const SteerParams& params = {},
                                   const GridTransform& transform = {});

    /// The raw move of the cell under `world` as a world-axis unit vector; (0, 0) at a goal, in a
    /// wall, cut off or off the map.
    Vec2 move(Vec2 world) const;
    /// The wall-safe flow direction at `world` (FlowField::sample(), HierarchicalField::sample()),
    /// world axes.
    Vec2 sample(Vec2 world) const;
    /// The straightened direction at `world`, looking again every call. World axes, unit length,
    /// (0, 0) where sample() is.
    Vec2 steer(Vec2 world) const;
    /// steer() that looks again only when the unit has walked a few cells since it last looked
    /// (or when what it saw is near), remembering in `memory`.
    Vec2 steer(Vec2 world, SteerMemory& memory) const;

    /// move() for many positions: x and y in, directions out (equal lengths).
    void move(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
              std::span<float> out_y) const;
    /// sample() for many positions.
    void sample(std::span<const float> xs, std::span<const float> ys, std::span<float> out_x,
                std::span<float> out_y) const;
    /// steer() with memory for many units (`memory` holds one entry per unit).
    void steer(std::span<const float> xs, std::span<const float> ys, std::span<SteerMemory> memory,
               std::span<float> out_x, std::span<float> out_y) const;

    /// True when steer() straightens (see create()); false: steer() is sample().
    bool straightens() const noexcept { return sight_; }
    /// The field or plan read.
    const FieldView& view() const noexcept { return view_; }
    /// The world transform.
    const GridTransform& transform() const noexcept { return transform_; }
    /// The settings.
    const SteerParams& params() const noexcept { return params_; }

private:
    Steering() = default;
    Vec2 steer_grid(Vec2 f, SteerMemory& memory, bool always) const;
    Vec2 keep_clear(Vec2 f, Vec2 dir) const;
    float clearance(Vec2 centre, float limit) const;
    bool step_safe(Vec2 f, Vec2 d) const;

    FieldView view_;
    const CostField* terrain_ = nullptr;
    SteerParams params_;
    GridTransform transform_;
    bool sight_ = false;
};

}  // namespace tide
