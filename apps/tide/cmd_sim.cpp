// tide sim: spawn agents, run the crowd, report arrival, safety and timing; optional picture of
// every trajectory. The run and its figures are the world library's Simulation (tide/simulation.hpp);
// this file parses the options, prints the report and draws.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "atomic_file.hpp"
#include "cli_common.hpp"
#include "gif_writer.hpp"
#include "render.hpp"
#include "serve/protocol.hpp"
#include "tide/crowd.hpp"
#include "tide/generate.hpp"
#include "tide/recording.hpp"
#include "tide/scenarios.hpp"
#include "tide/simulation.hpp"
#include "tide/tbb_jobs.hpp"
#include "tide/world.hpp"

namespace tide::cli {
namespace {

struct SimOptions {
    std::string map;
    std::vector<std::string> goals;
    int agents = 1000;
    std::string spawn;
    double seconds = -1.0;  // not given: 30 s, or a scenario's own length
    double dt = 1.0 / 60.0;
    int threads = 0;
    std::uint64_t seed = 1;
    std::string json, png, gif;
    ClassChoice unit_class;
    std::int64_t hierarchy_cells = WorldConfig{}.hierarchy_cells;
    std::vector<std::string> flee;
    double flee_factor = FleeParams{}.factor;
    std::string wall_margin;
    bool detail = false;
    std::string line_of_sight = "on";
    std::string sleep = "on";
    std::string arrival_regions = "on";
    std::string scenario;
    int contact_passes = CrowdParams{}.contact_passes;
    double yield_overlap = CrowdParams{}.yield_overlap;
    double pack_overlap = CrowdParams{}.pack_overlap;
    std::string congestion = "off";
    CongestionParams congestion_params;
    double png_at = -1.0;
    std::string record, replay, state_out;  // lockstep: the command log, a replay, the state at the end
    std::int64_t replay_ticks = -1;
    bool lockstep = false;  // fields published at fixed points: the same run on any thread count
};

// What one run leaves for the caller: its report and, with --png, its picture.
struct SimRun {
    nlohmann::json report;
    std::optional<render::Image> picture;
};

// Palette of the animation: terrain, then agent states.
enum GifColor : std::uint8_t {
    kGifPlain,
    kGifWall,
    kGifForest,
    kGifSwamp,
    kGifOther,
    kGifGoal,
    kGifMoving,
    kGifArrived,
    kGifNoPath,
    kGifQueued
};
const std::vector<GifWriter::Color> kGifPalette = {{232, 230, 205}, {40, 44, 52},  {120, 160, 110}, {150, 130, 90},
                                                   {190, 190, 190}, {220, 30, 30}, {30, 80, 200},   {20, 150, 60},
                                                   {130, 130, 130}, {150, 60, 200}};

// The world's settings from the options (crowd rules, congestion, seed, planner).
WorldConfig world_config(const SimOptions& o, bool congestion) {
    WorldConfig config;
    config.seed = o.seed;
    config.lockstep = o.lockstep;
    config.hierarchy_cells = o.hierarchy_cells;
    if (!o.wall_margin.empty()) config.wall_margin = parse_wall_margin(o.wall_margin);
    config.flee.factor = o.flee_factor;
    auto on_off = [](const std::string& value, const char* option) {
        if (value != "on" && value != "off") throw Failure{std::string(option) + " '" + value + "' is not on or off"};
        return value == "on";
    };
    config.crowd.line_of_sight = on_off(o.line_of_sight, "--line-of-sight");
    config.crowd.sleep = on_off(o.sleep, "--sleep");
    config.crowd.arrival_regions = on_off(o.arrival_regions, "--arrival-regions");
    if (o.contact_passes < 0 || o.contact_passes > 16)
        throw Failure{"--contact-passes " + std::to_string(o.contact_passes) + " is outside 0..16"};
    config.crowd.contact_passes = o.contact_passes;
    if (!(o.yield_overlap >= 0.0 && o.yield_overlap <= 1.0))
        throw Failure{"--yield " + std::to_string(o.yield_overlap) + " is outside 0..1"};
    config.crowd.yield_overlap = static_cast<float>(o.yield_overlap);
    if (!(o.pack_overlap >= 0.0 && o.pack_overlap <= 2.0))
        throw Failure{"--pack-overlap " + std::to_string(o.pack_overlap) + " is outside 0..2"};
    config.crowd.pack_overlap = static_cast<float>(o.pack_overlap);
    config.congestion = o.congestion_params;
    config.congestion.enabled = congestion;
    if (auto r = check_congestion_params(config.congestion); !r) throw Failure{r.error().message};
    return config;
}

void check_run_length(const SimOptions& o) {
    if (o.seconds != -1.0 && !(o.seconds > 0 && o.seconds <= 3600)) throw Failure{"--seconds must be in (0, 3600]"};
    if (!(o.dt > 0 && o.dt <= 1.0)) throw Failure{"--dt must be in (0, 1]"};
    // The step count is checked as a double before it becomes an integer (a cast out of range is
    // undefined behaviour, and ran zero steps).
    const double step_count = std::ceil((o.seconds < 0 ? 30.0 : o.seconds) / o.dt);
    if (!(step_count <= static_cast<double>(kMaxSimSteps))) {
        throw Failure{"--seconds " + number_text(o.seconds) + " / --dt " + number_text(o.dt) + " = " +
                      number_text(step_count) + " steps, more than the limit of " + std::to_string(kMaxSimSteps)};
    }
    check_threads(o.threads);
}

// What a run is made of: its simulation, the terrain to draw, the cells to mark, and what the
// report says of the map.
struct SimSetup {
    std::unique_ptr<Simulation> sim;
    CostField terrain = CostField::create(1, 1).value();
    std::vector<Cell> marks;
    nlohmann::json about;
    bool flee = false;
    int body_size = 1;
};

// A run on a map file toward --goal cells (or away from --flee dangers).
SimSetup map_run(const SimOptions& o, bool congestion, JobSystem& jobs, Recording* record) {
    if (o.map.empty()) throw Failure{"give --map FILE (or @default), or --scenario NAME"};
    const Map map = load_map_or_fail(o.map);
    // Agents plan on (and are kept out of the walls of) the class's cost field; the pictures draw
    // the map's own terrain. Units of the sizes a World holds (1..kWorldUnitSizes) walk with their
    // own bodies on the class's costs at size 1 (the World plans at their size); bigger sizes
    // walk as size-1 bodies on the class's sized costs.
    const PlanningCost planning = planning_cost(map, o.map, o.unit_class);
    const bool sized_bodies = planning.size > 1 && planning.size <= kWorldUnitSizes;
    CostField cost = sized_bodies ? [&] {
        auto c = class_cost_field(map, planning.name, 1);
        if (!c) throw Failure{o.map + ": " + c.error().message};
        return std::move(c.value());
    }()
                                  : planning.cost;
    SimSetup setup;
    setup.body_size = sized_bodies ? planning.size : 1;
    if (o.goals.empty() == o.flee.empty()) throw Failure{"give --goal (go there) or --flee (run from there)"};
    setup.flee = !o.flee.empty();
    setup.marks = setup.flee ? parse_dangers(o.flee) : parse_goals(o.goals);
    for (const Cell& g : setup.marks) require_open_for_class(planning, g, setup.flee ? "danger" : "goal");
    if (o.agents < 1 || o.agents > kMaxWorldUnits)
        throw Failure{"--agents " + std::to_string(o.agents) + " is outside 1.." + std::to_string(kMaxWorldUnits)};
    float x0 = 0, y0 = 0, x1 = static_cast<float>(cost.width()), y1 = static_cast<float>(cost.height());
    if (!o.spawn.empty()) {
        float v[4];
        if (std::sscanf(o.spawn.c_str(), "%f,%f,%f,%f", &v[0], &v[1], &v[2], &v[3]) != 4 || !(v[0] < v[2]) ||
            !(v[1] < v[3]) || !std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]) ||
            !std::isfinite(v[3])) {
            throw Failure{"--spawn '" + o.spawn + "' is not X0,Y0,X1,Y1 with X0 < X1 and Y0 < Y1"};
        }
        if (v[2] <= 0 || v[3] <= 0 || v[0] >= x1 || v[1] >= y1) {
            throw Failure{"--spawn '" + o.spawn + "' lies off the " + std::to_string(cost.width()) + "x" +
                          std::to_string(cost.height()) + " map"};
        }
        x0 = std::max(0.0f, v[0]);
        y0 = std::max(0.0f, v[1]);
        x1 = std::min(x1, v[2]);
        y1 = std::min(y1, v[3]);
    }
    SimulationSettings settings;
    settings.targets = setup.marks;
    settings.flee = setup.flee;
    settings.agents = o.agents;
    settings.unit_size = setup.body_size;
    if (!o.spawn.empty()) settings.spawn = SpawnArea{x0, y0, x1, y1};
    settings.seconds = o.seconds < 0 ? 30.0 : o.seconds;
    settings.dt = o.dt;
    settings.detail = o.detail;
    settings.world = world_config(o, congestion);
    settings.record = record;
    setup.terrain = map.cost;
    auto created = Simulation::create(jobs, o.map, std::move(cost), settings);
    check(created);
    setup.sim = std::move(*created);
    setup.about = {{"map", o.map}, {"class", planning.name}, {"size", planning.size}, {"body_size", setup.body_size}};
    if (!planning.is_default()) {
        setup.about["class_text"] =
            planning.describe() + (setup.body_size != planning.size ? ", bodies size 1" : std::string());
    }
    return setup;
}

