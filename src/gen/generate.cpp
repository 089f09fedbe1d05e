// Map generators and the built-in maps; see include/tide/generate.hpp.

#include "tide/generate.hpp"

#include <algorithm>
#include <utility>

#include "tide/default_map.hpp"
#include "tide/map_io.hpp"

namespace tide {

Result<CostField> generate_random_map(const RandomMapSpec& s) {
    for (const auto& [name, v] :
         {std::pair{"walls", s.walls}, std::pair{"forest", s.forest}, std::pair{"swamp", s.swamp}}) {
        if (!(v >= 0.0 && v <= 1.0)) {
            return Error{std::string(name) + " fraction " + std::to_string(v) + " is outside 0..1"};
        }
    }
    if (s.walls + s.forest + s.swamp > 1.0 + 1e-12) {
        return Error{"walls + forest + swamp fractions = " + std::to_string(s.walls + s.forest + s.swamp) +
                     " exceeds 1"};
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

Result<CostField> generate_maze(int rooms_x, int rooms_y, std::uint64_t seed) {
    if (rooms_x < 1 || rooms_y < 1 || rooms_x > 5000 || rooms_y > 5000) {
        return Error{"maze of " + std::to_string(rooms_x) + "x" + std::to_string(rooms_y) +
                     " rooms: each side must be 1..5000 rooms"};
    }
    // Room (i, j) covers map cells [3i+1, 3i+2] x [3j+1, 3j+2]; walls between rooms are knocked out
    // by an iterative depth-first search (a perfect maze: exactly one route between two rooms).
    const int w = 3 * rooms_x + 1, h = 3 * rooms_y + 1;
    CostField cost = CostField::create(w, h, kCostWall).value();
    std::vector<std::uint8_t> seen(static_cast<std::size_t>(rooms_x) * rooms_y, 0);
    SplitMix64 rng{seed};
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
            if (a >= 0 && b >= 0 && a < rooms_x && b < rooms_y && !seen[static_cast<std::size_t>(b) * rooms_x + a]) {
                options[n++] = {a, b};
            }
        }
        if (n == 0) {
            stack.pop_back();
            continue;
        }
        const auto [a, b] = options[rng.below(static_cast<std::uint64_t>(n))];
        seen[static_cast<std::size_t>(b) * rooms_x + a] = 1;
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
    for (int k = 0; k < rooms_x * rooms_y / 12; ++k) {
        const int i = static_cast<int>(rng.below(static_cast<std::uint64_t>(rooms_x)));
        const int j = static_cast<int>(rng.below(static_cast<std::uint64_t>(rooms_y)));
        cost.fill_rect(3 * i + 1, 3 * j + 1, 3 * i + 2, 3 * j + 2, k % 3 == 0 ? kCostSwamp : kCostForest);
    }
    return cost;
}

const std::vector<std::string>& builtin_map_names() {
    static const std::vector<std::string> names{"default", "random256", "maze", "large", "huge"};
    return names;
}

Result<BuiltinMap> make_builtin_map(std::string_view name) {
    if (name == "default") {
        auto m = parse_map(default_map_text(), "<default map>");
        if (!m) return m.error();
        return BuiltinMap{std::move(m->cost), {kDefaultGoal}};
    }
    if (name == "random256" || name == "large" || name == "huge") {
        // The benchmark maps of `tide bench` (seed 1): 256x256, 1024x1024 for zoom and pan, and
        // 4096x4096 for hierarchical planning (its units start in one corner block).
        const int size = name == "huge" ? 4096 : name == "large" ? 1024 : 256;
        auto cost = generate_random_map({size, size, 0.20, 0.15, 0.07, 1});
        if (!cost) return cost.error();
        const Cell goal{size / 2, size / 2};
        cost->set(goal.x, goal.y, kCostPlain);
        std::optional<CellRect> area;
        if (name == "huge") area = CellRect{128, 128, 639, 639};
        return BuiltinMap{std::move(*cost), {goal}, area};
    }
    if (name == "maze") {
        auto cost = generate_maze(40, 40, 7);
        if (!cost) return cost.error();
        const Cell goal{3 * 39 + 1, 3 * 39 + 1};  // the far corner room
        cost->set(goal.x, goal.y, kCostPlain);
        return BuiltinMap{std::move(*cost), {goal}};
    }
    std::string known;
    for (const std::string& n : builtin_map_names()) known += (known.empty() ? "" : ", ") + n;
    return Error{ErrorCode::not_found, "no built-in map '" + std::string(name) + "' (built-in maps: " + known + ")"};
}

}  // namespace tide
