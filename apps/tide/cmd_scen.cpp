// tide scen: check a map against a Moving AI scenario file. Rows are grouped by goal, so one
// reverse field answers every row that shares the goal; goals are spread over worker threads.
// --planner hierarchical plans each row on the sector graph instead (tide/hierarchy.hpp) and
// reports how far its paths are from the exact ones (ratio), and how long a route query takes.

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_common.hpp"
#include "tide/field_builder.hpp"
#include "tide/hierarchy.hpp"
#include "tide/scenario_costs.hpp"
#include "tide/tbb_jobs.hpp"

namespace tide::cli {
namespace {

struct ScenOptions {
    std::string map, scen;
    bool json = false;
    int threads = 0;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    ClassChoice unit_class;
    int every = 1;  // keep every K-th row (rows 0, K, 2K, ...)
    std::string planner = "exact";
    // --planner hierarchical only:
    int sector = SectorConfig{}.sector_size;
    int portal_limit = SectorConfig{}.portal_limit;  // capped at the sector size unless given
    bool portal_limit_given = false;
    int corridor = RouteConfig{}.corridor;
    int settle = RouteConfig{}.settle_budget;
    std::string fill_corners = RouteConfig{}.fill_corners ? "on" : "off";
    int corner_reach = RouteConfig{}.corner_reach;
    bool cache = false;
    double max_ratio = 0.0;
    bool max_ratio_given = false;
    std::string wall_margin;
};

/// Exit status of `tide scen --planner hierarchical` when it could not run (bad settings, a bad
/// file, a library error); 1 stays "the check failed" (an unreachable mismatch, a ratio over
/// --max-ratio), thrown as CheckFailed.
constexpr int kCannotRun = 2;
struct CheckFailed : Failure {};

/// Costs of following Tide's exact flow from every row's start (tide::scenario_costs), and how
/// long they took.
struct ExactCosts {
    std::vector<double> computed;
    std::size_t fields = 0;  // distinct goals
    double elapsed_ms = 0.0;
};

// Fields are built on `plan` when given (a wall-margin layer), else on `cost`; path costs are always
// summed on `cost`. Goals are spread over `threads` threads (0: all cores).
ExactCosts exact_costs(const CostField& cost, const std::vector<ScenarioRow>& rows, const FieldParams& params,
                       int threads, const CostField* plan = nullptr) {
    TbbJobSystem jobs(threads, 1);
    const auto t0 = std::chrono::steady_clock::now();
    auto costs = scenario_costs(cost, rows, params, jobs, plan);
    const double elapsed = ms_since(t0);
    check(costs);
    return {std::move(costs->costs), costs->fields, elapsed};
}

// Output for a class other than the default: each row's computed cost, no comparison, exit 0.
// With a wall margin: the costs of the paths planned with it (summed on the map's costs), not
// compared; for the default class also their mean ratio to the published optimum.
void report_costs(const ScenOptions& o, const PlanningCost& planning, const std::vector<ScenarioRow>& rows,
                  const std::vector<double>& computed, std::size_t fields, double elapsed) {
    const std::string note =
        o.wall_margin.empty()
            ? "not compared: the scenario's optimal lengths are for the default class"
            : "planned with wall margin " + o.wall_margin +
                  ", costs summed on the map's own costs; not compared: the optimal lengths are for paths without one";
    if (!o.json) std::printf("note: costs for %s, %s\n", planning.describe().c_str(), note.c_str());
    double ratio_sum = 0.0;
    std::size_t ratio_rows = 0;
    if (planning.is_default()) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (!std::isfinite(computed[i])) continue;
            ratio_sum += rows[i].optimal > 0.0 ? computed[i] / rows[i].optimal : 1.0;
            ++ratio_rows;
        }
    }
    const double mean_ratio = ratio_rows ? ratio_sum / static_cast<double>(ratio_rows) : 0.0;
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
        if (ratio_rows) out["mean_ratio_to_optimal"] = mean_ratio;
        if (!o.wall_margin.empty()) out["wall_margin"] = o.wall_margin;
        std::printf("%s\n", out.dump(1).c_str());
    } else {
        const std::string ratio = ratio_rows ? " mean_ratio_to_optimal=" + std::to_string(mean_ratio) : "";
        std::printf("summary: rows=%zu fields=%zu unreachable=%zu class=%s size=%d compared=no%s time_ms=%.1f\n",
                    rows.size(), fields, unreachable, planning.name.c_str(), planning.size, ratio.c_str(), elapsed);
    }
}

