#pragma once
/// \file generate.hpp
/// Map generation: the random weighted benchmark maps, mazes, and the built-in maps of the demo
/// and the tools; the project's one random number generator.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/result.hpp"
#include "tide/unit_class.hpp"

namespace tide {

/// splitmix64: a tiny, portable, well-mixed generator (the same sequence on every platform).
struct SplitMix64 {
    std::uint64_t state = 0;  ///< The whole state; any value is a valid seed.
    /// The next 64 random bits.
    std::uint64_t next() noexcept {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform integer in [0, n) (n > 0; the modulo bias is below 2^-40 for n below 2^24).
    std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }
};

/// A random map: each cell independently wall / forest / swamp / plain.
struct RandomMapSpec {
    int width = 256;       ///< Columns, 1..kMaxDimension.
    int height = 256;      ///< Rows, 1..kMaxDimension.
    double walls = 0.20;   ///< Fraction of walls, 0..1.
    double forest = 0.15;  ///< Fraction of forest (cost 3).
    double swamp = 0.07;   ///< Fraction of swamp (cost 6); the three fractions sum to at most 1.
    std::uint64_t seed = 1;
};

/// Makes the map; error when a size or fraction is out of range. The classic 256x256 benchmark
/// map is `generate_random_map({})`.
TIDE_API Result<CostField> generate_random_map(const RandomMapSpec& spec);

/// A perfect maze of `rooms_x` x `rooms_y` rooms (each 1..5000): rooms and corridors 2 cells
/// wide, walls 1 cell thick, so the map is 3 * rooms + 1 cells on a side; a few rooms are forest
/// or swamp. Exactly one route joins any two rooms.
TIDE_API Result<CostField> generate_maze(int rooms_x, int rooms_y, std::uint64_t seed);

/// A named map with its default goal.
struct BuiltinMap {
    CostField cost;                        ///< The terrain.
    std::vector<Cell> goals;               ///< Its default goal set.
    std::optional<CellRect> spawn_area{};  ///< Where its units start (cells, inclusive); none: anywhere.
};

/// Names of the built-in maps, in menu order: default (the embedded 64x40 map), random256 (the
/// benchmark map, seed 1), maze (121x121), large (1024x1024 random), huge (4096x4096 random, seed
/// 1, the fractions of the benchmark map: goal at the centre, units starting in the 512x512 block
/// at cells 128..639 of both axes, so that routes cross a quarter of the map; big enough to plan
/// hierarchically in a World).
TIDE_API const std::vector<std::string>& builtin_map_names();
/// Makes a built-in map; error for an unknown name.
TIDE_API Result<BuiltinMap> make_builtin_map(std::string_view name);

}  // namespace tide
