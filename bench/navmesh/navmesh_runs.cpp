// The measuring run of `tide bench navmesh` (navmesh_runs.hpp).

#include "navmesh_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <filesystem>
#include <limits>
#include <memory>
#include <queue>

#include "any_angle.hpp"
#include "baselines.hpp"
#include "harness.hpp"
#include "navmesh.hpp"
#include "provenance.hpp"
#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"
#include "tide/generate.hpp"
#include "tide/jobs.hpp"
#include "tide/map_io.hpp"
#include "tide/simulation.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

using navmesh::AnyAngle;
using navmesh::NavMesh;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Markdown printed as it comes and kept for the report.
struct Md {
    std::FILE* out;
    std::string text;
    void operator()(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        char buf[4096];
        va_list args;
        va_start(args, format);
        std::vsnprintf(buf, sizeof buf, format, args);
        va_end(args);
        std::fputs(buf, out);
        std::fflush(out);
        text += buf;
    }
};

struct MapCase {
    std::string name, label;
    CostField weighted, flat;  // flat: every passable cell costs 1 (what a one-area mesh knows)
    Cell goal;
    navmesh::BakeOptions::Partition partition;
};

// Watershed regions (RecastDemo's default, the better polygons) except on the random maps, where
// their thousands of one-cell holes make it take minutes (105 s for random256 in a one-off trial): monotone there.
navmesh::BakeOptions::Partition partition_for(const std::string& name) {
    return name == "random256" || name == "large" ? navmesh::BakeOptions::Partition::monotone
                                                  : navmesh::BakeOptions::Partition::watershed;
}
const char* partition_name(navmesh::BakeOptions::Partition p) {
    return p == navmesh::BakeOptions::Partition::monotone ? "monotone" : "watershed";
}

Vec2 centre(Cell c) {
    return {static_cast<float>(c.x) + 0.5f, static_cast<float>(c.y) + 0.5f};
}

CostField flatten(const CostField& cost) {
    CostField flat = cost;
    for (Cost& c : flat.cells())
        if (c != kCostWall) c = kCostPlain;
    return flat;
}

MapCase load_case(const std::string& name, const NavmeshBenchOptions& o) {
    if (name == "movingai") {
        auto m = load_map(o.movingai);
        if (!m) throw BenchError("tide bench navmesh: " + m.error().message);
        CostField cost = std::move(m->cost);
        auto goal = bench_goal(cost);
        require_ok(goal);
        const std::string stem = std::filesystem::path(o.movingai).stem().string();
        std::string label =
            "Moving AI " + stem + " (" + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) + ")";
        CostField flat = flatten(cost);
        return {name, label, std::move(cost), std::move(flat), *goal, partition_for(name)};
    }
    const std::string builtin = name;
    auto made = make_builtin_map(builtin);
    require_ok(made);
    CostField cost = std::move(made->cost);
    const Cell goal = made->goals.front();
    const std::string label = name + " (" + std::to_string(cost.width()) + "x" + std::to_string(cost.height()) + ")";
    CostField flat = flatten(cost);
    return {name, label, std::move(cost), std::move(flat), goal, partition_for(name)};
}

struct Stats3 {
    double mean = 0.0, p95 = 0.0, max = 0.0;
};
Stats3 stats_of(const std::vector<double>& v) {
    Stats3 s;
    if (v.empty()) return s;
    for (double x : v) {
        s.mean += x;
        s.max = std::max(s.max, x);
    }
    s.mean /= static_cast<double>(v.size());
    s.p95 = percentile(v, 0.95);
    return s;
}

// Cost of walking the segment a-b over `cost`: each stretch inside a cell times that cell's cost
// (a stretch along a cell border takes the cheaper passable side).
double line_cost(const CostField& cost, Vec2 a, Vec2 b) {
    const double ax = a.x, ay = a.y, dx = static_cast<double>(b.x) - ax, dy = static_cast<double>(b.y) - ay;
    const double len = std::hypot(dx, dy);
    if (len == 0.0) return 0.0;
    std::vector<double> ts{0.0, 1.0};
    auto crossings = [&](double o, double d) {
        if (d == 0.0) return;
        const double lo = std::min(o, o + d), hi = std::max(o, o + d);
        for (double k = std::ceil(lo); k <= hi; k += 1.0) ts.push_back((k - o) / d);
    };
    crossings(ax, dx);
    crossings(ay, dy);
    std::sort(ts.begin(), ts.end());
    double sum = 0.0;
    for (std::size_t i = 1; i < ts.size(); ++i) {
        const double t0 = std::clamp(ts[i - 1], 0.0, 1.0), t1 = std::clamp(ts[i], 0.0, 1.0);
        if (t1 <= t0) continue;
        const double mx = ax + dx * (t0 + t1) / 2, my = ay + dy * (t0 + t1) / 2;
        double c = kInf;
        for (double ex : {-1e-6, 1e-6})
            for (double ey : {-1e-6, 1e-6}) {
                const int x = static_cast<int>(std::floor(mx + ex)), y = static_cast<int>(std::floor(my + ey));
                if (cost.passable(x, y)) c = std::min(c, static_cast<double>(cost.at(x, y)));
            }
        if (!std::isfinite(c)) c = kCostWall;  // through a wall: charged as one
        sum += (t1 - t0) * len * c;
    }
    return sum;
}

