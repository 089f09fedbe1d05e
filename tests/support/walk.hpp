#pragma once
// A unit's walk as the line-of-sight tests measure it: the length it travelled and the largest
// change of its heading from the first heading counted.

#include <algorithm>
#include <cmath>
#include <limits>

#include "tide/crowd.hpp"

namespace tide::test {

struct Walk {
    Vec2 last;
    double length = 0.0;                                                   // cells travelled
    double first = std::numeric_limits<double>::quiet_NaN(), worst = 0.0;  // radians

    explicit Walk(Vec2 start) : last(start) {}

    /// Adds the step to `p`; the heading of velocity `v` counts when `heading` is set and the
    /// unit moves at 1 cell/s or more (turning and slowing at the goal left out).
    void add(Vec2 p, Vec2 v, bool heading) {
        length += std::hypot(p.x - last.x, p.y - last.y);
        last = p;
        if (!heading || std::hypot(v.x, v.y) < 1.0) return;
        const double h = std::atan2(v.y, v.x);
        if (std::isnan(first)) first = h;
        worst = std::max(worst, std::fabs(h - first));
    }
    /// Largest heading change, degrees.
    double turn_deg() const { return worst * 180.0 / 3.14159265358979; }
    /// Travelled length plus what is left to `end`, over the straight line from `start` to `end`.
    double ratio(Vec2 start, Vec2 end) const {
        return (length + std::hypot(end.x - last.x, end.y - last.y)) / std::hypot(end.x - start.x, end.y - start.y);
    }
};

}  // namespace tide::test
