// tide bench: side-by-side benchmark tables. `tide bench fields` times one field build against
// A* per unit, the textbook build, a 4-direction Dijkstra map and Boost.Graph's Dijkstra, on the
// classic random maps (several seeds) and on the largest Moving AI maps, in one run.
//
// Method: for every map and every row, one untimed warm-up (which also checks the result against
// Tide's exact distances), then --reps timed repetitions. The figure of a row is the median of
// all repetitions of all seeds pooled together. Rows run one after the other, each with its own
// warm-up, as Google Benchmark does.
//
// Then the hierarchical planner (tide/hierarchy.hpp) on random maps of --hier-sizes (seed 1): the
// sector graph build once, and cold route queries across the map, next to the flat build of the
// same size when it ran.

#include <unistd.h>

#include <algorithm>
#include <boost/version.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <thread>

#include "atomic_file.hpp"
#include "baselines.hpp"
#include "cli_common.hpp"
#include "hier_rows.hpp"
#include "provenance.hpp"
#include "tbb_jobs.hpp"
#include "tide/astar.hpp"
#include "tide/generate.hpp"

#ifndef TIDE_GIT_COMMIT
#define TIDE_GIT_COMMIT "unknown"
#endif
#ifndef TIDE_SOURCE_DIR
#define TIDE_SOURCE_DIR "."
#endif

namespace tide::cli {
using namespace tide::bench;  // the harness: baselines, hierarchical rows, timing
namespace {

using Json = nlohmann::ordered_json;

constexpr int kMinReps = 20;
// Largest relative difference allowed between a baseline's distances (double precision) and Tide's
// (FieldBuilder::exact_integration): the bound that function documents for its 64-bit fixed point
// (diagonal prices rounded to 2^-25). A different least-cost path differs by far more, so the check
// still proves every row solves the same problem.
constexpr double kCheckTolerance = 1.5e-8;
constexpr std::uint64_t kStartSeed = 0x5EED;    // A* starts: fixed seed (mixed with the map seed)
constexpr std::size_t kFullAStarCells = 65536;  // A* x1000 only on maps up to 256x256 cells
// Maps over this many cells are "large" (4096x4096): no A* rows (one A* to the centre expands
// millions of cells, so even x10 would take minutes per repetition) and only --large-seeds seeds
// (one 4096x4096 seed already costs about 7 minutes at 20 repetitions per row).
constexpr std::size_t kLargeMapCells = 1024 * 1024;

struct BenchOptions {
    std::vector<int> sizes{256, 1024, 4096};
    int seeds = 3;
    int large_seeds = 1;
    int reps = 20;
    std::string movingai = "../shared/data/movingai";
    bool movingai_given = false;
    std::string json;
    std::string svg;
    bool quick = false;
    std::vector<int> hier_sizes{1024, 4096};
    bool huge = false;  // adds 16384 to hier_sizes
    int hier_reps = 5;
    int settle = RouteConfig{}.settle_budget;
    int hier_threads = 1;
    int sector = 64;
};

// Largest map a flat field is built for in the hierarchical rows' path check (and the largest the
// flat rows are meant for): 4096x4096. A 16384x16384 flat field needs 1.3 GB plus the builder's
// scratch and minutes per build.
constexpr std::size_t kFlatCheckCells = std::size_t{4096} * 4096;

/// One row of the table.
struct RowSpec {
    const char* key;
    const char* name;
    int units;  // A* rows: units per repetition; 0 otherwise
};
constexpr RowSpec kRows[] = {
    {"astar_1", "A* x1", 1},
    {"astar_10", "A* x10", 10},
    {"astar_100", "A* x100", 100},
    {"astar_1000", "A* x1000", 1000},
    {"textbook", "textbook 8-dir Dijkstra + lowest-neighbour flow (baseline)", 0},
    {"dijkstra4", "4-dir Dijkstra map (textbook)", 0},
    {"boost", "Boost.Graph dijkstra_shortest_paths (CSR)", 0},
    {"tide", "Tide integration + flow (8-dir)", 0},
    {"tide_integration", "Tide integration only", 0},
};
constexpr int kRowCount = static_cast<int>(std::size(kRows));

int row_index(std::string_view key) {
    for (int i = 0; i < kRowCount; ++i) {
        if (key == kRows[i].key) return i;
    }
    throw Failure{"internal: unknown row " + std::string(key)};
}

struct RowResult {
    std::vector<double> samples;           // every timed repetition of every instance, ms
    std::vector<double> instance_medians;  // one per seed / map file
    double median_ms = 0.0;
    bool ran() const { return !samples.empty(); }
};

/// One benchmark map: a random size (several seeds) or one Moving AI file.
struct MapCase {
    std::string name;   // "random 256x256" or the file stem
    std::string label;  // progress prefix: "256" or the file stem
    std::string kind;   // "random" or "movingai"
    int width = 0, height = 0;
    std::vector<std::uint64_t> seeds;  // random maps
    std::string path;                  // Moving AI maps
};

struct MapResult {
    MapCase map;
    std::vector<Json> instances;  // seed / file, goal, reachable cells, checks
    RowResult rows[kRowCount];
    double memory_bytes_per_cell = 0.0;
    std::vector<int> astar_units;
    std::size_t cells() const { return static_cast<std::size_t>(map.width) * map.height; }
    const RowResult& row(std::string_view key) const { return rows[row_index(key)]; }
};

// ---- Progress on stderr ------------------------------------------------------------------------

class Progress {
public:
    void update(const std::string& prefix, const char* row, int done, int total) {
        const auto now = std::chrono::steady_clock::now();
        const double since = std::chrono::duration<double>(now - last_).count();
        if (since < (tty_ ? 0.2 : 2.0) && !(tty_ && done == 0)) return;
        last_ = now;
        if (tty_) {
            std::fprintf(stderr, "\r\033[K[%s] %s %d/%d", prefix.c_str(), row, done, total);
        } else {
            std::fprintf(stderr, "[%s] %s %d/%d\n", prefix.c_str(), row, done, total);
        }
        std::fflush(stderr);
    }
    void clear() {
        if (tty_) std::fprintf(stderr, "\r\033[K");
    }

private:
    bool tty_ = isatty(STDERR_FILENO) != 0;
    std::chrono::steady_clock::time_point last_{};
};

// ---- Running one map ---------------------------------------------------------------------------

/// Fails loudly when a baseline disagrees with Tide's exact distances.
void require_close(double difference, const std::string& what) {
    if (!(difference <= kCheckTolerance)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "largest relative difference %.3g (allowed %.3g)", difference, kCheckTolerance);
        throw Failure{what + " differs from Tide's exact distances: " + buf};
    }
}

class MapRunner {
public:
    MapRunner(MapResult& result, int reps, Progress& progress) : r_(result), reps_(reps), progress_(progress) {}

