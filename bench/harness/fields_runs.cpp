// The measuring runs of `tide bench fields`; see fields_runs.hpp.

#include "fields_runs.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "baselines.hpp"
#include "fields_report.hpp"
#include "harness.hpp"
#include "tide/astar.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/limits.hpp"
#include "tide/map_io.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::uint64_t kStartSeed = 0x5EED;    // A* starts: fixed seed (mixed with the map seed)
constexpr std::size_t kFullAStarCells = 65536;  // A* x1000 only on maps up to 256x256 cells

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
        throw BenchError(what + " differs from Tide's exact distances: " + buf);
    }
}

class MapRunner {
public:
    MapRunner(MapResult& result, int reps, Progress& progress) : r_(result), reps_(reps), progress_(progress) {}

    void run_instance(const CostField& cost, const std::string& prefix, const std::string& instance_name,
                      std::uint64_t start_seed) {
        prefix_ = prefix;
        const Result<Cell> goal_result = bench_goal(cost);
        require_ok(goal_result);
        const Cell goal = *goal_result;
        const Cell goals[] = {goal};
        const int w = cost.width(), h = cost.height();

        FieldBuilder builder;
        FlowField field;
        require_ok(builder.build(cost, goals, {}, field));
        r_.memory_bytes_per_cell = std::max(
            r_.memory_bytes_per_cell, static_cast<double>(field.memory_bytes()) / static_cast<double>(cost.size()));
        Json checks = Json::object();

        // A* per unit: the same starts for every repetition; x10 uses the first 10 of the x100 starts, etc.
        const int max_units = r_.astar_units.empty() ? 0 : r_.astar_units.back();
        const std::vector<Cell> starts = random_reachable_starts(field, goal, max_units, start_seed);
        if (max_units > 0) {
            auto finder = PathFinder::create(cost);
            require_ok(finder);
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
            require_ok(builder4.build_integration(cost, goals, four, scratch_));
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
                require_ok(builder.build(cost, goals, {}, field));
                return 0.0;
            },
            [](double) {});
        time_row(
            "tide_integration",
            [&] {
                require_ok(builder.build_integration(cost, goals, {}, scratch_));
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
    if (ec) throw BenchError("--movingai " + dir + ": " + ec.message());
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
}  // namespace

int row_index(std::string_view key) {
    for (int i = 0; i < kRowCount; ++i) {
        if (key == kRows[i].key) return i;
    }
    throw BenchError("internal: unknown row " + std::string(key));
}

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

std::vector<int> hier_sizes_to_run(const FieldsBenchOptions& o) {
    std::vector<int> sizes;
    for (int s : o.hier_sizes) {
        if (s != 0) sizes.push_back(s);
    }
    if (o.huge && std::find(sizes.begin(), sizes.end(), kMaxDimension) == sizes.end()) sizes.push_back(kMaxDimension);
    return sizes;
}

FieldsBenchReport run_fields_bench(const FieldsBenchOptions& o, JobSystem* hier_jobs, std::FILE* out) {
    const auto t_start = std::chrono::steady_clock::now();
    const std::vector<int> hier_sizes = hier_sizes_to_run(o);
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
            throw BenchError("--movingai " + o.movingai + " is not a directory");
        }
    }

    FieldsBenchReport report;
    report.provenance = provenance();
    const Provenance& prov = report.provenance;
    std::fprintf(out, "tide bench fields\n");
    std::fprintf(out, "machine: %s, %u cores, %s, Boost %s\n", prov.cpu.c_str(), prov.cores, prov.compiler.c_str(),
                 prov.boost.c_str());
    std::fprintf(out, "commit:  %s%s\n", prov.commit.c_str(), prov.dirty ? " (+ uncommitted changes)" : "");
    std::fprintf(out, "maps:    random maps (20%% walls, 15%% forest cost 3, 7%% swamp cost 6) of sizes");
    for (int s : o.sizes) std::fprintf(out, " %d", s);
    std::fprintf(out, ", seeds 1..%d (1..%d over 1024x1024 cells)", o.seeds, std::min(o.seeds, o.large_seeds));
    if (cases.size() > o.sizes.size()) std::fprintf(out, "; the 3 largest Moving AI maps in %s", o.movingai.c_str());
    std::fprintf(out,
                 "\nmethod:  goal = cell of the largest region nearest the centre; one warm-up per row (checked\n"
                 "         against Tide's exact distances), then %d timed runs; medians pooled over seeds\n",
                 o.reps);
    std::fflush(out);

    Progress progress;
    std::vector<MapResult>& results = report.maps;
    for (const MapCase& c : cases) {
        MapResult result;
        result.map = c;
        result.astar_units = astar_units_for(static_cast<std::size_t>(c.width) * c.height);
        MapRunner runner(result, o.reps, progress);
        if (c.kind == "random") {
            for (std::uint64_t seed : c.seeds) {
                auto cost = generate_random_map({c.width, c.height, 0.20, 0.15, 0.07, seed});
                require_ok(cost);
                runner.run_instance(*cost, c.label + " seed " + std::to_string(seed), "seed " + std::to_string(seed),
                                    kStartSeed ^ seed);
            }
        } else {
            auto map = load_map(c.path);
            require_ok(map);
            runner.run_instance(map->cost, c.label, c.path, kStartSeed);
        }
        runner.finish();
        progress.clear();
        print_map_table(out, result, o.reps);
        std::fflush(out);
        results.push_back(std::move(result));
    }

    if (!hier_sizes.empty()) {
        print_hier_header(out, o);
        for (int s : hier_sizes) {
            const std::string prefix = "hierarchical " + std::to_string(s);
            progress.update(prefix, "generating the map", 0, 1);
            auto cost = generate_random_map({s, s, 0.20, 0.15, 0.07, 1});
            require_ok(cost);
            HierBenchSettings settings;
            settings.sector = o.sector;
            settings.reps = o.hier_reps;
            settings.settle_budget = o.settle;
            settings.corner_reach = o.corner_reach;
            settings.jobs = hier_jobs;
            settings.exact = static_cast<std::size_t>(s) * s <= kFlatCheckCells;
            auto rows = run_hier_bench(*cost, settings,
                                       [&](const std::string& what) { progress.update(prefix, what.c_str(), 0, 1); });
            require_ok(rows);
            report.hier.push_back(std::move(rows.value()));
            progress.clear();
            print_hier_row(out, results, report.hier.back());
            std::fflush(out);
        }
    }

    report.targets = evaluate_targets(results);
    std::fprintf(out, "\ntargets:\n");
    for (const Target& t : report.targets) std::fprintf(out, "  %s\n", target_line(t).c_str());
    report.crossover = measure_crossover(results);
    const Crossover& cross = report.crossover;
    if (cross.ran) {
        std::fprintf(out,
                     "\nA* vs flow field crossover (random 256x256): one field build %s ms; A* per unit %s ms\n"
                     "  (mean of x10 %s and x100 %s): a field is cheaper from %d units sharing a goal\n",
                     format_ms(cross.field_ms).c_str(), format_ms(cross.per_unit).c_str(),
                     format_ms(cross.per_unit_x10).c_str(), format_ms(cross.per_unit_x100).c_str(), cross.units);
    }
    report.total_s = ms_since(t_start) / 1000.0;
    std::fprintf(out, "\ntotal time %.1f s\n", report.total_s);
    return report;
}

}  // namespace tide::bench
