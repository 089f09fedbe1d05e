#pragma once
// CSV output of the fields (the contracts of `tide field --dist-csv / --next-csv`).

#include <string>

#include "tide/flow_field.hpp"

namespace tide::cli {

/// H lines of W values: least cost to the nearest goal with 9 significant digits, or `inf`, summed
/// in double precision along each cell's flow path (flow_path_costs).
void write_dist_csv(const CostField& cost, const FlowField& field, const FieldParams& params, const std::string& path);

/// H lines of W values: the field's integration layer as stored (float; for a flee field the flee
/// values, negative), 9 significant digits, or `inf`.
void write_values_csv(const FlowField& field, const std::string& path);

/// H lines of W integers: y*W+x of the cell the flow moves to, or -1 (goals and safe spots, walls, unreachable).
void write_next_csv(const FlowField& field, const std::string& path);

/// The two layers as stored: W*H float32 integration values (little-endian), then W*H direction
/// codes; what the WebAssembly build's tests compare byte for byte.
void write_raw_layers(const FlowField& field, const std::string& path);

}  // namespace tide::cli
