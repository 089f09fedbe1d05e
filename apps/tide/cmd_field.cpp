// tide field: build the integration and flow fields for one map and goal set.

#include <cstdio>

#include "cli_common.hpp"
#include "csv_writer.hpp"
#include "render.hpp"

namespace tide::cli {
namespace {

struct FieldOptions {
    std::string map;
    std::vector<std::string> goals;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    std::string dist_csv, next_csv, png;
    int repeat = 0;
};

void run_field(const FieldOptions& o) {
    const Map map = load_map_or_fail(o.map);
    const std::vector<Cell> goals = parse_goals(o.goals);
    const FieldParams params = make_params(o.diagonal, o.connectivity);
    if (o.repeat < 0 || o.repeat > 100000)
        throw Failure{"--repeat " + std::to_string(o.repeat) + " is outside 0..100000"};

    FieldBuilder builder;
    FlowField field;
    auto t0 = std::chrono::steady_clock::now();
    check(builder.build(map.cost, goals, params, field));
    const double first_ms = ms_since(t0);

    if (o.repeat > 0) {  // one warm-up (the build above), then N timed builds
        std::vector<double> times;
        times.reserve(static_cast<std::size_t>(o.repeat));
        for (int i = 0; i < o.repeat; ++i) {
            t0 = std::chrono::steady_clock::now();
            check(builder.build(map.cost, goals, params, field));
            times.push_back(ms_since(t0));
        }
        std::printf("build_ms_median=%.6f\n", median(times));
    }

    std::size_t reachable = 0;
    float max_value = 0.0f;
    for (float v : field.integration()) {
        if (v != kUnreachable) {
            ++reachable;
            max_value = std::max(max_value, v);
        }
    }
    std::printf("map %s: %dx%d, %zu goal(s), %zu reachable cells, max integration %.6g, first build %.3f ms\n",
                o.map.c_str(), map.cost.width(), map.cost.height(), goals.size(), reachable,
                static_cast<double>(max_value), first_ms);
    if (!o.dist_csv.empty()) write_dist_csv(map.cost, field, params, o.dist_csv);
    if (!o.next_csv.empty()) write_next_csv(field, o.next_csv);
    if (!o.png.empty()) check(render::write_png(render::render_layers(map.cost, field, goals), o.png));
}

}  // namespace

void add_field_command(CLI::App& app) {
    auto o = std::make_shared<FieldOptions>();
    auto* cmd = app.add_subcommand("field", "Build the integration and flow fields for a map and goal(s)");
    cmd->add_option("--map", o->map, "Map file (.map or Tide text map), or @default")->required();
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (repeat for several goals: nearest wins)")->required();
    add_field_options(*cmd, o->diagonal, o->connectivity);
    cmd->add_option("--dist-csv", o->dist_csv, "Write least costs (H lines of W values, inf when unreachable)");
    cmd->add_option("--next-csv", o->next_csv, "Write next-cell indices y*W+x (-1 for goals, walls, unreachable)");
    cmd->add_option("--png", o->png, "Write a picture of the three layers");
    cmd->add_option("--repeat", o->repeat, "Build N more times after a warm-up; print build_ms_median=<ms>");
    cmd->callback([o] { run_field(*o); });
}

}  // namespace tide::cli
