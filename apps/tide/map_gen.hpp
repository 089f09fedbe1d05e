#pragma once
// Random benchmark maps, shared by `tide gen` and `tide bench`.

#include <cstdint>

#include "tide/cost_field.hpp"

namespace tide::cli {

/// Parameters of a random map: each cell independently wall / forest / swamp / plain.
struct RandomMapSpec {
    int width = 256;
    int height = 256;
    double walls = 0.20;
    double forest = 0.15;
    double swamp = 0.07;
    std::uint64_t seed = 1;
};

/// Makes the map; error when a size or fraction is out of range (fractions 0..1, sum <= 1).
Result<CostField> generate_random_map(const RandomMapSpec& spec);

/// splitmix64: a tiny, portable, well-mixed generator (same sequence on every platform).
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace tide::cli
