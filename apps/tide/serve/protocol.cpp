// Messages of `tide serve`; see protocol.hpp and docs/protocol.md.

#include "protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/scenarios.hpp"
#include "tide/viewer.hpp"

namespace tide::serve {
namespace {

using nlohmann::json;

// Validation helpers: each returns an error naming the message type and field.
Result<void> only_keys(const json& j, std::string_view type, std::initializer_list<std::string_view> keys) {
    for (const auto& [k, v] : j.items()) {
        if (k == "type") continue;
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
            return Error{"unknown field '" + k + "' in " + std::string(type)};
        }
    }
    return {};
}

Result<long long> get_int(const json& j, std::string_view type, const char* key, long long lo, long long hi) {
    const auto it = j.find(key);
    if (it == j.end()) return Error{std::string(type) + ": missing '" + key + "'"};
    if (!it->is_number_integer()) return Error{std::string(type) + ": '" + key + "' must be an integer"};
    // Unsigned values above LLONG_MAX read back negative: check the sign of the stored kind first.
    if (it->is_number_unsigned() && it->get<unsigned long long>() > static_cast<unsigned long long>(hi)) {
        return Error{std::string(type) + ": '" + key + "' = " + it->dump() + " is outside " + std::to_string(lo) +
                     ".." + std::to_string(hi)};
    }
    const long long v = it->get<long long>();
    if (v < lo || v > hi) {
        return Error{std::string(type) + ": '" + key + "' = " + std::to_string(v) + " is outside " +
                     std::to_string(lo) + ".." + std::to_string(hi)};
    }
    return v;
}

Result<std::optional<float>> get_opt_float(const json& j, std::string_view type, const char* key, double lo,
                                           double hi) {
    const auto it = j.find(key);
    if (it == j.end()) return std::optional<float>{};
    if (!it->is_number()) return Error{std::string(type) + ": '" + key + "' must be a number"};
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < lo || v > hi) {
        return Error{std::string(type) + ": '" + key + "' = " + it->dump() + " is outside " + json(lo).dump() + ".." +
                     json(hi).dump()};
    }
    return std::optional<float>{static_cast<float>(v)};
}

constexpr long long kMaxCoord = kMaxDimension - 1;

// A goal list: 1..kMaxOrderGoals [x, y] integer cells.
Result<std::vector<Cell>> get_goals(const json& j, std::string_view type) {
    const auto it = j.find("goals");
    const std::string t(type);
    if (it == j.end() || !it->is_array()) return Error{t + ": 'goals' must be an array of [x, y]"};
    if (it->empty() || it->size() > static_cast<std::size_t>(kMaxOrderGoals)) {
        return Error{t + ": " + std::to_string(it->size()) + " goals, expected 1.." + std::to_string(kMaxOrderGoals)};
    }
    std::vector<Cell> goals;
    for (const json& g : *it) {
        if (!g.is_array() || g.size() != 2 || !g[0].is_number_integer() || !g[1].is_number_integer()) {
            return Error{t + ": goal " + g.dump().substr(0, 80) + " is not [x, y] with integers"};
        }
        const long long x =
            g[0].is_number_unsigned() && g[0].get<unsigned long long>() > kMaxCoord ? -1 : g[0].get<long long>();
        const long long y =
            g[1].is_number_unsigned() && g[1].get<unsigned long long>() > kMaxCoord ? -1 : g[1].get<long long>();
        if (x < 0 || y < 0 || x > kMaxCoord || y > kMaxCoord)
            return Error{t + ": goal " + g.dump() + " is outside any map"};
        goals.push_back({static_cast<int>(x), static_cast<int>(y)});
    }
    return goals;
}

// Four numbers [a, b, c, d] with a < c and b < d (or <= for cells).
Result<std::array<double, 4>> get_box(const json& j, std::string_view type, const char* key, bool cells) {
    const std::string t(type);
    const auto it = j.find(key);
    const std::string shape = cells ? "[x0, y0, x1, y1] integer cells with x0 <= x1 and y0 <= y1"
                                    : "[x0, y0, x1, y1] numbers with x0 < x1 and y0 < y1";
    if (it == j.end() || !it->is_array() || it->size() != 4) return Error{t + ": '" + key + "' must be " + shape};
    std::array<double, 4> v{};
    for (std::size_t k = 0; k < 4; ++k) {
        const json& e = (*it)[k];
        if (cells ? !e.is_number_integer() : !e.is_number()) return Error{t + ": '" + key + "' must be " + shape};
        v[k] = e.get<double>();
        if (!std::isfinite(v[k]) || std::fabs(v[k]) > 1e6) {
            return Error{t + ": '" + key + "' = " + it->dump().substr(0, 80) + " is outside any map"};
        }
    }
    if (cells ? (v[0] > v[2] || v[1] > v[3]) : !(v[0] < v[2] && v[1] < v[3])) {
        return Error{t + ": '" + key + "' = " + it->dump().substr(0, 80) + " must be " + shape};
    }
    return v;
}

// An optional boolean (absent = `fallback`).
Result<bool> get_opt_bool(const json& j, std::string_view type, const char* key, bool fallback) {
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    if (!it->is_boolean()) return Error{std::string(type) + ": '" + key + "' must be true or false"};
    return it->get<bool>();
}

// A tower rectangle: integer cells x0, y0, x1, y1 (inclusive), x0 <= x1, y0 <= y1, at most
// kMaxTowerSide a side. Whether it lies on the map is the world's check.
Result<PlaceTower> get_tower_rect(const json& j, std::string_view type) {
    if (auto r = only_keys(j, type, {"x0", "y0", "x1", "y1"}); !r) return r.error();
    std::array<int, 4> v{};
    const char* keys[] = {"x0", "y0", "x1", "y1"};
    for (std::size_t k = 0; k < 4; ++k) {
        auto c = get_int(j, type, keys[k], 0, kMaxCoord);
        if (!c) return c.error();
        v[k] = static_cast<int>(*c);
    }
    const std::string t(type);
    if (v[0] > v[2]) return Error{t + ": 'x0' = " + std::to_string(v[0]) + " is past 'x1' = " + std::to_string(v[2])};
    if (v[1] > v[3]) return Error{t + ": 'y0' = " + std::to_string(v[1]) + " is past 'y1' = " + std::to_string(v[3])};
    const int w = v[2] - v[0] + 1, h = v[3] - v[1] + 1;
    if (w > kMaxTowerSide || h > kMaxTowerSide) {
        return Error{t + ": a tower of " + std::to_string(w) + "x" + std::to_string(h) + " cells; at most " +
                     std::to_string(kMaxTowerSide) + " a side"};
    }
    return PlaceTower{v[0], v[1], v[2], v[3]};
}