// A run of a built-in scenario (tide/scenarios.hpp).
SimSetup scenario_run(const SimOptions& o, bool congestion, JobSystem& jobs, Recording* record) {
    if (!o.map.empty() || !o.goals.empty() || !o.flee.empty() || !o.spawn.empty())
        throw Failure{"--scenario sets the map, goals and spawn: leave out --map, --goal, --flee and --spawn"};
    auto scenario = make_scenario(o.scenario);
    if (!scenario) {
        std::string names;
        for (const std::string& n : scenario_names()) names += (names.empty() ? "" : ", ") + n;
        throw Failure{"--scenario '" + o.scenario + "': no such scenario (one of " + names + ")"};
    }
    SimulationSettings settings;
    settings.seconds = std::max(0.0, o.seconds);  // 0 (not given): the scenario's own length
    settings.dt = o.dt;
    settings.detail = o.detail;
    settings.world = world_config(o, congestion);
    settings.record = record;
    SimSetup setup;
    setup.terrain = scenario->cost;
    for (const Cell g : scenario->goals) setup.marks.push_back(g);
    for (const TimedCommand& c : scenario->script) {
        if (const auto* order = std::get_if<Order>(&c.command)) {
            setup.marks.insert(setup.marks.end(), order->goals.begin(), order->goals.end());
        }
    }
    auto created = Simulation::create(jobs, *scenario, settings);
    check(created);
    setup.sim = std::move(*created);
    setup.about = {{"scenario", scenario->name}, {"description", scenario->description}};
    return setup;
}

