#pragma once
// Messages of `tide serve` (docs/protocol.md): client JSON parsed into commands, server frames
// encoded (binary agents/fields/selection frames, JSON world/groups/stats). Pure functions, no
// networking.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/limits.hpp"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide::serve {

/// Most units the demo server simulates, whatever asks (command line or client); limits.hpp.
inline constexpr int kMaxAgents = kMaxServerUnits;

/// Byte 1 of an agents frame: its layout and the meaning of its state bytes. 3: state codes 0..4
/// (UnitState); 2 had 3 for stuck and no queued state; 2 added a size byte per unit after the
/// group keys (format 1, with 0 in that byte, ended at the group keys).
inline constexpr int kAgentsFrameFormat = 3;

/// What a user can read of a unit: the state byte of an agents frame, the `state` of /api/agents,
/// and the counts per group. Stuck is a moving unit the crowd flags stuck (no progress with room
/// ahead); queued waits behind others by design.
enum class UnitState : std::uint8_t { moving = 0, arrived = 1, no_path = 2, queued = 3, stuck = 4 };
inline constexpr int kUnitStates = 5;
static_assert(static_cast<int>(UnitState::stuck) + 1 == kUnitStates);
static_assert(static_cast<int>(AgentState::moving) == static_cast<int>(UnitState::moving) &&
                  static_cast<int>(AgentState::arrived) == static_cast<int>(UnitState::arrived) &&
                  static_cast<int>(AgentState::no_path) == static_cast<int>(UnitState::no_path) &&
                  static_cast<int>(AgentState::queued) == static_cast<int>(UnitState::queued),
              "the crowd's states keep their codes in the agents frame");

/// The readable state of a live unit.
UnitState unit_state(const Crowd& crowd, AgentId id);
/// "moving", "arrived", "no path", "queued" or "stuck".
const char* unit_state_name(UnitState s);

/// Units of one group in each readable state (UnitState order).
struct GroupStateCounts {
    UnitGroupId group = 0;
    std::array<std::size_t, kUnitStates> counts{};
};
/// The counts of every group, in the order of World::groups().
std::vector<GroupStateCounts> group_state_counts(const World& world);

// kMaxFieldSamples (limits.hpp): bigger maps are sampled every `stride` cells (byte 1 of a
// fields frame), so a frame stays at most about 4 MiB.
/// Flow code of a fields frame for a cell whose sector has no field yet (hierarchical maps).
inline constexpr std::uint8_t kNotPlannedCode = 11;

/// Largest client message, bytes; limits.hpp.
inline constexpr std::size_t kMaxMessageBytes = kMaxClientMessageBytes;

struct SetGoalsCmd {
    std::vector<Cell> goals;
    UnitGroupId group = 0;  ///< 0: every unit.
    bool flee = false;      ///< The cells are dangers to flee from.
    bool snap = false;      ///< Goals on walls move to the nearest open cell (answered with `snapped`).
    bool exit = false;      ///< The cells are exits: units leave the world there (SetGoals::exit).
};                          ///< Replace a group's goal set (or everyone's).
struct PaintCmd {
    int x = 0, y = 0, radius = 0;
    Cost cost = kCostPlain;
};  ///< Paint a disc.
struct SpawnCmd {
    int count = 0;
    int size = 1;                            ///< Unit size, 1..kWorldUnitSizes cells a side.
    bool add = false;                        ///< Keep the units there are (the new ones form a group of their own).
    std::optional<std::array<int, 4>> area;  ///< x0, y0, x1, y1 inclusive; none = the whole map.
};                                           ///< Respawn (or add) units.
struct ParamsCmd {                           ///< Change unit settings (absent = keep).
    std::optional<float> speed, separation, radius;
};
struct PauseCmd {
    bool paused = false;
};                  ///< Pause or resume.
struct StepCmd {};  ///< One tick while paused.
struct LoadMapCmd {
    std::string name;
    bool uploaded = false;  ///< `name` is a map uploaded earlier (POST /api/map), not a built-in one.
};                          ///< Switch to a built-in (or uploaded) map.
struct ScenarioCmd {
    std::string name;  ///< One of scenario_names().
};                     ///< Load a scenario preset: its map and its groups.
struct AstarCompareCmd {
    UnitGroupId group = 0;  ///< 0: the group this client is shown.
    int samples = 64;       ///< Units of the group to plan with A*, 1..kMaxAstarSamples.
};                          ///< What one A* per unit would cost, against one field build.
struct InspectCmd {
    float x = 0, y = 0;  ///< A position in cell units: the unit nearest it (within 2 cells) is described.
};
struct PingCmd {
    double id = 0;
};  ///< Answered with pong.
struct SelectCmd {
    std::optional<SelectBox> box;  ///< Positions, half-open; none = clear the selection.
};                                 ///< Select the units in a box (this client's selection).
struct OrderCmd {
    std::vector<Cell> goals;
    std::optional<std::array<int, 4>> cells;  ///< x0, y0, x1, y1 inclusive; none = this client's selection.
    bool flee = false;                        ///< The cells are dangers to flee from.
};                                            ///< Order units to a goal set.
struct ViewCmd {
    UnitGroupId group = 0;  ///< 0: automatic (the selection's group, else the largest).
};                          ///< Which group's field this client is sent.

