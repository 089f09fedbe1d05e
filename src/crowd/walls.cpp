// Wall push-out: a disc moved out of the wall and off-map cells it overlaps, shared by every phase
// that moves agents (integration, the contact passes, the deep pass) and by adding and teleporting.

#include <algorithm>
#include <cmath>

#include "phases.hpp"

namespace tide::crowd_detail {

bool push_out_of_walls(const CostField& cost, float r, float ox, float oy, float& x, float& y, float& vx, float& vy) {
    {
        // Most discs touch only open cells: one look at the (at most 2 x 2) cells of the disc's
        // bounding box, inside the map, settles it without the passes below.
        const int x0 = floor_to_int(x - r), x1 = floor_to_int(x + r);
        const int y0 = floor_to_int(y - r), y1 = floor_to_int(y + r);
        if (x0 >= 0 && y0 >= 0 && x1 < cost.width() && y1 < cost.height() && x1 - x0 <= 1 && y1 - y0 <= 1) {
            const Cost* const row0 = cost.cells().data() + static_cast<std::size_t>(y0) * cost.width();
            const Cost* const row1 = row0 + static_cast<std::size_t>(y1 - y0) * cost.width();
            if (row0[x0] != kCostWall && row0[x1] != kCostWall && row1[x0] != kCostWall && row1[x1] != kCostWall)
                return false;
        }
    }
    bool hit = false;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1 && !hit) break;  // nothing moved: a second pass would find the same
        // Only the cells the disc's bounding box touches (usually one, at most four: r <= 0.5).
        const int x0 = floor_to_int(x - r), x1 = floor_to_int(x + r);
        const int y0 = floor_to_int(y - r), y1 = floor_to_int(y + r);
        for (int wy = y0; wy <= y1; ++wy) {
            for (int wx = x0; wx <= x1; ++wx) {
                if (cost.passable(wx, wy)) continue;
                const float qx = std::clamp(x, static_cast<float>(wx), static_cast<float>(wx + 1));
                const float qy = std::clamp(y, static_cast<float>(wy), static_cast<float>(wy + 1));
                float nxv = x - qx, nyv = y - qy;
                const float d2 = nxv * nxv + nyv * nyv;
                if (d2 >= r * r) continue;
                hit = true;
                if (d2 < 1e-12f) {
                    if (!cost.passable(floor_to_int(x), floor_to_int(y))) {
                        x = ox;  // centre inside the wall: back to the last safe point
                        y = oy;
                        vx = vy = 0.0f;
                        continue;
                    }
                    // Centre exactly on the wall's edge: push straight away from the wall cell.
                    const float cx = x - (static_cast<float>(wx) + 0.5f), cy = y - (static_cast<float>(wy) + 0.5f);
                    if (std::fabs(cx) >= std::fabs(cy)) {
                        x = (cx > 0.0f ? static_cast<float>(wx + 1) + r : static_cast<float>(wx) - r);
                        if (vx * cx < 0.0f) vx = 0.0f;
                    } else {
                        y = (cy > 0.0f ? static_cast<float>(wy + 1) + r : static_cast<float>(wy) - r);
                        if (vy * cy < 0.0f) vy = 0.0f;
                    }
                    continue;
                }
                const float d = std::sqrt(d2);
                nxv /= d;
                nyv /= d;
                x = qx + nxv * r;
                y = qy + nyv * r;
                const float into = vx * nxv + vy * nyv;
                if (into < 0.0f) {
                    vx -= into * nxv;
                    vy -= into * nyv;
                }
            }
        }
    }
    return hit;
}

}  // namespace tide::crowd_detail
