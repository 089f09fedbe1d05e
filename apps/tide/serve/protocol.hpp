#pragma once
// Messages of `tide serve` (docs/protocol.md): client JSON parsed into commands, server frames
// encoded (binary agents/fields frames, JSON world/stats). Pure functions, no networking.

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tide/cost_field.hpp"
#include "tide/result.hpp"
#include "world.hpp"

namespace tide::serve {

/// Largest client message, bytes.
inline constexpr std::size_t kMaxMessageBytes = 64 * 1024;

struct SetGoalsCmd {
    std::vector<Cell> goals;
};  ///< Replace the goal set.
struct PaintCmd {
    int x = 0, y = 0, radius = 0;
    Cost cost = kCostPlain;
};  ///< Paint a disc.
struct SpawnCmd {
    int count = 0;
};                  ///< Respawn units.
struct ParamsCmd {  ///< Change unit settings (absent = keep).
    std::optional<float> speed, separation, radius;
};
struct PauseCmd {
    bool paused = false;
};                  ///< Pause or resume.
struct StepCmd {};  ///< One tick while paused.
struct LoadMapCmd {
    std::string name;
};  ///< Switch to a built-in map.
struct PingCmd {
    double id = 0;
};  ///< Answered with pong.

/// A validated client command.
using Command = std::variant<SetGoalsCmd, PaintCmd, SpawnCmd, ParamsCmd, PauseCmd, StepCmd, LoadMapCmd, PingCmd>;

/// A parsed client message: its type ("" when it had none) and the command or the reason it was refused.
struct ParsedMessage {
    std::string type;
    Result<Command> command;
};

/// Parses and validates one client text message (structure and ranges; coordinates are checked
/// against the map when the world applies them).
ParsedMessage parse_client_message(std::string_view text);

/// The JSON error reply for `request` (a message type, or "" for none).
std::string error_json(std::string_view message, std::string_view request);

/// Binary agents frame (type 1) of the world's units.
std::string encode_agents(const World& world);
/// Binary fields frame (type 2): quantised integration, terrain, flow directions.
std::string encode_fields(const World& world);
/// JSON `world` message.
std::string world_json(const World& world, const std::vector<std::string>& maps, int max_agents);
/// JSON `stats` message; `tick_hz` measured by the server loop, `clients` connected.
std::string stats_json(const World& world, double tick_hz, std::size_t clients);
/// JSON `goals`, `params`, `paused` echoes.
std::string goals_json(const World& world);
std::string params_json(const World& world);
std::string paused_json(const World& world);
/// JSON body of GET /api/state.
std::string state_json(const World& world, double tick_hz, std::size_t clients);
/// JSON body of GET /api/agents: the first `limit` units.
std::string agents_json(const World& world, std::size_t limit);

/// A built-in map with its default goal.
struct BuiltinMap {
    CostField cost;
    std::vector<Cell> goals;
};
/// Names of the built-in maps, in menu order.
const std::vector<std::string>& builtin_map_names();
/// Makes a built-in map; error for an unknown name.
Result<BuiltinMap> make_builtin_map(std::string_view name);
/// The passable cell nearest the map's centre (the goal of a loaded map); none on an all-wall map.
std::optional<Cell> central_goal(const CostField& cost);
/// A perfect maze of `cells_x` x `cells_y` rooms, corridors 2 cells wide, walls 1 cell thick.
CostField generate_maze(int cells_x, int cells_y, std::uint64_t seed);

}  // namespace tide::serve
