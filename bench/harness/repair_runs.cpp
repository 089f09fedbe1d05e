// The measuring run of `tide bench repair`; see repair_runs.hpp.

#include "repair_runs.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "provenance.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "timing.hpp"

namespace tide::bench {
namespace {

struct Series {
    explicit Series(std::string n) : name(std::move(n)) {}
    std::string name;
    std::vector<double> ms;
    std::vector<double> touched;
    std::size_t rebuilt = 0;
};

}  // namespace

RepairBenchReport run_repair_bench(const RepairBenchOptions& o, std::FILE* out) {
    const Provenance prov = provenance();
    std::fprintf(out, "tide bench repair: %dx%d random weighted map (seed %llu), %d edits, %d timed builds\n%s\n",
                 o.size, o.size, static_cast<unsigned long long>(o.seed), o.edits, o.reps, prov.line().c_str());
    auto generated = generate_random_map({o.size, o.size, 0.20, 0.15, 0.07, o.seed});
    require_ok(generated);
    CostField cost = std::move(generated.value());
    const auto goal_result = bench_goal(cost);
    require_ok(goal_result);
    const Cell goal = *goal_result;
    const FieldParams params;

    FieldBuilder builder;
    FlowField field;
    FieldRepairState state;
    require_ok(builder.build(cost, {&goal, 1}, params, field, state));  // warm-up
    std::vector<double> build_ms;
    std::vector<double> plain_build_ms;
    for (int i = 0; i < o.reps; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        require_ok(builder.build(cost, {&goal, 1}, params, field, state));
        build_ms.push_back(ms_since(t0));
        FlowField plain;
        FieldBuilder plain_builder;
        require_ok(plain_builder.build(cost, {&goal, 1}, params, plain));  // allocate outside the timing
        t0 = std::chrono::steady_clock::now();
        require_ok(plain_builder.build(cost, {&goal, 1}, params, plain));
        plain_build_ms.push_back(ms_since(t0));
    }
    const double build = percentile(build_ms, 0.5);

    Series wall_on{"3x3 wall placed"}, wall_off{"3x3 wall removed"}, cost_on{"3x3 cost changed"},
        cost_off{"3x3 cost restored"}, query{"would-block 3x3"};
    std::size_t blocking = 0;
    SplitMix64 rng(o.seed * 7919 + 17);
    // Times the repair of the rectangle [x0, x1] x [y0, y1] into series `s`.
    auto repair_rect = [&](Series& s, int x0, int y0, int x1, int y1) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = builder.repair_rect(cost, x0, y0, x1, y1, field, state);
        const double ms = ms_since(t0);
        require_ok(r);
        s.ms.push_back(ms);
        s.touched.push_back(static_cast<double>(r->touched_cells));
        s.rebuilt += r->rebuilt ? 1 : 0;
    };
    auto repair = [&](Series& s, int x, int y) { repair_rect(s, x, y, x + 2, y + 2); };
    for (int e = 0; e < o.edits; ++e) {
        int x = 0, y = 0;
        do {  // a stamp that does not cover the goal
            x = static_cast<int>(rng.next() % static_cast<std::uint64_t>(o.size - 2));
            y = static_cast<int>(rng.next() % static_cast<std::uint64_t>(o.size - 2));
        } while (goal.x >= x && goal.x <= x + 2 && goal.y >= y && goal.y <= y + 2);
        Cost saved[9];
        std::vector<Cell> stamp;
        for (int k = 0; k < 9; ++k) {
            saved[k] = cost.at(x + k % 3, y + k / 3);
            stamp.push_back({x + k % 3, y + k / 3});
        }
        auto t0 = std::chrono::steady_clock::now();
        const auto answer = builder.would_block(cost, field, params, stamp);
        query.ms.push_back(ms_since(t0));
        require_ok(answer);
        query.touched.push_back(static_cast<double>(answer->examined_cells));
        blocking += answer->blocks ? 1 : 0;

        cost.fill_rect(x, y, x + 2, y + 2, kCostWall);
        repair(wall_on, x, y);
        for (int k = 0; k < 9; ++k) cost.set(x + k % 3, y + k / 3, saved[k]);
        repair(wall_off, x, y);

        // A cost change somewhere else: open ground becomes swamp, anything else plain ground.
        x = static_cast<int>(rng.next() % static_cast<std::uint64_t>(o.size - 2));
        y = static_cast<int>(rng.next() % static_cast<std::uint64_t>(o.size - 2));
        for (int k = 0; k < 9; ++k) {
            saved[k] = cost.at(x + k % 3, y + k / 3);
            if (saved[k] != kCostWall) cost.set(x + k % 3, y + k / 3, saved[k] == kCostPlain ? kCostSwamp : kCostPlain);
        }
        repair(cost_on, x, y);
        for (int k = 0; k < 9; ++k) cost.set(x + k % 3, y + k / 3, saved[k]);
        repair(cost_off, x, y);
    }

