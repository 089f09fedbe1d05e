#pragma once
/// \file scenarios.hpp
/// Named crowd situations (target tide::world): a map, the groups on it and the orders given
/// during a run. The demo's presets, `tide sim --scenario NAME` and the tests load the same ones,
/// so a figure in the docs can be reproduced with one command. Positions in cells, times in
/// simulated seconds.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide {

/// A command given at a simulated time of a scenario's run.
struct TimedCommand {
    double at_s = 0.0;        ///< Simulated seconds after the load (0: at once).
    WorldCommand command;     ///< What is applied then.
    bool may_refuse = false;  ///< A refusal is part of the story (a player's tower that would seal the
                              ///< path): counted (SimulationReport::refused), not an error.
};

/// A named situation. Plain data: a host may build its own and run it the same way.
struct Scenario {
    std::string name;                                  ///< e.g. "gap_swap".
    std::string description;                           ///< One line, for lists.
    CostField cost = CostField::create(1, 1).value();  ///< The map.
    std::vector<Cell> goals;                           ///< Goals of the first group (loaded with the map).
    int units = 0;                                     ///< Units of the first group.
    std::optional<CellRect> spawn_area;                ///< Where they spawn (default: the whole map).
    bool exits = false;                                ///< The first group's goals are exits (SetGoals::exit).
    std::vector<TimedCommand> script;                  ///< Applied in order at their times.
    double seconds = 60.0;                             ///< How long a run of it lasts.
    /// A passage that must stay free while units still have to pass it, and the area those units
    /// come from: a run counts arrived units in `passage` whenever a unit not arrived stands in
    /// `approach` (SimulationReport::passage_arrived).
    std::optional<CellRect> passage, approach;
};

/// Names of the built-in scenarios, in the order the demo lists them.
TIDE_WORLD_API const std::vector<std::string>& scenario_names();

/// The built-in scenario `name` (its map named "scenario:<name>"):
/// - door: 1,000 units through a 4-cell door to a goal across the room;
/// - counter_flow: two groups of 300 trading ends through a 6-cell corridor (counter_flow_alone:
///   the west-bound group only, the baseline of the two-way run);
/// - gap_swap: the default map with 1,500 units; those right of the wall are ordered to a goal two
///   cells past the 4-cell gap, the others keep the goal on the right (gap_swap_alone: the ordered
///   group only);
/// - goal_beside_gap: 1,000 units right of the default map's wall, the goal two cells past the gap;
/// - evacuation: 1,200 units in a room with pillars leave by four one-cell exits (exits_flow: 600
///   units by one exit, for the flow rate of an exit);
/// - maze: 400 units through the built-in 121x121 maze;
/// - tower_defense: no units at the start; a spawner at the west edge sends 6 waves of 40 to an
///   exit in the east wall (a sink), through two lines of towers a player walls across the field
///   before the first wave; the last tower of each line would seal the path and is refused, so
///   the waves wind through the gaps left.
/// Error (ErrorCode::not_found) for an unknown name.
TIDE_WORLD_API Result<Scenario> make_scenario(std::string_view name);

/// Loads `scenario` into `world`: its map and first group, then the commands of its script due at
/// time 0 (a refusal of one marked may_refuse is skipped and counted in `*refused` when given).
/// Error (the world may hold the scenario's map with fewer groups) from the world.
TIDE_WORLD_API Result<void> load_scenario(World& world, const Scenario& scenario, std::size_t* refused = nullptr);

/// make_scenario(name), then load_scenario().
TIDE_WORLD_API Result<void> load_scenario(World& world, std::string_view name);

}  // namespace tide
