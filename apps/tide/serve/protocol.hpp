#pragma once
// Messages of `tide serve` (docs/protocol.md): client JSON parsed into commands (the world's own
// tide::WorldCommand, or a viewer command for what is not a change to the world), server frames
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

#include <nlohmann/json.hpp>

#include "tide/astar_compare.hpp"
#include "tide/cost_field.hpp"
#include "tide/inspect.hpp"
#include "tide/limits.hpp"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide::serve {

/// Most units the demo server simulates, whatever asks (command line or client); limits.hpp.
inline constexpr int kMaxAgents = kMaxServerUnits;

/// Byte 1 of an agents frame: its layout and the meaning of its state bytes. 3: state codes 0..4
/// (tide::UnitState, inspect.hpp); 2 had 3 for stuck and no queued state; 2 added a size byte per
/// unit after the group keys (format 1, with 0 in that byte, ended at the group keys).
inline constexpr int kAgentsFrameFormat = 3;
static_assert(kUnitStates == 5, "a new unit state is a new agents frame format");

// kMaxFieldSamples (limits.hpp): bigger maps are sampled every `stride` cells (byte 1 of a
// fields frame), so a frame stays at most about 4 MiB.
/// Flow code of a fields frame for a cell whose sector has no field yet (hierarchical maps).
inline constexpr std::uint8_t kNotPlannedCode = 11;

/// Largest client message, bytes; limits.hpp.
inline constexpr std::size_t kMaxMessageBytes = kMaxClientMessageBytes;

// ---- Viewer commands: what a client asks that is not a change to the world ----------------------
// Messages that change the world parse straight into tide::WorldCommand (set_goals: SetGoals,
// order with 'select': Order, paint: Paint, spawn: Spawn, pause: SetPaused, place_tower:
// PlaceTower, wall_margin: SetWallMargin). The rest ask something of the client's own view, of the
// server, or change settings in part; they are these.

/// `select`: select the units in a box of positions (half-open), or clear the selection (none).
struct SelectUnits {
    std::optional<SelectBox> box;
};
/// `view`: which group's field this client is sent (0: automatic; tide::Viewer::show).
struct ShowGroup {
    UnitGroupId group = 0;
};
/// `order` without 'select': order this client's selection (tide::Viewer::order).
struct OrderSelected {
    std::vector<Cell> goals;
    bool flee = false;    ///< The cells are dangers to flee from.
    Formation formation;  ///< March in this formation (none: flow).
};
/// `set_goals` with 'snap': goals on walls move to the nearest open cell (tide::snap_goals) before
/// the world applies `command`; the moves are answered with `snapped`.
struct SnapGoals {
    SetGoals command;
};
/// `tower_check`: would `tower` cut units off? Answered with `tower` (World::check_tower).
struct CheckTower {
    PlaceTower tower;
};
/// `params`, `line_of_sight`, `congestion`: settings changed in part (absent = kept), against the
/// world's current ones.
struct ChangeSettings {
    std::optional<float> speed, separation, radius;  ///< UnitParams (SetUnitParams).
    std::optional<bool> line_of_sight;               ///< World::set_line_of_sight.
    std::optional<bool> congestion;                  ///< CongestionParams::enabled (SetCongestion).
};
/// `load_map`: switch to a built-in map, or to a map uploaded earlier (POST /api/map).
struct LoadMap {
    std::string name;
    bool uploaded = false;
};
/// `scenario`: load a scenario preset, its map and its groups (tide::load_scenario).
struct StartScenario {
    std::string name;  ///< One of scenario_names().
};
/// `astar_compare`: what one A* per unit would cost, against one field build (tide::compare_astar).
struct CompareAstar {
    UnitGroupId group = 0;  ///< 0: the group this client is shown.
    int samples = 64;       ///< Units of the group to plan with A*, 1..kMaxAstarSamples.
};
/// `inspect`: the unit nearest a position (tide::inspect_unit).
struct InspectUnit {
    Vec2 at;  ///< Cell units.
};
/// `step`: one tick while paused.
struct StepOnce {};
/// `ping`: answered with `pong` (on the network thread).
struct Ping {
    double id = 0;
};
/// What a client asks that is not a WorldCommand.
using ViewerCommand = std::variant<SelectUnits, ShowGroup, OrderSelected, SnapGoals, CheckTower, ChangeSettings,
                                   LoadMap, StartScenario, CompareAstar, InspectUnit, StepOnce, Ping>;