nlohmann::json finite_or_inf(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf");
}

/// The hierarchical planner against the exact one, row by row (see the file comment).
void run_hierarchical(const ScenOptions& o, const PlanningCost& planning, const std::vector<ScenarioRow>& rows,
                      const FieldParams& params) {
    SectorConfig config;
    config.sector_size = o.sector;
    // SectorConfig's default limit is larger than the smallest sectors: cap it unless asked for.
    config.portal_limit = o.portal_limit_given ? o.portal_limit : std::min(o.portal_limit, o.sector);
    config.params = params;
    const auto t_graph = std::chrono::steady_clock::now();
    auto graph_result = SectorGraph::build(planning.cost, config);
    if (!graph_result) throw Failure{o.map + ": " + graph_result.error().message, kCannotRun};
    const SectorGraph& graph = *graph_result;
    const double graph_ms = ms_since(t_graph);
    RouteConfig route_config;
    route_config.corridor = o.corridor;
    route_config.settle_budget = o.settle;
    route_config.fill_corners = o.fill_corners == "on";
    route_config.corner_reach = o.corner_reach;

    const ExactCosts exact = exact_costs(planning.cost, rows, params, o.threads);

    // Rows run one after the other: a HierarchicalField plans on one thread, and the query times
    // stay comparable. Cold: a new field per row; --cache: one per goal, shared by its rows.
    std::vector<double> computed(rows.size(), 0.0), query_ms(rows.size(), 0.0), first_ms(rows.size(), 0.0);
    std::vector<std::size_t> built(rows.size(), 0), field_bytes(rows.size(), 0);
    std::map<std::pair<int, int>, HierarchicalField> cached;
    std::size_t path_errors = 0;
    std::string first_path_error;
    auto row_error = [&](std::size_t i, const Error& e) {
        return Failure{o.scen + ":" + std::to_string(rows[i].line) + ": " + e.message, kCannotRun};
    };
    auto new_field = [&](std::size_t i) {
        auto made =
            HierarchicalField::create(planning.cost, graph, std::span<const Cell>(&rows[i].goal, 1), route_config);
        if (!made) throw row_error(i, made.error());
        return std::move(made.value());
    };
    const auto t_rows = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Cell start = rows[i].start, goal = rows[i].goal;
        // query_ms: from the request (a new field when not cached) until every route sector is built.
        const auto t0 = std::chrono::steady_clock::now();
        std::optional<HierarchicalField> cold;
        HierarchicalField* field = nullptr;
        if (o.cache) {
            auto it = cached.find({goal.x, goal.y});
            if (it == cached.end()) it = cached.emplace(std::make_pair(goal.x, goal.y), new_field(i)).first;
            field = &it->second;
        } else {
            field = &cold.emplace(new_field(i));
        }
        const auto stats = field->route(std::span<const Cell>(&start, 1));
        query_ms[i] = ms_since(t0);
        if (!stats) throw row_error(i, stats.error());
        first_ms[i] = stats->first_field_ms;
        built[i] = stats->fields_built;
        // The path cost may build more sectors (where the flow leaves the route): not timed.
        const auto cost = hierarchical_path_cost(*field, planning.cost, start);
        if (cost) {
            computed[i] = *cost;
        } else {
            computed[i] = std::numeric_limits<double>::quiet_NaN();
            if (path_errors++ == 0) first_path_error = row_error(i, cost.error()).message;
        }
        field_bytes[i] = field->field_bytes();
    }
    const double rows_ms = ms_since(t_rows);

    // Ratios: computed / exact where both are finite; start == goal (exact 0) counts as 1.
    std::vector<double> ratio(rows.size(), std::numeric_limits<double>::quiet_NaN());
    std::size_t mismatches = 0, rated = 0, over_limit = 0;
    double ratio_sum = 0.0, max_ratio = 1.0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const double e = exact.computed[i], c = computed[i];
        if (std::isnan(c) || std::isnan(e)) continue;  // a path error (counted apart)
        if (std::isfinite(e) != std::isfinite(c)) {
            ++mismatches;
            continue;
        }
        if (!std::isfinite(e)) continue;  // unreachable for both: nothing to compare
        ratio[i] = e > 0.0 ? c / e : (c == 0.0 ? 1.0 : std::numeric_limits<double>::infinity());
        ratio_sum += ratio[i];
        max_ratio = std::max(max_ratio, ratio[i]);
        ++rated;
        if (o.max_ratio_given && ratio[i] > o.max_ratio) ++over_limit;
    }
    const double mean_ratio = rated > 0 ? ratio_sum / static_cast<double>(rated) : 1.0;
    std::vector<double> q = query_ms, f = first_ms;
    const double query_median = median(q), first_median = median(f);
    const double query_p95 = percentile(query_ms, 0.95);
    const double query_max = query_ms.empty() ? 0.0 : *std::max_element(query_ms.begin(), query_ms.end());
    double built_mean = 0.0;
    for (std::size_t b : built) built_mean += static_cast<double>(b);
    if (!rows.empty()) built_mean /= static_cast<double>(rows.size());
    const std::size_t bytes_max = field_bytes.empty() ? 0 : *std::max_element(field_bytes.begin(), field_bytes.end());

    if (o.json) {
        nlohmann::json jrows = nlohmann::json::array();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            jrows.push_back(
                {{"start_x", r.start.x},
                 {"start_y", r.start.y},
                 {"goal_x", r.goal.x},
                 {"goal_y", r.goal.y},
                 {"optimal", r.optimal},
                 {"exact", finite_or_inf(exact.computed[i])},
                 {"computed", std::isnan(computed[i]) ? nlohmann::json(nullptr) : finite_or_inf(computed[i])},
                 {"ratio", std::isnan(ratio[i]) ? nlohmann::json(nullptr) : finite_or_inf(ratio[i])},
                 {"query_ms", query_ms[i]},
                 {"first_field_ms", first_ms[i]},
                 {"fields_built", built[i]},
                 {"field_bytes", field_bytes[i]}});
        }
        nlohmann::json out = {
            {"planner", "hierarchical"},
            {"map", o.map},
            {"scen", o.scen},
            {"class", planning.name},
            {"size", planning.size},
            {"every", o.every},
            {"sector", o.sector},
            {"portal_limit", config.portal_limit},
            {"corridor", o.corridor},
            {"settle_budget", o.settle},
            {"fill_corners", route_config.fill_corners},
            {"corner_reach", o.corner_reach},
            {"cache", o.cache},
            {"rows", rows.size()},
            {"goals", exact.fields},
            {"graph_ms", graph_ms},
            {"graph_bytes", graph.memory_bytes()},
            {"graph_nodes", graph.nodes().size()},
            {"graph_portals", graph.portals().size()},
            {"mean_ratio", mean_ratio},
            {"max_ratio", finite_or_inf(max_ratio)},
            {"max_ratio_limit", o.max_ratio_given ? nlohmann::json(o.max_ratio) : nlohmann::json(nullptr)},
            {"over_max_ratio", over_limit},
            {"unreachable_mismatch", mismatches},
            {"path_errors", path_errors},
            {"query_ms_median", query_median},
            {"query_ms_p95", query_p95},
            {"query_ms_max", query_max},
            {"first_field_ms_median", first_median},
            {"fields_built_mean", built_mean},
            {"field_bytes_max", bytes_max},
            {"exact_ms", exact.elapsed_ms},
            {"hierarchical_ms", rows_ms},
            {"results", jrows}};
        std::printf("%s\n", out.dump(1).c_str());
    } else {
        std::printf("# sx sy gx gy exact hierarchical ratio query_ms\n");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            const double e = exact.computed[i], c = computed[i];
            const bool mismatch = !std::isnan(c) && !std::isnan(e) && std::isfinite(e) != std::isfinite(c);
            const bool over = o.max_ratio_given && ratio[i] > o.max_ratio;
            char ratio_text[32] = "-";  // no ratio: unreachable for either planner, or a path error
            if (!std::isnan(ratio[i])) std::snprintf(ratio_text, sizeof ratio_text, "%.6f", ratio[i]);
            std::printf("%d %d %d %d %.8f %.8f %s %.3f%s\n", r.start.x, r.start.y, r.goal.x, r.goal.y, e, c, ratio_text,
                        query_ms[i],
                        std::isnan(c) ? "  PATH_ERROR"
                        : mismatch    ? "  UNREACHABLE_MISMATCH"
                        : over        ? "  OVER_MAX_RATIO"
                                      : "");
        }
        std::printf(
            "summary: planner=hierarchical rows=%zu goals=%zu sector=%d portal_limit=%d corridor=%d settle=%d "
            "fill_corners=%s corner_reach=%d cache=%s "
            "graph_ms=%.1f graph_bytes=%zu mean_ratio=%.6f max_ratio=%.6f unreachable_mismatch=%zu path_errors=%zu "
            "query_ms_median=%.3f query_ms_p95=%.3f first_field_ms_median=%.3f fields_built_mean=%.1f exact_ms=%.1f "
            "hierarchical_ms=%.1f\n",
            rows.size(), exact.fields, o.sector, config.portal_limit, o.corridor, o.settle, o.fill_corners.c_str(),
            o.corner_reach, o.cache ? "yes" : "no", graph_ms, graph.memory_bytes(), mean_ratio, max_ratio, mismatches,
            path_errors, query_median, query_p95, first_median, built_mean, exact.elapsed_ms, rows_ms);
    }
    if (path_errors > 0) {
        throw Failure{
            first_path_error + (path_errors > 1 ? " (and " + std::to_string(path_errors - 1) + " more rows)" : ""),
            kCannotRun};
    }
    if (mismatches > 0) {
        throw CheckFailed{{std::to_string(mismatches) + " of " + std::to_string(rows.size()) +
                           " scenario rows are reachable for one planner only (unreachable_mismatch)"}};
    }
    if (over_limit > 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%zu of %zu scenario rows have a ratio over --max-ratio %g (max_ratio=%.6f)",
                      over_limit, rows.size(), o.max_ratio, max_ratio);
        throw CheckFailed{{buf}};
    }
}

