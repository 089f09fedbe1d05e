// The measuring run of `tide bench crowd`; see crowd_runs.hpp.

#include "crowd_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "orca_reference.hpp"
#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

constexpr int kOrcaMap = 256;  // side of the open map of the side-by-side with ORCA, cells

struct Setup {
    CostField cost;
    std::shared_ptr<const FlowField> field;
    std::vector<Vec2> spawn;   // spread over the map
    std::vector<Vec2> packed;  // a hexagonal lattice (spacing 2 radii) filled outward from the goal
};

// The goal at the centre of `cost` (made plain), its field, and `agents` spawn points uniformly at
// random over the reachable ground.
Setup make_goal_and_spawn(CostField cost, int agents) {
    const int size = cost.width();
    Setup s{std::move(cost), nullptr, {}, {}};
    const Cell goal{size / 2, size / 2};
    s.cost.set(goal.x, goal.y, kCostPlain);
    auto f = build_flow_field(s.cost, std::span<const Cell>(&goal, 1));
    require_ok(f);
    s.field = std::make_shared<const FlowField>(std::move(f.value()));
    SplitMix64 rng{7};
    while (static_cast<int>(s.spawn.size()) < agents) {
        const Vec2 p{static_cast<float>(rng.uniform() * size), static_cast<float>(rng.uniform() * size)};
        const int x = static_cast<int>(p.x), y = static_cast<int>(p.y);
        if (s.field->reachable(x, y) && s.cost.passable(x, y)) s.spawn.push_back(p);
    }
    return s;
}

// The side-by-side with ORCA: an open map (all plain), goal at the centre, no dense case.
Setup make_open_setup(int size, int agents) {
    auto cost = CostField::create(size, size);
    require_ok(cost);
    return make_goal_and_spawn(std::move(cost.value()), agents);
}

Setup make_setup(int size, int agents) {
    auto cost = generate_random_map({size, size, 0.20, 0.15, 0.07, 1});
    require_ok(cost);
    Setup s = make_goal_and_spawn(std::move(cost.value()), agents);
    const Cell goal{size / 2, size / 2};
    // The dense case: lattice points on reachable cells, a radius clear of walls, nearest the goal
    // first (the densest a settled crowd could stand).
    const float r = CrowdParams{}.radius, dx = 2.0f * r, dy = dx * 0.8660254f;
    const float gx = goal.x + 0.5f, gy = goal.y + 0.5f;
    std::vector<std::pair<float, Vec2>> lattice;
    for (int row = 0; row * dy < size; ++row) {
        for (int col = 0; col * dx < size; ++col) {
            const Vec2 p{col * dx + (row % 2 ? 0.5f * dx : 0.0f) + r, row * dy + r};
            bool clear = p.x < size - r && p.y < size - r;
            for (float ox : {-r, r})
                for (float oy : {-r, r}) {
                    const int x = static_cast<int>(p.x + ox), y = static_cast<int>(p.y + oy);
                    clear = clear && s.cost.passable(x, y) && s.field->reachable(x, y);
                }
            if (clear) lattice.push_back({(p.x - gx) * (p.x - gx) + (p.y - gy) * (p.y - gy), p});
        }
    }
    const std::size_t want = std::min<std::size_t>(agents, lattice.size());
    std::partial_sort(lattice.begin(), lattice.begin() + static_cast<std::ptrdiff_t>(want), lattice.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < want; ++k) s.packed.push_back(lattice[k].second);
    return s;
}

// Median time of `reps` steps of 1/60 s, from where the crowd stands.
double median_step_ms(Crowd& crowd, int reps, JobSystem& jobs) {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        require_ok(crowd.step(1.0f / 60.0f, jobs));
        t.push_back(ms_since(t0));
    }
    return median(t);
}

