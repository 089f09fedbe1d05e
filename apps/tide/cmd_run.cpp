// tide run: the main job on the embedded default map (what `make run` starts): build the field
// for the default goal, print a summary with timings, and write a picture of the three layers.

#include <cstdio>

#include "cli_common.hpp"
#include "render.hpp"
#include "tide/default_map.hpp"
#include "tide/field_builder.hpp"

namespace tide::cli {
namespace {

struct RunOptions {
    std::string map = kDefaultMapName;
    std::vector<std::string> goals;
    std::string png = "tide_default.png";
    int repeat = 200;
};

void run_main_job(const RunOptions& o) {
    const auto t_load = std::chrono::steady_clock::now();
    const Map map = load_map_or_fail(o.map);
    const double load_ms = ms_since(t_load);
    std::vector<Cell> goals = o.goals.empty() ? std::vector<Cell>{kDefaultGoal} : parse_goals(o.goals);
    if (o.repeat < 1 || o.repeat > 100000) throw Failure{"--repeat must be 1..100000"};

    FieldBuilder builder;
    FlowField field;
    check(builder.build(map.cost, goals, {}, field));  // warm-up
    std::vector<double> times;
    for (int i = 0; i < o.repeat; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        check(builder.build(map.cost, goals, {}, field));
        times.push_back(ms_since(t0));
    }
    const double build_ms = median(times);

    std::size_t walls = 0, reachable = 0, unreachable = 0;
    float max_value = 0.0f;
    for (std::size_t i = 0; i < field.directions().size(); ++i) {
        const Direction d = field.directions()[i];
        if (d == Direction::wall)
            ++walls;
        else if (d == Direction::unreachable)
            ++unreachable;
        else {
            ++reachable;
            max_value = std::max(max_value, field.integration()[i]);
        }
    }
    const auto t_render = std::chrono::steady_clock::now();
    check(render::write_png(render::render_layers(map.cost, field, goals), o.png));
    const double render_ms = ms_since(t_render);

    std::printf("Tide: flow field on %s (%dx%d cells)\n",
                o.map == kDefaultMapName ? "the embedded default map" : o.map.c_str(), map.cost.width(),
                map.cost.height());
    std::printf("  goal(s):          ");
    for (const Cell& g : goals) std::printf("%s ", cell_text(g).c_str());
    std::printf("\n  cells:            %zu reachable, %zu unreachable, %zu walls\n", reachable, unreachable, walls);
    std::printf("  farthest cell:    %.2f cost units from a goal\n", static_cast<double>(max_value));
    std::printf("  map load:         %.3f ms\n", load_ms);
    std::printf("  field build:      %.4f ms median of %d builds (integration + flow, %zu bytes)\n", build_ms, o.repeat,
                field.memory_bytes());
    std::printf("  picture:          %s (%.1f ms): terrain | integration | flow\n", o.png.c_str(), render_ms);
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand("run", "The main job: field for the default map and goal, summary and picture");
    cmd->add_option("--map", o->map, "Map file (default: the embedded map, @default)");
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (default: the default map's goal)");
    cmd->add_option("--png", o->png, "Picture to write (default tide_default.png)");
    cmd->add_option("--repeat", o->repeat, "Timed builds for the median (default 200)");
    cmd->callback([o] { run_main_job(*o); });
}

}  // namespace tide::cli
