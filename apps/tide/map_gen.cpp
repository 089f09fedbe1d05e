#include "map_gen.hpp"

#include <cmath>
#include <string>

namespace tide::cli {

Result<CostField> generate_random_map(const RandomMapSpec& s) {
    for (const auto& [name, v] :
         {std::pair{"--walls", s.walls}, std::pair{"--forest", s.forest}, std::pair{"--swamp", s.swamp}}) {
        if (!(v >= 0.0 && v <= 1.0)) return Error{std::string(name) + " " + std::to_string(v) + " is outside 0..1"};
    }
    if (s.walls + s.forest + s.swamp > 1.0 + 1e-12) {
        return Error{"--walls + --forest + --swamp = " + std::to_string(s.walls + s.forest + s.swamp) + " exceeds 1"};
    }
    auto cost = CostField::create(s.width, s.height);
    if (!cost) return cost.error();
    SplitMix64 rng{s.seed};
    for (Cost& c : cost->cells()) {
        const double r = rng.uniform();
        c = r < s.walls                        ? kCostWall
            : r < s.walls + s.forest           ? kCostForest
            : r < s.walls + s.forest + s.swamp ? kCostSwamp
                                               : kCostPlain;
    }
    return cost;
}

}  // namespace tide::cli