/// A tower rectangle: cells x0..x1, y0..y1 inclusive, at most kMaxTowerSide a side.
struct TowerRect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    friend bool operator==(const TowerRect&, const TowerRect&) = default;
};
struct TowerCheckCmd {
    TowerRect rect;
};  ///< Would a tower there block? Answered with a `tower` message to the asking client only.
struct PlaceTowerCmd {
    TowerRect rect;
};  ///< Wall the rectangle, unless that would cut units off or cover a goal (refused then).

struct LineOfSightCmd {
    bool on = true;
};  ///< Units steer straight where they see far along their field (World::set_line_of_sight).
struct WallMarginCmd {
    WallMargin margin;
};  ///< The wall margin every group plans with ({0, 0}: none).
struct CongestionCmd {
    bool on = false;
};  ///< Congestion-aware group fields on or off (World's SetCongestion, other settings kept).

/// A validated client command.
using Command = std::variant<SetGoalsCmd, PaintCmd, SpawnCmd, ParamsCmd, PauseCmd, StepCmd, LoadMapCmd, PingCmd,
                             SelectCmd, OrderCmd, ViewCmd, TowerCheckCmd, PlaceTowerCmd, LineOfSightCmd, WallMarginCmd,
                             CongestionCmd, ScenarioCmd, AstarCompareCmd, InspectCmd>;

/// Most units an `astar_compare` plans with A* (the rest of the group is extrapolated).
inline constexpr int kMaxAstarSamples = 256;

/// A parsed client message: its type ("" when it had none) and the command or the reason it was refused.
struct ParsedMessage {
    std::string type;
    Result<Command> command;
};

/// Parses and validates one client text message (structure and ranges; coordinates are checked
/// against the map when the world applies them).
ParsedMessage parse_client_message(std::string_view text);

/// Parses the body of POST /api/order: `{"select":[x0,y0,x1,y1],"goals":[[x,y],...]}`.
Result<OrderCmd> parse_order_body(std::string_view body);

/// The JSON error reply for `request` (a message type, or "" for none).
std::string error_json(std::string_view message, std::string_view request);