    void run_instance(const CostField& cost, const std::string& prefix, const std::string& instance_name,
                      std::uint64_t start_seed) {
        prefix_ = prefix;
        const Result<Cell> goal_result = bench_goal(cost);
        check(goal_result);
        const Cell goal = *goal_result;
        const Cell goals[] = {goal};
        const int w = cost.width(), h = cost.height();

        FieldBuilder builder;
        FlowField field;
        check(builder.build(cost, goals, {}, field));
        r_.memory_bytes_per_cell = std::max(
            r_.memory_bytes_per_cell, static_cast<double>(field.memory_bytes()) / static_cast<double>(cost.size()));
        Json checks = Json::object();

        // A* per unit: the same starts for every repetition; x10 uses the first 10 of the x100 starts, etc.
        const int max_units = r_.astar_units.empty() ? 0 : r_.astar_units.back();
        const std::vector<Cell> starts = random_reachable_starts(field, goal, max_units, start_seed);
        if (max_units > 0) {
            auto finder = PathFinder::create(cost);
            check(finder);
            for (int units : r_.astar_units) {
                const std::span<const Cell> group(starts.data(), static_cast<std::size_t>(units));
                double expected = 0.0;
                for (const Cell& s : group) expected += builder.exact_integration(s.x, s.y);
                const std::string key = "astar_" + std::to_string(units);
                time_row(
                    key, [&] { return astar_units(*finder, group, goal); },
                    [&](double total) {
                        const double diff = std::abs(total - expected) / std::max(1.0, expected);
                        require_close(diff, "A* x" + std::to_string(units) + " (summed costs)");
                        checks[key] = diff;
                    });
            }
        }

        TextbookField textbook;
        time_row(
            "textbook",
            [&] {
                textbook_field(cost, goal, textbook);
                return 0.0;
            },
            [&](double) {
                const double diff = max_relative_difference(textbook.dist, builder, w, h);
                require_close(diff, "the textbook Dijkstra");
                checks["textbook"] = diff;
            });
        textbook = {};

        {
            FieldBuilder builder4;
            FieldParams four;
            four.connectivity = Connectivity::four;
            check(builder4.build_integration(cost, goals, four, scratch_));
            std::vector<double> dist4;
            time_row(
                "dijkstra4",
                [&] {
                    dijkstra_map_4dir(cost, goal, dist4);
                    return 0.0;
                },
                [&](double) {
                    const double diff = max_relative_difference(dist4, builder4, w, h);
                    require_close(diff, "the 4-direction Dijkstra map");
                    checks["dijkstra4"] = diff;
                });
        }

        {
            progress_.update(prefix_, "building the Boost graph", 0, 1);
            BoostDijkstra boost(cost);
            time_row(
                "boost",
                [&] {
                    boost.run(goal);
                    return 0.0;
                },
                [&](double) {
                    const double diff = max_relative_difference(boost.distances(), builder, w, h);
                    require_close(diff, "Boost.Graph's dijkstra_shortest_paths");
                    checks["boost"] = diff;
                });
        }

        time_row(
            "tide",
            [&] {
                check(builder.build(cost, goals, {}, field));
                return 0.0;
            },
            [](double) {});
        time_row(
            "tide_integration",
            [&] {
                check(builder.build_integration(cost, goals, {}, scratch_));
                return 0.0;
            },
            [](double) {});

        Json inst = {{"instance", instance_name},
                     {"goal", {goal.x, goal.y}},
                     {"reachable_cells", builder.settled_cells()},
                     {"check_max_relative_difference", checks}};
        r_.instances.push_back(std::move(inst));
    }

    void finish() {
        for (RowResult& row : r_.rows) {
            std::vector<double> all = row.samples;
            row.median_ms = median(all);
        }
    }

private:
    template <class Run, class Check>
    void time_row(const std::string& key, Run&& run, Check&& check_result) {
        const RowSpec& spec = kRows[row_index(key)];
        progress_.update(prefix_, spec.name, 0, reps_);
        check_result(run());  // warm-up, checked
        RowResult& row = r_.rows[row_index(key)];
        std::vector<double> mine;
        mine.reserve(static_cast<std::size_t>(reps_));
        for (int i = 0; i < reps_; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            sink_ = sink_ + run();
            mine.push_back(ms_since(t0));
            progress_.update(prefix_, spec.name, i + 1, reps_);
        }
        row.samples.insert(row.samples.end(), mine.begin(), mine.end());
        row.instance_medians.push_back(median(mine));
    }

    MapResult& r_;
    int reps_;
    Progress& progress_;
    std::string prefix_;
    std::pmr::vector<float> scratch_;
    volatile double sink_ = 0.0;
};

std::vector<int> astar_units_for(std::size_t cells) {
    if (cells <= kFullAStarCells) return {1, 10, 100, 1000};
    if (cells <= kLargeMapCells) return {1, 10, 100};
    return {};
}

// ---- Moving AI maps ----------------------------------------------------------------------------

struct MovingAiMap {
    std::string path, stem;
    int width, height;
    std::size_t passable;
};

/// The three largest maps under `dir` by cell count (ties: more passable cells, then path).
std::vector<MovingAiMap> largest_movingai_maps(const std::string& dir, std::size_t count) {
    std::vector<MovingAiMap> maps;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file() || it->path().extension() != ".map") continue;
        auto map = load_map(it->path().string());
        if (!map) continue;  // not a map we can read: not a benchmark candidate
        const auto cells = map->cost.cells();
        const auto passable =
            static_cast<std::size_t>(std::count_if(cells.begin(), cells.end(), [](Cost c) { return c != kCostWall; }));
        maps.push_back(
            {it->path().string(), it->path().stem().string(), map->cost.width(), map->cost.height(), passable});
    }
    if (ec) throw Failure{"--movingai " + dir + ": " + ec.message()};
    std::sort(maps.begin(), maps.end(), [](const MovingAiMap& a, const MovingAiMap& b) {
        const std::size_t ca = static_cast<std::size_t>(a.width) * a.height;
        const std::size_t cb = static_cast<std::size_t>(b.width) * b.height;
        if (ca != cb) return ca > cb;
        if (a.passable != b.passable) return a.passable > b.passable;
        return a.path < b.path;
    });
    if (maps.size() > count) maps.resize(count);
    return maps;
}

