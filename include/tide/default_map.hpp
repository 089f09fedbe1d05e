#pragma once
/// \file default_map.hpp
/// The embedded default map (64 x 40, Tide text format), in the spirit of the classic flow-field
/// figure: a wall on the left with one 4-cell gap at rows 18..21, forest and swamp patches, open
/// space, a block and a small room with a door. Used by `tide run`, the demo and the tests.

#include <string_view>

#include "tide/cost_field.hpp"
#include "tide/export.h"

namespace tide {

/// Text of the default map in Tide text format.
TIDE_API std::string_view default_map_text() noexcept;

/// The default goal on the default map.
inline constexpr Cell kDefaultGoal{54, 18};

/// The cells of the gap in the default map's left wall (x = 14..15, y = 18..21).
inline constexpr int kDefaultGapX0 = 14, kDefaultGapX1 = 15, kDefaultGapY0 = 18, kDefaultGapY1 = 21;

}  // namespace tide