// What the run draws as it goes: a GIF frame every 0.1 simulated seconds (at most 600), every
// trajectory, or where the agents stand at --png-at.
struct Drawing {
    GifWriter gif;
    std::vector<std::uint8_t> terrain_frame, frame;
    int gpx = 1, gif_every = 1, gif_w = 0, gif_h = 0;
    std::vector<std::vector<Vec2>> trails;
    std::vector<AgentId> trail_ids;
    std::vector<Vec2> snapshot;
    std::vector<render::Rgb> snapshot_colour;
    std::optional<CostField> snapshot_terrain;  // the terrain at --png-at (towers and paint included)
    std::vector<Cell> marks;                    // goal (or danger) cells, drawn in the GIF
    std::uint64_t terrain_version = 0;          // of the terrain the GIF's background shows

    void start(const SimOptions& o, const SimSetup& setup) {
        const CostField& terrain = setup.terrain;
        const World& world = setup.sim->world();
        gpx = std::max(1, std::min(8, 640 / std::max(terrain.width(), terrain.height())));
        gif_every = std::max(1, static_cast<int>(std::lround(0.1 / o.dt)));
        gif_w = terrain.width() * gpx;
        gif_h = terrain.height() * gpx;
        if (!o.gif.empty()) {
            check(gif.open(o.gif, gif_w, gif_h, kGifPalette));
            marks = setup.marks;
            draw_terrain(world);
            add_gif_frame(world.crowd());
        }
        if (!o.png.empty() && o.png_at < 0) {
            trail_ids = world.agents();
            trails.resize(trail_ids.size());
        }
    }
    // The GIF's background from the world's terrain now (towers and paint show as they are made).
    void draw_terrain(const World& world) {
        const CostField& terrain = world.cost();
        terrain_version = world.terrain_version();
        terrain_frame.resize(static_cast<std::size_t>(gif_w) * gif_h);
        for (int y = 0; y < gif_h; ++y)
            for (int x = 0; x < gif_w; ++x) {
                const Cost c = terrain.at(x / gpx, y / gpx);
                terrain_frame[static_cast<std::size_t>(y) * gif_w + x] = c == kCostWall     ? kGifWall
                                                                         : c == kCostPlain  ? kGifPlain
                                                                         : c == kCostForest ? kGifForest
                                                                         : c == kCostSwamp  ? kGifSwamp
                                                                                            : kGifOther;
            }
        for (const Cell& g : marks)
            for (int y = g.y * gpx; y < (g.y + 1) * gpx; ++y)
                for (int x = g.x * gpx; x < (g.x + 1) * gpx; ++x)
                    if (x >= 0 && y >= 0 && x < gif_w && y < gif_h)
                        terrain_frame[static_cast<std::size_t>(y) * gif_w + x] = kGifGoal;
    }
    void add_gif_frame(const Crowd& crowd) {
        frame = terrain_frame;
        const int dot = std::max(1, gpx / 3);
        for (const AgentId id : crowd.agents()) {
            const Vec2 p = crowd.position(id);
            const AgentState st = crowd.state(id);
            const std::uint8_t col = st == AgentState::arrived   ? kGifArrived
                                     : st == AgentState::no_path ? kGifNoPath
                                     : st == AgentState::queued  ? kGifQueued
                                                                 : kGifMoving;
            const int cx = static_cast<int>(p.x * gpx), cy = static_cast<int>(p.y * gpx);
            for (int y = cy - dot / 2; y <= cy + dot / 2; ++y)
                for (int x = cx - dot / 2; x <= cx + dot / 2; ++x)
                    if (x >= 0 && y >= 0 && x < gif_w && y < gif_h)
                        frame[static_cast<std::size_t>(y) * gif_w + x] = col;
        }
        check(gif.add_frame(frame, 10));
    }
    void after_step(const SimOptions& o, const Simulation& sim) {
        const Crowd& crowd = sim.world().crowd();
        const std::int64_t s = sim.steps_done();
        if (!trails.empty() && s % 6 == 0) {
            for (std::size_t k = 0; k < trail_ids.size(); ++k) {
                if (crowd.valid(trail_ids[k])) trails[k].push_back(crowd.position(trail_ids[k]));
            }
        }
        if (!o.gif.empty() && s % gif_every == 0 && s / gif_every <= 600) {
            if (sim.world().terrain_version() != terrain_version) draw_terrain(sim.world());
            add_gif_frame(crowd);
        }
        if (!o.png.empty() && o.png_at >= 0 && snapshot.empty() &&
            (crowd.time() >= o.png_at || s == sim.step_count())) {
            snapshot_terrain = sim.world().cost();
            for (const AgentId id : crowd.agents()) {
                snapshot.push_back(crowd.position(id));
                const AgentState st = crowd.state(id);
                snapshot_colour.push_back(st == AgentState::arrived   ? render::Rgb{20, 150, 60}
                                          : st == AgentState::no_path ? render::Rgb{130, 130, 130}
                                          : st == AgentState::queued  ? render::Rgb{150, 60, 200}
                                          : crowd.stuck(id)           ? render::Rgb{235, 120, 0}
                                                                      : render::Rgb{30, 80, 220});
            }
        }
    }
    // Terrain (at --png-at, else at the end: `now`), then every trajectory (one colour per agent,
    // cycling) or the agents at --png-at, goals in red.
    render::Image picture(const SimSetup& setup, const CostField& now) const {
        const CostField& terrain = snapshot_terrain ? *snapshot_terrain : now;
        const int px = std::max(1, std::min(16, 1600 / std::max(terrain.width(), terrain.height())));
        render::Image img(terrain.width() * px, terrain.height() * px, {240, 238, 228});
        for (int y = 0; y < terrain.height(); ++y)
            for (int x = 0; x < terrain.width(); ++x) {
                img.fill_rect(x * px, y * px, px, px, render::terrain_colour(terrain.at(x, y)));
            }
        for (std::size_t k = 0; k < trails.size(); ++k) {
            const render::Rgb col{static_cast<std::uint8_t>(40 + (k * 53) % 180),
                                  static_cast<std::uint8_t>(60 + (k * 97) % 150),
                                  static_cast<std::uint8_t>(120 + (k * 31) % 130)};
            for (std::size_t t = 1; t < trails[k].size(); ++t) {
                img.line(static_cast<int>(trails[k][t - 1].x * px), static_cast<int>(trails[k][t - 1].y * px),
                         static_cast<int>(trails[k][t].x * px), static_cast<int>(trails[k][t].y * px), col);
            }
        }
        const int dot = std::max(1, px / 2);
        for (std::size_t k = 0; k < snapshot.size(); ++k) {
            img.fill_rect(static_cast<int>(snapshot[k].x * px) - dot / 2,
                          static_cast<int>(snapshot[k].y * px) - dot / 2, dot, dot, snapshot_colour[k]);
        }
        for (const Cell& g : setup.marks)
            img.fill_rect(g.x * px - px, g.y * px - px, 3 * px, 3 * px, {220, 30, 30});  // or dangers
        return img;
    }
};

