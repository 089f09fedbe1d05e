#pragma once
/// \file inspect.hpp
/// What a viewer reads of a World's units (target tide::world): each unit's state as a user reads
/// it, the counts per group, and one unit inspected. Read between ticks, on the thread that drives
/// the world. Positions in cell units, speeds in cells per second.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tide/crowd.hpp"
#include "tide/export.h"
#include "tide/world.hpp"

namespace tide {

/// What a user can read of a unit. The crowd's AgentState with stuck apart: a moving unit the crowd
/// flags stuck (no progress with room ahead), where queued waits behind others by design. The codes
/// are those of AgentState (and of the demo's agents frames, docs/protocol.md).
enum class UnitState : std::uint8_t { moving = 0, arrived = 1, no_path = 2, queued = 3, stuck = 4 };
/// Number of UnitState values.
inline constexpr int kUnitStates = 5;
static_assert(static_cast<int>(UnitState::stuck) + 1 == kUnitStates);
static_assert(static_cast<int>(AgentState::moving) == static_cast<int>(UnitState::moving) &&
                  static_cast<int>(AgentState::arrived) == static_cast<int>(UnitState::arrived) &&
                  static_cast<int>(AgentState::no_path) == static_cast<int>(UnitState::no_path) &&
                  static_cast<int>(AgentState::queued) == static_cast<int>(UnitState::queued),
              "UnitState keeps the crowd's codes");

/// The readable state of a live unit.
TIDE_WORLD_API UnitState unit_state(const Crowd& crowd, AgentId id);
/// "moving", "arrived", "no path", "queued" or "stuck" (static strings).
TIDE_WORLD_API const char* unit_state_name(UnitState state) noexcept;

/// Units of one group in each readable state.
struct GroupStateCounts {
    UnitGroupId group = 0;
    std::array<std::size_t, kUnitStates> counts{};  ///< Indexed by UnitState.
};
/// The counts of every group, in the order of World::groups(). O(units).
TIDE_WORLD_API std::vector<GroupStateCounts> group_state_counts(const World& world);

/// One unit as an inspector shows it.
struct UnitInspection {
    std::size_t roster_index = 0;  ///< Its place in World::agents().
    AgentId id;                    ///< Its handle.
    UnitGroupId group = 0;         ///< Its group.
    int size = 1;                  ///< Its size, cells a side.
    UnitState state = UnitState::moving;
    Vec2 position, velocity, desired_velocity;  ///< Cells, cells/s, cells/s.
    /// Cost to go on its group's field from its cell (the field's to_stop layer; on hierarchical
    /// maps the plan's integration); none where unknown or unreachable.
    std::optional<double> cost_to_go;
    std::size_t neighbours = 0;  ///< Other units within InspectParams::neighbour_radius of it.
};

/// How inspect_unit() looks.
struct InspectParams {
    float pick_radius = 2.0f;       ///< The unit inspected is the nearest one closer than this, cells.
    float neighbour_radius = 1.5f;  ///< Neighbours counted within this (inclusive), cells.
};

/// The unit nearest `at` within params.pick_radius (ties: the first in roster order), or none.
/// O(units).
TIDE_WORLD_API std::optional<UnitInspection> inspect_unit(const World& world, Vec2 at,
                                                          const InspectParams& params = {});

}  // namespace tide
