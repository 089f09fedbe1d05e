// Messages of `tide serve`; see protocol.hpp and docs/protocol.md.

#include "protocol.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "../map_gen.hpp"
#include "tide/default_map.hpp"
#include "tide/map_io.hpp"

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

Result<Command> parse_command(const json& j, const std::string& type) {
    if (type == "set_goals") {
        if (auto r = only_keys(j, type, {"goals"}); !r) return r.error();
        const auto it = j.find("goals");
        if (it == j.end() || !it->is_array()) return Error{"set_goals: 'goals' must be an array of [x, y]"};
        if (it->empty() || it->size() > static_cast<std::size_t>(kMaxGoals)) {
            return Error{"set_goals: " + std::to_string(it->size()) + " goals, expected 1.." +
                         std::to_string(kMaxGoals)};
        }
        SetGoalsCmd cmd;
        for (const json& g : *it) {
            if (!g.is_array() || g.size() != 2 || !g[0].is_number_integer() || !g[1].is_number_integer()) {
                return Error{"set_goals: goal " + g.dump().substr(0, 80) + " is not [x, y] with integers"};
            }
            const long long x =
                g[0].is_number_unsigned() && g[0].get<unsigned long long>() > kMaxCoord ? -1 : g[0].get<long long>();
            const long long y =
                g[1].is_number_unsigned() && g[1].get<unsigned long long>() > kMaxCoord ? -1 : g[1].get<long long>();
            if (x < 0 || y < 0 || x > kMaxCoord || y > kMaxCoord) {
                return Error{"set_goals: goal " + g.dump() + " is outside any map"};
            }
            cmd.goals.push_back({static_cast<int>(x), static_cast<int>(y)});
        }
        return Command{std::move(cmd)};
    }
    if (type == "paint") {
        if (auto r = only_keys(j, type, {"x", "y", "radius", "terrain"}); !r) return r.error();
        PaintCmd cmd;
        auto x = get_int(j, type, "x", 0, kMaxCoord);
        if (!x) return x.error();
        auto y = get_int(j, type, "y", 0, kMaxCoord);
        if (!y) return y.error();
        auto r = get_int(j, type, "radius", 0, kMaxBrush);
        if (!r) return r.error();
        const auto t = j.find("terrain");
        if (t == j.end() || !t->is_string()) return Error{"paint: 'terrain' must be wall, forest, swamp or plain"};
        const std::string terrain = t->get<std::string>();
        if (terrain == "wall") {
            cmd.cost = kCostWall;
        } else if (terrain == "forest") {
            cmd.cost = kCostForest;
        } else if (terrain == "swamp") {
            cmd.cost = kCostSwamp;
        } else if (terrain == "plain") {
            cmd.cost = kCostPlain;
        } else {
            return Error{"paint: terrain '" + terrain.substr(0, 40) + "' is not wall, forest, swamp or plain"};
        }
        cmd.x = static_cast<int>(*x);
        cmd.y = static_cast<int>(*y);
        cmd.radius = static_cast<int>(*r);
        return Command{cmd};
    }
    if (type == "spawn") {
        if (auto r = only_keys(j, type, {"count"}); !r) return r.error();
        auto c = get_int(j, type, "count", 0, kMaxAgents);
        if (!c) return c.error();
        return Command{SpawnCmd{static_cast<int>(*c)}};
    }
    if (type == "params") {
        if (auto r = only_keys(j, type, {"speed", "separation", "radius"}); !r) return r.error();
        ParamsCmd cmd;
        auto s = get_opt_float(j, type, "speed", 0.1, 20.0);
        if (!s) return s.error();
        auto sep = get_opt_float(j, type, "separation", 0.0, 20.0);
        if (!sep) return sep.error();
        auto rad = get_opt_float(j, type, "radius", 0.05, 0.5);
        if (!rad) return rad.error();
        cmd.speed = *s;
        cmd.separation = *sep;
        cmd.radius = *rad;
        if (!cmd.speed && !cmd.separation && !cmd.radius) return Error{"params: nothing to change"};
        return Command{cmd};
    }
    if (type == "pause") {
        if (auto r = only_keys(j, type, {"paused"}); !r) return r.error();
        const auto it = j.find("paused");
        if (it == j.end() || !it->is_boolean()) return Error{"pause: 'paused' must be true or false"};
        return Command{PauseCmd{it->get<bool>()}};
    }
    if (type == "step") {
        if (auto r = only_keys(j, type, {}); !r) return r.error();
        return Command{StepCmd{}};
    }
    if (type == "load_map") {
        if (auto r = only_keys(j, type, {"name"}); !r) return r.error();
        const auto it = j.find("name");
        if (it == j.end() || !it->is_string()) return Error{"load_map: 'name' must be a string"};
        const std::string name = it->get<std::string>();
        const auto& names = builtin_map_names();
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            return Error{"load_map: no built-in map '" + name.substr(0, 40) + "'"};
        }
        return Command{LoadMapCmd{name}};
    }
    if (type == "ping") {
        if (auto r = only_keys(j, type, {"id"}); !r) return r.error();
        const auto it = j.find("id");
        if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>())) {
            return Error{"ping: 'id' must be a number"};
        }
        return Command{PingCmd{it->get<double>()}};
    }
    return Error{"unknown message type '" + type.substr(0, 40) + "'"};
}