std::string hex_text(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

nlohmann::json seconds_or_null(double t) {
    return t >= 0 ? nlohmann::json(t) : nlohmann::json(nullptr);
}

// The report as JSON (the run's settings from `config`).
nlohmann::json report_json(const SimOptions& o, const SimSetup& setup, const WorldConfig& config,
                           const SimulationReport& r) {
    const std::string hash = hex_text(r.state_hash);
    const CrowdStats& st = r.crowd;
    nlohmann::json report = setup.about;
    report.update({{"agents", r.agents},
                   {"seconds", r.seconds},
                   {"dt", o.dt},
                   {"threads", r.threads},
                   {"arrived_fraction", r.arrived_fraction},
                   {"arrived_by_second", r.arrived_by_second},
                   {"step_ms_by_second", r.step_ms_by_second},
                   {"mean_arrival_s", r.mean_arrival_s},
                   {"max_arrival_s", r.max_arrival_s},
                   {"no_path", st.no_path},
                   {"queued", st.queued},
                   {"stuck", st.stuck},
                   {"sidestepping", st.sidestepping},
                   {"sleeping", st.sleeping},
                   {"sleep", config.crowd.sleep},
                   {"line_of_sight", config.crowd.line_of_sight},
                   {"arrival_regions", config.crowd.arrival_regions},
                   {"contact_passes", config.crowd.contact_passes},
                   {"yield_overlap", config.crowd.yield_overlap},
                   {"pack_overlap", config.crowd.pack_overlap},
                   {"congestion", config.congestion.enabled},
                   {"arrived_50_s", seconds_or_null(r.arrived_50_s)},
                   {"arrived_90_s", seconds_or_null(r.arrived_90_s)},
                   {"done_95_s", seconds_or_null(r.done_95_s)},
                   {"exited", r.exited},
                   {"empty_s", seconds_or_null(r.empty_s)},
                   {"exit_rate", r.exit_rate},
                   {"region_leaks", r.region_leaks},
                   {"passage_arrived", r.passage_arrived},
                   {"stuck_blocked", r.stuck_blocked},
                   {"wall_penetrations", r.wall_penetrations},
                   {"nan", r.nan},
                   {"max_overlap", r.max_overlap},
                   {"max_overlap_at", {r.max_overlap_at.x, r.max_overlap_at.y}},
                   {"deep_overlap_pairs", r.deep_overlap_pairs},
                   {"mean_step_ms", r.mean_step_ms},
                   {"max_step_ms", r.max_step_ms},
                   {"state_hash", hash},
                   {"planner", r.hierarchical ? "hierarchical" : "flat"}});
    nlohmann::json groups = nlohmann::json::array();
    for (const SimulationGroup& g : r.groups) {
        nlohmann::json goals = nlohmann::json::array();
        for (const Cell c : g.goals) goals.push_back({c.x, c.y});
        groups.push_back({{"id", g.id},
                          {"goals", goals},
                          {"flee", g.flee},
                          {"exit", g.exit},
                          {"units", g.units},
                          {"arrived", g.arrived},
                          {"exited", g.exited},
                          {"queued", g.queued},
                          {"stuck", g.stuck},
                          {"done_50_s", seconds_or_null(g.done_50_s)},
                          {"done_90_s", seconds_or_null(g.done_90_s)},
                          {"done_95_s", seconds_or_null(g.done_95_s)},
                          {"done_100_s", seconds_or_null(g.done_100_s)},
                          {"longest_stall_s", g.longest_stall_s},
                          {"region_radius", g.region_radius}});
        if (g.formation) {
            groups.back()["formation"] = {{"error", g.formation_error},
                                          {"in_slot", g.formation_in_slot},
                                          {"marching_error", g.formation_marching_error},
                                          {"marching_max", g.formation_marching_max},
                                          {"formed_s", seconds_or_null(g.formation_formed_s)},
                                          {"arrived_s", seconds_or_null(g.formation_arrived_s)},
                                          {"regroup_s", seconds_or_null(g.formation_regroup_s)},
                                          {"turns", g.formation_turns},
                                          {"reassignments", g.formation_reassignments},
                                          {"units_reassigned", g.formation_units_reassigned}};
        }
    }
    report["groups"] = std::move(groups);
    if (!r.spawners.empty()) {
        nlohmann::json spawners = nlohmann::json::array();
        for (const SpawnerInfo& sp : r.spawners) spawners.push_back(serve::spawner_json(sp, r.seconds));
        report["spawners"] = std::move(spawners);
        report["world_hash"] = hex_text(r.world_hash);
    }
    if (!r.scenario.empty()) report["refused"] = r.refused;
    if (setup.flee) {
        report["flee_factor"] = o.flee_factor;
        report["danger_distance_mean_start"] = r.danger_distance_mean_start;
        report["danger_distance_mean_end"] = r.danger_distance_mean_end;
        report["danger_distance_min_end"] = r.danger_distance_min_end;
    }
    if (o.detail) {
        nlohmann::json detail = nlohmann::json::array();
        for (const SimulationUnit& u : r.units) {
            detail.push_back(
                {{"start", {u.start.x, u.start.y}},
                 {"end", {u.end.x, u.end.y}},
                 {"path_length", u.path_length},
                 {"arrival_s", seconds_or_null(u.arrival_s)},
                 {"state", u.state == AgentState::moving && u.stuck ? "stuck" : agent_state_name(u.state)}});
        }
        report["agents_detail"] = std::move(detail);
    }
    if (has_margin(r.wall_margin)) report["wall_margin"] = {r.wall_margin.radius, r.wall_margin.extra};
    if (r.hierarchical) {
        report["graph_ms"] = r.graph_ms;
        report["sector_fields"] = r.sector_fields;
        report["sector_field_bytes"] = r.sector_field_bytes;
    }
    if (config.congestion.enabled) {
        report["congestion_params"] = {{"refresh_hz", config.congestion.refresh_hz},
                                       {"density_weight", config.congestion.density_weight},
                                       {"threshold", config.congestion.threshold},
                                       {"full", config.congestion.full},
                                       {"counter_weight", config.congestion.counter_weight},
                                       {"radius", config.congestion.radius},
                                       {"max_extra", config.congestion.max_extra}};
        report["congestion_refreshes"] = r.congestion_refreshes;
    }
    return report;
}

// The report's summary lines on standard output.
void print_report(const SimOptions& o, const SimSetup& setup, const WorldConfig& config, const SimulationReport& r) {
    const CrowdStats& st = r.crowd;
    const std::string about = setup.about.contains("class_text")
                                  ? " (" + setup.about["class_text"].get<std::string>() + ")"
                              : setup.about.contains("scenario") ? " (scenario " + r.scenario + ")"
                                                                 : std::string();
    std::printf("agents %zu%s, %.1f s simulated at dt %.4f on %d thread(s)\n", r.agents, about.c_str(), r.seconds, o.dt,
                r.threads);
    std::printf("arrived %.1f%% (mean %.2f s, max %.2f s), no path %zu, queued %zu, stuck %zu, asleep %zu\n",
                100.0 * r.arrived_fraction, r.mean_arrival_s, r.max_arrival_s, st.no_path, st.queued, st.stuck,
                st.sleeping);
    auto when = [](double t) { return t >= 0 ? number_text(t) + " s" : std::string("not reached"); };
    std::printf("50%% arrived at %s, 90%% at %s, 95%% at %s (simulated)%s\n", when(r.arrived_50_s).c_str(),
                when(r.arrived_90_s).c_str(), when(r.done_95_s).c_str(),
                config.congestion.enabled ? ", congestion on" : "");
    if (r.exited > 0) {
        std::printf(
            "%zu units left by the exits (%.1f per second from the first quarter to the third), map empty "
            "at %s\n",
            r.exited, r.exit_rate, when(r.empty_s).c_str());
    }
    if (r.groups.size() > 1 || !r.scenario.empty()) {
        for (const SimulationGroup& g : r.groups) {
            std::printf(
                "group %u (%s %d,%d): %zu units, %zu arrived, %zu left, %zu queued, %zu stuck; 95%% at %s, all at "
                "%s, longest stall %.0f s\n",
                g.id,
                g.exit   ? "exit"
                : g.flee ? "flee"
                         : "goal",
                g.goals.empty() ? -1 : g.goals[0].x, g.goals.empty() ? -1 : g.goals[0].y, g.units, g.arrived, g.exited,
                g.queued, g.stuck, when(g.done_95_s).c_str(), when(g.done_100_s).c_str(), g.longest_stall_s);
            if (g.formation) {
                const double extra = g.formation_units_reassigned > g.units
                                         ? static_cast<double>(g.formation_units_reassigned - g.units)
                                         : 0.0;
                std::printf(
                    "  formation: formed at %s; error marching %.2f cells mean, %.2f max; after the passage back "
                    "under 0.3 in %s; %.1f right-angle turns, %.3f slot changes per unit per turn; arrived in shape "
                    "(95%% within 0.5 of their slots) at %s; now %.0f%% within 0.5, error %.2f\n",
                    when(g.formation_formed_s).c_str(), g.formation_marching_error, g.formation_marching_max,
                    when(g.formation_regroup_s).c_str(), g.formation_turns,
                    g.formation_turns > 0 && g.units > 0 ? extra / static_cast<double>(g.units) / g.formation_turns
                                                         : 0.0,
                    when(g.formation_arrived_s).c_str(), 100.0 * g.formation_in_slot, g.formation_error);
            }
        }
    }
    if (config.crowd.arrival_regions) {
        std::printf("arrival regions: at most %zu arrived units beyond their region (+1 cell)", r.region_leaks);
        if (!r.scenario.empty()) std::printf(", %zu in the passage while units still came", r.passage_arrived);
        std::printf("\n");
    }
    std::printf("stuck with a unit right ahead (waiting, not wedged): at most %zu at a sample\n", r.stuck_blocked);
    for (const SpawnerInfo& sp : r.spawners) {
        std::printf(
            "spawner %u: %llu emissions, %llu units spawned, %llu skipped (no room), %llu got through; waves "
            "%d%s%s\n",
            sp.id, static_cast<unsigned long long>(sp.emissions), static_cast<unsigned long long>(sp.spawned),
            static_cast<unsigned long long>(sp.skipped), static_cast<unsigned long long>(sp.sunk), sp.waves_done,
            sp.spec.waves > 0 ? (" of " + std::to_string(sp.spec.waves)).c_str() : "", sp.done ? ", done" : "");
    }
    if (r.refused > 0)
        std::printf("%zu scripted command(s) refused, as the scenario allows (e.g. a tower that would seal the path)\n",
                    r.refused);
    if (setup.flee) {
        std::printf(
            "flee factor %g: distance from the nearest danger %.2f cells mean at the start, %.2f mean and "
            "%.2f least at the end (arrived = standing at a safe spot)\n",
            o.flee_factor, r.danger_distance_mean_start, r.danger_distance_mean_end, r.danger_distance_min_end);
    }
    std::printf(
        "wall penetrations %zu, NaN %s, deepest overlap %.2f radii (at %.1f,%.1f), at most %zu pairs deeper "
        "than half a radius\n",
        r.wall_penetrations, r.nan ? "yes" : "no", r.max_overlap, r.max_overlap_at.x, r.max_overlap_at.y,
        r.deep_overlap_pairs);
    std::printf("step %.3f ms mean, %.3f ms max; state hash %s%s\n", r.mean_step_ms, r.max_step_ms,
                hex_text(r.state_hash).c_str(),
                r.spawners.empty() ? "" : ("; world hash " + hex_text(r.world_hash)).c_str());
    if (r.hierarchical) {
        std::printf("planner hierarchical: sector graph %.1f ms, %zu sector fields (%.1f MB)\n", r.graph_ms,
                    r.sector_fields, static_cast<double>(r.sector_field_bytes) / (1 << 20));
    }
}

SimRun run_sim(const SimOptions& o, bool congestion) {
    check_run_length(o);
    TbbJobSystem jobs(o.threads);
    Recording recording;
    Recording* record = o.record.empty() ? nullptr : &recording;
    SimSetup setup =
        o.scenario.empty() ? map_run(o, congestion, jobs, record) : scenario_run(o, congestion, jobs, record);
    Simulation& sim = *setup.sim;
    Drawing drawing;
    drawing.start(o, setup);
    while (sim.steps_done() < sim.step_count()) {
        check(sim.step());
        drawing.after_step(o, sim);
        if (sim.sampled()) {
            std::fprintf(stderr, "\r[sim] %.0f s: %.1f%% arrived", sim.world().crowd().time(),
                         100.0 * sim.arrived_fraction());
        }
    }
    std::fprintf(stderr, "\n");
    const SimulationReport r = sim.report();
    const WorldConfig config = world_config(o, congestion);
    SimRun out;
    out.report = report_json(o, setup, config, r);
    print_report(o, setup, config, r);
    if (!o.png.empty()) out.picture = drawing.picture(setup, setup.sim->world().cost());
    if (!o.gif.empty()) check(drawing.gif.close());
    if (record) {
        check(write_file_atomically(o.record, recording_text(recording)));
        std::printf("recorded %zu events (%lld ticks) to %s\n", recording.events.size(),
                    static_cast<long long>(sim.steps_done()), o.record.c_str());
    }
    if (!o.state_out.empty()) {
        check(write_file_atomically(
            o.state_out, snapshot_text(snapshot(sim.world(), static_cast<std::uint64_t>(sim.steps_done())))));
    }
    if (r.nan) throw Failure{"NaN positions appeared"};
    return out;
}

// tide sim --replay FILE: the recorded run again, its state hash compared at every tick.
void run_replay(const SimOptions& o) {
    if (!o.map.empty() || !o.scenario.empty() || !o.goals.empty() || !o.flee.empty() || !o.record.empty() ||
        !o.png.empty() || !o.gif.empty() || !o.json.empty()) {
        throw Failure{
            "--replay runs what the recording holds: leave out --map, --scenario, --goal, --flee, --record, "
            "--png, --gif and --json"};
    }
    auto recording = load_recording(o.replay);
    check(recording);
    if (!o.state_out.empty()) check(check_output_target(o.state_out));
    check_threads(o.threads);
    TbbJobSystem jobs(o.threads);
    ReplayOptions options;
    options.stop_after_tick = o.replay_ticks;
    options.snapshot = !o.state_out.empty();
    const auto t0 = std::chrono::steady_clock::now();
    auto report = replay(*recording, jobs, options);
    check(report);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("replayed %llu ticks of %s in %.2f s on %d threads: state hash %016llx\n",
                static_cast<unsigned long long>(report->ticks), o.replay.c_str(), s, jobs.max_concurrency(),
                static_cast<unsigned long long>(report->final_hash));
    if (report->last) check(write_file_atomically(o.state_out, snapshot_text(*report->last)));
    if (report->first_mismatch >= 0) {
        throw Failure{"desync: tick " + std::to_string(report->first_mismatch) + " gives state hash " +
                      hex_text(report->mismatch_replayed) + ", the recording says " +
                      hex_text(report->mismatch_recorded) +
                      " (replay with --replay-ticks and --state-out on both machines, then tide desync)"};
    }
    std::printf("identical to the recording at every tick\n");
}

// One run, or with --congestion both the run without and the run with congestion, one after the
// other; their pictures side by side, each under its title.
void run_sim_command(const SimOptions& o) {
    if (!o.replay.empty()) return run_replay(o);
    if (!o.record.empty() && o.congestion == "both")
        throw Failure{"--record records one run: not with --congestion both"};
    if (o.replay_ticks != -1) throw Failure{"--replay-ticks goes with --replay"};
    if (o.congestion != "on" && o.congestion != "off" && o.congestion != "both")
        throw Failure{"--congestion '" + o.congestion + "' is not on, off or both"};
    // Output targets before the run, so a run of minutes does not end in "cannot write".
    for (const std::string* target : {&o.json, &o.png, &o.record, &o.state_out})
        if (!target->empty()) check(check_output_target(*target));
    if (o.congestion != "both") {
        SimRun run = run_sim(o, o.congestion == "on");
        if (!o.json.empty()) write_json(o.json, run.report);
        if (run.picture) check(render::write_png(*run.picture, o.png));
        return;
    }
    std::printf("-- congestion off\n");
    SimRun off = run_sim(o, false);
    std::printf("-- congestion on\n");
    SimRun on = run_sim(o, true);
    auto ninety = [](const nlohmann::json& r) {
        return r["arrived_90_s"].is_null() ? -1.0 : r["arrived_90_s"].get<double>();
    };
    const double a = ninety(off.report), b = ninety(on.report);
    if (a > 0 && b > 0) {
        std::printf("90%% arrived: %.2f s off, %.2f s on (%+.1f%%)\n", a, b, 100.0 * (b - a) / a);
    }
    if (!o.json.empty()) write_json(o.json, nlohmann::json{{"off", off.report}, {"on", on.report}});
    if (!off.picture || !on.picture) return;
    // Two panels with a gap, a title line above each.
    const int scale = 3, gap = 24, head = render::label_height(scale) * 2 + 3 * scale;
    const render::Image& l = *off.picture;
    const render::Image& r = *on.picture;
    render::Image img(l.width + gap + r.width, head + std::max(l.height, r.height), {246, 246, 242});
    auto paste = [&](const render::Image& from, int x0) {
        for (int y = 0; y < from.height; ++y)
            for (int x = 0; x < from.width; ++x) img.set_pixel(x0 + x, head + y, from.pixel(x, y));
    };
    paste(l, 0);
    paste(r, l.width + gap);
    auto title = [&](const nlohmann::json& rep, const char* name, int x0) {
        const double t90 = ninety(rep);
        std::string line = std::string(name) + ": 90 PERCENT ARRIVED " +
                           (t90 > 0 ? "AT " + number_text(std::round(t90 * 10) / 10) + " S" : "NOT WITHIN THE RUN");
        render::draw_label(img, x0 + scale, scale, line, {28, 28, 32}, scale);
        std::string sub = number_text(std::round(rep["arrived_fraction"].get<double>() * 1000) / 10) + " PERCENT AT " +
                          number_text(std::round(rep["seconds"].get<double>())) + " S" +
                          (o.png_at >= 0 ? ", PICTURE AT " + number_text(o.png_at) + " S" : "");
        render::draw_label(img, x0 + scale, scale + render::label_height(scale) + scale, sub, {70, 70, 76}, scale);
    };
    title(off.report, "CONGESTION OFF", 0);
    title(on.report, "CONGESTION ON", l.width + gap);
    check(render::write_png(img, o.png));
}

}  // namespace

