// The measuring run of `tide bench sample`; see sample_runs.hpp.

#include "sample_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "provenance.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"
#include "tide/generate.hpp"
#include "tide/jobs.hpp"
#include "tide/steering.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

// Positions on cells with a move, structure of arrays.
struct Positions {
    std::vector<float> x, y;
    std::size_t size() const { return x.size(); }
};

// n random positions in cells of `view` that have a move; with `cells`, only in those cells.
Positions random_positions(const FieldView& view, std::size_t n, SplitMix64& rng, const std::vector<Cell>* cells) {
    Positions p;
    p.x.reserve(n);
    p.y.reserve(n);
    const int W = view.width(), H = view.height();
    while (p.size() < n) {
        Cell c;
        if (cells) {
            c = (*cells)[rng.below(cells->size())];
        } else {
            c = {static_cast<int>(rng.below(static_cast<std::uint64_t>(W))),
                 static_cast<int>(rng.below(static_cast<std::uint64_t>(H)))};
        }
        if (!is_move(view.direction(c.x, c.y))) continue;
        p.x.push_back(static_cast<float>(c.x) + static_cast<float>(rng.uniform()));
        p.y.push_back(static_cast<float>(c.y) + static_cast<float>(rng.uniform()));
    }
    return p;
}

// Median over `reps` passes (after one warm-up) of `pass()`, in ns per item of `items`.
template <class Pass>
double ns_per_item(int reps, std::size_t items, Pass&& pass) {
    pass();
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        pass();
        ms.push_back(ms_since(t0));
    }
    return median(ms) * 1e6 / static_cast<double>(items);
}

struct Table {
    std::FILE* out;
    nlohmann::json rows = nlohmann::json::array();
    void row(const std::string& map, const std::string& query, double ns, const std::string& note = "") {
        std::fprintf(out, "  %-24s %-44s %9.2f ns%s%s\n", map.c_str(), query.c_str(), ns, note.empty() ? "" : "  ",
                     note.c_str());
        rows.push_back({{"map", map}, {"query", query}, {"ns_per_direction", ns}, {"note", note}});
    }
};

volatile float g_sink = 0.0f;  // keeps the compiler from dropping the measured calls

// The queries every map gets: single calls, batches, and the walking run with memory.
struct QueryTimes {
    double raw = 0.0;         // blend, single calls
    double safe_batch = 0.0;  // wall-safe batch
    double walk_steer = 0.0;  // steer with memory while walking, ns per unit-frame
    double walk_raw = 0.0;    // the blend at the same positions
};