Result<UnitGroupId> get_group(const json& j, std::string_view type, bool required) {
    if (!required && j.find("group") == j.end()) return UnitGroupId{0};
    auto g = get_int(j, type, "group", 0, 0xFFFFFFFFll);
    if (!g) return g.error();
    return static_cast<UnitGroupId>(*g);
}

// The optional "flee" flag of set_goals and order (false when absent).
Result<bool> get_flee(const json& j, const std::string& type) {
    const auto it = j.find("flee");
    if (it == j.end()) return false;
    if (!it->is_boolean()) return Error{type + ": 'flee' must be true or false"};
    return it->get<bool>();
}

// One parser per message type: the JSON object `j` of a message of type `type` into its command.
// Messages that change the world become a tide::WorldCommand as it is; the rest a ViewerCommand.

template <class T>
Result<Command> world_command(T command) {
    return Command(std::in_place_type<WorldCommand>, std::move(command));
}
template <class T>
Result<Command> viewer_command(T command) {
    return Command(std::in_place_type<ViewerCommand>, std::move(command));
}

Result<Command> parse_set_goals(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"goals", "group", "flee", "snap", "exit"}); !r) return r.error();
    auto goals = get_goals(j, type);
    if (!goals) return goals.error();
    auto group = get_group(j, type, false);
    if (!group) return group.error();
    auto flee = get_flee(j, type);
    if (!flee) return flee.error();
    auto snap = get_opt_bool(j, type, "snap", false);
    if (!snap) return snap.error();
    auto exit = get_opt_bool(j, type, "exit", false);
    if (!exit) return exit.error();
    if (*flee && *exit) return Error{"set_goals: 'flee' and 'exit' cannot both be true"};
    SetGoals c{std::move(*goals), *group, *flee, *exit};
    if (*snap) return viewer_command(SnapGoals{std::move(c)});
    return world_command(std::move(c));
}

Result<Command> parse_select(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"box"}); !r) return r.error();
    const auto it = j.find("box");
    if (it == j.end()) return Error{"select: missing 'box' ([x0, y0, x1, y1], or null to clear)"};
    if (it->is_null()) return viewer_command(SelectUnits{});
    auto b = get_box(j, type, "box", false);
    if (!b) return b.error();
    const auto& v = *b;
    return viewer_command(SelectUnits{SelectBox{static_cast<float>(v[0]), static_cast<float>(v[1]),
                                                static_cast<float>(v[2]), static_cast<float>(v[3])}});
}

// An order's optional "formation": {"shape": "line"|"column"|"box"|"wedge", "spacing": cells,
// "columns": n}; none (or "none"): the units flow.
Result<Formation> get_formation(const json& j, const std::string& type) {
    Formation f;
    const auto it = j.find("formation");
    if (it == j.end() || it->is_null()) return f;
    if (!it->is_object()) return Error{type + ": 'formation' must be an object {shape, spacing, columns}"};
    for (const auto& [key, value] : it->items()) {
        if (key != "shape" && key != "spacing" && key != "columns") {
            return Error{type + ": formation: unknown key '" + key.substr(0, 40) + "' (shape, spacing, columns)"};
        }
    }
    const auto shape = it->find("shape");
    if (shape == it->end() || !shape->is_string()) {
        return Error{type + ": formation: 'shape' must be none, line, column, box or wedge"};
    }
    const std::string name = shape->get<std::string>();
    if (name == "none") return f;
    if (name == "line") {
        f.shape = FormationShape::line;
    } else if (name == "column") {
        f.shape = FormationShape::column;
    } else if (name == "box") {
        f.shape = FormationShape::box;
    } else if (name == "wedge") {
        f.shape = FormationShape::wedge;
    } else {
        return Error{type + ": formation: shape '" + name.substr(0, 40) + "' is not none, line, column, box or wedge"};
    }
    if (const auto sp = it->find("spacing"); sp != it->end()) {
        if (!sp->is_number()) return Error{type + ": formation: 'spacing' must be a number of cells"};
        f.spacing = sp->get<float>();
    }
    if (const auto c = it->find("columns"); c != it->end()) {
        if (!c->is_number_integer()) return Error{type + ": formation: 'columns' must be an integer"};
        const auto v = c->get<std::int64_t>();
        f.columns = static_cast<int>(std::clamp<std::int64_t>(v, -1, 100000));
    }
    if (auto r = check_formation(f); !r) return Error{type + ": formation: " + r.error().message};
    return f;
}

Result<Command> parse_order(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"goals", "select", "flee", "formation"}); !r) return r.error();
    auto goals = get_goals(j, type);
    if (!goals) return goals.error();
    auto flee = get_flee(j, type);
    if (!flee) return flee.error();
    auto formation = get_formation(j, type);
    if (!formation) return formation.error();
    if (*flee && formation->shape != FormationShape::none) {
        return Error{type + ": a flee order has no formation"};
    }
    if (j.find("select") == j.end()) {
        return viewer_command(OrderSelected{std::move(*goals), *flee, std::move(*formation)});
    }
    auto b = get_box(j, type, "select", true);
    if (!b) return b.error();
    // Cells x0..x1, y0..y1 inclusive: the units standing in them, a half-open box of positions.
    Order order;
    order.select = SelectBox{static_cast<float>((*b)[0]), static_cast<float>((*b)[1]),
                             static_cast<float>(static_cast<int>((*b)[2])) + 1.0f,
                             static_cast<float>(static_cast<int>((*b)[3])) + 1.0f};
    order.goals = std::move(*goals);
    order.flee = *flee;
    order.formation = std::move(*formation);
    return world_command(std::move(order));
}

Result<Command> parse_view(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"group"}); !r) return r.error();
    auto group = get_group(j, type, true);
    if (!group) return group.error();
    return viewer_command(ShowGroup{*group});
}

Result<Command> parse_paint(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"x", "y", "radius", "terrain"}); !r) return r.error();
    auto x = get_int(j, type, "x", 0, kMaxCoord);
    if (!x) return x.error();
    auto y = get_int(j, type, "y", 0, kMaxCoord);
    if (!y) return y.error();
    auto r = get_int(j, type, "radius", 0, kMaxBrushRadius);
    if (!r) return r.error();
    const auto t = j.find("terrain");
    if (t == j.end() || !t->is_string()) return Error{"paint: 'terrain' must be wall, forest, swamp or plain"};
    const std::string terrain = t->get<std::string>();
    Paint paint{static_cast<int>(*x), static_cast<int>(*y), static_cast<int>(*r), kCostPlain};
    if (terrain == "wall") {
        paint.cost = kCostWall;
    } else if (terrain == "forest") {
        paint.cost = kCostForest;
    } else if (terrain == "swamp") {
        paint.cost = kCostSwamp;
    } else if (terrain != "plain") {
        return Error{"paint: terrain '" + terrain.substr(0, 40) + "' is not wall, forest, swamp or plain"};
    }
    return world_command(paint);
}

