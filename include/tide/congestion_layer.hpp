#pragma once
/// \file congestion_layer.hpp
/// Congestion-aware fields: a density term from the crowd added to the costs a group's field plans
/// on, so a crowd spreads over parallel routes instead of queueing in one (as Continuum Crowds'
/// unit cost does with its density and average-velocity fields).
///
/// Two derived layers, the map itself is never changed:
/// - CrowdDensity: per cell, the area of the moving units' discs in it (fixed point, 1/kDensityScale of
///   a cell) and their summed velocity weighted by that area. Integers, so the sums are the same
///   in any order; measured serially from the crowd's previous step, so they are a function of
///   the simulation state alone.
/// - CongestionLayer: per cell, the cost one group adds for the crowd there, from the covered
///   fraction f of the open cells around it and the crowd's mean velocity along the group's flow
///   (as Continuum Crowds' speed field): below `threshold` the crowd flows freely; from `full` up
///   the group expects the crowd's own speed along its way, v (at least a tenth of the terrain's
///   speed), and in between a blend. The cell's cost c then becomes c / s, s the expected fraction
///   of the terrain's speed, and the layer adds `density_weight` x (c / s - c), plus
///   `counter_weight` x the covered fraction moving against the group (at the crowd's top speed).
///   Rounded to whole cost units and capped at `max_extra`. So a dense lane that flows along the
///   group's way costs nothing more, a queue or a crowd coming the other way does.
///   congestion_cost_field() adds the layer to the planning costs, capped at kCostMax: walls stay
///   walls, passable cells stay passable.
///
/// The crowd measures the density (measure_density, congestion.hpp); the layers are fields' inputs,
/// so the field service (FieldOptions::congestion) needs this header only. World (world.hpp,
/// WorldConfig::congestion) measures the density and refreshes every group's field through the
/// field service a few times per simulated second; units steer by the congested field and measure
/// arrival and progress on the plain one (Crowd::set_group_steering). Other hosts can do the same
/// with these functions.

#include <cstdint>
#include <memory>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/result.hpp"

namespace tide {

/// Fixed-point scale of CrowdDensity::cover: a disc area of one whole cell counts kDensityScale.
inline constexpr int kDensityScale = 1024;
/// Fixed-point scale of the velocities in CrowdDensity::flow_x / flow_y: 1 cell/s counts kFlowScale.
inline constexpr int kFlowScale = 64;

/// How congestion enters the fields. Plain settings.
struct CongestionParams {
    bool enabled = false;         ///< World only: refresh the groups' fields with the density term.
    float refresh_hz = 4.0f;      ///< World only: refreshes per simulated second, 0.5..30.
    float density_weight = 1.0f;  ///< Share of the expected delay added as cost (1: the time lost), 0..253.
    float threshold = 0.15f;      ///< Covered fraction up to which the crowd flows freely, 0..1.
    float full = 0.45f;           ///< Covered fraction from which the crowd's own speed counts fully,
                                  ///< threshold..1 (a disc area of one cell covers 1).
    float counter_weight = 8.0f;  ///< Cost added by a fully covered cell moving against the group's
                                  ///< flow at the crowd's top speed, 0..253.
    int radius = 1;               ///< The density is averaged over the open cells of the (2r + 1)^2
                                  ///< square around each cell, 0..8.
    int max_extra = 60;           ///< Largest cost congestion adds to a cell, 0..253.
    friend bool operator==(const CongestionParams&, const CongestionParams&) = default;
};

/// Checks the ranges of CongestionParams (see each member); error naming the first bad value.
TIDE_API Result<void> check_congestion_params(const CongestionParams& params);

/// The crowd's density on a W x H map, quantised (see the file comment). Row-major, y * W + x.
struct CrowdDensity {
    int width = 0;                     ///< Columns.
    int height = 0;                    ///< Rows.
    std::vector<std::uint32_t> cover;  ///< Disc area in the cell, 1/kDensityScale cells.
    std::vector<std::int32_t> flow_x;  ///< Sum of area x velocity x, (1/kDensityScale cell) x (1/kFlowScale cells/s).
    std::vector<std::int32_t> flow_y;  ///< Same for y.
};

/// The extra cost of every cell for one group: one byte per cell (0 on walls), and a hash of it.
struct CongestionLayer {
    int width = 0;                    ///< Columns.
    int height = 0;                   ///< Rows.
    std::vector<std::uint8_t> extra;  ///< Added cost per cell, 0..253, row-major.
    std::uint64_t hash = 0;           ///< Of the size and every byte (set by congestion_layer()).
};

/// The congestion layer of a group that follows `field` (its flow gives "against the group"; null:
/// density only) on `cost`, from `density` measured on the same map, for a crowd whose top speed is
/// `top_speed` cells/s. Error when the sizes differ or the params are out of range. O(cells).
TIDE_API Result<CongestionLayer> congestion_layer(const CrowdDensity& density, const CostField& cost,
                                                  const FlowField* field, float top_speed,
                                                  const CongestionParams& params);

/// `cost` plus `layer`: each passable cell costs min(kCostMax, cost + extra); walls stay walls.
/// A derived layer, `cost` is not changed. Error when the sizes differ.
TIDE_API Result<CostField> congestion_cost_field(const CostField& cost, const CongestionLayer& layer);

}  // namespace tide