QueryTimes time_queries(Table& t, const std::string& map, const Steering& grid, const Steering& world,
                        const Positions& p, const SampleBenchOptions& o, SplitMix64& rng,
                        const std::vector<Cell>* cells) {
    QueryTimes q;
    const FieldView& view = grid.view();
    const std::size_t n = p.size();
    std::vector<float> ox(n), oy(n);
    t.row(map, "move (raw cell move), single", ns_per_item(o.reps, n, [&] {
              float s = 0.0f;
              for (std::size_t i = 0; i < n; ++i) s += grid.move({p.x[i], p.y[i]}).x;
              g_sink = s;
          }));
    q.raw = ns_per_item(o.reps, n, [&] {
        float s = 0.0f;
        for (std::size_t i = 0; i < n; ++i) s += view.blend({p.x[i], p.y[i]}).x;
        g_sink = s;
    });
    t.row(map, "blend (raw, not wall-safe), single", q.raw);
    t.row(map, "sample (wall-safe), single", ns_per_item(o.reps, n, [&] {
              float s = 0.0f;
              for (std::size_t i = 0; i < n; ++i) s += view.sample({p.x[i], p.y[i]}).x;
              g_sink = s;
          }));
    q.safe_batch = ns_per_item(o.reps, n, [&] {
        grid.sample(p.x, p.y, ox, oy);
        g_sink = ox[n / 2];
    });
    t.row(map, "sample (wall-safe), batch", q.safe_batch);
    std::vector<float> wx(n), wy(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 w = world.transform().to_world({p.x[i], p.y[i]});
        wx[i] = w.x;
        wy[i] = w.y;
    }
    t.row(map, "sample (wall-safe), batch, world units", ns_per_item(o.reps, n, [&] {
              world.sample(wx, wy, ox, oy);
              g_sink = ox[n / 2];
          }));
    const std::size_t few = std::min<std::size_t>(n, 1 << 14);
    t.row(map, "steer (straightened), single, no memory", ns_per_item(std::max(1, o.reps / 2), few, [&] {
              float s = 0.0f;
              for (std::size_t i = 0; i < few; ++i) s += grid.steer({p.x[i], p.y[i]}).x;
              g_sink = s;
          }));

    // The walking run: units follow steer() with memory at 4 cells/s, 30 frames/s; a unit that
    // arrives starts again at a random place (so the run stays busy). Per frame, the steer batch and
    // the blend at the same positions are timed.
    const auto U = static_cast<std::size_t>(o.units);
    Positions u = random_positions(view, U, rng, cells);
    std::vector<SteerMemory> memory(U);
    std::vector<float> dx(U), dy(U);
    std::vector<double> steer_ms, raw_ms;
    const auto run0 = std::chrono::steady_clock::now();
    double whole_steer_ms = 0.0;
    for (int f = 0; f < o.frames; ++f) {
        auto t0 = std::chrono::steady_clock::now();
        grid.steer(u.x, u.y, memory, dx, dy);
        steer_ms.push_back(ms_since(t0));
        whole_steer_ms += steer_ms.back();
        t0 = std::chrono::steady_clock::now();
        float s = 0.0f;
        for (std::size_t i = 0; i < U; ++i) s += view.blend({u.x[i], u.y[i]}).x;
        raw_ms.push_back(ms_since(t0));
        g_sink = s;
        for (std::size_t i = 0; i < U; ++i) {
            if (dx[i] == 0.0f && dy[i] == 0.0f) {
                const Positions again = random_positions(view, 1, rng, cells);
                u.x[i] = again.x[0];
                u.y[i] = again.y[0];
                memory[i] = {};
                continue;
            }
            u.x[i] += dx[i] * (4.0f / 30.0f);
            u.y[i] += dy[i] * (4.0f / 30.0f);
        }
    }
    const double run_ms = ms_since(run0);
    q.walk_steer = median(steer_ms) * 1e6 / static_cast<double>(U);
    q.walk_raw = median(raw_ms) * 1e6 / static_cast<double>(U);
    char note[160];
    std::snprintf(note, sizeof note, "%d units x %d frames; whole-run mean %.2f ns; run %.0f ms", o.units, o.frames,
                  whole_steer_ms * 1e6 / static_cast<double>(U) / o.frames, run_ms);
    t.row(map, "steer with memory, walking units, batch", q.walk_steer, note);
    t.row(map, "blend at the same positions (baseline)", q.walk_raw);
    return q;
}

}  // namespace