void add_sim_command(CLI::App& app) {
    auto o = std::make_shared<SimOptions>();
    auto* cmd = app.add_subcommand("sim", "Run a crowd to the goal(s) and report arrival, safety and step times");
    cmd->add_option("--map", o->map, "Map file, or @default (or give --scenario)");
    std::string scenario_help = "A built-in scenario instead of --map/--goal: ";
    for (const std::string& n : scenario_names()) scenario_help += n + (n == scenario_names().back() ? "" : ", ");
    cmd->add_option(
        "--scenario", o->scenario,
        scenario_help + " (tide/scenarios.hpp; its map, groups, orders and length; prints a line per group)");
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (repeat for several)");
    cmd->add_option("--flee", o->flee,
                    "Instead of --goal: a danger cell X,Y (repeatable); the crowd flees from the dangers along their "
                    "flee field and stops at safe spots");
    cmd->add_option("--flee-factor", o->flee_factor, "With --flee: the factor k (default 1.2)");
    add_wall_margin_option(*cmd, o->wall_margin);
    cmd->add_option("--agents", o->agents, "Number of agents (default 1000)");
    cmd->add_option("--spawn", o->spawn,
                    "Spawn area X0,Y0,X1,Y1: the cells covering [X0, X1) x [Y0, Y1) (default: whole map)");
    cmd->add_option("--seconds", o->seconds, "Simulated seconds (default 30, or the scenario's length)");
    cmd->add_option("--dt", o->dt, "Step in seconds (default 1/60)");
    cmd->add_option("--threads", o->threads, "Worker threads (default: all cores)");
    cmd->add_option("--seed", o->seed, "Spawn seed (default 1)");
    cmd->add_option("--json", o->json, "Write the report as JSON");
    cmd->add_option("--png", o->png, "Draw the map with every agent's trajectory");
    cmd->add_option("--gif", o->gif, "Write an animation (a frame every 0.1 s, at most 600)");
    cmd->add_flag("--lockstep", o->lockstep,
                  "Publish fields at fixed points (WorldConfig::lockstep): the run, its state hash and its counts "
                  "are the same on any number of threads (--record implies it)");
    cmd->add_flag("--detail", o->detail,
                  "Add agents_detail to the JSON: per agent start [x, y], end [x, y], path_length (cells walked), "
                  "arrival_s (null if not arrived) and state (moving, stuck, arrived, no_path)");
    cmd->add_option("--line-of-sight", o->line_of_sight,
                    "on (default): units steer straight where they see far along their field's path; off: the "
                    "sampled flow only");
    cmd->add_option("--sleep", o->sleep,
                    "on (default): arrived and queued units at rest for 15 sub-steps sleep (no neighbour scan) until "
                    "a unit that moved comes near; off: every unit does the whole sub-step");
    cmd->add_option("--arrival-regions", o->arrival_regions,
                    "on (default): goal groups arrive only inside their arrival region (never behind a passage their "
                    "units still come through, nor in another group's way) and fill it from the far side of a single "
                    "way in; off: units arrive where they touch the pack near the goal or are blocked against it");
    cmd->add_option("--contact-passes", o->contact_passes,
                    "Position passes per sub-step that push touching units apart, 0..16 (default " +
                        std::to_string(CrowdParams{}.contact_passes) + ")");
    cmd->add_option("--yield", o->yield_overlap,
                    "Overlap (radii, 0..1) at which a unit stops walking into a mate of its group (default 0.15); 0: "
                    "units squeeze through one another");
    cmd->add_option("--pack-overlap", o->pack_overlap,
                    "Deepest overlap (radii, 0..2) left after each sub-step between a unit and an arrived mate, or "
                    "a mate flagged stuck (default 0.4); 2: no bound");
    cmd->add_option("--congestion", o->congestion,
                    "off (default); on: the crowd's density (more so units moving against the group) adds to "
                    "the cost the group's field plans on, refreshed a few times per simulated second, so the "
                    "crowd spreads over parallel routes; both: run off, then on, and draw the two side by side "
                    "(--png; --json then holds {off, on})");
    cmd->add_option("--png-at", o->png_at,
                    "With --png: draw where the agents stand at this simulated second (moving blue, stuck orange, "
                    "arrived green, no path grey) instead of their trajectories");
    cmd->add_option("--congestion-density", o->congestion_params.density_weight,
                    "With --congestion on: share of the expected delay in a crowded cell added as cost (default 1)");
    cmd->add_option("--congestion-counter", o->congestion_params.counter_weight,
                    "With --congestion on: cost added by a fully covered cell moving against the group at top "
                    "speed (default 8)");
    cmd->add_option(
        "--congestion-threshold", o->congestion_params.threshold,
        "With --congestion on: covered fraction of a cell up to which the crowd flows freely (default 0.15)");
    cmd->add_option("--congestion-full", o->congestion_params.full,
                    "With --congestion on: covered fraction from which the crowd's own speed counts fully (default "
                    "0.45)");
    cmd->add_option("--congestion-radius", o->congestion_params.radius,
                    "With --congestion on: density averaged over the open cells within this many cells (default 1)");
    cmd->add_option("--congestion-hz", o->congestion_params.refresh_hz,
                    "With --congestion on: field refreshes per simulated second (default 4)");
    cmd->add_option("--congestion-max", o->congestion_params.max_extra,
                    "With --congestion on: largest cost added to a cell (default 60)");
    add_class_options(*cmd, o->unit_class);
    cmd->add_option("--record", o->record,
                    "Record the run (lockstep: fields published at fixed points) into a command log that --replay "
                    "reproduces exactly, with the state hash after every tick (docs/determinism.md)");
    cmd->add_option("--replay", o->replay,
                    "Replay a recording instead of a run; exits 1 at the first tick whose state hash differs");
    cmd->add_option("--replay-ticks", o->replay_ticks, "With --replay: stop after this many ticks");
    cmd->add_option("--state-out", o->state_out,
                    "Write the whole state where the run (or replay) ends, unit by unit, for tide desync");
    cmd->add_option(
        "--hierarchy-cells", o->hierarchy_cells,
        "Maps of at least this many cells plan hierarchically (default 4194304 = 2048x2048; 0 = every map)");
    cmd->footer(
        "--class/--size: the agents plan on that class's cost field (which also bounds where they spawn and "
        "which cells count as walls for them). Sizes 1..3 walk with bodies of their size (radius 0.16 + 0.45 "
        "per cell above 1, line of sight for their footprint); sizes 4..8 walk as size-1 bodies on the class's "
        "sized costs.");
    cmd->callback([o] { run_sim_command(*o); });
}

}  // namespace tide::cli
