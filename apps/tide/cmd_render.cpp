// tide render: the three layers (terrain, integration heat map, flow arrows) in one PNG.

#include <cstdio>

#include "cli_common.hpp"
#include "render.hpp"
#include "tide/field_builder.hpp"

namespace tide::cli {
namespace {

struct RenderCmdOptions {
    std::string map, png;
    std::vector<std::string> goals;
    double diagonal = 1.4142135623730951;
    int connectivity = 8;
    int cell_pixels = 0;
    int arrow_stride = 0;
};

void run_render(const RenderCmdOptions& o) {
    const Map map = load_map_or_fail(o.map);
    const std::vector<Cell> goals = parse_goals(o.goals);
    const FieldParams params = make_params(o.diagonal, o.connectivity);
    if (o.cell_pixels < 0 || o.cell_pixels > 64) throw Failure{"--cell-pixels must be 0..64"};
    if (o.arrow_stride < 0) throw Failure{"--arrow-stride must be >= 0"};
    auto field = build_flow_field(map.cost, goals, params);
    check(field);
    render::RenderOptions ro;
    ro.cell_pixels = o.cell_pixels;
    ro.arrow_stride = o.arrow_stride;
    check(render::write_png(render::render_layers(map.cost, field.value(), goals, ro), o.png));
    std::printf("wrote %s\n", o.png.c_str());
}

}  // namespace

void add_render_command(CLI::App& app) {
    auto o = std::make_shared<RenderCmdOptions>();
    auto* cmd = app.add_subcommand("render", "Draw terrain, integration heat map and flow arrows into one PNG");
    cmd->add_option("--map", o->map, "Map file, or @default")->required();
    cmd->add_option("--goal", o->goals, "Goal cell X,Y (repeat for several)")->required();
    cmd->add_option("--png", o->png, "Output PNG file")->required();
    cmd->add_option("--cell-pixels", o->cell_pixels, "Pixels per cell (0 = automatic)");
    cmd->add_option("--arrow-stride", o->arrow_stride, "Draw an arrow every k-th cell (0 = automatic)");
    add_field_options(*cmd, o->diagonal, o->connectivity);
    cmd->callback([o] { run_render(*o); });
}

}  // namespace tide::cli