/// Binary agents frame (type 1, format kAgentsFrameFormat): positions, states (UnitState), group
/// keys and sizes of the world's units.
std::string encode_agents(const World& world);
/// Binary fields frame (type 2) for `group` (0 or a group without a field yet: the largest group
/// that has one): quantised integration, terrain, flow directions, every `stride` cells (see
/// field_stride). `version` goes in the header. Hierarchical maps: the group's sector fields, code
/// kNotPlannedCode where its plan has none yet.
std::string encode_fields(const World& world, UnitGroupId group, std::uint32_t version);
/// encode_fields() quantising with `*scale` when the values fit it (at most 65534 steps, the
/// largest at least a quarter of them), else with the field's own scale, stored in `*scale`. A
/// group's frames keep one scale while they can, so a frame after an edit differs from the last
/// one only where the field changed (see encode_fields_patch).
std::string encode_fields(const World& world, UnitGroupId group, std::uint32_t version, float* scale);
/// Binary fields patch frame (type 7): the samples of fields frame `next` that differ from fields
/// frame `base` (same map size, stride, group, kind and scale), as the smallest rectangle of samples
/// holding them (possibly empty), with `base`'s version to apply to. Empty string when `next`
/// cannot be sent as a patch of `base` (another header) or the rectangle is over half the samples.
std::string encode_fields_patch(const std::string& base, const std::string& next);
/// Cells between two samples of a fields frame for a map of width x height: 1 up to kMaxFieldSamples cells.
int field_stride(int width, int height);
/// Binary terrain frame (type 6) for maps whose fields frames are sampled (stride > 1): the costs of
/// cells [x0, x0 + w) x [y0, y0 + h) at full resolution (the whole map on connect and load, the
/// bounding box of the changed cells after edits).
std::string encode_terrain(const CostField& cost, int x0, int y0, int w, int h);
/// As above from a row-major `cells` array of a `width` x `height` map.
std::string encode_terrain(std::span<const Cost> cells, int width, int height, int x0, int y0, int w, int h);
/// Binary sectors frame (type 4, hierarchical maps): the sector size and every portal of the graph
/// units of `size` plan on. Empty string when there is no such graph.
std::string encode_sectors(const World& world, int size);
/// Binary sector fields frame (type 5, hierarchical maps): which sectors have a field in `group`'s
/// plan (a bitset over the sectors). Empty string for an unknown group or a flat map.
std::string encode_sector_fields(const World& world, UnitGroupId group);
/// Binary selection frame (type 3): `selected` (handles in roster order) as a bitset over the roster.
std::string encode_selection(const World& world, const std::vector<AgentId>& selected);
/// The group most of `selected` belong to (ties: the lowest id); 0 when empty.
UnitGroupId majority_group(const World& world, const std::vector<AgentId>& selected);
/// JSON `world` message; `uploads`: the uploaded maps `load_map` can switch back to.
std::string world_json(const World& world, const std::vector<std::string>& maps, int max_agents,
                       const std::vector<std::string>& uploads = {});
/// JSON `groups` message.
std::string groups_json(const World& world);
/// JSON `stats` message; `tick_hz` measured by the server loop, `clients` connected.
std::string stats_json(const World& world, double tick_hz, std::size_t clients);
/// JSON `params`, `paused` echoes.
std::string params_json(const World& world);
std::string paused_json(const World& world);
/// JSON `ordered` reply.
std::string ordered_json(const CommandOutcome& outcome);
/// JSON `tower` reply to `tower_check`: the rectangle and what a tower there would do.
std::string tower_json(const TowerRect& rect, const TowerCheck& check);
/// JSON `tower_placed` reply to `place_tower`.
std::string tower_placed_json(const TowerRect& rect);
/// JSON body of GET /api/state.
std::string state_json(const World& world, double tick_hz, std::size_t clients);
/// JSON body of GET /api/agents: the first `limit` units.
std::string agents_json(const World& world, std::size_t limit);

/// A goal moved off a wall by snap_goals(): where it was asked for and where it went.
struct SnappedGoal {
    Cell from, to;
};
/// Moves every goal that is off the map or on a wall to the nearest open cell (duplicates
/// dropped); returns the moves. Nothing moves on an all-wall map.
std::vector<SnappedGoal> snap_goals(const CostField& cost, std::vector<Cell>& goals);
/// JSON `snapped` reply: the goals of `request` that were moved off walls.
std::string snapped_json(const std::vector<SnappedGoal>& moves, std::string_view request);

/// The passable cell nearest the map's centre (the goal of a loaded map); none on an all-wall map.
std::optional<Cell> central_goal(const CostField& cost);

/// An uploaded map's name as shown to clients: printable ASCII only (anything else becomes '_'),
/// at most kMaxMapNameChars characters, "upload" when empty.
std::string clean_map_name(std::string_view raw);

/// A map uploaded with POST /api/map, checked and ready to load.
struct UploadedMap {
    std::string name;  ///< clean_map_name() of the given name.
    CostField cost;    ///< The terrain.
    Cell goal;         ///< central_goal() of it.
};
/// Parses an upload (body at most kMaxUploadBytes, a Moving AI or Tide map with a passable
/// cell); errors name the cleaned name and line. No I/O.
Result<UploadedMap> parse_map_upload(std::string_view body, std::string_view raw_name);

}  // namespace tide::serve