// Median step time of a crowd after a 1 s warm-up: spread over the map (agents on the move, not yet
// packed) or packed at the goal (dense: they settle during the warm-up).
double time_steps(const Setup& s, int reps, JobSystem& jobs, bool dense = false, bool line_of_sight = true) {
    CrowdParams params;
    params.line_of_sight = line_of_sight;
    Crowd crowd(s.cost, params);
    const GroupId g = crowd.add_group(s.field).value();
    for (const Vec2& p : dense ? s.packed : s.spawn) (void)crowd.add_agent(p, g);
    for (int i = 0; i < 60; ++i) require_ok(crowd.step(1.0f / 60.0f, jobs));
    return median_step_ms(crowd, reps, jobs);
}

// The dense case once it has settled: agents packed at the goal, stepped until all have arrived
// and 2 s more (at most 30 s), then timed, with sleeping on or off. `asleep` and `settled_s`
// report what the timed steps met.
struct Settled {
    double median_ms = 0.0;
    double settled_s = -1.0;  // when the last agent arrived (-1: not within 30 s)
    std::size_t asleep = 0;
};
Settled time_settled(const Setup& s, int reps, JobSystem& jobs, bool sleep) {
    CrowdParams params;
    params.sleep = sleep;
    Crowd crowd(s.cost, params);
    const GroupId g = crowd.add_group(s.field).value();
    for (const Vec2& p : s.packed) (void)crowd.add_agent(p, g);
    Settled out;
    for (int i = 0; i < 30 * 60; ++i) {
        require_ok(crowd.step(1.0f / 60.0f, jobs));
        if (out.settled_s < 0.0 && crowd.stats().arrived == crowd.size()) out.settled_s = crowd.time();
        if (out.settled_s >= 0.0 && crowd.time() >= out.settled_s + 2.0) break;
    }
    out.median_ms = median_step_ms(crowd, reps, jobs);
    out.asleep = crowd.stats().sleeping;
    return out;
}

// The all-pairs reference: separation by testing every pair, then the same steering and movement.
double time_all_pairs(const Setup& s, int reps) {
    const std::size_t n = s.spawn.size();
    std::vector<float> px(n), py(n), vx(n, 0.0f), vy(n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        px[i] = s.spawn[i].x;
        py[i] = s.spawn[i].y;
    }
    std::vector<double> t;
    for (int r = 0; r < reps + 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const float dt = 1.0f / 60.0f, radius = 0.16f, range = 2.0f * radius * 1.5f;
        for (std::size_t i = 0; i < n; ++i) {
            float sx = 0.0f, sy = 0.0f;
            for (std::size_t j = 0; j < n; ++j) {
                if (j == i) continue;
                const float dx = px[i] - px[j], dy = py[i] - py[j];
                const float d2 = dx * dx + dy * dy;
                if (d2 >= range * range || d2 < 1e-12f) continue;
                const float d = std::sqrt(d2);
                sx += dx / d * (range - d) / range;
                sy += dy / d * (range - d) / range;
            }
            const Vec2 f = s.field->blend({px[i], py[i]});
            vx[i] += ((f.x * 3.0f - vx[i]) * 8.0f + sx * 6.0f) * dt;
            vy[i] += ((f.y * 3.0f - vy[i]) * 8.0f + sy * 6.0f) * dt;
        }
        for (std::size_t i = 0; i < n; ++i) {
            px[i] = std::clamp(px[i] + vx[i] * dt, 0.0f, static_cast<float>(s.cost.width()) - 0.01f);
            py[i] = std::clamp(py[i] + vy[i] * dt, 0.0f, static_cast<float>(s.cost.height()) - 0.01f);
        }
        if (r >= 3) t.push_back(ms_since(t0));
    }
    return median(t);
}