Result<Command> parse_spawn(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"count", "size", "add", "area"}); !r) return r.error();
    auto c = get_int(j, type, "count", 0, kMaxAgents);
    if (!c) return c.error();
    Spawn spawn;
    spawn.count = static_cast<int>(*c);
    if (j.contains("size")) {
        auto size = get_int(j, type, "size", 1, kWorldUnitSizes);
        if (!size) return size.error();
        spawn.size = static_cast<int>(*size);
    }
    auto add = get_opt_bool(j, type, "add", false);
    if (!add) return add.error();
    spawn.add = *add;
    if (j.contains("area")) {
        auto b = get_box(j, type, "area", true);
        if (!b) return b.error();
        spawn.in_area = true;
        spawn.x0 = static_cast<int>((*b)[0]);
        spawn.y0 = static_cast<int>((*b)[1]);
        spawn.x1 = static_cast<int>((*b)[2]);
        spawn.y1 = static_cast<int>((*b)[3]);
    }
    return world_command(spawn);
}

Result<Command> parse_tower_check(const json& j, const std::string& type) {
    auto rect = get_tower_rect(j, type);
    if (!rect) return rect.error();
    return viewer_command(CheckTower{*rect});
}

Result<Command> parse_place_tower(const json& j, const std::string& type) {
    auto rect = get_tower_rect(j, type);
    if (!rect) return rect.error();
    return world_command(*rect);
}

Result<Command> parse_params(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"speed", "separation", "radius"}); !r) return r.error();
    ChangeSettings change;
    auto s = get_opt_float(j, type, "speed", 0.1, 20.0);
    if (!s) return s.error();
    auto sep = get_opt_float(j, type, "separation", 0.0, 20.0);
    if (!sep) return sep.error();
    auto rad = get_opt_float(j, type, "radius", 0.05, 0.5);
    if (!rad) return rad.error();
    change.speed = *s;
    change.separation = *sep;
    change.radius = *rad;
    if (!change.speed && !change.separation && !change.radius) return Error{"params: nothing to change"};
    return viewer_command(change);
}

// A message whose one field `key` is a boolean: pause (paused), line_of_sight and congestion (on).
Result<bool> get_switch(const json& j, const std::string& type, const char* key) {
    if (auto r = only_keys(j, type, {key}); !r) return r.error();
    const auto it = j.find(key);
    if (it == j.end() || !it->is_boolean()) return Error{type + ": '" + key + "' must be true or false"};
    return it->get<bool>();
}

Result<Command> parse_pause(const json& j, const std::string& type) {
    auto on = get_switch(j, type, "paused");
    if (!on) return on.error();
    return world_command(SetPaused{*on});
}

Result<Command> parse_line_of_sight(const json& j, const std::string& type) {
    auto on = get_switch(j, type, "on");
    if (!on) return on.error();
    ChangeSettings change;
    change.line_of_sight = *on;
    return viewer_command(change);
}

Result<Command> parse_congestion(const json& j, const std::string& type) {
    auto on = get_switch(j, type, "on");
    if (!on) return on.error();
    ChangeSettings change;
    change.congestion = *on;
    return viewer_command(change);
}

Result<Command> parse_step(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {}); !r) return r.error();
    return viewer_command(StepOnce{});
}

Result<Command> parse_load_map(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"name", "uploaded"}); !r) return r.error();
    const auto it = j.find("name");
    if (it == j.end() || !it->is_string()) return Error{"load_map: 'name' must be a string"};
    const std::string name = it->get<std::string>();
    auto uploaded = get_opt_bool(j, type, "uploaded", false);
    if (!uploaded) return uploaded.error();
    if (*uploaded) {
        // Which uploads the server holds is the simulation's business; the name only has to be one.
        if (name.empty() || name.size() > static_cast<std::size_t>(kMaxMapNameChars)) {
            return Error{"load_map: an uploaded map's name has 1.." + std::to_string(kMaxMapNameChars) + " characters"};
        }
        return viewer_command(LoadMap{name, true});
    }
    const auto& names = builtin_map_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        return Error{"load_map: no built-in map '" + name.substr(0, 40) + "'"};
    }
    return viewer_command(LoadMap{name, false});
}

Result<Command> parse_scenario(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"name"}); !r) return r.error();
    const auto it = j.find("name");
    if (it == j.end() || !it->is_string()) return Error{"scenario: 'name' must be a string"};
    const std::string name = it->get<std::string>();
    const auto& names = scenario_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
        std::string known;
        for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
        return Error{"scenario: no scenario '" + name.substr(0, 40) + "' (" + known + ")"};
    }
    return viewer_command(StartScenario{name});
}

Result<Command> parse_astar_compare(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"group", "samples"}); !r) return r.error();
    CompareAstar cmd;
    auto group = get_group(j, type, false);
    if (!group) return group.error();
    cmd.group = *group;
    if (j.contains("samples")) {
        auto n = get_int(j, type, "samples", 1, kMaxAstarSamples);
        if (!n) return n.error();
        cmd.samples = static_cast<int>(*n);
    }
    return viewer_command(cmd);
}

Result<Command> parse_inspect(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"x", "y"}); !r) return r.error();
    auto x = get_opt_float(j, type, "x", 0.0, static_cast<double>(kMaxDimension));
    if (!x) return x.error();
    auto y = get_opt_float(j, type, "y", 0.0, static_cast<double>(kMaxDimension));
    if (!y) return y.error();
    if (!*x || !*y) return Error{"inspect: 'x' and 'y' (a position in cell units) are required"};
    return viewer_command(InspectUnit{Vec2{**x, **y}});
}

Result<Command> parse_wall_margin(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"radius", "extra"}); !r) return r.error();
    auto radius = get_int(j, type, "radius", 0, kMaxWallMarginRadius);
    if (!radius) return radius.error();
    auto extra = get_int(j, type, "extra", 0, kCostMax - 1);
    if (!extra) return extra.error();
    return world_command(SetWallMargin{WallMargin{static_cast<int>(*radius), static_cast<int>(*extra)}});
}

Result<Command> parse_ping(const json& j, const std::string& type) {
    if (auto r = only_keys(j, type, {"id"}); !r) return r.error();
    const auto it = j.find("id");
    if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>())) {
        return Error{"ping: 'id' must be a number"};
    }
    return viewer_command(Ping{it->get<double>()});
}