// ---- Output ------------------------------------------------------------------------------------

std::string format_ms(double ms) {
    char buf[32];
    if (ms >= 100.0)
        std::snprintf(buf, sizeof buf, "%.1f", ms);
    else if (ms >= 1.0)
        std::snprintf(buf, sizeof buf, "%.3f", ms);
    else
        std::snprintf(buf, sizeof buf, "%.4f", ms);
    return buf;
}

std::string format_ratio(double ratio) {
    char buf[32];
    if (ratio >= 1.0)
        std::snprintf(buf, sizeof buf, "%.1fx faster", ratio);
    else
        std::snprintf(buf, sizeof buf, ratio >= 0.01 ? "%.2fx" : "%.4fx", ratio);
    return buf;
}

void print_table(const MapResult& m, int reps) {
    const std::size_t instances = m.instances.size();
    std::printf("\n%s: %dx%d = %zu cells", m.map.name.c_str(), m.map.width, m.map.height, m.cells());
    if (m.map.kind == "random") {
        std::printf(", seeds");
        for (std::size_t i = 0; i < m.map.seeds.size(); ++i) {
            std::printf("%s%llu", i ? "," : " ", static_cast<unsigned long long>(m.map.seeds[i]));
        }
    }
    std::printf("; goal");
    for (const Json& inst : m.instances) {
        std::printf(" (%d, %d)", inst["goal"][0].get<int>(), inst["goal"][1].get<int>());
    }
    std::printf("\n  median of %zu timed runs per row (%d per %s, pooled), each row after one warm-up\n",
                instances * static_cast<std::size_t>(reps), reps, m.map.kind == "random" ? "seed" : "map");
    const double baseline = m.row("textbook").median_ms;
    std::printf("  %-60s %12s  %s\n", "row", "median ms", "vs textbook");
    for (int i = 0; i < kRowCount; ++i) {
        const RowResult& row = m.rows[i];
        if (!row.ran()) continue;
        const std::string ratio =
            std::string(kRows[i].key) == "textbook" ? "1.0x (baseline)" : format_ratio(baseline / row.median_ms);
        std::printf("  %-60s %12s  %s\n", kRows[i].name, format_ms(row.median_ms).c_str(), ratio.c_str());
    }
    if (m.astar_units.size() < 4) {
        std::printf("  (A* rows: %s to keep the run bounded)\n", m.astar_units.empty()
                                                                     ? "none on maps over 1024x1024 cells"
                                                                     : "x1, x10, x100 only on maps over 256x256 cells");
    }
    std::printf("  Boost row: dijkstra_shortest_paths_no_color_map on a 32-bit CSR graph built before timing\n");
    double worst = 0.0;
    for (const Json& inst : m.instances) {
        for (const auto& [row, diff] : inst["check_max_relative_difference"].items()) {
            worst = std::max(worst, diff.get<double>());
        }
    }
    std::printf("  checked: every baseline's distances match Tide's to %.2g relative (allowed %.2g)\n", worst,
                kCheckTolerance);
    std::printf("  memory of a finished field: %.2f bytes per cell\n", m.memory_bytes_per_cell);
}

/// Flat build of the same size in this run (the "tide" row), or null.
const RowResult* flat_row(const std::vector<MapResult>& results, const HierBenchResult& h) {
    for (const MapResult& m : results) {
        if (m.map.kind == "random" && m.map.width == h.width && m.map.height == h.height && m.row("tide").ran()) {
            return &m.row("tide");
        }
    }
    return nullptr;
}

std::string flat_note(const std::vector<MapResult>& results, const HierBenchResult& h) {
    if (flat_row(results, h)) return "";
    if (static_cast<std::size_t>(h.width) * h.height > kFlatCheckCells) {
        return "no flat row: a flat field of this size needs 5 bytes per cell (" +
               std::to_string(static_cast<std::size_t>(h.width) * h.height * 5 / (1024 * 1024)) +
               " MB) plus the builder's scratch, and minutes per build";
    }
    return "no flat row: size not in --sizes";
}

void print_hier_header(const BenchOptions& o) {
    std::printf(
        "\nhierarchical route query (tide/hierarchy.hpp): random maps (20%% walls, 15%% forest, 7%% swamp),\n"
        "  seed 1, sector %d. graph: SectorGraph::build once (serial). query: a new HierarchicalField +\n"
        "  route({start}) from near the top-left corner to a goal near the bottom-right, until every route\n"
        "  sector is built; median of %d timed queries after one warm-up. flat: the 'Tide integration +\n"
        "  flow' row of the same size above; vs flat: flat build ms / query ms. path/exact: the route's\n"
        "  path cost over the exact one. Settle budget %d; route fields built on %d thread%s.\n",
        o.sector, o.hier_reps, o.settle, o.hier_threads, o.hier_threads == 1 ? " (the caller's)" : "s");
    std::printf("  %-12s %9s %8s %10s %10s %7s %8s %11s %11s %10s %12s %10s\n", "map", "graph ms", "graph MB",
                "query ms", "1st fld ms", "fields", "field MB", "sector ns/c", "flat ns/c", "flat ms", "vs flat",
                "path/exact");
}