// One crowd's figures over a side-by-side run.
struct RunFigures {
    std::vector<double> step_ms;  // every step
    float deepest = 0.0f;         // deepest overlap over all samples, radii
    std::size_t deep = 0;         // most pairs deeper than half a radius in one sample
    float deepest_end = 0.0f;     // deepest overlap at the last sample, radii
    void sample(std::span<const Vec2> positions, float radius) {
        const OverlapSample o = measure_overlap(positions, radius, 0.5f);
        deepest = std::max(deepest, o.deepest);
        deep = std::max(deep, o.deep);
        deepest_end = o.deepest;
    }
};

// Tide's crowd and the ORCA reference from the same spawn points toward the same goal field for
// `seconds` of simulated time at dt 1/60 s on `jobs`. Their steps alternate (a Tide step, then an
// ORCA step), so a busy spell of the shared machine slows both alike. Overlaps are sampled every
// 10 steps (1/6 s), from the first sample after the spawn (random spawn points overlap).
std::pair<RunFigures, RunFigures> run_side_by_side(const Setup& s, float seconds, JobSystem& jobs) {
    const float dt = 1.0f / 60.0f;
    const CrowdParams tide_params;
    Crowd tide(s.cost, tide_params);
    const GroupId g = tide.add_group(s.field).value();
    auto made = OrcaCrowd::create(OrcaParams{.radius = tide_params.radius, .max_speed = tide_params.max_speed});
    require_ok(made);
    OrcaCrowd orca = std::move(made.value());
    orca.set_goal_field(s.field);
    for (const Vec2& p : s.spawn) {
        require_ok(tide.add_agent(p, g));
        require_ok(orca.add_agent(p));
    }
    RunFigures t, o;
    std::vector<Vec2> positions(s.spawn.size());
    const int steps = std::max(1, static_cast<int>(std::lround(seconds / dt)));
    for (int k = 1; k <= steps; ++k) {
        auto t0 = std::chrono::steady_clock::now();
        require_ok(tide.step(dt, jobs));
        t.step_ms.push_back(ms_since(t0));
        t0 = std::chrono::steady_clock::now();
        require_ok(orca.step(dt, jobs));
        o.step_ms.push_back(ms_since(t0));
        if (k % 10 == 0 || k == steps) {
            AgentBuffers out;
            out.positions = positions;
            require_ok(tide.read_agents(out));
            t.sample(positions, tide_params.radius);
            orca.read_positions(positions);
            o.sample(positions, orca.params().radius);
        }
    }
    return {std::move(t), std::move(o)};
}