double polyline_cost(const CostField& cost, const std::vector<Vec2>& pts) {
    double sum = 0.0;
    for (std::size_t i = 1; i < pts.size(); ++i) sum += line_cost(cost, pts[i - 1], pts[i]);
    return sum;
}

// The least line_cost() from every cell centre to the goal's over 8-direction moves (no corner
// cutting): a move's segment lies half in each of its two cells, diagonals through a corner point.
std::vector<double> grid_line_optimum(const CostField& cost, Cell goal) {
    const int W = cost.width(), H = cost.height();
    std::vector<double> dist(cost.size(), kInf);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    dist[static_cast<std::size_t>(goal.y * W + goal.x)] = 0.0;
    open.push({0.0, goal.y * W + goal.x});
    while (!open.empty()) {
        const auto [d, i] = open.top();
        open.pop();
        if (d > dist[static_cast<std::size_t>(i)]) continue;
        const int x = i % W, y = i / W;
        for (int k = 0; k < 8; ++k) {
            const int ddx = kDirectionDx[k], ddy = kDirectionDy[k], nx = x + ddx, ny = y + ddy;
            if (!cost.passable(nx, ny)) continue;
            if (ddx != 0 && ddy != 0 && (!cost.passable(x + ddx, y) || !cost.passable(x, y + ddy))) continue;
            const double len = (ddx != 0 && ddy != 0) ? std::sqrt(2.0) : 1.0;
            const double nd = d + len * (cost.at(x, y) + cost.at(nx, ny)) / 2.0;
            const auto j = static_cast<std::size_t>(ny * W + nx);
            if (nd < dist[j]) {
                dist[j] = nd;
                open.push({nd, static_cast<int>(j)});
            }
        }
    }
    (void)H;
    return dist;
}

// A lone Tide unit (default CrowdParams: radius 0.16, 3 cells/s, line of sight) walked from each
// start to the goal; its path is its positions step by step, closed with a straight line to the
// goal's centre when it stops.
std::vector<std::vector<Vec2>> tide_walks(const CostField& cost, std::shared_ptr<const FlowField> field, Cell goal,
                                          const std::vector<Cell>& starts) {
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(std::move(field)).value();
    std::vector<std::vector<Vec2>> walks;
    const float dt = 1.0f / 60.0f;
    for (const Cell s : starts) {
        std::vector<Vec2> walk{centre(s)};
        auto id = crowd.add_agent(centre(s), g);
        require_ok(id);
        const int cap = 60 * (60 + 4 * (cost.width() + cost.height()) / 3);
        for (int k = 0; k < cap && crowd.state(*id) == AgentState::moving; ++k) {
            require_ok(crowd.step(dt));
            const Vec2 p = crowd.position(*id);
            const Vec2 last = walk.back();
            if (std::hypot(p.x - last.x, p.y - last.y) > 0.05f) walk.push_back(p);
        }
        walk.push_back(crowd.position(*id));
        walk.push_back(centre(goal));
        require_ok(crowd.remove_agent(*id));
        walks.push_back(std::move(walk));
    }
    return walks;
}

double polyline_length(const std::vector<Vec2>& pts) {
    double sum = 0.0;
    for (std::size_t i = 1; i < pts.size(); ++i)
        sum += std::hypot(static_cast<double>(pts[i].x - pts[i - 1].x), static_cast<double>(pts[i].y - pts[i - 1].y));
    return sum;
}

std::string thousands(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    std::string s = buf, out;
    const std::size_t lead = s.size() % 3 == 0 ? 3 : s.size() % 3;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0 && (i - lead) % 3 == 0 && i >= lead) out += ',';
        out += s[i];
    }
    return out;
}

// ---- Bake, queries, quality per map ----------------------------------------------------------