void print_hier_row(const std::vector<MapResult>& results, const HierBenchResult& h) {
    const RowResult* flat = flat_row(results, h);
    const double cells = static_cast<double>(h.width) * h.height;
    const std::string size = std::to_string(h.width) + "x" + std::to_string(h.height);
    char ratio[32] = "-", flat_ms[32] = "-", flat_ns[32] = "-", path[32] = "-";
    if (flat) {
        std::snprintf(ratio, sizeof ratio, "%s", format_ratio(flat->median_ms / h.query_ms).c_str());
        std::snprintf(flat_ms, sizeof flat_ms, "%s", format_ms(flat->median_ms).c_str());
        std::snprintf(flat_ns, sizeof flat_ns, "%.2f", flat->median_ms * 1e6 / cells);
    }
    if (!std::isnan(h.exact_cost)) std::snprintf(path, sizeof path, "%.4f", h.path_cost / h.exact_cost);
    std::printf("  %-12s %9s %8.2f %10s %10s %7zu %8.2f %11.2f %11s %10s %12s %10s\n", size.c_str(),
                format_ms(h.graph_ms).c_str(), static_cast<double>(h.graph_bytes) / (1024.0 * 1024.0),
                format_ms(h.query_ms).c_str(), format_ms(h.first_field_ms).c_str(), h.fields_built,
                static_cast<double>(h.field_bytes) / (1024.0 * 1024.0), h.sector_ns_per_cell(), flat_ns, flat_ms, ratio,
                path);
    std::printf(
        "  %-12s start (%d, %d) goal (%d, %d): %zu route sectors of %zu, search %s ms, fields %s ms; graph %zu "
        "nodes, %zu portals\n",
        "", h.start.x, h.start.y, h.goal.x, h.goal.y, h.route_sectors, h.sectors, format_ms(h.search_ms).c_str(),
        format_ms(h.fields_ms).c_str(), h.nodes, h.portals);
    const std::string note = flat_note(results, h);
    if (!note.empty()) std::printf("  %-12s %s\n", "", note.c_str());
}

struct Target {
    std::string name;
    std::string figure;  // how the value is computed
    double value = 0.0;
    double threshold = 0.0;
    bool at_least = true;  // value >= threshold passes, else value <= threshold
    bool ran = false;
    std::string why_not;
    bool pass() const { return ran && (at_least ? value >= threshold : value <= threshold); }
};

const MapResult* find_random(const std::vector<MapResult>& results, int size) {
    for (const MapResult& m : results) {
        if (m.map.kind == "random" && m.map.width == size && m.map.height == size) return &m;
    }
    return nullptr;
}

std::vector<Target> evaluate_targets(const std::vector<MapResult>& results) {
    std::vector<Target> targets;
    const MapResult* m256 = find_random(results, 256);
    const MapResult* m4096 = find_random(results, 4096);
    auto ratio_target = [&](const char* name, const char* other, double threshold) {
        Target t{
            name, std::string(other) + " median / Tide integration + flow median, 256x256", 0.0, threshold, true, false,
            {}};
        if (!m256) {
            t.why_not = "needs the 256x256 map (--sizes 256)";
        } else if (!m256->row(other).ran() || !m256->row("tide").ran()) {
            t.why_not = std::string("row ") + other + " did not run";
        } else {
            t.value = m256->row(other).median_ms / m256->row("tide").median_ms;
            t.ran = true;
        }
        targets.push_back(t);
    };
    ratio_target("Tide vs textbook (256x256)", "textbook", 10.0);
    ratio_target("Tide vs Boost.Graph Dijkstra (256x256)", "boost", 3.0);
    ratio_target("Tide vs A* x1000 (256x256)", "astar_1000", 300.0);

    Target growth{"growth 4096x4096 build / 256x256 build",
                  "Tide integration + flow median, 4096 over 256",
                  0.0,
                  300.0,
                  false,
                  false,
                  {}};
    if (m256 && m4096) {
        growth.value = m4096->row("tide").median_ms / m256->row("tide").median_ms;
        growth.ran = true;
    } else {
        growth.why_not = "needs both 256x256 and 4096x4096 maps";
    }
    targets.push_back(growth);

    Target memory{"memory per cell of a finished field",
                  "FlowField::memory_bytes() / cells, largest over all maps",
                  0.0,
                  5.0,
                  false,
                  false,
                  {}};
    for (const MapResult& m : results) {
        memory.value = std::max(memory.value, m.memory_bytes_per_cell);
        memory.ran = true;
    }
    if (!memory.ran) memory.why_not = "no map ran";
    targets.push_back(memory);
    return targets;
}

std::string target_line(const Target& t) {
    char buf[256];
    if (!t.ran) {
        std::snprintf(buf, sizeof buf, "NOT RUN  %-42s %s", t.name.c_str(), t.why_not.c_str());
    } else if (t.at_least) {
        std::snprintf(buf, sizeof buf, "%-8s %-42s %.1fx (target >= %gx)", t.pass() ? "PASS" : "MISS", t.name.c_str(),
                      t.value, t.threshold);
    } else {
        std::snprintf(buf, sizeof buf, "%-8s %-42s %.2f (target <= %g)", t.pass() ? "PASS" : "MISS", t.name.c_str(),
                      t.value, t.threshold);
    }
    return buf;
}

/// Measured crossover on the 256x256 map: the smallest group size N for which N A* searches cost more
/// than one Tide field build, with the per-unit A* time averaged from the x10 and x100 rows.
struct Crossover {
    bool ran = false;
    double per_unit_x10 = 0, per_unit_x100 = 0, per_unit = 0, field_ms = 0;
    int units = 0;
};

Crossover measure_crossover(const std::vector<MapResult>& results) {
    Crossover c;
    const MapResult* m = find_random(results, 256);
    if (!m || !m->row("astar_10").ran() || !m->row("astar_100").ran() || !m->row("tide").ran()) return c;
    c.per_unit_x10 = m->row("astar_10").median_ms / 10.0;
    c.per_unit_x100 = m->row("astar_100").median_ms / 100.0;
    c.per_unit = 0.5 * (c.per_unit_x10 + c.per_unit_x100);
    c.field_ms = m->row("tide").median_ms;
    c.units = static_cast<int>(std::floor(c.field_ms / c.per_unit)) + 1;
    c.ran = true;
    return c;
}

// ---- SVG chart (hand-written, no dependency) ---------------------------------------------------

std::string svg_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '&')
            out += "&amp;";
        else if (ch == '<')
            out += "&lt;";
        else if (ch == '>')
            out += "&gt;";
        else
            out += ch;
    }
    return out;
}