double mean(const std::vector<double>& v) {
    double sum = 0.0;
    for (double x : v) sum += x;
    return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

// The side-by-side section: prints its table and targets, appends its rows to `rows`.
void run_orca_section(const CrowdBenchOptions& o, JobSystem& two, std::FILE* out, nlohmann::json& rows) {
    std::vector<int> counts{1000, 10000};
    if (o.orca_100k) counts.push_back(100000);
    std::fprintf(out,
                 "\nside by side with ORCA (the algorithm of RVO2; bench/harness/orca_reference.hpp): open %dx%d map,\n"
                 "goal at the centre, same spawn points and flow field, radius 0.16, 3 cells/s, dt 1/60 s, %g s,\n"
                 "2 threads; ORCA: time horizon 2 s, neighbours within 1.5 cells, at most 10. Overlap sampled\n"
                 "every 1/6 s: deepest pair over the run and at the end (radii), most pairs deeper than 0.5 r\n"
                 "in one sample.\n",
                 kOrcaMap, kOrcaMap, static_cast<double>(o.orca_seconds));
    std::fprintf(out, "  %-7s %-6s %10s %10s %9s %11s %10s %11s\n", "agents", "crowd", "median ms", "mean ms",
                 "deepest", "pairs>0.5r", "deepest@end", "ORCA/Tide");
    double ratio10k = 0.0;
    float deepest10k = -1.0f;
    std::size_t deep10k = 0;
    for (int n : counts) {
        std::fprintf(stderr, "[crowd] side by side with ORCA, %d agents, %g s\n", n,
                     static_cast<double>(o.orca_seconds));
        const Setup s = make_open_setup(kOrcaMap, n);
        auto [tide, orca] = run_side_by_side(s, o.orca_seconds, two);
        const double tide_med = median(tide.step_ms), orca_med = median(orca.step_ms);
        const double ratio = orca_med / tide_med;
        for (const auto& [name, f] : {std::pair<const char*, RunFigures*>{"Tide", &tide}, {"ORCA", &orca}}) {
            const bool is_tide = f == &tide;
            const double med = is_tide ? tide_med : orca_med;
            char ratio_text[32] = "";
            if (!is_tide) std::snprintf(ratio_text, sizeof ratio_text, "%.2fx", ratio);
            std::fprintf(out, "  %-7d %-6s %10.3f %10.3f %9.3f %11zu %10.3f %11s\n", n, name, med, mean(f->step_ms),
                         static_cast<double>(f->deepest), f->deep, static_cast<double>(f->deepest_end), ratio_text);
            nlohmann::json row{
                {"case", std::string("side_by_side_") + (is_tide ? "tide_" : "orca_") + std::to_string(n)},
                {"crowd", is_tide ? "tide" : "orca"},
                {"map", kOrcaMap},
                {"open_map", true},
                {"agents", n},
                {"threads", 2},
                {"seconds", o.orca_seconds},
                {"median_ms", med},
                {"mean_ms", mean(f->step_ms)},
                {"deepest_overlap_radii", f->deepest},
                {"pairs_deeper_than_half_radius", f->deep},
                {"deepest_overlap_radii_at_end", f->deepest_end}};
            if (!is_tide) row["orca_over_tide"] = ratio;
            rows.push_back(row);
        }
        if (n == 10000) {
            ratio10k = ratio;
            deepest10k = tide.deepest;
            deep10k = tide.deep;
        }
    }
    if (deepest10k >= 0.0f) {
        auto verdict = [](bool ok) { return ok ? "PASS" : "MISS"; };
        std::fprintf(out, "targets (10,000 agents, open map):\n");
        std::fprintf(
            out, "  %s  Tide's deepest overlap %.3f radii (target <= 0.5), %zu pairs deeper than 0.5 r (target 0)\n",
            verdict(deepest10k <= 0.5f && deep10k == 0), static_cast<double>(deepest10k), deep10k);
        std::fprintf(out, "  %s  ORCA step / Tide step %.2fx (target >= 3x)\n", verdict(ratio10k >= 3.0), ratio10k);
    }
}

}  // namespace

