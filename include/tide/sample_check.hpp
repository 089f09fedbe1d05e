#pragma once
/// \file sample_check.hpp
/// An independent check of the wall-safe sampling guarantee (FlowField::sample(),
/// HierarchicalField::sample(), Steering): at every point of a fine lattice in the cells next to a
/// wall or the map's edge, a step along the direction of up to kSampleReach cells must enter no
/// wall cell, stay on the map and pass no wall corner. Written apart from the sampler (double
/// precision, every grid line the step crosses), for tests and `tide verify`.

#include <cstddef>
#include <functional>
#include <vector>

#include "tide/export.h"
#include "tide/field_view.hpp"
#include "tide/flow_field.hpp"

namespace tide {

/// One position whose sampled direction fails the guarantee.
struct SampleFault {
    Vec2 position;              ///< Where it was sampled (cell units).
    Vec2 direction;             ///< What the sampler gave.
    Cell wall;                  ///< The wall cell (or off-map cell) the step reaches, or whose corner it cuts.
    bool no_direction = false;  ///< Instead: (0, 0) in a cell that has a move.
};

/// What check_sample_safety() found.
struct SampleCheck {
    std::size_t cells = 0;           ///< Cells checked (passable, next to a wall or the edge).
    std::size_t positions = 0;       ///< Positions sampled.
    std::size_t faults = 0;          ///< Positions that fail.
    std::vector<SampleFault> first;  ///< The first few faults (at most 8), for the message.
};

/// Checks `view.sample()` at lattice x lattice points per cell (at (i + 0.5) / lattice) of every
/// passable cell of the view next to a wall or the map's edge. Walls: the field's wall cells (a
/// plan: the costs it was made on). 1 <= lattice <= 256.
TIDE_API SampleCheck check_sample_safety(const FieldView& view, int lattice = 16);
/// The same for any sampler over the view's walls (to show that a sampler fails the check).
TIDE_API SampleCheck check_sample_safety(const FieldView& view, const std::function<Vec2(Vec2)>& sampler,
                                         int lattice = 16);
/// True when a step from `p` along `d` (a unit vector) of `length` cells enters no cell for which
/// `blocked(x, y)` is true and passes no vertex with a blocked cell beside it (the corner rule);
/// `wall` receives the first offending cell. Double precision; crossings within 1e-7 of each other
/// count as one vertex.
TIDE_API bool step_is_clear(const std::function<bool(int, int)>& blocked, Vec2 p, Vec2 d, double length, Cell* wall);

}  // namespace tide