    // Worst case: a wall across the map just east of the goal seals the eastern half, then goes.
    const int seal_x = std::min(goal.x + 2, o.size - 1);
    std::vector<Cost> column(static_cast<std::size_t>(o.size));
    for (int y = 0; y < o.size; ++y) column[static_cast<std::size_t>(y)] = cost.at(seal_x, y);
    Series seal{"seal half the map"}, unseal{"reopen it"};
    auto timed_column = [&](Series& s) { repair_rect(s, seal_x, 0, seal_x, o.size - 1); };
    for (int round = 0; round < 5; ++round) {
        cost.fill_rect(seal_x, 0, seal_x, o.size - 1, kCostWall);
        timed_column(seal);
        for (int y = 0; y < o.size; ++y) cost.set(seal_x, y, column[static_cast<std::size_t>(y)]);
        timed_column(unseal);
    }

    // Exactness of the whole sequence.
    FieldBuilder fresh_builder;
    FlowField fresh;
    require_ok(fresh_builder.build(cost, {&goal, 1}, params, fresh));
    const bool exact =
        std::memcmp(fresh.integration().data(), field.integration().data(), field.integration().size_bytes()) == 0 &&
        std::equal(fresh.directions().begin(), fresh.directions().end(), field.directions().begin());

    std::fprintf(out, "\nfull build with repair state: median %.3f ms (plain build %.3f ms)\n", build,
                 percentile(plain_build_ms, 0.5));
    std::fprintf(out, "%-20s %10s %10s %10s %10s %14s %8s\n", "case", "median ms", "p90 ms", "max ms", "median/build",
                 "median touched", "rebuilt");
    nlohmann::json rows = nlohmann::json::array();
    double worst_ratio = 0.0;
    for (Series* s : {&wall_on, &wall_off, &cost_on, &cost_off, &query, &seal, &unseal}) {
        const double med = percentile(s->ms, 0.5);
        std::fprintf(out, "%-20s %10.4f %10.4f %10.4f %11.2f%% %14.0f %8zu\n", s->name.c_str(), med,
                     percentile(s->ms, 0.9), percentile(s->ms, 1.0), 100.0 * med / build, percentile(s->touched, 0.5),
                     s->rebuilt);
        // The worst case is judged on medians: one sample of a 100 ms operation on a shared machine
        // is too noisy to hold to a 1.5x line; the maxima are printed beside them.
        if (s != &query)
            worst_ratio = std::max(worst_ratio, (s == &seal || s == &unseal ? med : percentile(s->ms, 1.0)) / build);
        rows.push_back({{"case", s->name},
                        {"median_ms", med},
                        {"p90_ms", percentile(s->ms, 0.9)},
                        {"max_ms", percentile(s->ms, 1.0)},
                        {"median_vs_build", med / build},
                        {"median_touched", percentile(s->touched, 0.5)},
                        {"rebuilt", s->rebuilt}});
    }
    const double edit_ratio = std::max({percentile(wall_on.ms, 0.5), percentile(wall_off.ms, 0.5),
                                        percentile(cost_on.ms, 0.5), percentile(cost_off.ms, 0.5)}) /
                              build;
    const double query_ratio = percentile(query.ms, 0.5) / build;
    std::fprintf(out, "\n  %s  median repair after a 3x3 edit: %.2f%% of a build (target <= 10%%, aim 2%%)\n",
                 edit_ratio <= 0.10 ? "PASS" : "MISS", 100.0 * edit_ratio);
    std::fprintf(out,
                 "  %s  slowest repair (3x3 edits: max; seal, reopen: median of 5): %.2fx a build (target <= 1.5x)\n",
                 worst_ratio <= 1.5 ? "PASS" : "MISS", worst_ratio);
    std::fprintf(out, "  %s  median would-block query: %.2f%% of a build (aim < 10%%; %zu of %d stamps block)\n",
                 query_ratio < 0.10 ? "PASS" : "MISS", 100.0 * query_ratio, blocking, o.edits);
    std::fprintf(out, "  %s  repaired field bit-identical to a fresh build after %d edits\n", exact ? "PASS" : "FAIL",
                 4 * o.edits + 10);
    RepairBenchReport report;
    report.exact = exact;
    report.json = provenance_json(prov);
    report.json.update({{"size", o.size},
                        {"seed", o.seed},
                        {"edits", o.edits},
                        {"build_median_ms", build},
                        {"plain_build_median_ms", percentile(plain_build_ms, 0.5)},
                        {"edit_median_vs_build", edit_ratio},
                        {"worst_vs_build", worst_ratio},
                        {"query_median_vs_build", query_ratio},
                        {"exact", exact},
                        {"rows", rows}});
    return report;
}

}  // namespace tide::bench