nlohmann::json run_crowd_bench(const CrowdBenchOptions& o, const JobSystemFactory& make_jobs, std::FILE* out) {
    nlohmann::json rows = nlohmann::json::array();
    std::fprintf(out, "tide bench crowd: median step time (dt 1/60 s) after 1 s of warm-up, %d reps\n", o.reps);
    std::fprintf(out, "  %-44s %12s %12s\n", "case", "median ms", "vs all-pairs");
    const Setup ref_setup = make_setup(256, 2000);
    const double all_pairs = time_all_pairs(ref_setup, o.reps);
    const std::unique_ptr<JobSystem> one_threads = make_jobs(1, 0), two_threads = make_jobs(2, 0);
    JobSystem& one = *one_threads;
    JobSystem& two = *two_threads;
    const double tide2000 = time_steps(ref_setup, o.reps, two);
    std::fprintf(out, "  %-44s %12.3f %12s\n", "all-pairs separation, 2000 agents (reference)", all_pairs, "1.0x");
    std::fprintf(out, "  %-44s %12.3f %11.1fx\n", "Tide crowd step, 2000 agents, 2 threads", tide2000,
                 all_pairs / tide2000);
    rows.push_back({{"case", "all_pairs_2000"}, {"median_ms", all_pairs}});
    rows.push_back({{"case", "tide_2000_2t"}, {"median_ms", tide2000}, {"ratio_vs_all_pairs", all_pairs / tide2000}});
    double t10k = 0.0, t100k = 0.0;
    for (int size : o.sizes) {
        for (int n : o.agents) {
            std::fprintf(stderr, "[crowd] %dx%d, %d agents\n", size, size, n);
            const Setup s = make_setup(size, n);
            for (int threads : {1, 2}) {
                const double ms = time_steps(s, o.reps, threads == 1 ? one : two);
                char name[96];
                std::snprintf(name, sizeof name, "%dx%d map, %d agents, %d thread(s)", size, size, n, threads);
                std::fprintf(out, "  %-44s %12.3f\n", name, ms);
                rows.push_back({{"case", name}, {"map", size}, {"agents", n}, {"threads", threads}, {"median_ms", ms}});
                if (size == 256 && threads == 2 && n == 10000) t10k = ms;
                if (size == 256 && threads == 2 && n == 100000) t100k = ms;
                const double packed = time_steps(s, o.reps, threads == 1 ? one : two, true);
                std::snprintf(name, sizeof name, "%dx%d map, %zu packed at the goal, %d t", size, size, s.packed.size(),
                              threads);
                std::fprintf(out, "  %-44s %12.3f\n", name, packed);
                rows.push_back({{"case", name},
                                {"map", size},
                                {"agents", s.packed.size()},
                                {"threads", threads},
                                {"dense", true},
                                {"median_ms", packed}});
                if (threads == 2) {
                    for (const bool sleep : {true, false}) {
                        const Settled st = time_settled(s, o.reps, two, sleep);
                        std::snprintf(name, sizeof name, "%dx%d map, %zu packed, settled, 2 t%s", size, size,
                                      s.packed.size(), sleep ? "" : ", awake");
                        char when[48];
                        if (st.settled_s >= 0.0)
                            std::snprintf(when, sizeof when, "all arrived at %.1f s", st.settled_s);
                        else
                            std::snprintf(when, sizeof when, "not all arrived in 30 s");
                        std::fprintf(out, "  %-44s %12.3f   (%s, %zu asleep)\n", name, st.median_ms, when, st.asleep);
                        rows.push_back({{"case", name},
                                        {"map", size},
                                        {"agents", s.packed.size()},
                                        {"threads", 2},
                                        {"dense", true},
                                        {"settled", true},
                                        {"sleep", sleep},
                                        {"settled_s", st.settled_s},
                                        {"asleep", st.asleep},
                                        {"median_ms", st.median_ms}});
                    }
                }
                if (size == 256 && n == 10000) {
                    const double off = time_steps(s, o.reps, threads == 1 ? one : two, false, false);
                    std::snprintf(name, sizeof name, "%dx%d map, %d agents, %d t, no line of sight", size, size, n,
                                  threads);
                    std::fprintf(out, "  %-44s %12.3f\n", name, off);
                    rows.push_back({{"case", name},
                                    {"map", size},
                                    {"agents", n},
                                    {"threads", threads},
                                    {"line_of_sight", false},
                                    {"median_ms", off}});
                }
            }
        }
    }
    auto verdict = [](bool ok) { return ok ? "PASS" : "MISS"; };
    std::fprintf(out, "targets (2 threads, 256x256 map):\n");
    if (t10k > 0)
        std::fprintf(out, "  %s  10,000 agents: %.3f ms per step (target <= 1 ms)\n", verdict(t10k <= 1.0), t10k);
    if (t100k > 0)
        std::fprintf(out, "  %s  100,000 agents: %.3f ms per step (target <= 10 ms)\n", verdict(t100k <= 10.0), t100k);
    std::fprintf(out, "  %s  vs all-pairs at 2,000 agents: %.1fx (target >= 50x)\n",
                 verdict(all_pairs / tide2000 >= 50.0), all_pairs / tide2000);
    if (o.orca) run_orca_section(o, two, out, rows);
    return nlohmann::json{{"rows", rows}, {"reps", o.reps}};
}

}  // namespace tide::bench