/// A validated client command: a change to the world, applied as it is, or a viewer command.
using Command = std::variant<WorldCommand, ViewerCommand>;

/// Most units an `astar_compare` asks to plan with A* (the rest of the group is extrapolated); the
/// search budget (kCompareSearchMs on the server) stops it sooner. The static demo's worker, with
/// one client, plans all of a 5,000-unit group (seed 002's headline, docs/web.md).
inline constexpr int kMaxAstarSamples = 20000;
/// Paths an `astar` reply carries at most (the page draws them beside the flow of the same units).
inline constexpr std::size_t kAstarPathsShown = 6;
/// The A* searches of one comparison stop after this long (at least one runs): the per-unit time is
/// measured on the searches that ran, and the simulation thread is not held for seconds.
inline constexpr double kCompareSearchMs = 30.0;

/// A parsed client message: its type ("" when it had none) and the command or the reason it was refused.
struct ParsedMessage {
    std::string type;
    Result<Command> command;
};

/// Parses and validates one client text message (structure and ranges; coordinates are checked
/// against the map when the world applies them).
ParsedMessage parse_client_message(std::string_view text);

/// Parses the body of POST /api/order: `{"select":[x0,y0,x1,y1],"goals":[[x,y],...]}` (cells,
/// inclusive).
Result<Order> parse_order_body(std::string_view body);

/// The JSON error reply for `request` (a message type, or "" for none).
std::string error_json(std::string_view message, std::string_view request);
/// The `pong` reply to a `ping` with `id`.
std::string pong_json(double id);

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
/// JSON `world` message; `uploads`: the uploaded maps `load_map` can switch back to.
std::string world_json(const World& world, const std::vector<std::string>& maps, int max_agents,
                       const std::vector<std::string>& uploads = {});
/// JSON `groups` message.
std::string groups_json(const World& world);
/// JSON `stats` message; `tick_hz` measured by the server loop, `clients` connected.
std::string stats_json(const World& world, double tick_hz, std::size_t clients);
/// One spawner's counters as JSON, the same in the stats message and `tide sim`'s report: id,
/// group, emissions, spawned, skipped, sunk, waves_done, waves, done, and next_s (simulated
/// seconds from `now` to its next emission; null once done).
nlohmann::json spawner_json(const SpawnerInfo& s, double now);
/// JSON `params`, `paused` echoes.
std::string params_json(const World& world);
std::string paused_json(const World& world);
/// JSON `ordered` reply.
std::string ordered_json(const CommandOutcome& outcome);
/// JSON `tower` reply to `tower_check`: the rectangle and what a tower there would do.
std::string tower_json(const PlaceTower& tower, const TowerCheck& check);
/// JSON `tower_placed` reply to `place_tower`.
std::string tower_placed_json(const PlaceTower& tower);
/// JSON `astar` reply to `astar_compare` (times rounded for reading).
std::string astar_json(const AstarComparison& comparison);
/// JSON `inspected` reply to `inspect` (`"unit": null` for none).
std::string inspected_json(const std::optional<UnitInspection>& unit);
/// JSON body of GET /api/state.
std::string state_json(const World& world, double tick_hz, std::size_t clients);
/// JSON body of GET /api/agents: the first `limit` units.
std::string agents_json(const World& world, std::size_t limit);

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

/// The download name of a map: its name without a folder or extension, plus ".tmap".
std::string tmap_file_name(std::string name);

}  // namespace tide::serve
