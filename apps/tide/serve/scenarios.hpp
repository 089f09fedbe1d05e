#pragma once
// Scenario presets of the demo (`scenario` message, docs/protocol.md): a map and the groups on it,
// loaded into a World through its public commands only.

#include <string>
#include <string_view>
#include <vector>

#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide::serve {

/// The presets, in the order the page lists them: door (1,000 units through a 4-cell gap),
/// counter_flow (two groups crossing in a corridor), evacuation (a room with four exits, every unit
/// to the nearest), maze (the built-in 121x121 maze).
inline const std::vector<std::string>& scenario_names() {
    static const std::vector<std::string> names{"door", "counter_flow", "evacuation", "maze"};
    return names;
}

/// Loads scenario `name` into `world` (its map, named "scenario:<name>", and its groups). Error
/// (the world may hold the scenario's map with fewer groups) for an unknown name.
Result<void> load_scenario(World& world, std::string_view name);

}  // namespace tide::serve