void run_map(const MapCase& m, const NavmeshBenchOptions& o, Md& md, nlohmann::json& json) {
    nlohmann::json row{{"map", m.name}, {"label", m.label}, {"goal", {m.goal.x, m.goal.y}}};
    md("\n### %s, goal (%d, %d)\n\n", m.label.c_str(), m.goal.x, m.goal.y);
    // Tide: the field of the flat map (what the one-area mesh answers), median of reps.
    FieldBuilder builder;
    auto field = std::make_shared<FlowField>();
    require_ok(builder.build(m.flat, {&m.goal, 1}, {}, *field));
    std::vector<double> build_ms;
    for (int r = 0; r < o.reps; ++r) {
        FlowField again;
        const auto t0 = std::chrono::steady_clock::now();
        require_ok(builder.build(m.flat, {&m.goal, 1}, {}, again));
        build_ms.push_back(ms_since(t0));
    }
    const double field_ms = median(build_ms);
    // Detour: the bake.
    auto baked = NavMesh::bake(m.flat, {.partition = m.partition});
    require_ok(baked);
    NavMesh& mesh = **baked;
    const navmesh::BakeStats& b = mesh.stats();
    md("| | NavMesh (Recast/Detour) | Tide |\n|---|---|---|\n");
    md("| preparation | bake %.1f ms (%s regions; %d tiles, %s polygons, %s vertices) | none (the field is built per "
       "goal) |\n",
       b.bake_ms, partition_name(m.partition), b.tiles, thousands(b.polys).c_str(), thousands(b.verts).c_str());
    md("| memory | %.2f MB of tile data, shared by every goal | %.2f MB per goal field |\n",
       static_cast<double>(b.bytes) / 1e6, static_cast<double>(field->memory_bytes()) / 1e6);
    md("| per goal | nothing | field build %.2f ms (median of %d) |\n", field_ms, o.reps);
    // Reachability: every passable cell, the mesh's polygon links against the field.
    const std::vector<std::uint8_t> on_mesh = mesh.reachable_cells(m.flat, centre(m.goal));
    std::size_t grid_only = 0, mesh_only = 0, reachable = 0;
    for (int y = 0; y < m.flat.height(); ++y)
        for (int x = 0; x < m.flat.width(); ++x) {
            if (!m.flat.passable(x, y)) continue;
            const bool g = field->reachable(x, y), n = on_mesh[static_cast<std::size_t>(y) * m.flat.width() + x] != 0;
            reachable += g ? 1 : 0;
            grid_only += g && !n ? 1 : 0;
            mesh_only += n && !g ? 1 : 0;
        }
    md("| reachability | %s cells of the %s the grid reaches are not on the mesh or not linked to the goal's polygon "
       "(Recast warnings: %zu); %s reached on the mesh only | every passable cell with a path |\n",
       thousands(static_cast<double>(grid_only)).c_str(), thousands(static_cast<double>(reachable)).c_str(),
       b.warnings.size(), thousands(static_cast<double>(mesh_only)).c_str());
    row["reachable_cells"] = reachable;
    row["grid_only_cells"] = grid_only;
    row["mesh_only_cells"] = mesh_only;
    row["recast_warnings"] = b.warnings.size();
    row["bake_ms"] = b.bake_ms;
    row["mesh_bytes"] = b.bytes;
    row["polys"] = b.polys;
    row["tiles"] = b.tiles;
    row["field_ms"] = field_ms;
    row["field_bytes"] = field->memory_bytes();

    // Hierarchical plan and route on the big maps (what a World does there).
    const bool hier = m.flat.size() >= 1024u * 1024u;
    const int max_n = *std::max_element(o.units.begin(), o.units.end());
    const std::vector<Cell> starts = random_reachable_starts(*field, m.goal, max_n, o.seed);
    std::vector<double> hier_ms(o.units.size(), 0.0);
    double graph_ms = 0.0;
    if (hier) {
        SerialJobSystem jobs;
        FieldServiceConfig config;
        config.hierarchy_cells = 0;
        for (std::size_t k = 0; k < o.units.size(); ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            auto service = FieldService::create(m.flat, jobs, config);
            require_ok(service);
            graph_ms = ms_since(t0);
            const auto t1 = std::chrono::steady_clock::now();
            auto ticket = (*service)->request({&m.goal, 1});
            require_ok(ticket);
            (*service)->wait_idle();
            (*service)->publish();
            require_ok((*service)->route(*ticket, {starts.data(), static_cast<std::size_t>(o.units[k])}));
            hier_ms[k] = ms_since(t1);
        }
    }

    // Detour queries, each timed; the time of N queries is the sum of the first N.
    std::vector<double> query_ms(starts.size());
    int not_found = 0, out_of_nodes = 0;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const navmesh::PathAnswer a = mesh.path(centre(starts[i]), centre(m.goal));
        query_ms[i] = ms_since(t0);
        not_found += a.found ? 0 : 1;
        out_of_nodes += !a.found && a.out_of_nodes ? 1 : 0;
    }
    std::vector<double> sorted = query_ms;
    const double query_median = median(sorted);
    double total = 0.0;
    long crossover = -1;
    for (std::size_t i = 0; i < query_ms.size(); ++i) {
        total += query_ms[i];
        if (crossover < 0 && total >= field_ms) crossover = static_cast<long>(i + 1);
    }
    const double query_mean = total / static_cast<double>(query_ms.size());
    md("\nN units, each with its own findPath + findStraightPath, against one field for all of them "
       "(one thread; Detour's median query %.3f ms, mean %.3f ms%s):\n\n",
       query_median, query_mean,
       not_found ? (", " + thousands(not_found) + " of " + thousands(static_cast<double>(starts.size())) +
                    " starts with no full path found, " + thousands(out_of_nodes) +
                    " of them because the search ran out of its 65,535 nodes, Detour's limit")
                       .c_str()
                 : "");
    md(hier ? "| N | NavMesh queries, ms | Tide field, ms | NavMesh / field | Tide hierarchical plan + route, ms "
              "|\n|---:|---:|---:|---:|---:|\n"
            : "| N | NavMesh queries, ms | Tide field, ms | NavMesh / field |\n|---:|---:|---:|---:|\n");
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t k = 0; k < o.units.size(); ++k) {
        const int n = o.units[k];
        double sum = 0.0;
        for (int i = 0; i < n; ++i) sum += query_ms[static_cast<std::size_t>(i)];
        if (hier) {
            md("| %s | %.2f | %.2f | %.2fx | %.1f |\n", thousands(n).c_str(), sum, field_ms, sum / field_ms,
               hier_ms[k]);
        } else {
            md("| %s | %.2f | %.2f | %.2fx |\n", thousands(n).c_str(), sum, field_ms, sum / field_ms);
        }
        rows.push_back({{"n", n}, {"navmesh_ms", sum}, {"field_ms", field_ms}, {"hier_ms", hier_ms[k]}});
    }
    const double crossover_est = field_ms / query_mean;
    md("\nCrossover: the field costs as much as %s NavMesh queries (%s).\n",
       crossover > 0 ? std::to_string(crossover).c_str() : thousands(crossover_est).c_str(),
       crossover > 0 ? "measured: the first N whose queries add up to one field build"
                     : "field time over the mean query; not reached by the largest N");
    if (hier) md("Sector graph of the hierarchical plan: %.0f ms, once per map.\n", graph_ms);
    row["queries"] = rows;
    row["query_median_ms"] = query_median;
    row["query_mean_ms"] = query_mean;
    row["not_found"] = not_found;
    row["out_of_nodes"] = out_of_nodes;
    row["crossover_n"] = crossover > 0 ? static_cast<double>(crossover) : crossover_est;
    row["graph_ms"] = graph_ms;

    // Path quality against the exact any-angle optimum.
    AnyAngle reference(m.flat);
    const std::size_t q = std::min<std::size_t>(static_cast<std::size_t>(o.quality_starts), starts.size());
    if (reference.corners() > o.max_corners) {
        md("\nPath quality: not measured here (the exact any-angle reference would search a visibility graph of "
           "%s corners; the limit is %s, --max-corners).\n",
           thousands(static_cast<double>(reference.corners())).c_str(),
           thousands(static_cast<double>(o.max_corners)).c_str());
        json["maps"].push_back(row);
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    reference.search(centre(m.goal));
    const std::vector<Cell> qstarts(starts.begin(), starts.begin() + static_cast<std::ptrdiff_t>(q));
    const auto walks = tide_walks(m.flat, field, m.goal, qstarts);
    std::vector<double> detour_ratio, tide_ratio;
    for (std::size_t i = 0; i < q; ++i) {
        const double best = reference.distance(centre(qstarts[i]));
        if (!std::isfinite(best) || best < 1.0) continue;
        const navmesh::PathAnswer a = mesh.path(centre(qstarts[i]), centre(m.goal));
        if (a.found) detour_ratio.push_back(a.length / best);
        tide_ratio.push_back(polyline_length(walks[i]) / best);
    }
    const Stats3 d = stats_of(detour_ratio), t = stats_of(tide_ratio);
    const auto over = [](const std::vector<double>& v, double x) {
        return std::count_if(v.begin(), v.end(), [x](double r) { return r > x; });
    };
    md("\nPath quality over the exact any-angle shortest path (visibility graph of %s corners, %.1f s), %zu starts "
       "(start and goal at cell centres):\n\n",
       thousands(static_cast<double>(reference.corners())).c_str(), ms_since(t0) / 1000.0, tide_ratio.size());
    md("| path | mean | 95th percentile | worst | over 1%% longer |\n|---|---:|---:|---:|---:|\n");
    md("| NavMesh straight path (a point: radius 0) | %.4f | %.4f | %.4f | %ld |\n", d.mean, d.p95, d.max,
       static_cast<long>(over(detour_ratio, 1.01)));
    md("| Tide, a unit's travelled path (radius 0.16, line of sight) | %.4f | %.4f | %.4f | %ld |\n", t.mean, t.p95,
       t.max, static_cast<long>(over(tide_ratio, 1.01)));
    row["quality"] = {{"starts", tide_ratio.size()},
                      {"corners", reference.corners()},
                      {"navmesh", {{"mean", d.mean}, {"p95", d.p95}, {"max", d.max}}},
                      {"tide", {{"mean", t.mean}, {"p95", t.p95}, {"max", t.max}}}};
    json["maps"].push_back(row);
}