void write_svg(const std::string& path, const std::vector<MapResult>& results, const Provenance& prov) {
    std::ostringstream s;
    const int width = 980;
    const MapResult* m256 = find_random(results, 256);
    // Chart 1: horizontal bars, log time axis.
    const int label_w = 390, plot_w = 440, bar_h = 22, top1 = 60;
    int bars = 0;
    double lo = 1e300, hi = 0;
    if (m256) {
        for (const RowResult& row : m256->rows) {
            if (!row.ran()) continue;
            ++bars;
            lo = std::min(lo, row.median_ms);
            hi = std::max(hi, row.median_ms);
        }
    }
    const double d0 = bars ? std::floor(std::log10(lo / 2.0)) : 0.0;  // room for the shortest bar
    const double d1 = bars ? std::max(d0 + 1.0, std::ceil(std::log10(hi))) : 1.0;
    const int h1 = bars * (bar_h + 6) + 50;
    const int top2 = top1 + h1 + 60, plot_h2 = 300;
    const int height = top2 + plot_h2 + 90;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s << "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">tide bench fields: random 256x256 map "
         "(20% walls, 15% forest, 7% swamp), median ms, log scale</text>\n";
    s << "<text x=\"10\" y=\"40\" fill=\"#555\">" << svg_escape(prov.cpu) << ", " << prov.cores << " cores, "
      << svg_escape(prov.compiler) << ", commit " << prov.commit << (prov.dirty ? " (+ uncommitted changes)" : "")
      << "</text>\n";
    auto x_of = [&](double ms) { return label_w + plot_w * (std::log10(ms) - d0) / (d1 - d0); };
    if (m256) {
        for (double e = d0; e <= d1 + 1e-9; e += 1.0) {
            const double x = x_of(std::pow(10.0, e));
            s << "<line x1=\"" << x << "\" y1=\"" << top1 << "\" x2=\"" << x << "\" y2=\"" << top1 + h1 - 40
              << "\" stroke=\"#ddd\"/>\n";
            s << "<text x=\"" << x << "\" y=\"" << top1 + h1 - 25 << "\" text-anchor=\"middle\">" << std::pow(10.0, e)
              << " ms</text>\n";
        }
        const double baseline = m256->row("textbook").median_ms;
        int i = 0;
        for (int r = 0; r < kRowCount; ++r) {
            const RowResult& row = m256->rows[r];
            if (!row.ran()) continue;
            const std::string key = kRows[r].key;
            const char* colour = key.rfind("tide", 0) == 0    ? "#2a9d4a"
                                 : key == "textbook"          ? "#c0392b"
                                 : key.rfind("astar", 0) == 0 ? "#e69f00"
                                                              : "#4a6fa5";
            const double y = top1 + i * (bar_h + 6);
            const double x = x_of(row.median_ms);
            s << "<text x=\"" << label_w - 8 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">"
              << svg_escape(kRows[r].name) << "</text>\n";
            s << "<rect x=\"" << label_w << "\" y=\"" << y << "\" width=\"" << std::max(1.0, x - label_w)
              << "\" height=\"" << bar_h << "\" fill=\"" << colour << "\"/>\n";
            s << "<text x=\"" << x + 4 << "\" y=\"" << y + 15 << "\">" << format_ms(row.median_ms) << " ms"
              << (key == "textbook" ? "  (baseline)" : "  (" + format_ratio(baseline / row.median_ms) + ")")
              << "</text>\n";
            ++i;
        }
    } else {
        s << "<text x=\"10\" y=\"" << top1 + 15 << "\">(the 256x256 map did not run)</text>\n";
    }

    // Chart 2: build time vs map cells, log-log, random maps only.
    std::vector<const MapResult*> random;
    for (const MapResult& m : results) {
        if (m.map.kind == "random") random.push_back(&m);
    }
    std::sort(random.begin(), random.end(), [](auto* a, auto* b) { return a->cells() < b->cells(); });
    const char* series[] = {"tide", "tide_integration", "textbook", "dijkstra4", "boost"};
    const char* legend[] = {"Tide integration + flow", "Tide integration only", "textbook (baseline)",
                            "4-dir Dijkstra map", "Boost.Graph Dijkstra"};
    const char* colours[] = {"#2a9d4a", "#85c98f", "#c0392b", "#8e6bb8", "#4a6fa5"};
    s << "<text x=\"10\" y=\"" << top2 - 25
      << "\" font-size=\"16\" font-weight=\"bold\">Build time vs map cells (random maps, log-log)</text>\n";
    const int left2 = 80, w2 = 560;
    double cx0 = 1e300, cx1 = 0, ty0 = 1e300, ty1 = 0;
    for (const MapResult* m : random) {
        cx0 = std::min(cx0, static_cast<double>(m->cells()));
        cx1 = std::max(cx1, static_cast<double>(m->cells()));
        for (const char* key : series) {
            if (!m->row(key).ran()) continue;
            ty0 = std::min(ty0, m->row(key).median_ms);
            ty1 = std::max(ty1, m->row(key).median_ms);
        }
    }
    if (!random.empty() && ty1 > 0) {
        const double ex0 = std::floor(std::log10(cx0)), ex1 = std::max(ex0 + 1, std::ceil(std::log10(cx1)));
        const double ey0 = std::floor(std::log10(ty0)), ey1 = std::max(ey0 + 1, std::ceil(std::log10(ty1)));
        auto px = [&](double cells) { return left2 + w2 * (std::log10(cells) - ex0) / (ex1 - ex0); };
        auto py = [&](double ms) { return top2 + plot_h2 - plot_h2 * (std::log10(ms) - ey0) / (ey1 - ey0); };
        s << "<rect x=\"" << left2 << "\" y=\"" << top2 << "\" width=\"" << w2 << "\" height=\"" << plot_h2
          << "\" fill=\"none\" stroke=\"#999\"/>\n";
        for (double e = ex0; e <= ex1 + 1e-9; e += 1.0) {
            s << "<line x1=\"" << px(std::pow(10, e)) << "\" y1=\"" << top2 << "\" x2=\"" << px(std::pow(10, e))
              << "\" y2=\"" << top2 + plot_h2 << "\" stroke=\"#eee\"/>\n";
            s << "<text x=\"" << px(std::pow(10, e)) << "\" y=\"" << top2 + plot_h2 + 16
              << "\" text-anchor=\"middle\">1e" << e << "</text>\n";
        }
        for (double e = ey0; e <= ey1 + 1e-9; e += 1.0) {
            s << "<line x1=\"" << left2 << "\" y1=\"" << py(std::pow(10, e)) << "\" x2=\"" << left2 + w2 << "\" y2=\""
              << py(std::pow(10, e)) << "\" stroke=\"#eee\"/>\n";
            s << "<text x=\"" << left2 - 6 << "\" y=\"" << py(std::pow(10, e)) + 4 << "\" text-anchor=\"end\">"
              << std::pow(10, e) << " ms</text>\n";
        }
        s << "<text x=\"" << left2 + w2 / 2 << "\" y=\"" << top2 + plot_h2 + 36
          << "\" text-anchor=\"middle\">map cells</text>\n";
        for (std::size_t k = 0; k < std::size(series); ++k) {
            std::string points;
            for (const MapResult* m : random) {
                if (!m->row(series[k]).ran()) continue;
                const double x = px(static_cast<double>(m->cells())), y = py(m->row(series[k]).median_ms);
                points += std::to_string(x) + "," + std::to_string(y) + " ";
                s << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << colours[k] << "\"/>\n";
            }
            s << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << colours[k]
              << "\" stroke-width=\"2\"/>\n";
            const double ly = top2 + 14 + 20.0 * static_cast<double>(k);
            s << "<rect x=\"" << left2 + w2 + 20 << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"12\" fill=\""
              << colours[k] << "\"/>\n";
            s << "<text x=\"" << left2 + w2 + 38 << "\" y=\"" << ly << "\">" << legend[k] << "</text>\n";
        }
    } else {
        s << "<text x=\"10\" y=\"" << top2 + 15 << "\">(no random map ran)</text>\n";
    }
    s << "</svg>\n";
    check(write_file_atomically(path, s.str()));
}

