#include "cli_common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "atomic_file.hpp"
#include "tide/default_map.hpp"

namespace tide::cli {

Map load_map_or_fail(const std::string& path) {
    auto map = path == kDefaultMapName ? parse_map(default_map_text(), "<default map>") : load_map(path);
    check(map);
    return std::move(map.value());
}

Cell parse_cell(const std::string& text, const std::string& option) {
    const auto comma = text.find(',');
    auto parse_int = [&](std::string_view s, int& out) {
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && p == s.data() + s.size();
    };
    Cell c;
    if (comma == std::string::npos || !parse_int(std::string_view(text).substr(0, comma), c.x) ||
        !parse_int(std::string_view(text).substr(comma + 1), c.y)) {
        throw Failure{option + " '" + text + "' is not of the form X,Y (two integers)"};
    }
    return c;
}

std::vector<Cell> parse_goals(const std::vector<std::string>& texts) {
    std::vector<Cell> goals;
    for (const auto& t : texts) goals.push_back(parse_cell(t, "--goal"));
    return goals;
}

std::vector<Cell> parse_dangers(const std::vector<std::string>& texts) {
    std::vector<Cell> dangers;
    for (const auto& t : texts) dangers.push_back(parse_cell(t, "--flee"));
    return dangers;
}

WallMargin parse_wall_margin(const std::string& text) {
    const auto comma = text.find(',');
    WallMargin m;
    auto parse_int = [](std::string_view s, int& out) {
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return !s.empty() && ec == std::errc() && p == s.data() + s.size();
    };
    if (comma == std::string::npos || !parse_int(std::string_view(text).substr(0, comma), m.radius) ||
        !parse_int(std::string_view(text).substr(comma + 1), m.extra)) {
        throw Failure{"--wall-margin '" + text + "' is not of the form R,C (radius in cells, extra cost)"};
    }
    if (auto r = wall_margin_cost_field(CostField::create(1, 1).value(), m); !r) {
        throw Failure{"--wall-margin '" + text + "': " + r.error().message};
    }
    return m;
}

void add_wall_margin_option(CLI::App& cmd, std::string& text) {
    cmd.add_option("--wall-margin", text,
                   "R,C: cells within R cells of a wall (or the map edge) cost C more to plan on, so paths stop "
                   "grazing walls (R 0..64, C 0..253)");
}

FieldParams make_params(double diagonal, int connectivity) {
    if (!(diagonal >= 1.0 && diagonal <= 2.0)) {
        throw Failure{"--diagonal " + number_text(diagonal) + " is outside 1..2"};
    }
    if (connectivity != 4 && connectivity != 8) {
        throw Failure{"--connectivity " + std::to_string(connectivity) + " must be 4 or 8"};
    }
    FieldParams p;
    p.diagonal_factor = diagonal;
    p.connectivity = connectivity == 8 ? Connectivity::eight : Connectivity::four;
    return p;
}

void add_field_options(CLI::App& cmd, double& diagonal, int& connectivity) {
    cmd.add_option("--diagonal", diagonal, "Diagonal move length factor, 1..2 (default sqrt 2; 1.4 = textbook)");
    cmd.add_option("--connectivity", connectivity, "8 (default) or 4 directions");
}

void add_class_options(CLI::App& cmd, ClassChoice& choice) {
    cmd.add_option("--class", choice.name,
                   "Unit class to plan for: a class of the map (Moving AI maps: water) or default (the map's costs)");
    cmd.add_option_function<int>(
        "--size",
        [&choice](int s) {
            choice.size = s;
            choice.size_given = true;
        },
        "Unit size 1..8 (cells per side, the unit's top-left cell); default: the class's own size");
}

PlanningCost planning_cost(const Map& map, const std::string& map_path, const ClassChoice& choice) {
    if (choice.size_given && choice.size == 0) {  // 0 means "the class's size" to the library: refuse it here
        throw Failure{map_path + ": unit size 0 is outside 1.." + std::to_string(kMaxUnitSize)};
    }
    auto cost = class_cost_field(map, choice.name, choice.size);
    if (!cost) throw Failure{map_path + ": " + cost.error().message};
    int size = choice.size;
    if (size == 0) {
        const UnitClass* c = find_class(map, choice.name);
        size = c ? c->size : 1;
    }
    return PlanningCost{std::move(cost.value()), choice.name, size};
}

void require_open_for_class(const PlanningCost& planning, Cell cell, const std::string& what) {
    if (!planning.cost.contains(cell)) {  // named as what it is ("danger (99, 0) ...", not "goal")
        throw Failure{what + " " + cell_text(cell) + " is outside the " + std::to_string(planning.cost.width()) + "x" +
                      std::to_string(planning.cost.height()) + " map"};
    }
    if (planning.is_default() || planning.cost.passable(cell.x, cell.y)) return;
    throw Failure{what + " " + cell_text(cell) + " is a wall for " + planning.describe()};
}

void write_json(const std::string& path, const nlohmann::json& report) {
    check(write_file_atomically(path, report.dump(1) + "\n"));
}

std::string number_text(double value) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

void check_threads(int threads, const std::string& option) {
    if (threads < 0 || threads > kMaxThreads) {
        throw Failure{option + " " + std::to_string(threads) + " is outside 0.." + std::to_string(kMaxThreads) +
                      " (0 = all cores)"};
    }
}

std::string cell_text(Cell c) {
    return "(" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
}

}  // namespace tide::cli