SampleBenchReport run_sample_bench(const SampleBenchOptions& o, std::FILE* out) {
    const Provenance prov = provenance();
    std::fprintf(out, "tide bench sample: %d positions per map, median of %d passes, one thread\n%s\n", o.positions,
                 o.reps, prov.line().c_str());
    SampleBenchReport report;
    Table t{out};
    SplitMix64 rng(o.seed * 6151 + 3);
    const auto n = static_cast<std::size_t>(o.positions);

    // The 256x256 benchmark map, one goal field.
    {
        auto generated = generate_random_map({});
        require_ok(generated);
        const CostField cost = std::move(generated.value());
        const auto goal = bench_goal(cost);
        require_ok(goal);
        FieldBuilder builder;
        auto field = std::make_shared<FlowField>();
        require_ok(builder.build(cost, {&*goal, 1}, {}, *field));
        std::vector<double> build_ms;
        for (int r = 0; r < o.reps; ++r) {
            FlowField again;
            const auto t0 = std::chrono::steady_clock::now();
            require_ok(builder.build(cost, {&*goal, 1}, {}, again));
            build_ms.push_back(ms_since(t0));
        }
        const FieldView view{std::shared_ptr<const FlowField>(field)};
        auto grid = Steering::create(view, cost);
        require_ok(grid);
        auto world = Steering::create(view, cost, {}, GridTransform::y_up({-64.0f, 10.0f}, 0.5f, cost.height()));
        require_ok(world);
        const std::string map = "random256";
        std::fprintf(out, "\n  %s: field build %.3f ms (median of %d)\n", map.c_str(), median(build_ms), o.reps);
        t.row(map, "field build, per cell", median(build_ms) * 1e6 / static_cast<double>(cost.cells().size()));
        const Positions p = random_positions(view, n, rng, nullptr);
        const QueryTimes q = time_queries(t, map, *grid, *world, p, o, rng, nullptr);
        report.batch_safe_ns = q.safe_batch;
        report.steer_over_raw = q.walk_steer / q.walk_raw;
        report.json["random256"] = {{"build_ms", median(build_ms)}};
    }

    // The 4096x4096 map, planned hierarchically through the FieldService and routed for its units.
    if (o.huge) {
        auto made = make_builtin_map("huge");
        require_ok(made);
        BuiltinMap huge = std::move(made.value());
        SerialJobSystem jobs;
        FieldServiceConfig config;
        config.hierarchy_cells = 0;
        const auto t0 = std::chrono::steady_clock::now();
        auto service = FieldService::create(huge.cost, jobs, config);
        require_ok(service);
        const double graph_ms = ms_since(t0);
        std::vector<Cell> starts;
        const CellRect area = huge.spawn_area.value_or(CellRect{0, 0, huge.cost.width() - 1, huge.cost.height() - 1});
        while (starts.size() < static_cast<std::size_t>(o.units)) {
            const Cell c{area.x0 + static_cast<int>(rng.below(static_cast<std::uint64_t>(area.x1 - area.x0 + 1))),
                         area.y0 + static_cast<int>(rng.below(static_cast<std::uint64_t>(area.y1 - area.y0 + 1)))};
            if (huge.cost.passable(c.x, c.y)) starts.push_back(c);
        }
        const auto t1 = std::chrono::steady_clock::now();
        auto ticket = (*service)->request(huge.goals);
        require_ok(ticket);
        (*service)->wait_idle();
        (*service)->publish();
        require_ok((*service)->route(*ticket, starts));
        const double plan_ms = ms_since(t1);
        const FieldView view = (*service)->view(*ticket);
        auto grid = Steering::create(view, huge.cost);
        require_ok(grid);
        auto world = Steering::create(view, huge.cost, {}, GridTransform::y_up({0.0f, 0.0f}, 2.0f, huge.cost.height()));
        require_ok(world);
        const std::string map = "huge4096 (hierarchical)";
        std::fprintf(out, "\n  %s: sector graph %.0f ms, plan and route for %d units %.0f ms\n", map.c_str(), graph_ms,
                     o.units, plan_ms);
        // Positions in the cells the route built fields for: the units' own cells' sectors.
        std::vector<Cell> routed;
        for (const Cell c : starts)
            if (view.routed_at(c.x, c.y)) routed.push_back(c);
        const Positions p = random_positions(view, n, rng, &routed);
        time_queries(t, map, *grid, *world, p, o, rng, &routed);
        report.json["huge4096"] = {{"graph_ms", graph_ms}, {"plan_route_ms", plan_ms}};
    }

    std::fprintf(out,
                 "\n  targets: wall-safe batch sample <= 5 ns per sample on random256: %.2f ns (%s); straightened "
                 "(steer with memory) <= 10x the raw sample: %.2fx (%s)\n",
                 report.batch_safe_ns, report.batch_safe_ns <= 5.0 ? "met" : "MISSED", report.steer_over_raw,
                 report.steer_over_raw <= 10.0 ? "met" : "MISSED");
    report.json["provenance"] = provenance_json(prov);
    report.json["rows"] = t.rows;
    report.json["settings"] = {{"positions", o.positions}, {"reps", o.reps}, {"units", o.units}, {"frames", o.frames}};
    report.json["targets"] = {{"batch_safe_ns", report.batch_safe_ns}, {"steer_over_raw", report.steer_over_raw}};
    return report;
}

}  // namespace tide::bench