// ---- Crowds side by side ---------------------------------------------------------------------

struct CrowdFigures {
    std::vector<double> step_ms;
    double t90 = -1.0;
    float deepest = 0.0f, deepest_end = 0.0f;
    std::size_t deep_end = 0;  // pairs overlapping by more than half a radius at the end
    std::size_t wall_contacts = 0, samples = 0;
    int arrived = 0;
};

void run_crowds(const NavmeshBenchOptions& o, Md& md, nlohmann::json& json) {
    auto made = make_builtin_map("default");
    require_ok(made);
    const CostField flat = flatten(made->cost);
    const Cell goal = made->goals.front();
    auto field = std::make_shared<FlowField>();
    FieldBuilder builder;
    require_ok(builder.build(flat, {&goal, 1}, {}, *field));
    auto baked = NavMesh::bake(flat);
    require_ok(baked);
    const CrowdParams params;  // Tide's defaults: radius 0.16, 3 cells/s
    const float r = params.radius, dt = 1.0f / 60.0f;
    // Spawn: random points on the far half of the map (path distance above half the largest).
    float far = 0.0f;
    for (const float v : field->integration())
        if (v != kUnreachable) far = std::max(far, v);
    md("\n## Crowds side by side\n\nThe default map (64x40, costs flattened), its goal (%d, %d); agents spawned on "
       "random points of cells at least %.0f cells of path from the goal; radius %.2f cells, top speed %.1f cells/s, "
       "dt 1/60 s, one thread each, steps interleaved (a Tide step, then a DetourCrowd step). DetourCrowd as "
       "RecastDemo sets it up (acceleration 8, high-quality adaptive avoidance, separation, anticipated turns, "
       "visibility and topology optimisation). Arrived: within the path distance from the goal whose nearest cells "
       "could hold the group's discs at a density of 0.3 (Tide sizes its arrival regions for 0.35), plus a cell (%s), "
       "the same test for both. Wall contacts: samples (every 10 "
       "steps) of a unit whose disc reaches 5%% into a wall (DetourCrowd keeps agent centres on the mesh; a game "
       "erodes its mesh by the agent radius, which here would take voxels of at most 0.16 cells, 7 per cell; "
       "this mesh is not eroded). Overlap: deepest pair overlap, in radii (2 = two agents on one point).\n\n",
       goal.x, goal.y, static_cast<double>(far / 2), static_cast<double>(r), static_cast<double>(params.max_speed),
       "listed below the table");
    md("| agents | crowd | step median, ms | steps/s at that | 90%% arrived at, s | arrived at the end | deepest "
       "overlap after 2 s, radii | at the end | pairs over 0.5 r at the end | wall contacts |\n"
       "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    SplitMix64 rng(o.seed * 977 + 5);
    std::vector<std::pair<int, CrowdStats>> states;  // Tide's own view of its units at the end of each run
    std::vector<double> arrive_at;                   // the arrival distance of each run
    std::vector<Cell> far_cells;
    for (int y = 0; y < flat.height(); ++y)
        for (int x = 0; x < flat.width(); ++x)
            if (field->reachable(x, y) && field->integration(x, y) >= far / 2) far_cells.push_back({x, y});
    for (const int n : o.crowd_agents) {
        std::vector<Vec2> spawn;
        for (int i = 0; i < n; ++i) {
            const Cell c = far_cells[rng.below(far_cells.size())];
            spawn.push_back({c.x + 0.2f + 0.6f * static_cast<float>(rng.uniform()),
                             c.y + 0.2f + 0.6f * static_cast<float>(rng.uniform())});
        }
        // Arrived: within the path distance whose nearest cells could hold the group at a density
        // of 0.3 (n discs of radius r on cells of area 1; Tide sizes its arrival regions for 0.35), plus a
        // cell; the same test for both crowds.
        std::vector<float> near;
        for (const float v : field->integration())
            if (v != kUnreachable) near.push_back(v);
        const std::size_t need = std::min(
            near.size() - 1, static_cast<std::size_t>(std::ceil(n * 3.14159265 * static_cast<double>(r * r) / 0.3)));
        std::nth_element(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(need), near.end());
        const double arrive = static_cast<double>(near[need]) + 1.0;
        arrive_at.push_back(arrive);
        Crowd tide(flat, params);
        const GroupId g = tide.add_group(field).value();
        auto dc = navmesh::DetourCrowd::create(**baked, n, r, params.max_speed);
        require_ok(dc);
        for (const Vec2& p : spawn) {
            require_ok(tide.add_agent(p, g));
            require_ok((*dc)->add_agent(p, centre(goal)));
        }
        CrowdFigures tf, df;
        std::vector<Vec2> positions(static_cast<std::size_t>(n));
        SerialJobSystem jobs;
        const int steps = static_cast<int>(std::lround(o.crowd_seconds / dt));
        auto sample = [&](CrowdFigures& f, double time) {
            const OverlapSample ov = measure_overlap(positions, r, 0.5f);
            if (time >= 2.0) f.deepest = std::max(f.deepest, ov.deepest);  // random spawn points overlap
            f.deepest_end = ov.deepest;
            f.deep_end = ov.deep;
            int arrived = 0;
            for (const Vec2& p : positions) {
                ++f.samples;
                if (penetrates_wall(flat, p, r)) ++f.wall_contacts;
                const int x = static_cast<int>(std::floor(p.x)), y = static_cast<int>(std::floor(p.y));
                if (field->contains(x, y) && field->reachable(x, y) && field->integration(x, y) <= arrive) ++arrived;
            }
            f.arrived = arrived;
            if (f.t90 < 0.0 && arrived * 10 >= n * 9) f.t90 = time;
        };
        for (int k = 1; k <= steps; ++k) {
            auto t0 = std::chrono::steady_clock::now();
            require_ok(tide.step(dt, jobs));
            tf.step_ms.push_back(ms_since(t0));
            t0 = std::chrono::steady_clock::now();
            (*dc)->step(dt);
            df.step_ms.push_back(ms_since(t0));
            if (k % 10 == 0 || k == steps) {
                const double time = k * static_cast<double>(dt);
                AgentBuffers buf;
                buf.positions = positions;
                require_ok(tide.read_agents(buf));
                sample(tf, time);
                for (int i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = (*dc)->position(i);
                sample(df, time);
                if (tf.t90 >= 0.0 && df.t90 >= 0.0 && k >= 600) break;  // both there, and 10 s seen
            }
        }
        const CrowdStats& st = tide.stats();
        states.push_back({n, st});
        for (auto [name, f] : {std::pair<const char*, CrowdFigures*>{"Tide", &tf}, {"DetourCrowd", &df}}) {
            const double med = median(f->step_ms);
            char t90[32];
            if (f->t90 >= 0.0)
                std::snprintf(t90, sizeof t90, "%.1f", f->t90);
            else
                std::snprintf(t90, sizeof t90, "not in %.0f s", static_cast<double>(o.crowd_seconds));
            md("| %s | %s | %.3f | %s | %s | %d of %d | %.2f | %.2f | %zu | %s of %s |\n", thousands(n).c_str(), name,
               med, thousands(1000.0 / med).c_str(), t90, f->arrived, n, static_cast<double>(f->deepest),
               static_cast<double>(f->deepest_end), f->deep_end,
               thousands(static_cast<double>(f->wall_contacts)).c_str(),
               thousands(static_cast<double>(f->samples)).c_str());
            json["crowds"].push_back({{"agents", n},
                                      {"crowd", name},
                                      {"step_median_ms", med},
                                      {"t90_s", f->t90},
                                      {"arrived", f->arrived},
                                      {"deepest_overlap_radii", f->deepest},
                                      {"deepest_overlap_radii_at_end", f->deepest_end},
                                      {"deep_pairs_at_end", f->deep_end},
                                      {"wall_contacts", f->wall_contacts},
                                      {"samples", f->samples}});
        }
    }
    md("\nTide's own states at the end (AgentState): ");
    for (std::size_t i = 0; i < states.size(); ++i) {
        const CrowdStats& st = states[i].second;
        md("%s%s agents (arrival distance %.1f cells): %zu arrived, %zu queued (waiting behind others), %zu moving, "
           "%zu of them flagged stuck",
           i ? "; " : "", thousands(states[i].first).c_str(), arrive_at[i], st.arrived, st.queued,
           st.agents - st.arrived - st.queued - st.no_path, st.stuck);
        json["crowd_states"].push_back({{"agents", states[i].first},
                                        {"arrived", st.arrived},
                                        {"queued", st.queued},
                                        {"stuck", st.stuck},
                                        {"no_path", st.no_path}});
    }
    md(".\n");
}

// ---- Terrain that changes --------------------------------------------------------------------

void run_obstacle(const NavmeshBenchOptions& o, Md& md, nlohmann::json& json) {
    auto made = make_builtin_map("random256");
    require_ok(made);
    CostField flat = flatten(made->cost);
    const Cell goal = made->goals.front();
    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
    require_ok(builder.build(flat, {&goal, 1}, {}, field, state));
    const int n = 1000;
    const std::vector<Cell> starts = random_reachable_starts(field, goal, n, o.seed);
    // The obstacle: a 3x3 block of open cells on the route of the first unit, about 12 cells of
    // path before the goal (not on the goal, not on a unit).
    Cell at = starts.front();
    CellRect block{};
    for (int guard = 0; guard < 100000; ++guard) {
        const std::int64_t next = field.next_index(at.x, at.y);
        if (next < 0) break;
        at = {static_cast<int>(next % flat.width()), static_cast<int>(next / flat.width())};
        if (field.integration(at.x, at.y) > 14.0f) continue;
        bool open = true;
        for (int y = at.y - 1; y <= at.y + 1; ++y)
            for (int x = at.x - 1; x <= at.x + 1; ++x)
                open = open && flat.passable(x, y) && !(x == goal.x && y == goal.y);
        for (const Cell s : starts) open = open && !(std::abs(s.x - at.x) <= 1 && std::abs(s.y - at.y) <= 1);
        if (open) {
            block = {at.x - 1, at.y - 1, at.x + 1, at.y + 1};
            break;
        }
    }
    if (block.empty()) throw BenchError("tide bench navmesh: found no open 3x3 block on the route");
    CostField edited = flat;
    edited.fill_rect(block.x0, block.y0, block.x1, block.y1, kCostWall);
    md("\n## Terrain that changes\n\nrandom256 (costs flattened), %d units with paths to (%d, %d); a 3x3 wall block "
       "dropped at cells (%d..%d, %d..%d), on the route, %.0f cells of path before the goal. Time until every unit "
       "has a valid path again (one thread):\n\n",
       n, goal.x, goal.y, block.x0, block.x1, block.y0, block.y1, static_cast<double>(field.integration(at.x, at.y)));
    md("| answer | update the map | new paths for %d units | total, ms |\n|---|---:|---:|---:|\n", n);
    nlohmann::json rows = nlohmann::json::array();
    for (const int tile : {128, 32}) {
        auto baked = NavMesh::bake(flat, {.partition = partition_for("random256"), .tile = tile});
        require_ok(baked);
        int before = 0;
        for (const Cell s : starts) before += (*baked)->path(centre(s), centre(goal)).found ? 1 : 0;
        const auto t0 = std::chrono::steady_clock::now();
        require_ok((*baked)->rebake(edited, block));
        const double rebake_ms = ms_since(t0);
        const auto t1 = std::chrono::steady_clock::now();
        int found = 0;
        for (const Cell s : starts) found += (*baked)->path(centre(s), centre(goal)).found ? 1 : 0;
        const double replan_ms = ms_since(t1);
        md("| NavMesh: re-bake the touched tiles (%d-cell tiles), re-plan every unit | %.2f ms | %.2f ms (%d found; %d "
           "before the edit) | %.2f |\n",
           tile, rebake_ms, replan_ms, found, before, rebake_ms + replan_ms);
        rows.push_back({{"answer", "navmesh_tile_" + std::to_string(tile)},
                        {"update_ms", rebake_ms},
                        {"paths_ms", replan_ms},
                        {"found", found},
                        {"found_before", before}});
    }
    {
        FlowField copy = field;
        FieldRepairState copy_state = state;
        const auto t0 = std::chrono::steady_clock::now();
        auto repaired = builder.repair_rect(edited, block.x0, block.y0, block.x1, block.y1, copy, copy_state);
        const double ms = ms_since(t0);
        require_ok(repaired);
        int valid = 0;
        for (const Cell s : starts) valid += copy.reachable(s.x, s.y) ? 1 : 0;
        md("| Tide: repair the field (%s) | %.2f ms | 0 (every unit reads the field; %d of %d reach the goal) | %.2f "
           "|\n",
           repaired->rebuilt ? "it judged a full build cheaper and made one"
                             : (thousands(static_cast<double>(repaired->touched_cells)) + " cells rewritten").c_str(),
           ms, valid, n, ms);
        rows.push_back({{"answer", "tide_repair"}, {"update_ms", ms}, {"paths_ms", 0.0}, {"found", valid}});
        const auto t1 = std::chrono::steady_clock::now();
        FlowField fresh;
        require_ok(builder.build(edited, {&goal, 1}, {}, fresh));
        md("| Tide: a fresh field build instead | %.2f ms | 0 | %.2f |\n", ms_since(t1), ms_since(t1));
    }
    json["obstacle"] = rows;
}

// ---- Weighted terrain ------------------------------------------------------------------------

void run_weighted(const NavmeshBenchOptions& o, Md& md, nlohmann::json& json) {
    md("\n## Weighted terrain\n\nForest (3) and swamp (6) as NavMesh areas with those filter costs, against Tide's "
       "cost field. Every path is priced the same way: the length of each stretch inside a cell times that cell's "
       "cost. The reference is the exact optimum of that price over 8-direction cell paths (Dijkstra); a path free to "
       "take any angle can undercut it (by up to 8%% on open ground), so ratios below 1 are possible.\n\n");
    md("| map | path | mean | 95th percentile | worst |\n|---|---|---:|---:|---:|\n");
    for (const std::string name : {"default", "random256"}) {
        MapCase m = load_case(name, o);
        auto area = NavMesh::bake(m.weighted, {.partition = m.partition, .area_costs = true});
        require_ok(area);
        auto plain = NavMesh::bake(m.flat, {.partition = m.partition});
        require_ok(plain);
        FieldBuilder builder;
        auto field = std::make_shared<FlowField>();
        require_ok(builder.build(m.weighted, {&m.goal, 1}, {}, *field));
        const std::vector<Cell> starts = random_reachable_starts(*field, m.goal, o.quality_starts, o.seed + 1);
        const std::vector<double> best = grid_line_optimum(m.weighted, m.goal);
        const auto walks = tide_walks(m.weighted, field, m.goal, starts);
        std::vector<double> with_areas, without, tide, cells;
        for (std::size_t i = 0; i < starts.size(); ++i) {
            const double ref = best[static_cast<std::size_t>(starts[i].y * m.weighted.width() + starts[i].x)];
            if (!std::isfinite(ref) || ref <= 0.0) continue;
            const auto a = (*area)->path(centre(starts[i]), centre(m.goal), true);
            const auto p = (*plain)->path(centre(starts[i]), centre(m.goal), true);
            if (a.found) with_areas.push_back(polyline_cost(m.weighted, a.corners) / ref);
            if (p.found) without.push_back(polyline_cost(m.weighted, p.corners) / ref);
            tide.push_back(polyline_cost(m.weighted, walks[i]) / ref);
            // The field's own plan: its moves from cell centre to cell centre.
            std::vector<Vec2> plan{centre(starts[i])};
            for (Cell c = starts[i]; !(c.x == m.goal.x && c.y == m.goal.y);) {
                const std::int64_t next = field->next_index(c.x, c.y);
                if (next < 0) break;
                c = {static_cast<int>(next % m.weighted.width()), static_cast<int>(next / m.weighted.width())};
                plan.push_back(centre(c));
            }
            cells.push_back(polyline_cost(m.weighted, plan) / ref);
        }
        nlohmann::json row{{"map", name}};
        for (auto [label, key, v] : {std::tuple<const char*, const char*, std::vector<double>*>{
                                         "NavMesh with area costs", "navmesh_areas", &with_areas},
                                     {"NavMesh without area costs", "navmesh_plain", &without},
                                     {"Tide, the field's moves (cell centre to cell centre)", "tide_field", &cells},
                                     {"Tide, a unit's travelled path", "tide", &tide}}) {
            const Stats3 s = stats_of(*v);
            md("| %s | %s | %.3f | %.3f | %.3f |\n", m.label.c_str(), label, s.mean, s.p95, s.max);
            row[key] = {{"mean", s.mean}, {"p95", s.p95}, {"max", s.max}, {"n", v->size()}};
        }
        json["weighted"].push_back(row);
    }
}

}  // namespace

NavmeshBenchReport run_navmesh_bench(const NavmeshBenchOptions& o, std::FILE* out) {
    const Provenance prov = provenance();
    Md md{out, {}};
    NavmeshBenchReport report;
    report.json = provenance_json(prov);
    report.json["command"] = o.command;
    report.json["maps"] = nlohmann::json::array();
    md("# tide bench navmesh\n\n`%s`\n\n", o.command.c_str());
    md("%s; Recast/Detour from Debian's librecast-dev. Costs flattened to 1 for the query "
       "and quality tables (a one-area mesh and the field answer the same question); meshes baked with 2 x 2 "
       "voxels per cell (with one voxel per cell Recast leaves 2.8%% of the random maps' cells off the mesh), agent "
       "radius 0, exact contours, 128-cell tiles, watershed regions (monotone on the random maps, where watershed "
       "takes minutes).\n",
       prov.line().c_str());
    md("\n## Queries against one field\n");
    for (const std::string& name : o.maps) {
        if (name == "movingai" && !std::filesystem::exists(o.movingai)) {
            md("\n### Moving AI map\n\nSkipped: %s is not there (the Moving AI data set lives in ../shared/data; "
               "--movingai names another map).\n",
               o.movingai.c_str());
            continue;
        }
        run_map(load_case(name, o), o, md, report.json);
    }
    if (o.crowd) run_crowds(o, md, report.json);
    run_obstacle(o, md, report.json);
    run_weighted(o, md, report.json);
    report.markdown = std::move(md.text);
    return report;
}

}  // namespace tide::bench
