#include "spatial_hash.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include "../grid/float_to_int.hpp"

namespace tide::detail {

SpatialHash::SpatialHash(std::pmr::memory_resource* memory)
    : bucket_start_(memory), key_(memory), order_(memory), order_key_(memory) {}

void SpatialHash::configure(int width, int height, float range, std::size_t agents) {
    cell_ = std::max(1.0f, range);
    inv_cell_ = 1.0f / cell_;
    w_ = static_cast<int>(std::ceil(static_cast<float>(width) / cell_));
    h_ = static_cast<int>(std::ceil(static_cast<float>(height) / cell_));
    // The torus has about 2 buckets per agent (at least 64) but no more than the grid needs;
    // cells it folds together only add candidates the distance test drops (they are at least
    // two bucket widths apart).
    const std::size_t buckets_max = std::bit_ceil(std::max<std::size_t>(64, 2 * agents));
    std::uint32_t tw = std::max<std::uint32_t>(4, std::bit_ceil(static_cast<std::uint32_t>(w_)));
    std::uint32_t th = std::max<std::uint32_t>(4, std::bit_ceil(static_cast<std::uint32_t>(h_)));
    while (static_cast<std::size_t>(tw) * th > buckets_max && std::max(tw, th) > 4) (tw >= th ? tw : th) /= 2;
    mask_x_ = tw - 1;
    mask_y_ = th - 1;
    shift_ = std::countr_zero(tw);
    buckets_ = static_cast<std::size_t>(tw) * th;
}

void SpatialHash::sort(const float* px, const float* py, const std::uint32_t* slot_of, std::size_t n, JobSystem& jobs) {
    const float cell = cell_;
    const int hw = w_, hh = h_;
    key_.resize(n);
    auto keys = [&](std::size_t begin, std::size_t end) {
        for (std::size_t e = begin; e < end; ++e) {
            const int bx = clamped_int(px[e] / cell, 0, hw - 1);
            const int by = clamped_int(py[e] / cell, 0, hh - 1);
            key_[e] = bucket(bx, by);
        }
    };
    parallel_for(jobs, n, 4096, keys);

    // Counting sort by bucket. Counts go to start[key + 2]; after the prefix sum start[key + 1]
    // is the bucket's first index, and the scatter advances it to the bucket's end, leaving
    // start[b] .. start[b + 1] as bucket b. The entries are still in last sub-step's order, so
    // the scatter reads and writes almost sequentially.
    const std::size_t buckets = buckets_;
    bucket_start_.assign(buckets + 2, 0);
    std::uint32_t* const start = bucket_start_.data();
    const std::uint32_t* const key = key_.data();
    for (std::size_t e = 0; e < n; ++e) ++start[key[e] + 2];
    for (std::size_t b = 3; b < buckets + 2; ++b) start[b] += start[b - 1];
    order_.resize(n);
    order_key_.resize(n);
    std::uint32_t* const order = order_.data();
    std::uint32_t* const order_key = order_key_.data();
    for (std::size_t e = 0; e < n; ++e) {
        const std::uint32_t k = start[key[e] + 1]++;
        order[k] = static_cast<std::uint32_t>(e);
        order_key[k] = key[e];
    }
    // Within a bucket, slot order: neighbour sums then run in an order that depends only on the
    // agents (row, column, slot), never on the entry order. Insertion sort: only agents that
    // changed bucket are out of place.
    for (std::size_t k = 1; k < n; ++k) {
        const std::uint32_t e = order[k], b = order_key[k], s = slot_of[e];
        std::size_t m = k;
        while (m > 0 && order_key[m - 1] == b && slot_of[order[m - 1]] > s) {
            order[m] = order[m - 1];
            --m;
        }
        order[m] = e;
    }
}

}  // namespace tide::detail
