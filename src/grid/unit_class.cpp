#include "tide/unit_class.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "tide/assert.hpp"

namespace tide {
namespace {

// A walled block and a block with a wall have the same maximum, 255: the sliding maximum alone
// decides passability, except for blocks that run off the map, which the callers wall.
static_assert(kCostWall == 255 && kCostMax < kCostWall, "walls must be the dearest cost");

// out[i] = max(in[i], ..., in[i + s - 1]) for i in [0, n - s]; the van Herk / Gil-Werman scheme:
// within each block of s elements a suffix maximum, and the prefix maximum of the next block, so
// every window costs one comparison whatever s is. `suffix` holds n bytes.
void sliding_max(const Cost* in, int n, int s, Cost* out, Cost* suffix) {
    for (int b = 0; b < n; b += s) {
        const int e = std::min(b + s, n);
        suffix[e - 1] = in[e - 1];
        for (int i = e - 2; i >= b; --i) suffix[i] = std::max(suffix[i + 1], in[i]);
    }
    for (int b = 0; b + s - 1 < n; b += s) {
        out[b] = suffix[b];  // the window is exactly the block
        Cost prefix = 0;     // max of in[b + s .. i + s - 1]
        for (int i = b + 1; i < b + s && i + s - 1 < n; ++i) {
            prefix = std::max(prefix, in[i + s - 1]);
            out[i] = std::max(suffix[i], prefix);
        }
    }
}

// The same scheme down the columns of the w x h `cells`, in place, with whole rows as the
// elements (row-major and vectorisable, where a column walk would miss the cache at every cell):
// row y becomes the maximum of rows y .. y + s - 1, for y in [0, h - s]. `suffix` holds s rows,
// `prefix` one. In place is safe: a block's rows are read into `suffix` before they are written,
// and the next block's rows are only read.
void sliding_max_rows(Cost* cells, int w, int h, int s, Cost* suffix, Cost* prefix) {
    const auto row = [cells, w](int y) { return cells + static_cast<std::ptrdiff_t>(y) * w; };
    const auto max_into = [w](Cost* out, const Cost* a, const Cost* b) {
        for (int x = 0; x < w; ++x) out[x] = std::max(a[x], b[x]);
    };
    for (int b = 0; b + s - 1 < h; b += s) {
        Cost* const last = suffix + static_cast<std::ptrdiff_t>(s - 1) * w;
        std::copy_n(row(b + s - 1), w, last);
        for (int k = s - 2; k >= 0; --k) max_into(suffix + k * w, suffix + (k + 1) * w, row(b + k));
        std::copy_n(suffix, w, row(b));
        std::fill_n(prefix, w, Cost{0});
        for (int k = 1; k < s && b + k + s - 1 < h; ++k) {
            max_into(prefix, prefix, row(b + k + s - 1));
            max_into(row(b + k), suffix + k * w, prefix);
        }
    }
}

}  // namespace

Result<CostField> sized_cost_field(const CostField& terrain, int size, std::pmr::memory_resource* memory) {
    if (size < 1 || size > kMaxUnitSize) {
        return Error{"unit size " + std::to_string(size) + " is outside 1.." + std::to_string(kMaxUnitSize)};
    }
    if (size == 1) return CostField(terrain, memory);
    auto made = CostField::create(terrain.width(), terrain.height(), kCostWall, memory);
    if (!made) return made.error();
    CostField sized = std::move(made.value());
    const int w = terrain.width();
    const int h = terrain.height();
    if (w < size || h < size) return sized;  // no block fits: all wall

    // Rows first into `sized`, then its columns in place. Cells whose block runs off the right or
    // bottom edge keep the wall they were created with.
    const std::span<const Cost> in = terrain.cells();
    const std::span<Cost> out = sized.cells();
    std::pmr::vector<Cost> scratch(static_cast<std::size_t>(size + 1) * w, 0, memory);
    for (int y = 0; y < h; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * w;
        sliding_max(in.data() + row, w, size, out.data() + row, scratch.data());
    }
    sliding_max_rows(out.data(), w, h, size, scratch.data(), scratch.data() + static_cast<std::ptrdiff_t>(size) * w);
    for (int y = h - size + 1; y < h; ++y) {
        std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(y) * w, w, kCostWall);
    }
    return sized;
}

CellRect sized_cells_touched(CellRect changed, int size, int width, int height) {
    // Sized cell (x, y) covers terrain columns x .. x + size - 1, so it overlaps columns [x0, x1]
    // when x0 - size + 1 <= x <= x1 (rows alike).
    const CellRect on_map{std::max(changed.x0, 0), std::max(changed.y0, 0), std::min(changed.x1, width - 1),
                          std::min(changed.y1, height - 1)};
    if (on_map.empty()) return {};
    return CellRect{std::max(on_map.x0 - size + 1, 0), std::max(on_map.y0 - size + 1, 0), on_map.x1, on_map.y1};
}

CellRect update_sized_cost_field(const CostField& terrain, int size, CellRect changed, CostField& sized) {
    TIDE_ASSERT(size >= 1 && size <= kMaxUnitSize);
    TIDE_ASSERT(sized.width() == terrain.width() && sized.height() == terrain.height());
    // Only terrain cells on the map can have changed.
    const CellRect r = sized_cells_touched(changed, size, terrain.width(), terrain.height());
    if (r.empty()) return {};

    // Row maxima of the terrain rows the blocks reach (clipped to the map), then column maxima.
    const int cols = r.x1 - r.x0 + 1;
    const int last_row = std::min(r.y1 + size - 1, terrain.height() - 1);
    std::vector<Cost> row_max(static_cast<std::size_t>(last_row - r.y0 + 1) * cols, kCostWall);
    for (int y = r.y0; y <= last_row; ++y) {
        for (int x = r.x0; x <= r.x1 && x + size <= terrain.width(); ++x) {
            Cost m = 0;
            for (int k = 0; k < size; ++k) m = std::max(m, terrain.at(x + k, y));
            row_max[static_cast<std::size_t>(y - r.y0) * cols + (x - r.x0)] = m;
        }
    }
    for (int y = r.y0; y <= r.y1; ++y) {
        for (int x = r.x0; x <= r.x1; ++x) {
            Cost m = kCostWall;  // blocks off the bottom edge (and, through row_max, the right edge)
            if (y + size <= terrain.height()) {
                m = 0;
                for (int k = 0; k < size; ++k) {
                    m = std::max(m, row_max[static_cast<std::size_t>(y + k - r.y0) * cols + (x - r.x0)]);
                }
            }
            sized.set(x, y, m);
        }
    }
    return r;
}

}  // namespace tide