using MessageParser = Result<Command> (*)(const json&, const std::string&);
struct MessageType {
    std::string_view type;
    MessageParser parse;
};
constexpr MessageType kMessageTypes[] = {
    {"set_goals", parse_set_goals},
    {"select", parse_select},
    {"order", parse_order},
    {"view", parse_view},
    {"paint", parse_paint},
    {"spawn", parse_spawn},
    {"tower_check", parse_tower_check},
    {"place_tower", parse_place_tower},
    {"params", parse_params},
    {"pause", parse_pause},
    {"step", parse_step},
    {"load_map", parse_load_map},
    {"scenario", parse_scenario},
    {"astar_compare", parse_astar_compare},
    {"inspect", parse_inspect},
    {"line_of_sight", parse_line_of_sight},
    {"wall_margin", parse_wall_margin},
    {"congestion", parse_congestion},
    {"ping", parse_ping},
};

Result<Command> parse_command(const json& j, const std::string& type) {
    for (const MessageType& m : kMessageTypes)
        if (m.type == type) return m.parse(j, type);
    return Error{"unknown message type '" + type.substr(0, 40) + "'"};
}

template <class T>
void put(std::string& out, std::size_t offset, T value) {
    std::memcpy(out.data() + offset, &value, sizeof value);  // little-endian hosts only (x86, ARM)
}

std::uint32_t get_u32(const std::string& in, std::size_t offset) {
    std::uint32_t v;
    std::memcpy(&v, in.data() + offset, sizeof v);
    return v;
}

json cells_array(const std::vector<Cell>& cells) {
    json g = json::array();
    for (const Cell& c : cells) g.push_back({c.x, c.y});
    return g;
}

// Floats as the user typed them (0.16, not 0.1599999964).
double tidy(double v) {
    return std::round(v * 1e4) / 1e4;
}

// Times and distances in replies: three decimals.
double round3(double v) {
    return std::round(v * 1e3) / 1e3;
}

json params_object(const World& world) {
    return {{"line_of_sight", world.line_of_sight()},
            {"speed", tidy(world.params().speed)},
            {"separation", tidy(world.params().separation)},
            {"radius", tidy(world.params().radius)},
            {"wall_margin", {world.wall_margin().radius, world.wall_margin().extra}},
            {"congestion", world.congestion().enabled && !world.hierarchical()}};
}

json groups_array(const World& world) {
    json out = json::array();
    for (const UnitGroup& g : world.groups()) {
        out.push_back({{"id", g.id},
                       {"goals", cells_array(g.goals)},
                       {"members", g.members},
                       {"size", g.size},
                       {"field_ready", g.field_ready},
                       {"flee", g.flee},
                       {"exit", g.exit},
                       {"exited", g.exited},
                       {"sector_fields", g.sector_fields},
                       {"order_ms", g.order_to_field_ms < 0 ? json(nullptr) : json(tidy(g.order_to_field_ms))}});
    }
    return out;
}

json service_object(const World& world) {
    const FieldServiceStats s = world.service_stats();
    return {{"requests", s.requests},
            {"hits", s.hits},
            {"misses", s.misses},
            {"coalesced", s.coalesced},
            {"builds", s.builds},
            {"repairs", s.repairs},
            {"repair_rebuilds", s.repair_rebuilds},
            {"builds_cancelled", s.builds_cancelled},
            {"evictions", s.evictions},
            {"invalidations", s.invalidations},
            {"cached_bytes", s.bytes_cached},
            {"peak_cached_bytes", s.peak_bytes_cached},
            {"cached_fields", s.fields_cached},
            {"budget_bytes", s.budget_bytes},
            {"tickets", s.tickets},
            {"queued", s.queued},
            {"running", s.running}};
}

// The units of each group in each readable state: {"id", "moving", "arrived", "queued", "stuck",
// "no_path", "exited"} per group, in the order of World::groups() (exited: units that left by its
// exits so far).
json group_states_array(const World& world, const std::vector<GroupStateCounts>& counts) {
    json out = json::array();
    for (const GroupStateCounts& g : counts) {
        const UnitGroup* info = world.group(g.group);
        out.push_back({{"id", g.group},
                       {"exited", info ? info->exited : 0},
                       {"moving", g.counts[static_cast<int>(UnitState::moving)]},
                       {"arrived", g.counts[static_cast<int>(UnitState::arrived)]},
                       {"queued", g.counts[static_cast<int>(UnitState::queued)]},
                       {"stuck", g.counts[static_cast<int>(UnitState::stuck)]},
                       {"no_path", g.counts[static_cast<int>(UnitState::no_path)]}});
    }
    return out;
}

// The world's spawners (tower defense: waves sent, units spawned, units that got through).
json spawners_array(const World& world) {
    json out = json::array();
    for (const SpawnerInfo& sp : world.spawners()) out.push_back(spawner_json(sp, world.crowd().time()));
    return out;
}

// The groups marching in formation: anchor, heading, arrived, error, and every slot's place
// (x, y pairs, 2 decimals) for the page's ghost slots.
json formations_array(const World& world) {
    json out = json::array();
    const auto round2 = [](float v) { return std::round(v * 100.0f) / 100.0f; };
    for (const UnitGroup& g : world.groups()) {
        const FormationState f = world.formation(g.id);
        if (!f.active) continue;
        json slots = json::array();
        for (const Vec2& p : f.slots) {
            slots.push_back(round2(p.x));
            slots.push_back(round2(p.y));
        }
        out.push_back({{"group", g.id},
                       {"anchor", {round2(f.anchor.x), round2(f.anchor.y)}},
                       {"heading", {round2(f.heading.x), round2(f.heading.y)}},
                       {"arrived", f.arrived},
                       {"error", round2(f.error)},
                       {"slots", std::move(slots)}});
    }
    return out;
}

json stats_object(const World& world, double tick_hz, std::size_t clients,
                  const std::vector<GroupStateCounts>& counts) {
    const WorldStats& s = world.stats();
    const FieldServiceStats f = world.service_stats();
    return {{"agents", world.agents().size()},
            {"arrived", s.crowd.arrived},
            {"no_path", s.crowd.no_path},
            {"queued", s.crowd.queued},
            {"stuck", s.crowd.stuck},
            {"exited", s.exited},
            {"groups", world.groups().size()},
            {"group_states", group_states_array(world, counts)},
            {"field_ms", s.build_ms},
            {"repair_ms", s.repair_ms},
            {"repairs", s.repairs_published},
            {"order_ms", s.order_to_field_ms},
            {"step_ms", s.step_ms},
            {"tick_hz", tick_hz},
            {"clients", clients},
            {"fields_published", s.fields_published},
            {"cache_hits", f.hits},
            {"cache_misses", f.misses},
            {"builds", f.builds},
            {"builds_cancelled", f.builds_cancelled},
            {"cached_bytes", f.bytes_cached},
            {"tick", s.tick},
            {"planner", s.hierarchical ? "hierarchical" : "flat"},
            {"graph_ms", s.graph_build_ms},
            {"graph_update_ms", s.graph_update_ms},
            {"sector_fields", s.sector_fields},
            {"sector_bytes", s.sector_field_bytes},
            {"route_ms", s.route_ms},
            {"tick_route_ms", s.tick_route_ms},
            {"spawners", spawners_array(world)},
            {"formations", formations_array(world)}};
}

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

