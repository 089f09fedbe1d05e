#include "tide/cost_field.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tide/assert.hpp"

namespace tide {

Result<CostField> CostField::create(int width, int height, Cost fill, std::pmr::memory_resource* memory) {
    if (width < 1 || width > kMaxDimension || height < 1 || height > kMaxDimension) {
        const ErrorCode code =
            width > kMaxDimension || height > kMaxDimension ? ErrorCode::too_large : ErrorCode::invalid_argument;
        return Error{code, "map size " + std::to_string(width) + "x" + std::to_string(height) +
                               " is outside 1..16384 in each dimension"};
    }
    if (fill == 0) return Error{"cost 0 is not allowed (passable costs are 1..254, 255 is a wall)"};
    return CostField(width, height, fill, memory);
}

Cost CostField::at(int x, int y) const {
    TIDE_ASSERT(contains(x, y));
    return cells_[static_cast<std::size_t>(y) * width_ + x];
}

void CostField::set(int x, int y, Cost cost) {
    TIDE_ASSERT(contains(x, y));
    TIDE_ASSERT(cost != 0);
    cells_[static_cast<std::size_t>(y) * width_ + x] = cost;
    ++version_;
}

void CostField::fill_rect(int x0, int y0, int x1, int y1, Cost cost) {
    TIDE_ASSERT(cost != 0);
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, width_ - 1);
    y1 = std::min(y1, height_ - 1);
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) cells_[static_cast<std::size_t>(y) * width_ + x] = cost;
    }
    ++version_;
}

std::optional<Cell> nearest_passable(const CostField& cost, Cell from) {
    // Rings of growing Chebyshev radius r: every cell of ring r is at least r away, so once the
    // best squared distance is below r * r no further ring can beat it. Ties: the first cell in
    // row-major order.
    std::optional<Cell> best;
    long best_d = 0;
    const long limit = static_cast<long>(std::max(cost.width(), cost.height())) +
                       std::max(std::labs(static_cast<long>(from.x)), std::labs(static_cast<long>(from.y)));
    for (long r = 0; r <= limit && (!best || r * r <= best_d); ++r) {
        for (long y = from.y - r; y <= from.y + r; ++y) {
            const long step = (y == from.y - r || y == from.y + r) ? 1 : 2 * r;  // ring cells only
            for (long x = from.x - r; x <= from.x + r; x += std::max(1L, step)) {
                if (x < 0 || y < 0 || x >= cost.width() || y >= cost.height()) continue;
                if (!cost.passable(static_cast<int>(x), static_cast<int>(y))) continue;
                const long d = (x - from.x) * (x - from.x) + (y - from.y) * (y - from.y);
                if (!best || d < best_d || (d == best_d && (y < best->y || (y == best->y && x < best->x)))) {
                    best = Cell{static_cast<int>(x), static_cast<int>(y)};
                    best_d = d;
                }
            }
        }
    }
    return best;
}

}  // namespace tide
