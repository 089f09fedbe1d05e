// tide scen: check a map against a Moving AI scenario file. Rows are grouped by goal, so one
// reverse field answers every row that shares the goal; goals are spread over worker threads.

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_common.hpp"

namespace tide::cli {
namespace {

struct ScenOptions {
    std::string map, scen;
    bool json = false;
    int threads = 0;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    ClassChoice unit_class;
};

// The tolerance: published lengths carry 6 significant digits in older files.
bool within_tolerance(double optimal, double computed) {
    return std::isfinite(computed) && std::fabs(computed - optimal) <= 1e-4 * optimal + 1e-3;
}

// Output for a class other than the default: each row's computed cost, no comparison, exit 0.
void report_costs(const ScenOptions& o, const PlanningCost& planning, const std::vector<ScenarioRow>& rows,
                  const std::vector<double>& computed, std::size_t fields, double elapsed) {
    const std::string note = "not compared: the scenario's optimal lengths are for the default class";
    if (!o.json) std::printf("note: costs for %s, %s\n", planning.describe().c_str(), note.c_str());
    std::size_t unreachable = 0;
    nlohmann::json jrows = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        const double c = computed[i];
        if (!std::isfinite(c)) ++unreachable;
        if (o.json) {
            jrows.push_back({{"start_x", r.start.x},
                             {"start_y", r.start.y},
                             {"goal_x", r.goal.x},
                             {"goal_y", r.goal.y},
                             {"computed", std::isfinite(c) ? nlohmann::json(c) : nlohmann::json("inf")}});
        } else if (std::isfinite(c)) {
            std::printf("%d %d %d %d %.8f\n", r.start.x, r.start.y, r.goal.x, r.goal.y, c);
        } else {
            std::printf("%d %d %d %d inf\n", r.start.x, r.start.y, r.goal.x, r.goal.y);
        }
    }
    if (o.json) {
        nlohmann::json out = {{"map", o.map},          {"scen", o.scen},    {"class", planning.name},
                              {"size", planning.size}, {"compared", false}, {"note", note},
                              {"rows", rows.size()},   {"fields", fields},  {"unreachable", unreachable},
                              {"time_ms", elapsed},    {"results", jrows}};
        std::printf("%s\n", out.dump(1).c_str());
    } else {
        std::printf("summary: rows=%zu fields=%zu unreachable=%zu class=%s size=%d compared=no time_ms=%.1f\n",
                    rows.size(), fields, unreachable, planning.name.c_str(), planning.size, elapsed);
    }
}

void run_scen(const ScenOptions& o) {
    const Map map = load_map_or_fail(o.map);
    auto rows_result = load_scenarios(o.scen);
    check(rows_result);
    const auto& rows = rows_result.value();
    const PlanningCost planning = planning_cost(map, o.map, o.unit_class);
    // Published optimal lengths are for the default class: another class's costs are reported only.
    const bool compare = planning.is_default();
    if (auto r = check_scenarios(rows, planning.cost, o.scen); !r) {
        const bool due_to_class = !compare && check_scenarios(rows, map.cost, o.scen).ok();
        throw Failure{r.error().message + (due_to_class ? " for " + planning.describe() : "")};
    }
    const FieldParams params = make_params(o.diagonal, o.connectivity);
    const std::string map_name = std::filesystem::path(o.map).filename().string();
    std::size_t other_map = 0;
    for (const auto& r : rows) {
        if (std::filesystem::path(r.map).filename().string() != map_name) ++other_map;
    }
    if (other_map > 0 && o.map != kDefaultMapName) {
        std::fprintf(stderr, "tide: warning: %zu row(s) name a map other than %s\n", other_map, map_name.c_str());
    }

    // Group rows by goal: one field per distinct goal.
    std::map<std::pair<int, int>, std::vector<std::size_t>> by_goal;
    for (std::size_t i = 0; i < rows.size(); ++i) by_goal[{rows[i].goal.x, rows[i].goal.y}].push_back(i);
    std::vector<const std::vector<std::size_t>*> groups;
    std::vector<Cell> group_goal;
    for (const auto& [g, idx] : by_goal) {
        groups.push_back(&idx);
        group_goal.push_back({g.first, g.second});
    }

    std::vector<double> computed(rows.size(), 0.0);
    std::atomic<std::size_t> next{0};
    const auto t0 = std::chrono::steady_clock::now();
    auto worker = [&] {
        FieldBuilder builder;
        FlowField field;
        for (std::size_t g = next++; g < groups.size(); g = next++) {
            const Cell goal = group_goal[g];
            const auto r = builder.build(planning.cost, std::span<const Cell>(&goal, 1), params, field);
            // Each row follows its start's flow path and sums the moves in double precision.
            for (std::size_t i : *groups[g]) {
                computed[i] = r ? flow_path_cost(planning.cost, field, params, rows[i].start)
                                : std::numeric_limits<double>::quiet_NaN();
            }
        }
    };
    unsigned n_threads =
        o.threads > 0 ? static_cast<unsigned>(o.threads) : std::max(1u, std::thread::hardware_concurrency());
    n_threads = std::min<unsigned>(n_threads, static_cast<unsigned>(std::max<std::size_t>(groups.size(), 1)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n_threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    const double elapsed = ms_since(t0);

    if (!compare) {
        report_costs(o, planning, rows, computed, groups.size(), elapsed);
        return;
    }
    double max_abs = 0.0, max_rel = 0.0;
    std::size_t failures = 0;
    nlohmann::json jrows = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        const double c = computed[i];
        const bool ok = within_tolerance(r.optimal, c);
        if (!ok) ++failures;
        if (std::isfinite(c)) {
            const double err = std::fabs(c - r.optimal);
            max_abs = std::max(max_abs, err);
            max_rel = std::max(max_rel, err / std::max(1.0, r.optimal));
        }
        if (o.json) {
            jrows.push_back({{"start_x", r.start.x},
                             {"start_y", r.start.y},
                             {"goal_x", r.goal.x},
                             {"goal_y", r.goal.y},
                             {"optimal", r.optimal},
                             {"computed", std::isfinite(c) ? nlohmann::json(c) : nlohmann::json("inf")},
                             {"ok", ok}});
        } else {
            if (std::isfinite(c)) {
                std::printf("%d %d %d %d %.8f %.8f%s\n", r.start.x, r.start.y, r.goal.x, r.goal.y, r.optimal, c,
                            ok ? "" : "  MISMATCH");
            } else {
                std::printf("%d %d %d %d %.8f inf  MISMATCH\n", r.start.x, r.start.y, r.goal.x, r.goal.y, r.optimal);
            }
        }
    }
    if (o.json) {
        nlohmann::json out = {
            {"map", o.map},         {"scen", o.scen},           {"rows", rows.size()},      {"fields", groups.size()},
            {"failures", failures}, {"max_abs_error", max_abs}, {"max_rel_error", max_rel}, {"time_ms", elapsed},
            {"results", jrows}};
        std::printf("%s\n", out.dump(1).c_str());
    } else {
        std::printf("summary: rows=%zu fields=%zu failures=%zu max_abs_error=%.3g max_rel_error=%.3g time_ms=%.1f\n",
                    rows.size(), groups.size(), failures, max_abs, max_rel, elapsed);
    }
    if (failures > 0)
        throw Failure{std::to_string(failures) + " of " + std::to_string(rows.size()) +
                      " scenario rows differ from the published optimal length"};
}

}  // namespace

void add_scen_command(CLI::App& app) {
    auto o = std::make_shared<ScenOptions>();
    auto* cmd = app.add_subcommand("scen", "Check least costs against a Moving AI .scen file (exit 1 on mismatch)");
    cmd->add_option("--map", o->map, "Map file")->required();
    cmd->add_option("--scen", o->scen, "Scenario file (.scen)")->required();
    cmd->add_flag("--json", o->json, "Print the results as JSON");
    cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)");
    add_field_options(*cmd, o->diagonal, o->connectivity);
    add_class_options(*cmd, o->unit_class);
    cmd->footer(
        "With --class/--size other than the default class at size 1, the rows' costs for that class are "
        "printed (sx sy gx gy cost, inf when unreachable) and not compared: the scenario's optimal lengths are "
        "for the default class.");
    cmd->callback([o] { run_scen(*o); });
}

}  // namespace tide::cli