ParsedMessage parse_client_message(std::string_view text) {
    if (text.size() > kMaxMessageBytes) {
        return {"", Error{"message of " + std::to_string(text.size()) + " bytes is over the " +
                          std::to_string(kMaxMessageBytes) + "-byte limit"}};
    }
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return {"", Error{"message is not valid JSON"}};
    if (!j.is_object()) return {"", Error{"message is not a JSON object"}};
    const auto t = j.find("type");
    if (t == j.end() || !t->is_string()) return {"", Error{"message has no string 'type'"}};
    std::string type = t->get<std::string>();
    auto cmd = parse_command(j, type);
    if (type.size() > 40) type.resize(40);
    return {std::move(type), std::move(cmd)};
}

Result<Order> parse_order_body(std::string_view body) {
    if (body.size() > kMaxMessageBytes) {
        return Error{"order body of " + std::to_string(body.size()) + " bytes is over the " +
                     std::to_string(kMaxMessageBytes) + "-byte limit"};
    }
    const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Error{"order body is not valid JSON"};
    if (!j.is_object()) return Error{"order body is not a JSON object"};
    if (auto r = only_keys(j, "order", {"goals", "select"}); !r) return r.error();
    if (j.find("select") == j.end()) return Error{"order: missing 'select' ([x0, y0, x1, y1] cells)"};
    auto cmd = parse_order(j, "order");
    if (!cmd) return cmd.error();
    return std::get<Order>(std::get<WorldCommand>(*cmd));
}

std::string error_json(std::string_view message, std::string_view request) {
    json j{{"type", "error"}, {"message", message}};
    j["request"] = request.empty() ? json(nullptr) : json(request);
    return dump(j);
}

std::string pong_json(double id) {
    return dump(json{{"type", "pong"}, {"id", id}});
}

std::string encode_agents(const World& world) {
    const auto& ids = world.agents();
    const std::size_t n = ids.size();
    std::string out(20 + 7 * n, '\0');
    const float w = static_cast<float>(world.cost().width()), h = static_cast<float>(world.cost().height());
    out[0] = 1;
    out[1] = static_cast<char>(kAgentsFrameFormat);
    put(out, 4, static_cast<std::uint32_t>(n));
    put(out, 8, static_cast<std::uint32_t>(world.stats().tick));
    put(out, 12, w / 65535.0f);
    put(out, 16, h / 65535.0f);
    const Crowd& crowd = world.crowd();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 p = crowd.position(ids[i]);
        const auto qx = static_cast<std::uint16_t>(std::clamp(std::lround(p.x / w * 65535.0f), 0L, 65535L));
        const auto qy = static_cast<std::uint16_t>(std::clamp(std::lround(p.y / h * 65535.0f), 0L, 65535L));
        put(out, 20 + 4 * i, qx);
        put(out, 22 + 4 * i, qy);
        out[20 + 4 * n + i] = static_cast<char>(unit_state(crowd, ids[i]));
        out[20 + 5 * n + i] = static_cast<char>(world.group_of(ids[i]) & 0xFF);
        out[20 + 6 * n + i] = static_cast<char>(world.unit_size(ids[i]));
    }
    return out;
}

int field_stride(int width, int height) {
    int s = 1;
    auto samples = [&](int k) {
        return static_cast<std::size_t>((width + k - 1) / k) * static_cast<std::size_t>((height + k - 1) / k);
    };
    while (samples(s) > kMaxFieldSamples) ++s;
    return s;
}

std::string encode_fields(const World& world, UnitGroupId group, std::uint32_t version) {
    return encode_fields(world, group, version, nullptr);
}

std::string encode_fields(const World& world, UnitGroupId group, std::uint32_t version, float* keep_scale) {
    std::shared_ptr<const FlowField> field = world.field(group);
    std::shared_ptr<const HierarchicalField> plan = world.plan(group);
    if (!field && !plan) {
        group = 0;
        std::size_t best = 0;
        for (const UnitGroup& g : world.groups()) {
            auto f = world.field(g.id);
            auto p = world.plan(g.id);
            if ((f || p) && (!(field || plan) || g.members > best)) {
                field = std::move(f);
                plan = std::move(p);
                group = g.id;
                best = g.members;
            }
        }
    }
    const CostField& c = world.cost();
    const int w = c.width(), h = c.height();
    const int stride = field_stride(w, h);
    // Samples: the cell at the middle of every stride x stride block (point sampling).
    const int sw = (w + stride - 1) / stride, sh = (h + stride - 1) / stride;
    const std::size_t n = static_cast<std::size_t>(sw) * sh;
    std::string out(28 + 4 * n, '\0');
    out[0] = 2;
    out[1] = static_cast<char>(stride > 1 ? stride : 0);
    put(out, 4, static_cast<std::uint32_t>(w));
    put(out, 8, static_cast<std::uint32_t>(h));
    put(out, 12, version);
    put(out, 20, static_cast<float>(world.stats().build_ms));
    put(out, 24, static_cast<std::uint32_t>(group));
    const auto costs = c.cells();
    auto cell_of = [&](std::size_t k) {
        const int x = std::min(w - 1, static_cast<int>(k % sw) * stride + stride / 2);
        const int y = std::min(h - 1, static_cast<int>(k / sw) * stride + stride / 2);
        return static_cast<std::size_t>(y) * w + x;
    };
    // Integration and flow code of a sample's cell (+inf and kNotPlannedCode where nothing is known).
    auto sample = [&](std::size_t i, float& v, std::uint8_t& d) {
        if (field) {
            v = field->integration()[i];
            d = static_cast<std::uint8_t>(field->directions()[i]);
            return;
        }
        const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
        if (costs[i] == kCostWall) {
            v = kUnreachable;
            d = static_cast<std::uint8_t>(Direction::wall);
        } else if (!plan || plan->sector_field(plan->graph().sector_of(x, y)) == nullptr) {
            v = kUnreachable;
            d = kNotPlannedCode;
        } else {
            v = plan->integration(x, y);
            d = static_cast<std::uint8_t>(plan->direction(x, y));
        }
    };
    // Goal fields are quantised against their largest value; flee fields (values <= 0) against
    // their most negative one, as value = -q * scale (byte 2 says which).
    const bool flee = field && field->kind() == FieldKind::flee;
    out[2] = flee ? 1 : 0;
    // A flat field sent cell for cell (maps up to 2^20 cells) takes straight loops over its arrays:
    // on the 1024x1024 map 6.8 ms instead of 12.7 through cell_of() and sample() (median of 15,
    // quiet machine, a throwaway timing test; a stride-1 shortcut in cell_of() alone gave 8.5).
    const bool direct = field && stride == 1;
    float max_v = 0.0f;
    if (direct) {
        const float* const values = field->integration().data();
        const float sign = flee ? -1.0f : 1.0f;
        for (std::size_t i = 0; i < n; ++i) {
            const float v = values[i];
            if (v != kUnreachable) max_v = std::max(max_v, sign * v);
        }
    } else {
        for (std::size_t k = 0; k < n; ++k) {
            float v;
            std::uint8_t d;
            sample(cell_of(k), v, d);
            if (v != kUnreachable) max_v = std::max(max_v, flee ? -v : v);
        }
    }
    float scale = max_v > 0.0f ? max_v / 65534.0f : 1.0f;
    if (keep_scale) {
        const float kept = *keep_scale;
        if (kept > 0.0f && max_v <= kept * 65534.0f && max_v >= kept * (65534.0f / 4.0f)) scale = kept;
        *keep_scale = scale;
    }
    put(out, 16, scale);
    auto quantise = [&](float v) -> std::uint16_t {
        return v == kUnreachable
                   ? 65535
                   : static_cast<std::uint16_t>(std::clamp(std::round((flee ? -v : v) / scale), 0.0f, 65534.0f));
    };
    if (direct) {
        const float* const values = field->integration().data();
        const Direction* const moves = field->directions().data();
        char* const qs = out.data() + 28;
        char* const cs = qs + 2 * n;
        char* const ds = qs + 3 * n;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint16_t q = quantise(values[i]);
            std::memcpy(qs + 2 * i, &q, 2);
            cs[i] = static_cast<char>(costs[i]);
            ds[i] = static_cast<char>(static_cast<std::uint8_t>(moves[i]));
        }
        return out;
    }
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = cell_of(k);
        float v;
        std::uint8_t d;
        sample(i, v, d);
        if (!field && !plan) {  // no field at all (cannot happen after a load): terrain only
            d = static_cast<std::uint8_t>(costs[i] == kCostWall ? Direction::wall : Direction::unreachable);
        }
        put(out, 28 + 2 * k, quantise(v));
        out[28 + 2 * n + k] = static_cast<char>(costs[i]);
        out[28 + 3 * n + k] = static_cast<char>(d);
    }
    return out;
}

