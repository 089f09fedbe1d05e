// tide gen: random weighted benchmark maps (the classic experiment's 256x256 map: 20% walls,
// 15% forest, 7% swamp). A seeded splitmix64 generator keeps maps identical on every platform.

#include <cstdio>

#include "atomic_file.hpp"
#include "cli_common.hpp"
#include "tide/generate.hpp"

namespace tide::cli {
namespace {

struct GenOptions {
    int width = 256, height = 256;
    double walls = 0.20, forest = 0.15, swamp = 0.07;
    std::uint64_t seed = 1;
    std::string out;
};

void run_gen(const GenOptions& o) {
    if (o.out != "-") check(check_output_target(o.out));  // before generating (39 s at 16384 x 16384)
    auto cost = generate_random_map({o.width, o.height, o.walls, o.forest, o.swamp, o.seed});
    check(cost);
    const auto formatted = format_tide_map(cost.value());
    check(formatted);
    const std::string& text = formatted.value();
    if (o.out == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
    }
    check(write_file_atomically(o.out, text));
}

}  // namespace

void add_gen_command(CLI::App& app) {
    auto o = std::make_shared<GenOptions>();
    auto* cmd = app.add_subcommand("gen", "Write a random weighted Tide text map");
    cmd->add_option("--width", o->width, "Columns (1..16384, default 256)");
    cmd->add_option("--height", o->height, "Rows (1..16384, default 256)");
    cmd->add_option("--walls", o->walls, "Fraction of wall cells (default 0.20)");
    cmd->add_option("--forest", o->forest, "Fraction of forest cells, cost 3 (default 0.15)");
    cmd->add_option("--swamp", o->swamp, "Fraction of swamp cells, cost 6 (default 0.07)");
    cmd->add_option("--seed", o->seed, "Random seed (default 1)");
    cmd->add_option("--out", o->out, "Output file, or - for standard output")->required();
    cmd->callback([o] { run_gen(*o); });
}

}  // namespace tide::cli
