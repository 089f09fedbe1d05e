#pragma once
// The crowd's proximity grid: a uniform grid of square buckets over the map, wrapped onto a small
// torus, and a stable counting sort of the agents by bucket (then slot), so the agents of one
// bucket row sit side by side and a neighbour query is a few contiguous runs of entries.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/jobs.hpp"

namespace tide::detail {

class SpatialHash {
public:
    explicit SpatialHash(std::pmr::memory_resource* memory);

    /// Sizes the grid for a width x height map (cells), buckets at least `range` cells wide (and at
    /// least 1), and a torus of about two buckets per agent for `agents` agents.
    void configure(int width, int height, float range, std::size_t agents);

    /// Sorts entries 0..n-1 by the bucket of (px, py), then by slot inside a bucket (an order that
    /// depends on the agents only, never on the entry order). Afterwards order()[k] is the entry
    /// that goes to place k, and the query functions describe the agents in that sorted order.
    void sort(const float* px, const float* py, const std::uint32_t* slot, std::size_t n, JobSystem& jobs);

    /// Entry to put at each sorted place (valid after sort()).
    const std::uint32_t* order() const noexcept { return order_.data(); }

    /// Calls run(begin, end), row by row and left to right, for each run of sorted places whose
    /// agents lie in the buckets that the square of half-width `reach` (at most one bucket width)
    /// around (x, y) touches, widened by a rounding margin: mostly 2 x 2 or 3 x 3, at most 4 x 4
    /// (distinct on the torus, which is at least 4 x 4). Every agent within `reach` on both axes
    /// is in one of them. Skipping the buckets beyond the reach leaves the order of the agents
    /// within it as the full 3 x 3 scan gives it.
    template <class Run>
    void for_each_near(float x, float y, float reach, Run&& run) const {
        const std::uint32_t* const start = bucket_start_.data();
        // The margin absorbs the rounding (an extra bucket only adds candidates the range test drops).
        const float lo_x = (x - reach) * inv_cell_ - kMargin, hi_x = (x + reach) * inv_cell_ + kMargin;
        const float lo_y = (y - reach) * inv_cell_ - kMargin, hi_y = (y + reach) * inv_cell_ + kMargin;
        const int qx0 = lo_x <= 0.0f ? 0 : std::min(w_ - 1, static_cast<int>(lo_x));
        const int qy0 = lo_y <= 0.0f ? 0 : std::min(h_ - 1, static_cast<int>(lo_y));
        const int qx1 = std::min(w_ - 1, static_cast<int>(hi_x)), qy1 = std::min(h_ - 1, static_cast<int>(hi_y));
        for (int qy = qy0; qy <= qy1; ++qy) {
            const std::uint32_t b0 = bucket(qx0, qy), b1 = bucket(qx1, qy);
            if (b0 <= b1) {
                run(start[b0], start[b1 + 1]);  // the row's buckets are adjacent
            } else {
                for (int qx = qx0; qx <= qx1; ++qx) {  // the row wraps around the torus
                    const std::uint32_t b = bucket(qx, qy);
                    run(start[b], start[b + 1]);
                }
            }
        }
    }

private:
    // Of a bucket width: above the rounding of x * inv_cell_ against x / cell_ on the largest maps
    // (positions up to 16384: 1/512).
    static constexpr float kMargin = 1.0f / 64.0f;

    std::uint32_t bucket(int bx, int by) const noexcept {
        return (static_cast<std::uint32_t>(bx) & mask_x_) | ((static_cast<std::uint32_t>(by) & mask_y_) << shift_);
    }

    // Grid cells of cell_ map cells, w_ x h_ of them over the map, wrapped onto a torus of
    // (mask_x_ + 1) x (mask_y_ + 1) buckets, powers of two of at least 4 each: a small map is
    // stored whole, a big map with few agents costs little. The 3x3 cells around an agent never
    // share a bucket, and a row of them that does not wrap is one contiguous run of sorted agents.
    float cell_ = 1.0f;
    float inv_cell_ = 1.0f;  // 1 / cell_ for the queries' bounds (the sort divides; the margin covers the rounding)
    int w_ = 0, h_ = 0;
    std::uint32_t mask_x_ = 7, mask_y_ = 7;
    int shift_ = 3;  // log2(mask_x_ + 1)
    std::size_t buckets_ = 64;
    std::pmr::vector<std::uint32_t> bucket_start_, key_, order_, order_key_;
};

}  // namespace tide::detail