std::string encode_fields_patch(const std::string& base, const std::string& next) {
    constexpr std::size_t kHeader = 28, kPatchHeader = 48;
    if (base.size() != next.size() || base.size() < kHeader || base[0] != 2 || next[0] != 2) return {};
    // Kind, stride and flee flag, size, scale and group must agree (bytes 0-11, 16-19, 24-27).
    if (std::memcmp(base.data(), next.data(), 12) != 0 || std::memcmp(base.data() + 16, next.data() + 16, 4) != 0 ||
        std::memcmp(base.data() + 24, next.data() + 24, 4) != 0) {
        return {};
    }
    const auto w = get_u32(next, 4), h = get_u32(next, 8);
    const int stride = std::max(1, static_cast<int>(static_cast<std::uint8_t>(next[1])));
    const std::size_t sw = (w + stride - 1) / stride, sh = (h + stride - 1) / stride, n = sw * sh;
    if (next.size() != kHeader + 4 * n) return {};
    std::size_t x0 = sw, y0 = sh, x1 = 0, y1 = 0;
    const char* const a = base.data() + kHeader;
    const char* const b = next.data() + kHeader;
    for (std::size_t y = 0; y < sh; ++y) {
        const std::size_t row = y * sw;
        // Most rows of a paint's patch are unchanged: three memcmp calls skip them.
        if (std::memcmp(a + 2 * row, b + 2 * row, 2 * sw) == 0 &&
            std::memcmp(a + 2 * n + row, b + 2 * n + row, sw) == 0 &&
            std::memcmp(a + 3 * n + row, b + 3 * n + row, sw) == 0) {
            continue;
        }
        for (std::size_t x = 0; x < sw; ++x) {
            const std::size_t k = row + x;
            if (a[2 * k] != b[2 * k] || a[2 * k + 1] != b[2 * k + 1] || a[2 * n + k] != b[2 * n + k] ||
                a[3 * n + k] != b[3 * n + k]) {
                x0 = std::min(x0, x);
                x1 = std::max(x1, x);
                y0 = std::min(y0, y);
                y1 = std::max(y1, y);
            }
        }
    }
    const std::size_t pw = x0 <= x1 ? x1 - x0 + 1 : 0, ph = y0 <= y1 ? y1 - y0 + 1 : 0;
    if (pw * ph * 2 > n) return {};
    if (pw == 0) x0 = y0 = 0;
    const std::size_t m = pw * ph;
    std::string out(kPatchHeader + 4 * m, '\0');
    std::memcpy(out.data(), next.data(), kHeader);  // size, version, scale, build time, group
    out[0] = 7;
    put(out, 28, get_u32(base, 12));  // the version it applies to
    put(out, 32, static_cast<std::uint32_t>(x0));
    put(out, 36, static_cast<std::uint32_t>(y0));
    put(out, 40, static_cast<std::uint32_t>(pw));
    put(out, 44, static_cast<std::uint32_t>(ph));
    for (std::size_t r = 0; r < ph; ++r) {
        const std::size_t from = (y0 + r) * sw + x0, to = r * pw;
        std::memcpy(out.data() + kPatchHeader + 2 * to, b + 2 * from, 2 * pw);
        std::memcpy(out.data() + kPatchHeader + 2 * m + to, b + 2 * n + from, pw);
        std::memcpy(out.data() + kPatchHeader + 3 * m + to, b + 3 * n + from, pw);
    }
    return out;
}

std::string encode_terrain(const CostField& cost, int x0, int y0, int w, int h) {
    return encode_terrain(cost.cells(), cost.width(), cost.height(), x0, y0, w, h);
}

std::string encode_terrain(std::span<const Cost> cells, int width, int height, int x0, int y0, int w, int h) {
    std::string out(28 + static_cast<std::size_t>(w) * static_cast<std::size_t>(h), '\0');
    out[0] = 6;
    put(out, 4, static_cast<std::uint32_t>(width));
    put(out, 8, static_cast<std::uint32_t>(height));
    put(out, 12, static_cast<std::uint32_t>(x0));
    put(out, 16, static_cast<std::uint32_t>(y0));
    put(out, 20, static_cast<std::uint32_t>(w));
    put(out, 24, static_cast<std::uint32_t>(h));
    for (int y = 0; y < h; ++y) {
        std::memcpy(out.data() + 28 + static_cast<std::size_t>(y) * w,
                    cells.data() + static_cast<std::size_t>(y0 + y) * width + x0, static_cast<std::size_t>(w));
    }
    return out;
}

