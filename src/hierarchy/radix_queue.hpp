#pragma once
// RadixQueue (internal): the open list of the graph search of a HierarchicalField (route_search.cpp).

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>
#include "tide/detail/compat.hpp"

namespace tide::hier_detail {

// The open list of the graph search: a monotone priority queue (a radix heap) over keys f >= 0,
// compared as the bit patterns of the doubles (which order like the values). With a consistent
// heuristic A* pops keys in non-decreasing order, so a push never goes below the last pop; one
// that would (float rounding of the landmark bounds) is raised to it and comes out next, as a
// binary heap would give it. Pops cost a few bucket moves instead of a heap's log n cache misses
// (a 4096x4096 corner-to-corner search: 32,000 pops from a list of up to 10,000 items).
class RadixQueue {
public:
    bool empty() const noexcept { return size_ == 0; }
    void clear() noexcept {
        for (auto& b : buckets_) b.clear();
        size_ = 0;
        last_ = 0;
        used_ = 0;
    }
    void push(double f, std::int32_t node) {
        const std::uint64_t k = std::max(key(f), last_);
        put({k, node});
        ++size_;
    }
    // Removes and returns a node of least key (the queue must not be empty).
    std::int32_t pop() {
        if (buckets_[0].empty()) {
            // The first bucket with entries, from the mask (a scan of the empty ones was a quarter of
            // the search's instructions: the keys are doubles, so the buckets in use sit ~40 up).
            const std::size_t i = static_cast<std::size_t>(std::countr_zero(used_)) + 1;
            std::vector<Entry>& b = buckets_[i];
            std::uint64_t least = b.front().key;
            for (const Entry& e : b) least = std::min(least, e.key);
            last_ = least;
            used_ &= ~(std::uint64_t{1} << (i - 1));
            for (const Entry& e : b) put(e);  // all to buckets below i
            b.clear();
        }
        const std::int32_t node = buckets_[0].back().node;
        buckets_[0].pop_back();
        --size_;
        return node;
    }
    // Gives every queued node a new key f(node) (which may be lower than the last pop).
    template <class F>
    void rekey(F&& f) {
        scratch_.clear();
        for (auto& b : buckets_) scratch_.insert(scratch_.end(), b.begin(), b.end());
        clear();
        for (const Entry& e : scratch_) push(f(e.node), e.node);
    }
    std::size_t memory_bytes() const noexcept {
        std::size_t n = scratch_.capacity();
        for (const auto& b : buckets_) n += b.capacity();
        return n * sizeof(Entry);
    }

private:
    struct Entry {
        std::uint64_t key;
        std::int32_t node;
    };
    static std::uint64_t key(double f) noexcept { return f > 0.0 ? tide::detail::bit_cast<std::uint64_t>(f) : 0; }
    void put(const Entry& e) {
        const std::size_t i = index(e.key);
        buckets_[i].push_back(e);
        if (i > 0) used_ |= std::uint64_t{1} << (i - 1);
    }
    std::size_t index(std::uint64_t k) const noexcept {
        return k == last_ ? 0 : static_cast<std::size_t>(64 - std::countl_zero(k ^ last_));
    }
    std::array<std::vector<Entry>, 65> buckets_;
    std::vector<Entry> scratch_;
    std::uint64_t last_ = 0;
    std::uint64_t used_ = 0;  // bit i - 1: bucket i (1..64) has entries
    std::size_t size_ = 0;
};

}  // namespace tide::hier_detail
