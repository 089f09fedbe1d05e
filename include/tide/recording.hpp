#pragma once
/// \file recording.hpp
/// Lockstep tools (docs/determinism.md), target tide::world: a World's command log that replays a
/// run exactly (Recording: the settings, every load, command, tick and build wait, and the state
/// hash after each tick), a snapshot of the whole state (WorldSnapshot: every unit and every
/// group's field), and the first difference between two recordings or two snapshots: the tick,
/// then the unit or field, where two machines parted.
///
/// A host records with World::start_recording() (the world must run with WorldConfig::lockstep),
/// writes the text with recording_text() (or appends recorded_event_text() per event, to stream
/// a long session), and checks a build or a machine with replay(). The text format is in
/// docs/formats.md; floats are written as hexadecimal floats, so a recording is exact.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/jobs.hpp"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide {

/// World::load() as called: the whole terrain is kept, so a recording needs no map file.
struct RecordedLoad {
    std::string name;
    CostField cost = CostField::create(1, 1).value();
    std::vector<Cell> goals;
    int units = 0;
    std::optional<CellRect> spawn_area;
};
/// World::apply() as called, and whether it was refused (a replay must refuse it too).
struct RecordedCommand {
    WorldCommand command;
    bool refused = false;
};
/// World::tick() as called, and World::state_hash() after it.
struct RecordedTick {
    float dt = 0.0f;
    bool force = false;
    std::uint64_t hash = 0;
};
/// World::finish_builds(), or a finish_builds_for() that found every build done.
struct RecordedFinish {};
/// World::set_line_of_sight().
struct RecordedLineOfSight {
    bool on = true;
};
/// One thing a recording holds.
using RecordedEvent = std::variant<RecordedLoad, RecordedCommand, RecordedTick, RecordedFinish, RecordedLineOfSight>;

/// A recorded run: the world's settings when recording started (not the host's memory resource
/// and route job system: the default resource and none), then what the host did, in order.
struct Recording {
    WorldConfig config;
    std::vector<RecordedEvent> events;
};

/// The first lines of a recording's text: the format line and the settings.
TIDE_WORLD_API std::string recording_header_text(const WorldConfig& config);
/// One event's lines (appended after the header, in order, they make a recording's text).
TIDE_WORLD_API std::string recorded_event_text(const RecordedEvent& event);
/// The whole text of a recording.
TIDE_WORLD_API std::string recording_text(const Recording& recording);
/// Parses a recording's text; errors name `source`, the line and the fault.
TIDE_WORLD_API Result<Recording> parse_recording(std::string_view text, std::string_view source);
/// Reads and parses a recording file.
TIDE_WORLD_API Result<Recording> load_recording(const std::string& path);

/// One unit of a snapshot.
struct UnitSnapshot {
    AgentId id;
    UnitGroupId group = 0;
    int size = 1;
    Vec2 position;
    Vec2 velocity;
    AgentState state = AgentState::moving;
    friend bool operator==(const UnitSnapshot&, const UnitSnapshot&) = default;
};
/// One group of a snapshot.
struct GroupSnapshot {
    UnitGroupId id = 0;
    std::vector<Cell> goals;
    std::size_t members = 0;
    std::uint64_t field_serial = 0;
    /// FNV-1a of the field it follows: integration, to-stop values and moves (a hierarchical plan:
    /// its sampled directions at every third cell); 0 while it has none.
    std::uint64_t field_hash = 0;
    friend bool operator==(const GroupSnapshot&, const GroupSnapshot&) = default;
};
/// The whole state of a world at one moment, component by component.
struct WorldSnapshot {
    std::uint64_t tick = 0;          ///< Ticks of the recording replayed (tick() calls), or the host's count.
    std::uint64_t state_hash = 0;    ///< World::state_hash().
    std::uint64_t terrain_hash = 0;  ///< FNV-1a of the terrain's costs.
    std::uint64_t terrain_version = 0;
    std::vector<GroupSnapshot> groups;  ///< By id.
    std::vector<UnitSnapshot> units;    ///< In roster order.
};

/// The state of `world` now (a pass over the units and every group's field: not for every tick).
/// `tick` is stored as given.
TIDE_WORLD_API WorldSnapshot snapshot(const World& world, std::uint64_t tick);
/// A snapshot's text (exact: floats as hexadecimal floats, the decimal value beside them).
TIDE_WORLD_API std::string snapshot_text(const WorldSnapshot& snapshot);
/// Parses a snapshot's text; errors name `source` and the line.
TIDE_WORLD_API Result<WorldSnapshot> parse_snapshot(std::string_view text, std::string_view source);

/// Where two runs part (first_difference): nothing when `found` is false.
struct Desync {
    bool found = false;
    std::int64_t tick = -1;  ///< The first tick that differs (-1: not a tick, or none).
    std::string what;        ///< The first unit, group, field or event that differs, and both values.
};
/// The first difference of two snapshots: the tick, the terrain, a group (goals, members, field),
/// the unit count, then the first unit (in roster order) whose handle, group, state, position or
/// velocity differs.
TIDE_WORLD_API Desync first_difference(const WorldSnapshot& a, const WorldSnapshot& b);
/// The first difference of two recordings: their settings, then event by event (commands, ticks
/// and the state hash after each tick).
TIDE_WORLD_API Desync first_difference(const Recording& a, const Recording& b);

/// How replay() runs.
struct ReplayOptions {
    std::int64_t stop_after_tick = -1;  ///< Stop after this many ticks (-1: the whole recording).
    bool stop_at_mismatch = false;      ///< Stop at the first tick whose hash differs from the recording's.
    bool snapshot = false;              ///< Take a snapshot where the replay stops (ReplayReport::last).
};
/// What replay() found.
struct ReplayReport {
    std::uint64_t ticks = 0;                ///< Ticks replayed.
    std::uint64_t final_hash = 0;           ///< World::state_hash() where the replay stopped.
    std::uint64_t recorded_final_hash = 0;  ///< The recording's hash for that tick (0 without a tick).
    std::int64_t first_mismatch = -1;       ///< First tick whose hash differed (-1: none).
    std::uint64_t mismatch_recorded = 0;    ///< The recording's hash there.
    std::uint64_t mismatch_replayed = 0;    ///< The replay's hash there.
    std::optional<WorldSnapshot> last;      ///< With ReplayOptions::snapshot: the state where it stopped.
};
/// Replays `recording` on a new lockstep World on `jobs` and compares the state hash after every
/// tick with the recorded one. Errors: a load or a command that the recording says succeeded is
/// refused (or the other way round), naming the event; a recording that does not start with a load.
TIDE_WORLD_API Result<ReplayReport> replay(const Recording& recording, JobSystem& jobs,
                                           const ReplayOptions& options = {});

}  // namespace tide