std::string encode_sectors(const World& world, int size) {
    const SectorGraph* graph = world.sector_graph(size);
    if (!graph) return {};
    const auto portals = graph->portals();
    std::string out(32 + 12 * portals.size(), '\0');
    out[0] = 4;
    put(out, 4, static_cast<std::uint32_t>(graph->width()));
    put(out, 8, static_cast<std::uint32_t>(graph->height()));
    put(out, 12, static_cast<std::uint32_t>(graph->sector_size()));
    put(out, 16, static_cast<std::uint32_t>(size));
    put(out, 20, static_cast<std::uint32_t>(graph->version()));
    put(out, 24, static_cast<std::uint32_t>(portals.size()));
    put(out, 28, static_cast<std::uint32_t>(graph->nodes().size()));
    for (std::size_t k = 0; k < portals.size(); ++k) {
        const Portal& p = portals[k];
        const std::size_t o = 32 + 12 * k;
        put(out, o, static_cast<std::uint16_t>(p.node_a.x));
        put(out, o + 2, static_cast<std::uint16_t>(p.node_a.y));
        put(out, o + 4, static_cast<std::uint16_t>(p.node_b.x));
        put(out, o + 6, static_cast<std::uint16_t>(p.node_b.y));
        put(out, o + 8, static_cast<std::uint16_t>(p.first));
        put(out, o + 10, static_cast<std::uint16_t>(p.last));
    }
    return out;
}

std::string encode_sector_fields(const World& world, UnitGroupId group) {
    const auto plan = world.plan(group);
    if (!plan) return {};
    const SectorGraph& graph = plan->graph();
    const int sectors = graph.sector_count();
    std::string out(24 + (static_cast<std::size_t>(sectors) + 7) / 8, '\0');
    out[0] = 5;
    std::uint32_t built = 0;
    for (int s = 0; s < sectors; ++s) {
        if (plan->sector_field(s) == nullptr) continue;
        ++built;
        out[24 + s / 8] = static_cast<char>(static_cast<std::uint8_t>(out[24 + s / 8]) | (1u << (s % 8)));
    }
    const UnitGroup* g = world.group(group);
    put(out, 4, static_cast<std::uint32_t>(group));
    put(out, 8, static_cast<std::uint32_t>(g ? g->size : 1));
    put(out, 12, static_cast<std::uint32_t>(sectors));
    put(out, 16, built);
    put(out, 20, static_cast<std::uint32_t>(std::min<std::size_t>(plan->field_bytes(), 0xFFFFFFFFu)));
    return out;
}

std::string encode_selection(const World& world, const std::vector<AgentId>& selected) {
    const auto& ids = world.agents();
    const std::size_t n = ids.size();
    std::string out(16 + (n + 7) / 8, '\0');
    out[0] = 3;
    // Roster positions by slot: handles are looked up once each.
    std::vector<std::uint32_t> slot_to_pos;
    for (std::size_t i = 0; i < n; ++i) {
        if (slot_to_pos.size() <= ids[i].index) slot_to_pos.resize(ids[i].index + 1, 0xFFFFFFFFu);
        slot_to_pos[ids[i].index] = static_cast<std::uint32_t>(i);
    }
    std::uint32_t count = 0;
    for (const AgentId id : selected) {
        if (!world.crowd().valid(id) || id.index >= slot_to_pos.size()) continue;
        const std::uint32_t pos = slot_to_pos[id.index];
        if (pos == 0xFFFFFFFFu) continue;
        out[16 + pos / 8] = static_cast<char>(static_cast<std::uint8_t>(out[16 + pos / 8]) | (1u << (pos % 8)));
        ++count;
    }
    put(out, 4, count);
    put(out, 8, static_cast<std::uint32_t>(n));
    put(out, 12, static_cast<std::uint32_t>(majority_group(world, selected)));
    return out;
}

std::string world_json(const World& world, const std::vector<std::string>& maps, int max_agents,
                       const std::vector<std::string>& uploads) {
    const auto costs = world.cost().cells();
    const auto free_cells =
        static_cast<std::size_t>(std::count_if(costs.begin(), costs.end(), [](Cost c) { return c != kCostWall; }));
    json j{{"type", "world"},
           {"map", world.name()},
           {"width", world.cost().width()},
           {"height", world.cost().height()},
           {"goals", cells_array(world.all_goals())},
           {"groups", groups_array(world)},
           {"maps", maps},
           {"params", params_object(world)},
           {"paused", world.paused()},
           {"max_agents", max_agents},
           {"max_goals", kMaxOrderGoals},
           {"unit_sizes", kWorldUnitSizes},
           {"max_tower_side", kMaxTowerSide},
           {"agents", world.agents().size()},
           {"planner", world.hierarchical() ? "hierarchical" : "flat"},
           {"field_stride", field_stride(world.cost().width(), world.cost().height())},
           {"free_cells", free_cells},
           {"max_units", std::min(max_units(world.cost()), max_agents)},
           {"uploads", uploads},
           {"scenarios", scenario_names()}};
    if (const SectorGraph* graph = world.sector_graph()) j["sector_size"] = graph->sector_size();
    return dump(j);
}

std::string groups_json(const World& world) {
    return dump(json{{"type", "groups"}, {"groups", groups_array(world)}});
}

std::string stats_json(const World& world, double tick_hz, std::size_t clients) {
    json j = stats_object(world, tick_hz, clients, group_state_counts(world));
    j["type"] = "stats";
    return j.dump();
}

std::string params_json(const World& world) {
    return json{{"type", "params"}, {"params", params_object(world)}}.dump();
}
std::string paused_json(const World& world) {
    return json{{"type", "paused"}, {"paused", world.paused()}}.dump();
}
std::string ordered_json(const CommandOutcome& outcome) {
    return json{{"type", "ordered"}, {"group", outcome.group}, {"units", outcome.units}}.dump();
}

std::string tower_json(const PlaceTower& rect, const TowerCheck& check) {
    return json{{"type", "tower"},
                {"x0", rect.x0},
                {"y0", rect.y0},
                {"x1", rect.x1},
                {"y1", rect.y1},
                {"blocks", check.blocks},
                {"covers_goal", check.covers_goal},
                {"covers_danger", check.covers_danger},
                {"units_cut_off", check.units_cut_off},
                {"cells_cut_off", check.cells_cut_off}}
        .dump();
}

std::string tower_placed_json(const PlaceTower& rect) {
    return json{{"type", "tower_placed"}, {"x0", rect.x0}, {"y0", rect.y0}, {"x1", rect.x1}, {"y1", rect.y1}}.dump();
}