// ---- JSON ---------------------------------------------------------------------------------------

Json to_json(double v) {
    return std::isfinite(v) ? Json(v) : Json(nullptr);
}

Json hier_json(const BenchOptions& o, const std::vector<MapResult>& results, const std::vector<HierBenchResult>& hier) {
    Json rows = Json::array();
    for (const HierBenchResult& h : hier) {
        const RowResult* flat = flat_row(results, h);
        const double cells = static_cast<double>(h.width) * h.height;
        rows.push_back({{"width", h.width},
                        {"height", h.height},
                        {"start", {h.start.x, h.start.y}},
                        {"goal", {h.goal.x, h.goal.y}},
                        {"graph_ms", h.graph_ms},
                        {"graph_bytes", h.graph_bytes},
                        {"graph_nodes", h.nodes},
                        {"graph_portals", h.portals},
                        {"sectors", h.sectors},
                        {"query_ms", h.query_ms},
                        {"query_samples_ms", h.query_samples},
                        {"first_field_ms", h.first_field_ms},
                        {"search_ms", h.search_ms},
                        {"fields_ms", h.fields_ms},
                        {"fields_built", h.fields_built},
                        {"route_sectors", h.route_sectors},
                        {"field_bytes", h.field_bytes},
                        {"memory_bytes", h.memory_bytes},
                        {"sector_ns_per_cell", h.sector_ns_per_cell()},
                        {"flat_build_ms", flat ? Json(flat->median_ms) : Json(nullptr)},
                        {"flat_ns_per_cell", flat ? Json(flat->median_ms * 1e6 / cells) : Json(nullptr)},
                        {"flat_build_over_query", flat ? to_json(flat->median_ms / h.query_ms) : Json(nullptr)},
                        {"path_cost", to_json(h.path_cost)},
                        {"exact_path_cost", std::isnan(h.exact_cost) ? Json(nullptr) : to_json(h.exact_cost)},
                        {"path_ratio", std::isnan(h.exact_cost) ? Json(nullptr) : to_json(h.path_cost / h.exact_cost)},
                        {"note", flat_note(results, h)}});
    }
    return {{"sector", o.sector},
            {"reps", o.hier_reps},
            {"settle_budget", o.settle},
            {"threads", o.hier_threads},
            {"seed", 1},
            {"method",
             "SectorGraph::build once (serial); then one warm-up and reps timed cold queries, each "
             "HierarchicalField::create + route({start}) (start near the top-left corner, goal near the "
             "bottom-right); medians"},
            {"rows", rows}};
}