template <class T>
void put(std::string& out, std::size_t offset, T value) {
    std::memcpy(out.data() + offset, &value, sizeof value);  // little-endian hosts only (x86, ARM)
}

json goals_array(const World& world) {
    json g = json::array();
    for (const Cell& c : world.goals()) g.push_back({c.x, c.y});
    return g;
}

// Floats as the user typed them (0.16, not 0.1599999964).
double tidy(float v) {
    return std::round(static_cast<double>(v) * 1e4) / 1e4;
}

json params_object(const World& world) {
    return {{"speed", tidy(world.params().speed)},
            {"separation", tidy(world.params().separation)},
            {"radius", tidy(world.params().radius)}};
}

json stats_object(const World& world, double tick_hz, std::size_t clients) {
    const WorldStats& s = world.stats();
    return {{"agents", world.agents().size()},
            {"arrived", s.crowd.arrived},
            {"no_path", s.crowd.no_path},
            {"stuck", s.crowd.stuck},
            {"field_ms", s.field_ms},
            {"step_ms", s.step_ms},
            {"tick_hz", tick_hz},
            {"clients", clients},
            {"field_version", s.field_version},
            {"tick", s.tick}};
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

std::string error_json(std::string_view message, std::string_view request) {
    json j{{"type", "error"}, {"message", message}};
    j["request"] = request.empty() ? json(nullptr) : json(request);
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string encode_agents(const World& world) {
    const auto& ids = world.agents();
    const std::size_t n = ids.size();
    std::string out(20 + 5 * n, '\0');
    const float w = static_cast<float>(world.cost().width()), h = static_cast<float>(world.cost().height());
    out[0] = 1;
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
        std::uint8_t st = static_cast<std::uint8_t>(crowd.state(ids[i]));
        if (st == 0 && crowd.stuck(ids[i])) st = 3;
        out[20 + 4 * n + i] = static_cast<char>(st);
    }
    return out;
}

std::string encode_fields(const World& world) {
    const FlowField& f = world.field();
    const CostField& c = world.cost();
    const std::size_t w = static_cast<std::size_t>(c.width()), h = static_cast<std::size_t>(c.height());
    const std::size_t cells = w * h;
    std::string out(24 + 4 * cells, '\0');
    const auto integ = f.integration();
    float max_v = 0.0f;
    for (const float v : integ) {
        if (v != kUnreachable) max_v = std::max(max_v, v);
    }
    const float scale = max_v > 0.0f ? max_v / 65534.0f : 1.0f;
    out[0] = 2;
    put(out, 4, static_cast<std::uint32_t>(w));
    put(out, 8, static_cast<std::uint32_t>(h));
    put(out, 12, static_cast<std::uint32_t>(world.stats().field_version));
    put(out, 16, scale);
    put(out, 20, static_cast<float>(world.stats().field_ms));
    const auto dirs = f.directions();
    const auto costs = c.cells();
    for (std::size_t i = 0; i < cells; ++i) {
        const float v = integ[i];
        const std::uint16_t q =
            v == kUnreachable ? 65535 : static_cast<std::uint16_t>(std::min(65534.0f, std::round(v / scale)));
        put(out, 24 + 2 * i, q);
        out[24 + 2 * cells + i] = static_cast<char>(costs[i]);
        out[24 + 3 * cells + i] = static_cast<char>(dirs[i]);
    }
    return out;
}

std::string world_json(const World& world, const std::vector<std::string>& maps, int max_agents) {
    json j{{"type", "world"},
           {"map", world.name()},
           {"width", world.cost().width()},
           {"height", world.cost().height()},
           {"goals", goals_array(world)},
           {"maps", maps},
           {"params", params_object(world)},
           {"paused", world.paused()},
           {"max_agents", max_agents},
           {"agents", world.agents().size()}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string stats_json(const World& world, double tick_hz, std::size_t clients) {
    json j = stats_object(world, tick_hz, clients);
    j["type"] = "stats";
    return j.dump();
}

std::string goals_json(const World& world) {
    return json{{"type", "goals"}, {"goals", goals_array(world)}}.dump();
}
std::string params_json(const World& world) {
    return json{{"type", "params"}, {"params", params_object(world)}}.dump();
}
std::string paused_json(const World& world) {
    return json{{"type", "paused"}, {"paused", world.paused()}}.dump();
}

std::string state_json(const World& world, double tick_hz, std::size_t clients) {
    json j{{"map", world.name()},
           {"width", world.cost().width()},
           {"height", world.cost().height()},
           {"goals", goals_array(world)},
           {"params", params_object(world)},
           {"paused", world.paused()},
           {"terrain_version", world.terrain_version()},
           {"stats", stats_object(world, tick_hz, clients)}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string agents_json(const World& world, std::size_t limit) {
    const auto& ids = world.agents();
    const std::size_t n = std::min(limit, ids.size());
    json x = json::array(), y = json::array(), vx = json::array(), vy = json::array(), dvx = json::array(),
         dvy = json::array(), st = json::array();
    const Crowd& crowd = world.crowd();
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 p = crowd.position(ids[i]), v = crowd.velocity(ids[i]), d = crowd.desired_velocity(ids[i]);
        x.push_back(p.x);
        y.push_back(p.y);
        vx.push_back(v.x);
        vy.push_back(v.y);
        dvx.push_back(d.x);
        dvy.push_back(d.y);
        int s = static_cast<int>(crowd.state(ids[i]));
        if (s == 0 && crowd.stuck(ids[i])) s = 3;
        st.push_back(s);
    }
    json j{{"count", n},
           {"total", ids.size()},
           {"tick", world.stats().tick},
           {"x", x},
           {"y", y},
           {"vx", vx},
           {"vy", vy},
           {"dvx", dvx},
           {"dvy", dvy},
           {"state", st}};
    return j.dump();
}

// ---------------------------------------------------------------------------------------------
// Built-in maps

const std::vector<std::string>& builtin_map_names() {
    static const std::vector<std::string> names{"default", "random256", "maze", "large"};
    return names;
}

std::optional<Cell> central_goal(const CostField& cost) {
    return nearest_passable(cost, {cost.width() / 2, cost.height() / 2});
}

CostField generate_maze(int cells_x, int cells_y, std::uint64_t seed) {
    // Room (i, j) covers map cells [3i+1, 3i+2] x [3j+1, 3j+2]; walls between rooms are knocked out
    // by an iterative depth-first search (a perfect maze: exactly one route between two rooms).
    const int w = 3 * cells_x + 1, h = 3 * cells_y + 1;
    CostField cost = CostField::create(w, h, kCostWall).value();
    std::vector<std::uint8_t> seen(static_cast<std::size_t>(cells_x) * cells_y, 0);
    cli::SplitMix64 rng{seed};
    auto open_room = [&](int i, int j) { cost.fill_rect(3 * i + 1, 3 * j + 1, 3 * i + 2, 3 * j + 2, kCostPlain); };
    std::vector<std::pair<int, int>> stack{{0, 0}};
    seen[0] = 1;
    open_room(0, 0);
    while (!stack.empty()) {
        const auto [i, j] = stack.back();
        std::pair<int, int> options[4];
        int n = 0;
        const int di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            const int a = i + di[k], b = j + dj[k];
            if (a >= 0 && b >= 0 && a < cells_x && b < cells_y && !seen[static_cast<std::size_t>(b) * cells_x + a]) {
                options[n++] = {a, b};
            }
        }
        if (n == 0) {
            stack.pop_back();
            continue;
        }
        const auto [a, b] = options[rng.next() % static_cast<std::uint64_t>(n)];
        seen[static_cast<std::size_t>(b) * cells_x + a] = 1;
        open_room(a, b);
        // Knock out the wall between the two rooms (two cells wide).
        if (a != i) {
            const int x = 3 * std::max(a, i);
            cost.fill_rect(x, 3 * j + 1, x, 3 * j + 2, kCostPlain);
        } else {
            const int y = 3 * std::max(b, j);
            cost.fill_rect(3 * i + 1, y, 3 * i + 2, y, kCostPlain);
        }
        stack.push_back({a, b});
    }
    // A few swamp and forest rooms so the costs show.
    for (int k = 0; k < cells_x * cells_y / 12; ++k) {
        const int i = static_cast<int>(rng.next() % static_cast<std::uint64_t>(cells_x));
        const int j = static_cast<int>(rng.next() % static_cast<std::uint64_t>(cells_y));
        cost.fill_rect(3 * i + 1, 3 * j + 1, 3 * i + 2, 3 * j + 2, k % 3 == 0 ? kCostSwamp : kCostForest);
    }
    return cost;
}

Result<BuiltinMap> make_builtin_map(std::string_view name) {
    if (name == "default") {
        auto m = parse_map(default_map_text(), "<default map>");
        if (!m) return m.error();
        return BuiltinMap{std::move(m->cost), {kDefaultGoal}};
    }
    if (name == "random256" || name == "large") {
        // The benchmark maps of `tide bench` (seed 1): 256x256, and 1024x1024 for zoom and pan.
        const int size = name == "large" ? 1024 : 256;
        auto cost = cli::generate_random_map({size, size, 0.20, 0.15, 0.07, 1});
        if (!cost) return cost.error();
        const Cell goal{size / 2, size / 2};
        cost->set(goal.x, goal.y, kCostPlain);
        return BuiltinMap{std::move(*cost), {goal}};
    }
    if (name == "maze") {
        CostField cost = generate_maze(40, 40, 7);
        const Cell goal{3 * 39 + 1, 3 * 39 + 1};  // the far corner room
        cost.set(goal.x, goal.y, kCostPlain);
        return BuiltinMap{std::move(cost), {goal}};
    }
    return Error{"no built-in map '" + std::string(name) + "'"};
}

}  // namespace tide::serve
