#pragma once
// Error texts shared by the flee and mixed builds and repairs.

#include <cstdio>
#include <span>
#include <string>

#include "../grid/cell_checks.hpp"
#include "tide/cost_field.hpp"
#include "tide/result.hpp"

namespace tide::fields_detail {

inline std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// The refusal of an edit that walls one of `cells` (goals or dangers: `what`), or nothing.
template <typename Changes>
Result<void> refuse_walled(const Changes& changes, std::span<const Cell> cells, int pw, const char* what) {
    for (const auto& c : changes) {
        if (c.after != kCostWall) continue;
        for (const Cell& g : cells) {
            if ((g.y + 1) * pw + g.x + 1 == c.cell) {
                return Error{ErrorCode::on_wall, std::string("repair: the edit turns ") + what + " " +
                                                     detail::cell_text(g) + " into a wall (build a field for the " +
                                                     "remaining " + what + "s instead)"};
            }
        }
    }
    return {};
}

}  // namespace tide::fields_detail
