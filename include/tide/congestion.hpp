#pragma once
/// \file congestion.hpp
/// Congestion-aware fields, the crowd's side: measuring the crowd's density (CrowdDensity), from
/// which congestion_layer() makes a group's extra costs. The layer, its settings and
/// congestion_cost_field() are in congestion_layer.hpp (included), which the fields use without
/// the crowd.

#include "tide/congestion_layer.hpp"
#include "tide/cost_field.hpp"
#include "tide/crowd.hpp"
#include "tide/export.h"

namespace tide {

/// Measures `crowd` on its map (`cost`, which gives the size) into `out` (resized; its buffers are
/// reused). Every moving agent counts in the cell of its centre with its disc area (arrived and
/// cut-off agents do not: a settled pack is where its group goes, not a jam); serial, O(agents +
/// cells).
TIDE_API void measure_density(const Crowd& crowd, const CostField& cost, CrowdDensity& out);

}  // namespace tide
