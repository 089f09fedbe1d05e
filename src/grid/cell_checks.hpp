#pragma once
// Error texts about cells, shared by the builder, the path finder, the field service and the
// world, so a goal off the map reads the same wherever it is refused.

#include <string>
#include <string_view>

#include "tide/cost_field.hpp"
#include "tide/result.hpp"

namespace tide::detail {

/// "(x, y)".
inline std::string cell_text(Cell c) {
    return "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
}

/// "<what> (x, y) is outside the WxH map".
inline Error outside_error(std::string_view what, Cell c, int width, int height) {
    return Error{ErrorCode::off_map, std::string(what) + " " + cell_text(c) + " is outside the " +
                                         std::to_string(width) + "x" + std::to_string(height) + " map"};
}

/// Error when `c` is off the map ("<what> (x, y) is outside the WxH map") or a wall ("<what>
/// (x, y) is on a wall").
inline Result<void> check_open_cell(const CostField& cost, Cell c, std::string_view what) {
    if (!cost.contains(c)) return outside_error(what, c, cost.width(), cost.height());
    if (cost.at(c) == kCostWall)
        return Error{ErrorCode::on_wall, std::string(what) + " " + cell_text(c) + " is on a wall"};
    return {};
}

}  // namespace tide::detail
