// Wall margins: a derived cost layer. A cell is in the margin when a wall lies in the square of
// side 2r + 1 centred on it, or the square reaches past the map edge. One summed-area table of
// wall counts answers every square in O(1), so the cost is O(W*H) whatever r is.

#include <algorithm>
#include <string>
#include <vector>

#include "tide/cost_field.hpp"

namespace tide {

Result<CostField> wall_margin_cost_field(const CostField& cost, const WallMargin& margin) {
    if (margin.radius < 0 || margin.radius > kMaxWallMarginRadius) {
        return Error{"wall margin radius " + std::to_string(margin.radius) + " is outside 0.." +
                     std::to_string(kMaxWallMarginRadius)};
    }
    if (margin.extra < 0 || margin.extra > kCostMax - 1) {
        return Error{"wall margin extra cost " + std::to_string(margin.extra) + " is outside 0..253"};
    }
    CostField out = cost;
    if (!has_margin(margin)) return out;
    const int w = cost.width();
    const int h = cost.height();
    const int r = margin.radius;
    const auto cells = cost.cells();
    // sum[(y + 1) * (w + 1) + (x + 1)] = walls in [0, x] x [0, y].
    const std::size_t sw = static_cast<std::size_t>(w) + 1;
    std::vector<std::uint32_t> sum(sw * (static_cast<std::size_t>(h) + 1), 0);
    for (int y = 0; y < h; ++y) {
        std::uint32_t row = 0;
        for (int x = 0; x < w; ++x) {
            row += cells[static_cast<std::size_t>(y) * w + x] == kCostWall ? 1u : 0u;
            sum[(y + 1) * sw + (x + 1)] = sum[y * sw + (x + 1)] + row;
        }
    }
    auto out_cells = out.cells();
    for (int y = 0; y < h; ++y) {
        const bool edge_y = y - r < 0 || y + r >= h;
        const std::size_t y0 = static_cast<std::size_t>(std::max(0, y - r));
        const std::size_t y1 = static_cast<std::size_t>(std::min(h - 1, y + r)) + 1;
        for (int x = 0; x < w; ++x) {
            Cost& c = out_cells[static_cast<std::size_t>(y) * w + x];
            if (c == kCostWall) continue;
            bool near = edge_y || x - r < 0 || x + r >= w;
            if (!near) {
                const std::size_t x0 = static_cast<std::size_t>(x - r);
                const std::size_t x1 = static_cast<std::size_t>(x + r) + 1;
                near = sum[y1 * sw + x1] - sum[y0 * sw + x1] - sum[y1 * sw + x0] + sum[y0 * sw + x0] > 0;
            }
            if (near) c = static_cast<Cost>(std::min(static_cast<int>(kCostMax), c + margin.extra));
        }
    }
    return out;
}

}  // namespace tide