std::string astar_json(const AstarComparison& c) {
    json paths = json::array();
    for (const AstarPath& p : c.paths) {
        json cells = json::array();
        for (const Cell cell : p.cells) cells.push_back({cell.x, cell.y});
        paths.push_back({{"unit", p.unit},
                         {"start", {p.start.x, p.start.y}},
                         {"cost", std::isfinite(p.cost) ? json(round3(p.cost)) : json(nullptr)},
                         {"cells", std::move(cells)}});
    }
    return json{{"type", "astar"},
                {"group", c.group},
                {"units", c.units},
                {"sampled", c.sampled},
                {"no_path", c.no_path},
                {"astar_ms_sampled", round3(c.astar_ms_sampled)},
                {"astar_ms_per_unit", std::round(c.astar_ms_per_unit * 1e4) / 1e4},
                {"astar_ms_all", round3(c.astar_ms_all)},
                {"expanded_per_unit", std::round(c.expanded_per_unit)},
                {"field_ms", round3(c.field_ms)},
                {"ratio", c.field_ms > 0.0 ? std::round(c.astar_ms_all / c.field_ms * 10.0) / 10.0 : 0.0},
                {"paths", std::move(paths)}}
        .dump();
}

std::string inspected_json(const std::optional<UnitInspection>& unit) {
    if (!unit) return json{{"type", "inspected"}, {"unit", nullptr}}.dump();
    const UnitInspection& u = *unit;
    const Vec2 p = u.position, v = u.velocity, d = u.desired_velocity;
    return json{{"type", "inspected"},
                {"unit", u.roster_index},
                {"group", u.group},
                {"size", u.size},
                {"state", unit_state_name(u.state)},
                {"x", round3(p.x)},
                {"y", round3(p.y)},
                {"vx", round3(v.x)},
                {"vy", round3(v.y)},
                {"speed", round3(std::hypot(v.x, v.y))},
                {"dvx", round3(d.x)},
                {"dvy", round3(d.y)},
                {"cost_to_go", u.cost_to_go ? json(round3(*u.cost_to_go)) : json(nullptr)},
                {"neighbours", u.neighbours}}
        .dump();
}

std::string state_json(const World& world, double tick_hz, std::size_t clients) {
    const std::vector<GroupStateCounts> counts = group_state_counts(world);
    // Each group with its units' states beside its members (the same counts as the stats' group_states).
    json groups = groups_array(world);
    const json states = group_states_array(world, counts);
    for (std::size_t i = 0; i < groups.size() && i < states.size(); ++i) {
        for (const auto& [k, v] : states[i].items())
            if (k != "id") groups[i][k] = v;
    }
    json j{{"map", world.name()},
           {"width", world.cost().width()},
           {"height", world.cost().height()},
           {"goals", cells_array(world.all_goals())},
           {"groups", groups},
           {"params", params_object(world)},
           {"paused", world.paused()},
           {"terrain_version", world.terrain_version()},
           {"service", service_object(world)},
           {"stats", stats_object(world, tick_hz, clients, counts)}};
    return dump(j);
}

std::string agents_json(const World& world, std::size_t limit) {
    const auto& ids = world.agents();
    const std::size_t n = std::min(limit, ids.size());
    json x = json::array(), y = json::array(), vx = json::array(), vy = json::array(), dvx = json::array(),
         dvy = json::array(), st = json::array(), group = json::array(), size = json::array();
    const Crowd& crowd = world.crowd();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 p = crowd.position(ids[i]), v = crowd.velocity(ids[i]), d = crowd.desired_velocity(ids[i]);
        x.push_back(p.x);
        y.push_back(p.y);
        vx.push_back(v.x);
        vy.push_back(v.y);
        dvx.push_back(d.x);
        dvy.push_back(d.y);
        st.push_back(static_cast<int>(unit_state(crowd, ids[i])));
        group.push_back(world.group_of(ids[i]));
        size.push_back(world.unit_size(ids[i]));
    }
    json j{{"count", n},
           {"total", ids.size()},
           {"tick", world.stats().tick},
           {"roster", world.roster_version()},
           {"x", x},
           {"y", y},
           {"vx", vx},
           {"vy", vy},
           {"dvx", dvx},
           {"dvy", dvy},
           {"state", st},
           {"group", group},
           {"size", size}};
    return j.dump();
}

std::string snapped_json(const std::vector<SnappedGoal>& moves, std::string_view request) {
    json m = json::array();
    for (const SnappedGoal& s : moves) m.push_back({{"from", {s.from.x, s.from.y}}, {"to", {s.to.x, s.to.y}}});
    return dump(json{{"type", "snapped"}, {"request", request}, {"moves", m}});
}

std::optional<Cell> central_goal(const CostField& cost) {
    return nearest_passable(cost, {cost.width() / 2, cost.height() / 2});
}

std::string clean_map_name(std::string_view raw) {
    std::string name;
    for (const char ch : raw.substr(0, kMaxMapNameChars)) {
        const auto u = static_cast<unsigned char>(ch);
        name.push_back(u >= 0x20 && u < 0x7f ? ch : '_');
    }
    return name.empty() ? "upload" : name;
}

Result<UploadedMap> parse_map_upload(std::string_view body, std::string_view raw_name) {
    std::string name = clean_map_name(raw_name);
    if (body.size() > kMaxUploadBytes) {
        return Error{name + ": upload of " + std::to_string(body.size()) + " bytes is over the " +
                     std::to_string(kMaxUploadBytes) + "-byte limit"};
    }
    auto map = parse_map(body, name);
    if (!map) return map.error();
    const auto goal = central_goal(map->cost);
    if (!goal) return Error{name + ": the map has no passable cell"};
    return UploadedMap{std::move(name), std::move(map->cost), *goal};
}

nlohmann::json spawner_json(const SpawnerInfo& sp, double now) {
    return {{"id", sp.id},
            {"group", sp.group},
            {"emissions", sp.emissions},
            {"spawned", sp.spawned},
            {"skipped", sp.skipped},
            {"sunk", sp.sunk},
            {"waves_done", sp.waves_done},
            {"waves", sp.spec.waves},
            {"done", sp.done},
            {"next_s", sp.done ? json(nullptr) : json(sp.next_s - now)}};
}

// The download name of the current map: its name without a folder or extension, plus ".tmap".
std::string tmap_file_name(std::string name) {
    if (const auto slash = name.find_last_of("/\\:"); slash != std::string::npos) name = name.substr(slash + 1);
    if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
    for (char& ch : name)
        if (ch == '"' || static_cast<unsigned char>(ch) < 32) ch = '_';
    return (name.empty() ? std::string("map") : name) + ".tmap";
}

}  // namespace tide::serve