void run_scen(const ScenOptions& o) {
    const bool hierarchical = o.planner == "hierarchical";
    if (o.every < 1) throw Failure{"--every " + std::to_string(o.every) + " must be at least 1"};
    check_threads(o.threads);
    const Map map = load_map_or_fail(o.map);
    auto rows_result = load_scenarios(o.scen);
    check(rows_result);
    std::vector<ScenarioRow> rows = std::move(rows_result.value());
    if (o.every > 1) {
        std::vector<ScenarioRow> kept;
        for (std::size_t i = 0; i < rows.size(); i += static_cast<std::size_t>(o.every))
            kept.push_back(std::move(rows[i]));
        rows = std::move(kept);
    }
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
    std::optional<CostField> margin_plan;
    if (!o.wall_margin.empty()) {
        if (hierarchical) throw Failure{"--wall-margin is for the exact planner", kCannotRun};
        margin_plan = wall_margin_cost_field(planning.cost, parse_wall_margin(o.wall_margin)).value();
    }
    if (hierarchical) {
        run_hierarchical(o, planning, rows, params);
        return;
    }

    const ExactCosts exact = exact_costs(planning.cost, rows, params, o.threads, margin_plan ? &*margin_plan : nullptr);
    const std::vector<double>& computed = exact.computed;
    const double elapsed = exact.elapsed_ms;
    if (!compare || margin_plan) {
        report_costs(o, planning, rows, computed, exact.fields, elapsed);
        return;
    }
    double max_abs = 0.0, max_rel = 0.0;
    std::size_t failures = 0;
    nlohmann::json jrows = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        const double c = computed[i];
        const bool ok = within_scenario_tolerance(r.optimal, c);
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
            {"map", o.map},         {"scen", o.scen},           {"rows", rows.size()},      {"fields", exact.fields},
            {"failures", failures}, {"max_abs_error", max_abs}, {"max_rel_error", max_rel}, {"time_ms", elapsed},
            {"results", jrows}};
        std::printf("%s\n", out.dump(1).c_str());
    } else {
        std::printf("summary: rows=%zu fields=%zu failures=%zu max_abs_error=%.3g max_rel_error=%.3g time_ms=%.1f\n",
                    rows.size(), exact.fields, failures, max_abs, max_rel, elapsed);
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
    add_wall_margin_option(*cmd, o->wall_margin);
    cmd->add_option("--every", o->every, "Check every K-th row only (rows 1, K+1, 2K+1, ...; default 1: all)");
    cmd->add_option("--planner", o->planner,
                    "exact (default): Tide's flow fields against the published lengths; hierarchical: the sector "
                    "planner (tide/hierarchy.hpp) against the exact fields")
        ->check(CLI::IsMember({"exact", "hierarchical"}));
    const std::vector<CLI::Option*> hier_options = {
        cmd->add_option("--sector", o->sector, "hierarchical: sector side in cells, 16..256 (default 64)"),
        cmd->add_option("--portal-limit", o->portal_limit,
                        "hierarchical: longest border stretch of one portal, 1..sector (default: SectorConfig's, " +
                            std::to_string(SectorConfig{}.portal_limit) + ", at most the sector)"),
        cmd->add_option(
            "--corridor", o->corridor,
            "hierarchical: rings of neighbouring sectors built with the route, 0..4 (default: RouteConfig's)"),
        cmd->add_option("--settle", o->settle,
                        "hierarchical: settling budget, rebuilds per route field, 0..16 (0: off; default: "
                        "RouteConfig's, 4)"),
        cmd->add_option("--fill-corners", o->fill_corners,
                        "hierarchical: on: where the route turns round a sector corner, the block's two other "
                        "sectors join it; off: they get fields only when units enter them (default: RouteConfig's)")
            ->check(CLI::IsMember({"on", "off"})),
        cmd->add_option("--corner-reach", o->corner_reach,
                        "hierarchical: fill only corners within this many cells of the route's way, -1..16384 "
                        "(-1: every corner; default: RouteConfig's)"),
        cmd->add_flag("--cache", o->cache,
                      "hierarchical: rows with the same goal share one field (default: a new field per row)"),
        cmd->add_option_function<double>(
            "--max-ratio",
            [o](double r) {
                if (!(r > 0.0 && r <= 1e6)) {  // NaN too
                    throw CLI::ValidationError("--max-ratio",
                                               "--max-ratio " + std::to_string(r) + " is not a ratio in (0, 1e6]");
                }
                o->max_ratio = r;
                o->max_ratio_given = true;
            },
            "hierarchical: exit 1 when a row's path costs more than R times the exact one"),
    };
    cmd->footer(
        "With --class/--size other than the default class at size 1, the rows' costs for that class are "
        "printed (sx sy gx gy cost, inf when unreachable) and not compared: the scenario's optimal lengths are "
        "for the default class.\n"
        "--planner hierarchical builds the sector graph once, then for every row (one after the other; "
        "--threads only spreads the exact fields) a route query from the start to the goal; it prints per row "
        "sx sy gx gy exact hierarchical ratio query_ms (ratio = hierarchical / exact path cost, 1 for start == "
        "goal) and a summary line. Exit 1 when a row is reachable for one planner only or a ratio exceeds "
        "--max-ratio; exit 2 when it cannot run (bad settings or files, a library error).");
    cmd->callback([o, hier_options] {
        if (o->planner != "hierarchical") {
            for (const CLI::Option* opt : hier_options) {
                if (opt->count() > 0) throw Failure{opt->get_name() + " is only used with --planner hierarchical"};
            }
            run_scen(*o);
            return;
        }
        o->portal_limit_given = hier_options[1]->count() > 0;
        try {
            run_scen(*o);
        } catch (const CheckFailed&) {
            throw;
        } catch (Failure& f) {
            f.code = kCannotRun;
            throw;
        }
    });
}

}  // namespace tide::cli