void write_json(const std::string& path, const BenchOptions& o, const Provenance& prov,
                const std::vector<MapResult>& results, const std::vector<Target>& targets, const Crossover& cross,
                const std::vector<HierBenchResult>& hier, double total_s) {
    Json j;
    j["tool"] = "tide bench fields";
    j["machine"] = {{"cpu", prov.cpu}, {"cores", prov.cores}, {"compiler", prov.compiler}, {"boost", prov.boost}};
    j["commit"] = prov.commit;
    j["uncommitted_changes"] = prov.dirty;
    j["options"] = {{"sizes", o.sizes},
                    {"seeds", o.seeds},
                    {"large_seeds", o.large_seeds},
                    {"reps", o.reps},
                    {"quick", o.quick},
                    {"hier_sizes", o.hier_sizes},
                    {"huge", o.huge},
                    {"hier_reps", o.hier_reps},
                    {"sector", o.sector},
                    {"movingai", o.movingai},
                    {"map_spec", {{"walls", 0.20}, {"forest", 0.15}, {"swamp", 0.07}}}};
    j["method"] = "one warm-up per row, then reps timed runs; median of all runs of all seeds pooled";
    j["check_tolerance"] = kCheckTolerance;
    j["notes"] = {
        "Boost row: dijkstra_shortest_paths_no_color_map on a compressed_sparse_row_graph with 32-bit "
        "indices and double weights, built before timing",
        "A* rows: x1..x1000 on maps up to 256x256 cells, x1..x100 up to 1024x1024, none above",
        "maps over 1024x1024 cells run only the first large_seeds seeds",
        "goal: the cell of the largest connected region nearest the map centre"};
    Json maps = Json::array();
    for (const MapResult& m : results) {
        Json jm;
        jm["name"] = m.map.name;
        jm["kind"] = m.map.kind;
        jm["width"] = m.map.width;
        jm["height"] = m.map.height;
        jm["cells"] = m.cells();
        if (m.map.kind == "random") jm["seeds"] = m.map.seeds;
        if (m.map.kind == "movingai") jm["path"] = m.map.path;
        jm["instances"] = m.instances;
        jm["memory_bytes_per_cell"] = m.memory_bytes_per_cell;
        jm["astar_units"] = m.astar_units;
        const double baseline = m.row("textbook").median_ms;
        Json rows = Json::array();
        for (int i = 0; i < kRowCount; ++i) {
            const RowResult& row = m.rows[i];
            if (!row.ran()) continue;
            rows.push_back({{"key", kRows[i].key},
                            {"name", kRows[i].name},
                            {"median_ms", row.median_ms},
                            {"ratio_vs_textbook", to_json(baseline / row.median_ms)},
                            {"reps", row.samples.size()},
                            {"instance_median_ms", row.instance_medians},
                            {"min_ms", *std::min_element(row.samples.begin(), row.samples.end())},
                            {"max_ms", *std::max_element(row.samples.begin(), row.samples.end())}});
        }
        jm["rows"] = rows;
        maps.push_back(jm);
    }
    j["maps"] = maps;
    Json jt = Json::array();
    for (const Target& t : targets) {
        jt.push_back({{"name", t.name},
                      {"figure", t.figure},
                      {"value", t.ran ? to_json(t.value) : Json(nullptr)},
                      {"threshold", t.threshold},
                      {"comparison", t.at_least ? ">=" : "<="},
                      {"status", !t.ran     ? "not run"
                                 : t.pass() ? "PASS"
                                            : "MISS"},
                      {"note", t.why_not}});
    }
    j["targets"] = jt;
    if (cross.ran) {
        j["crossover"] = {{"map", "random 256x256"},
                          {"astar_ms_per_unit_from_x10", cross.per_unit_x10},
                          {"astar_ms_per_unit_from_x100", cross.per_unit_x100},
                          {"astar_ms_per_unit", cross.per_unit},
                          {"field_build_ms", cross.field_ms},
                          {"units", cross.units}};
    } else {
        j["crossover"] = nullptr;
    }
    j["hierarchical"] = hier_json(o, results, hier);
    j["total_seconds"] = total_s;
    check(write_file_atomically(path, j.dump(2) + "\n"));
}

// ---- The command -------------------------------------------------------------------------------

