#pragma once
/// \file test_maps.hpp
/// Small helpers shared by the tests: maps from ASCII art, seeded random maps, and a memory
/// resource that counts allocations.

#include <atomic>
#include <cstdint>
#include <memory_resource>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/flow_field.hpp"

namespace tide::test {

/// Builds a cost field from rows of characters: '.' 1, 'F' 3, '~' 6, '#' wall, '1'..'9' that
/// cost, 'A'..'E' 10, 20, 30, 40, 50, 'Z' 254. Fails the current test on an unknown character
/// or ragged rows (and returns a 1x1 field).
CostField grid_from_rows(const std::vector<std::string_view>& rows);

/// A uniform integer in [lo, hi] from `rng` (modulo; bias is irrelevant for tests).
int random_int(std::mt19937& rng, int lo, int hi);

/// A random cost for a terrain edit: a wall one time in three, else plain, forest, 1..6 or 1..254.
Cost random_edit_cost(std::mt19937& rng);

/// How costs are drawn for a random map.
enum class CostMix {
    plain,       ///< All 1.
    small,       ///< 1..4: many exact ties.
    presets,     ///< Mostly 1, some forest 3 and swamp 6, a few 254.
    full_range,  ///< Uniform 1..254.
};

/// One random test case.
struct RandomCase {
    CostField cost;
    std::vector<Cell> goals;
    FieldParams params;
    std::string description;  ///< Seed, size, mix and params, for failure messages.
};

/// A random case: size 1x1..max_side x max_side, walls 0..40 %, 1..3 goals on passable cells,
/// a cost mix and params chosen by the case number. Deterministic for a given `seed`.
RandomCase make_random_case(std::uint32_t seed, int max_side);

/// A memory resource that forwards to `upstream` and counts calls and bytes (thread-safe).
class CountingResource : public std::pmr::memory_resource {
public:
    explicit CountingResource(std::pmr::memory_resource* upstream = std::pmr::new_delete_resource())
        : upstream_(upstream) {}
    std::size_t allocations() const noexcept { return allocations_.load(); }
    std::size_t deallocations() const noexcept { return deallocations_.load(); }
    std::size_t bytes_allocated() const noexcept { return bytes_.load(); }
    void reset_counts() noexcept { allocations_ = deallocations_ = bytes_ = 0; }

private:
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        ++allocations_;
        bytes_ += bytes;
        return upstream_->allocate(bytes, align);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
        ++deallocations_;
        upstream_->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    std::pmr::memory_resource* upstream_;
    std::atomic<std::size_t> allocations_{0};
    std::atomic<std::size_t> deallocations_{0};
    std::atomic<std::size_t> bytes_{0};
};

}  // namespace tide::test
