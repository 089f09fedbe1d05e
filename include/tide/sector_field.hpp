#pragma once
/// \file sector_field.hpp
/// SectorField: the flow field of one sector of a HierarchicalField (see tide/hierarchy.hpp).

#include <cstdint>
#include <vector>

#include "tide/flow_field.hpp"

namespace tide {

/// One sector's flow field (the sector's cells only, row-major within the sector): 5 bytes per cell.
struct SectorField {
    int x0 = 0;                         ///< Column of the sector's first cell.
    int y0 = 0;                         ///< Row of the sector's first cell.
    int width = 0;                      ///< Columns.
    int height = 0;                     ///< Rows.
    std::vector<float> integration;     ///< Cost to the goals along the planned route; +inf when none.
    std::vector<Direction> directions;  ///< Flow code per cell (as in FlowField).
    std::uint16_t seeded_from = 0;      ///< Bit k: neighbour sector k (E, SE, S, SW, W, NW, N, NE) had a field.
    std::uint32_t build = 0;            ///< Order of the build that made it (1 = first).
    /// Built by route() (it leads into fields all the way to the goals), not alone by ensure_field().
    bool routed = false;
};

}  // namespace tide