void run_bench_fields(BenchOptions o) {
    const auto t_start = std::chrono::steady_clock::now();
    if (o.reps < 1 || o.reps > 100000) throw Failure{"--reps " + std::to_string(o.reps) + " is outside 1..100000"};
    if (o.reps < kMinReps && !o.quick) {
        throw Failure{"--reps " + std::to_string(o.reps) + " is below " + std::to_string(kMinReps) +
                      " (medians need at least 20 runs; --quick allows fewer for smoke tests)"};
    }
    if (o.seeds < 1 || o.seeds > 1000) throw Failure{"--seeds " + std::to_string(o.seeds) + " is outside 1..1000"};
    if (o.large_seeds < 1 || o.large_seeds > 1000) {
        throw Failure{"--large-seeds " + std::to_string(o.large_seeds) + " is outside 1..1000"};
    }
    for (int s : o.sizes) {
        if (s < 1 || s > kMaxDimension) throw Failure{"--sizes " + std::to_string(s) + " is outside 1..16384"};
    }
    std::vector<int> hier_sizes;
    for (int s : o.hier_sizes) {
        if (s == 0) continue;
        if (s < 1 || s > kMaxDimension) throw Failure{"--hier-sizes " + std::to_string(s) + " is outside 1..16384"};
        hier_sizes.push_back(s);
    }
    if (o.huge && std::find(hier_sizes.begin(), hier_sizes.end(), kMaxDimension) == hier_sizes.end()) {
        hier_sizes.push_back(kMaxDimension);
    }
    if (o.settle < 0 || o.settle > 16) throw Failure{"--settle " + std::to_string(o.settle) + " is outside 0..16"};
    if (o.hier_threads < 1 || o.hier_threads > kMaxThreads) {
        throw Failure{"--hier-threads " + std::to_string(o.hier_threads) + " is outside 1.." +
                      std::to_string(kMaxThreads)};
    }
    if (!hier_sizes.empty() && (o.hier_reps < 1 || o.hier_reps > 1000)) {
        throw Failure{"--hier-reps " + std::to_string(o.hier_reps) + " is outside 1..1000"};
    }

    std::vector<MapCase> cases;
    for (int s : o.sizes) {
        MapCase c{"random " + std::to_string(s) + "x" + std::to_string(s), std::to_string(s), "random", s, s, {}, {}};
        const bool large = static_cast<std::size_t>(s) * s > kLargeMapCells;
        const int seeds = large ? std::min(o.seeds, o.large_seeds) : o.seeds;
        for (int k = 1; k <= seeds; ++k) c.seeds.push_back(static_cast<std::uint64_t>(k));
        cases.push_back(c);
    }
    if (!o.movingai.empty()) {
        if (std::filesystem::is_directory(o.movingai)) {
            for (const MovingAiMap& m : largest_movingai_maps(o.movingai, 3)) {
                cases.push_back({"Moving AI " + m.stem, m.stem, "movingai", m.width, m.height, {}, m.path});
            }
        } else if (o.movingai_given) {
            throw Failure{"--movingai " + o.movingai + " is not a directory"};
        }
    }

    const Provenance prov = provenance();
    std::printf("tide bench fields\n");
    std::printf("machine: %s, %u cores, %s, Boost %s\n", prov.cpu.c_str(), prov.cores, prov.compiler.c_str(),
                prov.boost.c_str());
    std::printf("commit:  %s%s\n", prov.commit.c_str(), prov.dirty ? " (+ uncommitted changes)" : "");
    std::printf("maps:    random maps (20%% walls, 15%% forest cost 3, 7%% swamp cost 6) of sizes");
    for (int s : o.sizes) std::printf(" %d", s);
    std::printf(", seeds 1..%d (1..%d over 1024x1024 cells)", o.seeds, std::min(o.seeds, o.large_seeds));
    if (cases.size() > o.sizes.size()) std::printf("; the 3 largest Moving AI maps in %s", o.movingai.c_str());
    std::printf(
        "\nmethod:  goal = cell of the largest region nearest the centre; one warm-up per row (checked\n"
        "         against Tide's exact distances), then %d timed runs; medians pooled over seeds\n",
        o.reps);
    std::fflush(stdout);

    Progress progress;
    std::vector<MapResult> results;
    for (const MapCase& c : cases) {
        MapResult result;
        result.map = c;
        result.astar_units = astar_units_for(static_cast<std::size_t>(c.width) * c.height);
        MapRunner runner(result, o.reps, progress);
        if (c.kind == "random") {
            for (std::uint64_t seed : c.seeds) {
                auto cost = generate_random_map({c.width, c.height, 0.20, 0.15, 0.07, seed});
                check(cost);
                runner.run_instance(*cost, c.label + " seed " + std::to_string(seed), "seed " + std::to_string(seed),
                                    kStartSeed ^ seed);
            }
        } else {
            const Map map = load_map_or_fail(c.path);
            runner.run_instance(map.cost, c.label, c.path, kStartSeed);
        }
        runner.finish();
        progress.clear();
        print_table(result, o.reps);
        std::fflush(stdout);
        results.push_back(std::move(result));
    }

    std::vector<HierBenchResult> hier;
    std::unique_ptr<TbbJobSystem> hier_pool;  // --hier-threads above 1: route fields built on it
    if (o.hier_threads > 1) hier_pool = std::make_unique<TbbJobSystem>(o.hier_threads);
    if (!hier_sizes.empty()) {
        print_hier_header(o);
        for (int s : hier_sizes) {
            const std::string prefix = "hierarchical " + std::to_string(s);
            progress.update(prefix, "generating the map", 0, 1);
            auto cost = generate_random_map({s, s, 0.20, 0.15, 0.07, 1});
            check(cost);
            HierBenchSettings settings;
            settings.sector = o.sector;
            settings.reps = o.hier_reps;
            settings.settle_budget = o.settle;
            settings.jobs = hier_pool.get();
            settings.exact = static_cast<std::size_t>(s) * s <= kFlatCheckCells;
            auto rows = run_hier_bench(*cost, settings,
                                       [&](const std::string& what) { progress.update(prefix, what.c_str(), 0, 1); });
            check(rows);
            hier.push_back(std::move(rows.value()));
            progress.clear();
            print_hier_row(results, hier.back());
            std::fflush(stdout);
        }
    }

    const std::vector<Target> targets = evaluate_targets(results);
    std::printf("\ntargets:\n");
    for (const Target& t : targets) std::printf("  %s\n", target_line(t).c_str());
    const Crossover cross = measure_crossover(results);
    if (cross.ran) {
        std::printf(
            "\nA* vs flow field crossover (random 256x256): one field build %s ms; A* per unit %s ms\n"
            "  (mean of x10 %s and x100 %s): a field is cheaper from %d units sharing a goal\n",
            format_ms(cross.field_ms).c_str(), format_ms(cross.per_unit).c_str(), format_ms(cross.per_unit_x10).c_str(),
            format_ms(cross.per_unit_x100).c_str(), cross.units);
    }
    const double total_s = ms_since(t_start) / 1000.0;
    std::printf("\ntotal time %.1f s\n", total_s);
    if (!o.json.empty()) write_json(o.json, o, prov, results, targets, cross, hier, total_s);
    if (!o.svg.empty()) write_svg(o.svg, results, prov);
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto* bench = app.add_subcommand("bench", "Benchmark tables: Tide against baselines, in one run");
    bench->require_subcommand(1);
    auto o = std::make_shared<BenchOptions>();
    auto* fields = bench->add_subcommand(
        "fields", "Field build vs A* per unit, the textbook build, a 4-direction Dijkstra map and Boost.Graph");
    fields->add_option("--sizes", o->sizes, "Random map sizes (side, cells), comma-separated")
        ->delimiter(',')
        ->capture_default_str();
    fields->add_option("--seeds", o->seeds, "Random maps per size (seeds 1..N)")->capture_default_str();
    fields->add_option("--large-seeds", o->large_seeds, "At most this many seeds on maps over 1024x1024 cells")
        ->capture_default_str();
    fields->add_option("--reps", o->reps, "Timed runs per row and seed after one warm-up (at least 20)")
        ->capture_default_str();
    auto* mai = fields->add_option("--movingai", o->movingai,
                                   "Moving AI folder: adds its 3 largest maps (skipped when the default is absent; "
                                   "'' to disable)");
    mai->capture_default_str();
    fields->add_option("--json", o->json, "Write every figure, the machine and the commit as JSON");
    fields->add_option("--svg", o->svg, "Write a chart: the 256x256 table and build time vs map cells");
    fields->add_flag("--quick", o->quick, "Allow fewer than 20 runs (smoke tests only)");
    fields
        ->add_option("--hier-sizes", o->hier_sizes,
                     "Random map sizes for the hierarchical route-query rows (seed 1), comma-separated; 0: none")
        ->delimiter(',')
        ->capture_default_str();
    fields->add_flag("--huge", o->huge, "Add a 16384x16384 map to the hierarchical rows (no flat row there)");
    fields->add_option("--hier-reps", o->hier_reps, "Timed cold route queries per hierarchical row")
        ->capture_default_str();
    fields->add_option("--sector", o->sector, "Sector side of the hierarchical rows, 16..256")->capture_default_str();
    fields->add_option("--settle", o->settle, "Settle budget of the hierarchical queries (RouteConfig), 0..16")
        ->capture_default_str();
    fields
        ->add_option("--hier-threads", o->hier_threads,
                     "Threads building a hierarchical query's route fields (1: the calling thread)")
        ->capture_default_str();
    fields->callback([o, mai] {
        BenchOptions copy = *o;
        copy.movingai_given = mai->count() > 0;
        run_bench_fields(copy);
    });
    add_bench_crowd_command(*bench);
    add_bench_service_command(*bench);
    add_bench_repair_command(*bench);
}

}  // namespace tide::cli
