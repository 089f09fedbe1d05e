// tide bench navmesh: a Recast/Detour navigation mesh against Tide's fields on the same maps
// (bake, N path queries against one field, path quality, crowds, an obstacle, area costs). This
// file parses and checks the options, writes the JSON and the Markdown; the run is
// bench/navmesh/navmesh_runs.hpp, built only when Debian's librecast-dev was found. Without it the
// command says so and exits 77 (the "skipped" status of automake and CTest).

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_common.hpp"
#ifdef TIDE_HAVE_NAVMESH
#include "navmesh_runs.hpp"
#endif

namespace tide::cli {
namespace {

struct NavmeshOptions {
    std::vector<std::string> maps{"default", "random256", "movingai", "large"};
    std::string movingai = "../shared/data/movingai/dao/brc202d.map";
    std::vector<int> units{1, 10, 100, 1000, 10000};
    int quality_starts = 200;
    std::size_t max_corners = 40000;
    int reps = 5;
    bool crowd = true;
    std::vector<int> crowd_agents{128, 1000, 5000};
    float crowd_seconds = 90.0f;
    std::uint64_t seed = 1;
    std::string json, doc;
};

constexpr const char* kBegin = "<!-- tide bench navmesh: begin -->";
constexpr const char* kEnd = "<!-- tide bench navmesh: end -->";

// Replaces what lies between the markers of `path` with `text` (the rest of the page is prose).
void write_doc(const std::string& path, const std::string& text) {
    std::ifstream in(path);
    if (!in)
        throw Failure{"--doc " + path + ": cannot read it (it must exist and hold the markers " + kBegin + " and " +
                      kEnd + ")"};
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string page = buf.str();
    const std::size_t b = page.find(kBegin), e = page.find(kEnd);
    if (b == std::string::npos || e == std::string::npos || e < b)
        throw Failure{"--doc " + path + ": the markers " + std::string(kBegin) + " and " + kEnd + " are missing"};
    const std::string out = page.substr(0, b + std::string(kBegin).size()) + "\n" + text + "\n" + page.substr(e);
    std::ofstream o(path, std::ios::trunc);
    o << out;
    if (!o) throw Failure{"--doc " + path + ": could not write it"};
}

void run_bench_navmesh(const NavmeshOptions& o) {
    for (const std::string& m : o.maps)
        if (m != "default" && m != "random256" && m != "movingai" && m != "large")
            throw Failure{"--maps: '" + m + "' is not one of default, random256, movingai, large"};
    for (const int n : o.units)
        if (n < 1 || n > 100000) throw Failure{"--units " + std::to_string(n) + " is outside 1..100000"};
    for (const int n : o.crowd_agents)
        if (n < 1 || n > 20000) throw Failure{"--crowd-agents " + std::to_string(n) + " is outside 1..20000"};
    if (o.units.empty()) throw Failure{"--units needs at least one count"};
    if (o.quality_starts < 1 || o.quality_starts > 10000)
        throw Failure{"--quality-starts " + std::to_string(o.quality_starts) + " is outside 1..10000"};
    if (o.reps < 1 || o.reps > 1000) throw Failure{"--reps " + std::to_string(o.reps) + " is outside 1..1000"};
    if (!(o.crowd_seconds > 0.0f && o.crowd_seconds <= 600.0f))
        throw Failure{"--crowd-seconds " + std::to_string(o.crowd_seconds) + " is outside (0, 600]"};
#ifdef TIDE_HAVE_NAVMESH
    bench::NavmeshBenchOptions b;
    b.maps = o.maps;
    b.movingai = o.movingai;
    b.units = o.units;
    b.quality_starts = o.quality_starts;
    b.max_corners = o.max_corners;
    b.reps = o.reps;
    b.crowd = o.crowd;
    b.crowd_agents = o.crowd_agents;
    b.crowd_seconds = o.crowd_seconds;
    b.seed = o.seed;
    // The command line the report names: every setting, so a reader can run it again.
    auto list = [](const auto& v) {
        std::string out;
        for (const auto& x : v) {
            std::ostringstream one;
            one << x;
            out += (out.empty() ? "" : ",") + one.str();
        }
        return out;
    };
    std::ostringstream cmd;
    cmd << "tide bench navmesh --maps " << list(o.maps) << " --units " << list(o.units) << " --quality-starts "
        << o.quality_starts << " --max-corners " << o.max_corners << " --reps " << o.reps << " --seed " << o.seed;
    if (o.crowd)
        cmd << " --crowd-agents " << list(o.crowd_agents) << " --crowd-seconds " << o.crowd_seconds;
    else
        cmd << " --no-crowd";
    if (std::find(o.maps.begin(), o.maps.end(), "movingai") != o.maps.end()) cmd << " --movingai " << o.movingai;
    b.command = cmd.str();
    const bench::NavmeshBenchReport report = bench::run_navmesh_bench(b, stdout);
    if (!o.json.empty()) write_json(o.json, report.json);
    if (!o.doc.empty()) write_doc(o.doc, report.markdown);
#else
    throw Failure{
        "tide bench navmesh: skipped: this tide was built without Recast/Detour. Install Debian's "
        "librecast-dev (scripts/install-deps.sh does), then re-run cmake and rebuild",
        77};
#endif
}

}  // namespace

void add_bench_navmesh_command(CLI::App& bench) {
    auto o = std::make_shared<NavmeshOptions>();
    auto* cmd = bench.add_subcommand("navmesh", "NavMesh (Recast/Detour) or flow field? Both on the same maps");
    cmd->add_option("--maps", o->maps, "Maps: default, random256, movingai, large")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--movingai", o->movingai, "The Moving AI map of the 'movingai' row")->capture_default_str();
    cmd->add_option("--units", o->units, "Unit counts N of the query table")->delimiter(',')->capture_default_str();
    cmd->add_option("--quality-starts", o->quality_starts, "Start points of the path-quality tables")
        ->capture_default_str();
    cmd->add_option("--max-corners", o->max_corners, "Largest visibility graph of the exact any-angle reference")
        ->capture_default_str();
    cmd->add_option("--reps", o->reps, "Field builds timed per map (median)")->capture_default_str();
    cmd->add_flag("!--no-crowd", o->crowd, "Skip the crowds side by side");
    cmd->add_option("--crowd-agents", o->crowd_agents, "Agent counts of the crowds side by side")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--crowd-seconds", o->crowd_seconds, "Longest simulated time of a crowd run, s")
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "Start point seed")->capture_default_str();
    cmd->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    cmd->add_option("--doc", o->doc, "Write the tables into this Markdown page between its markers (docs/navmesh.md)");
    cmd->callback([o] { run_bench_navmesh(*o); });
}

}  // namespace tide::cli
