// Route queries against the exact planner: reachability always agrees, paths are never cheaper
// than the optimum (values are costs of real paths) and close to it, the flow never loops, never
// enters a wall and never cuts a corner, and the accessors agree with the built sector fields.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hier/hier_checks.hpp"
#include "support/jobs.hpp"
#include "support/reference.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

struct RouteMap {
    CostField cost;
    SectorConfig config;
    std::string description;
};

SectorConfig sectors(int size, int limit, FieldParams params = {}, bool merge = true) {
    SectorConfig c;
    c.sector_size = size;
    c.portal_limit = limit;
    c.merge_runs = merge;
    c.params = params;
    return c;
}

FieldParams factor(double f) {
    FieldParams p;
    p.diagonal_factor = f;
    return p;
}

FieldParams four() {
    FieldParams p;
    p.connectivity = Connectivity::four;
    return p;
}

// Weighted random maps of both sector sizes, a maze (walls split sectors into many parts),
// 4-connectivity, diagonal factors sqrt 2, 1.4 and 1, full-range and dear costs.
std::vector<RouteMap> route_maps() {
    using test::HierCosts;
    using test::weighted_map;
    std::vector<RouteMap> maps;
    maps.push_back({weighted_map(96, 96, 0.2, HierCosts::presets, 1), sectors(16, 16), "96x96 presets 20%, sector 16"});
    maps.push_back(
        {weighted_map(128, 96, 0.25, HierCosts::presets, 2), sectors(32, 32), "128x96 presets 25%, sector 32"});
    maps.push_back({weighted_map(80, 80, 0.15, HierCosts::full_range, 3), sectors(16, 16, factor(1.4)),
                    "80x80 full range 15%, sector 16, factor 1.4"});
    maps.push_back({weighted_map(96, 80, 0.2, HierCosts::presets, 4), sectors(16, 16, four()),
                    "96x80 presets 20%, sector 16, four-connected"});
    maps.push_back({std::move(generate_maze(30, 30, 3).value()), sectors(16, 16), "maze 91x91, sector 16"});
    maps.push_back({weighted_map(100, 70, 0.3, HierCosts::presets, 6), sectors(16, 16, factor(1.0), false),
                    "100x70 presets 30%, sector 16, factor 1, no merging"});
    maps.push_back(
        {weighted_map(90, 90, 0.1, HierCosts::dear, 7), sectors(32, 16), "90x90 dear 10%, sector 32, limit 16"});
    RandomMapSpec spec;
    spec.width = 160;
    spec.height = 160;
    spec.seed = 8;
    maps.push_back({std::move(generate_random_map(spec).value()), sectors(32, 32), "160x160 benchmark mix, sector 32"});
    maps.push_back({std::move(generate_maze(20, 20, 9).value()), sectors(16, 8, four()),
                    "maze 61x61, sector 16, limit 8, four-connected"});
    return maps;
}

// Ratios of path cost to optimum over a set of queries.
struct Quality {
    std::size_t queries = 0;
    std::size_t unreachable = 0;
    std::size_t finite = 0;
    double sum = 0.0;
    double max = 1.0;
    std::string worst;
    std::size_t fields = 0;

    void add(double ratio, const std::string& what) {
        ++finite;
        sum += ratio;
        if (ratio > max) {
            max = ratio;
            worst = what;
        }
    }
    double mean() const { return finite > 0 ? sum / static_cast<double>(finite) : 1.0; }
    std::string text() const {
        char buf[256];
        std::snprintf(
            buf, sizeof buf, "%zu queries (%zu unreachable), mean ratio %.5f, max %.5f, %.1f fields per query", queries,
            unreachable, mean(), max, queries > 0 ? static_cast<double>(fields) / static_cast<double>(queries) : 0.0);
        return buf + (worst.empty() ? std::string() : ", worst: " + worst);
    }
};

// Every cell of every built sector: the accessors read the field, reachability agrees with the
// exact field, values are never below the optimum, and sample() at a cell centre is the cell's move.
void check_built_fields(const HierarchicalField& hf, const CostField& cost, const FlowField& exact,
                        const FieldBuilder& builder) {
    const SectorGraph& g = hf.graph();
    int faults = 0;
    for (int s = 0; s < g.sector_count(); ++s) {
        const SectorField* f = hf.sector_field(s);
        if (f == nullptr) continue;
        int x0, y0, x1, y1;
        g.sector_rect(s, x0, y0, x1, y1);
        ASSERT_EQ(f->x0, x0);
        ASSERT_EQ(f->y0, y0);
        ASSERT_EQ(f->width, x1 - x0);
        ASSERT_EQ(f->height, y1 - y0);
        ASSERT_EQ(f->integration.size(), static_cast<std::size_t>(f->width) * f->height);
        ASSERT_EQ(f->directions.size(), f->integration.size());
        for (int y = y0; y < y1; ++y) {
            for (int x = x0; x < x1; ++x) {
                const std::size_t o = static_cast<std::size_t>(y - y0) * f->width + (x - x0);
                const Direction d = hf.direction(x, y);
                const float v = hf.integration(x, y);
                auto fault = [&](const std::string& what) {
                    if (faults++ < 5) ADD_FAILURE() << "sector " << s << ", cell (" << x << ", " << y << "): " << what;
                };
                if (d != f->directions[o] ||
                    !(v == f->integration[o] || (std::isnan(v) && std::isnan(f->integration[o])))) {
                    fault("accessors differ from the sector field");
                }
                if (!cost.passable(x, y)) {
                    if (d != Direction::wall || v != kUnreachable) fault("wall not marked as a wall");
                    continue;
                }
                const bool has_path = is_move(d) || d == Direction::goal;
                if (has_path && !exact.reachable(x, y)) {
                    fault("field shows a path, the exact field none");
                    continue;
                }
                if (!has_path) {
                    if (exact.reachable(x, y) && test::final_reachability(*f)) {
                        fault("field shows no path, the exact field one");
                    }
                    continue;
                }
                if (!(v < kUnreachable)) fault("a move but no value");
                const double opt = builder.exact_integration(x, y);
                if (!(v >= opt * (1 - 1e-5) - 1e-4)) {
                    fault("value " + std::to_string(v) + " below the optimum " + std::to_string(opt));
                }
                // sample() at a cell centre: the cell's own move ((0, 0) at a goal).
                const Vec2 sv = hf.sample({static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f});
                Vec2 want{};
                if (is_move(d)) {
                    const int m = static_cast<int>(d);
                    const float len = (m & 1) ? std::sqrt(2.0f) : 1.0f;
                    want = {static_cast<float>(kDirectionDx[m]) / len, static_cast<float>(kDirectionDy[m]) / len};
                }
                if (std::abs(sv.x - want.x) > 1e-5f || std::abs(sv.y - want.y) > 1e-5f) {
                    fault("sample() at the centre (" + std::to_string(sv.x) + ", " + std::to_string(sv.y) +
                          ") is not the cell's move");
                }
            }
        }
    }
}

// One query: a fresh plan for `goals`, a route from `start`, the path cost, checked against the
// exact field; the ratio goes into `q`. `deep`: also every built field's cells and random cells'
// reachability.
void check_query(const CostField& cost, const SectorGraph& g, std::span<const Cell> goals, Cell start,
                 const RouteConfig& rc, const FlowField& exact, const FieldBuilder& builder, Quality& q,
                 const std::string& what, bool deep, std::uint64_t& rng) {
    SCOPED_TRACE(what);
    auto hf = HierarchicalField::create(cost, g, goals, rc);
    ASSERT_TRUE(hf.ok()) << hf.error().message;
    auto routed = hf->route({&start, 1});
    ASSERT_TRUE(routed.ok()) << routed.error().message;
    std::size_t steps = 0;
    auto pc = hierarchical_path_cost(*hf, cost, start, &steps);
    ASSERT_TRUE(pc.ok()) << pc.error().message;
    q.fields += hf->built_sectors();
    ++q.queries;
    const double opt = builder.exact_integration(start.x, start.y);
    ASSERT_EQ(std::isinf(*pc), std::isinf(opt)) << "path cost " << *pc << ", optimum " << opt;
    EXPECT_EQ(hf->reachable(start.x, start.y), !std::isinf(opt));
    if (std::isinf(opt)) {
        ++q.unreachable;
        EXPECT_FALSE(is_move(hf->direction(start.x, start.y)));
    } else if (opt == 0.0) {
        EXPECT_EQ(*pc, 0.0);
        EXPECT_EQ(steps, 0u);
        q.add(1.0, what);
    } else {
        const double ratio = *pc / opt;
        EXPECT_GE(ratio, 1.0 - 1e-6) << "path cost " << *pc << " below the optimum " << opt;
        q.add(ratio, what);
    }
    // The same path, step by step.
    const test::FlowWalk walk = test::walk_flow(*hf, cost, g.config().params, start);
    EXPECT_EQ(walk.fault, "");
    EXPECT_EQ(walk.reached, !std::isinf(opt));
    if (walk.reached) {
        EXPECT_NEAR(walk.cost, *pc, 1e-9 * std::max(1.0, *pc));
        EXPECT_EQ(walk.steps, steps);
    }
    if (!deep) return;
    check_built_fields(*hf, cost, exact, builder);
    for (int k = 0; k < 40; ++k) {
        SplitMix64 r{rng};
        const int x = static_cast<int>(r.below(static_cast<std::uint64_t>(cost.width())));
        const int y = static_cast<int>(r.below(static_cast<std::uint64_t>(cost.height())));
        rng = r.state;
        EXPECT_EQ(hf->reachable(x, y), exact.reachable(x, y)) << "reachable(" << x << ", " << y << ")";
    }
}

// Random (start, goal) pairs on every map, with the given route settings.
Quality run_pairs(const RouteConfig& rc, int pairs_per_map) {
    Quality q;
    std::uint64_t rng = 12345;
    for (const RouteMap& m : route_maps()) {
        SCOPED_TRACE(m.description);
        auto g = SectorGraph::build(m.cost, m.config);
        EXPECT_TRUE(g.ok()) << g.error().message;
        if (!g.ok()) continue;
        FieldBuilder builder;
        FlowField exact;
        for (int k = 0; k < pairs_per_map; ++k) {
            const Cell goal = test::random_open_cell(m.cost, rng);
            const Cell start = test::random_open_cell(m.cost, rng);
            auto built = builder.build(m.cost, {&goal, 1}, m.config.params, exact);
            EXPECT_TRUE(built.ok());
            const std::string what = m.description + ", start (" + std::to_string(start.x) + ", " +
                                     std::to_string(start.y) + "), goal (" + std::to_string(goal.x) + ", " +
                                     std::to_string(goal.y) + ")";
            check_query(m.cost, *g, {&goal, 1}, start, rc, exact, builder, q, what, k % 5 == 0, rng);
            if (::testing::Test::HasFatalFailure()) return q;
        }
    }
    return q;
}

TEST(HierRoute, DefaultSettingsAreCloseToTheOptimum) {
    const Quality q = run_pairs(RouteConfig{}, 30);
    std::printf("[ quality  ] default settings: %s\n", q.text().c_str());
    RecordProperty("quality", q.text());
    EXPECT_GT(q.unreachable, 0u);  // both kinds of answer were exercised
    EXPECT_GT(q.finite, 200u);
    EXPECT_LE(q.mean(), 1.01) << q.text();
    EXPECT_LE(q.max, 1.05) << q.text();
}

TEST(HierRoute, BareRouteStillFindsRealPathsWithoutLoops) {
    // No corridor, no corner fill, no extra pass: only the route's own sectors. Paths may be
    // further from the optimum, but are real, loop-free, and reachability still agrees.
    RouteConfig rc;
    rc.corridor = 0;
    rc.fill_corners = false;
    rc.short_route = 0;
    const Quality q = run_pairs(rc, 30);
    std::printf("[ quality  ] bare route (corridor 0, no corner fill, no refine): %s\n", q.text().c_str());
    RecordProperty("quality", q.text());
    EXPECT_GT(q.unreachable, 0u);
}

// RouteConfig::corner_reach: a reach as wide as the map fills every corner (the defaults), and
// smaller ones fill fewer, down to about none; every setting stays sound (check_query walks every
// path) and close to the optimum.
TEST(HierRoute, CornerReachFillsOnlyTheCornersNearTheWay) {
    RouteConfig none;
    none.fill_corners = false;
    RouteConfig far;
    far.corner_reach = kMaxDimension;
    RouteConfig zero;
    zero.corner_reach = 0;
    RouteConfig some;
    some.corner_reach = 4;
    const Quality q_none = run_pairs(none, 30), q_all = run_pairs(RouteConfig{}, 30);
    const Quality q_far = run_pairs(far, 30), q_zero = run_pairs(zero, 30), q_some = run_pairs(some, 30);
    std::printf("[ quality  ] fields built in all: no fill %zu, reach 0 %zu, reach 4 %zu, every corner %zu\n",
                q_none.fields, q_zero.fields, q_some.fields, q_all.fields);
    std::printf("[ quality  ] corner reach 4: %s\n", q_some.text().c_str());
    EXPECT_EQ(q_far.fields, q_all.fields);
    EXPECT_EQ(q_far.sum, q_all.sum);
    EXPECT_LT(q_none.fields, q_all.fields);
    EXPECT_LE(q_none.fields, q_zero.fields);
    EXPECT_LT(q_zero.fields, q_some.fields);
    EXPECT_LT(q_some.fields, q_all.fields);
    EXPECT_LE(q_some.mean(), 1.01) << q_some.text();
    EXPECT_LE(q_some.max, 1.05) << q_some.text();
    // Refused: below -1, above the largest map side.
    CostField cost = CostField::create(32, 32).value();
    const SectorGraph g = SectorGraph::build(cost, SectorConfig{16, 16}).value();
    const Cell goal{1, 1};
    for (const int reach : {-2, kMaxDimension + 1}) {
        RouteConfig bad;
        bad.corner_reach = reach;
        auto made = HierarchicalField::create(cost, g, {&goal, 1}, bad);
        ASSERT_FALSE(made.ok());
        EXPECT_NE(made.error().message.find("corner reach " + std::to_string(reach) + " is outside -1..16384"),
                  std::string::npos)
            << made.error().message;
    }
}

TEST(HierRoute, WiderCorridorAndRefinePassesStaySound) {
    // The other settings (a ring of neighbours, an extra pass over the route) must be as sound as
    // the default; their quality is printed for comparison.
    RouteConfig rc;
    rc.corridor = 1;
    rc.refine_passes = 1;
    const Quality q = run_pairs(rc, 30);
    std::printf("[ quality  ] corridor 1, refine 1: %s\n", q.text().c_str());
    RecordProperty("quality", q.text());
    EXPECT_GT(q.unreachable, 0u);
}

// Queries on one map with a fixed goal set and the default settings; returns the quality.
Quality run_goals(const CostField& cost, const SectorConfig& config, const std::vector<Cell>& goals,
                  const std::vector<Cell>& starts, const std::string& what) {
    Quality q;
    auto g = SectorGraph::build(cost, config);
    EXPECT_TRUE(g.ok()) << g.error().message;
    if (!g.ok()) return q;
    FieldBuilder builder;
    FlowField exact;
    EXPECT_TRUE(builder.build(cost, goals, config.params, exact).ok());
    std::uint64_t rng = 99;
    for (std::size_t k = 0; k < starts.size(); ++k) {
        const Cell s = starts[k];
        check_query(cost, *g, goals, s, RouteConfig{}, exact, builder, q,
                    what + ", start (" + std::to_string(s.x) + ", " + std::to_string(s.y) + ")", k % 4 == 0, rng);
    }
    return q;
}

std::vector<Cell> random_starts(const CostField& cost, int count, std::uint64_t seed) {
    std::vector<Cell> out;
    for (int k = 0; k < count; ++k) out.push_back(test::random_open_cell(cost, seed));
    return out;
}

TEST(HierRoute, TraceEnteringASectorOfTwoPartsFollowsThePartItIsIn) {
    // A wall splits sector row 1 across the map and ends in the fourth sector column: the start
    // (below it) must walk east around its end, then back west to the goal (above it). The trace
    // of the route enters sector (1, 1) below the wall, where the nodes above it have far lower
    // costs to go but cannot be reached: choosing the node by cost and distance alone skipped the
    // sectors around the wall's end (they were built later, seeded by the search's costs alone,
    // and the path detoured to their portal nodes).
    auto cost = CostField::create(80, 48);
    ASSERT_TRUE(cost.ok());
    for (int x = 0; x <= 60; ++x) cost->set(x, 23, kCostWall);
    const Cell goal{20, 12}, start{5, 28};
    auto g = SectorGraph::build(*cost, sectors(16, 16));
    ASSERT_TRUE(g.ok()) << g.error().message;
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(*cost, {&goal, 1}, FieldParams{}, exact).ok());
    for (int budget : {0, 2}) {
        RouteConfig rc;
        rc.settle_budget = budget;
        Quality q;
        std::uint64_t rng = 5;
        check_query(*cost, *g, {&goal, 1}, start, rc, exact, builder, q, "settle " + std::to_string(budget), true, rng);
        EXPECT_NEAR(q.max, 1.0, 1e-9) << q.text();
        auto hf = HierarchicalField::create(*cost, *g, {&goal, 1}, rc);
        ASSERT_TRUE(hf.ok());
        ASSERT_TRUE(hf->route({&start, 1}).ok());
        for (int sx = 0; sx < 4; ++sx) {  // the way round the wall's end is on the route
            ASSERT_NE(hf->sector_field(g->sector_of(sx * 16, 28)), nullptr) << "sector column " << sx;
            EXPECT_TRUE(hf->sector_field(g->sector_of(sx * 16, 28))->routed) << "sector column " << sx;
        }
    }
}

TEST(HierRoute, SettlingMakesMazeRoutesNearlyExact) {
    // Maze routes pass sectors several times and turn inside them, so a field built before its
    // neighbours is seeded by node costs that overestimate theirs. Settling rebuilds such fields
    // until nothing drops by more than 1% + 0.01, so the paths come within that of the best path
    // through the route's sectors; here the route is forced, so that is the optimum. Without
    // settling, the paths are measurably longer.
    auto maze = generate_maze(40, 40, 21);
    ASSERT_TRUE(maze.ok());
    const CostField& cost = *maze;
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok()) << g.error().message;
    FieldBuilder builder;
    FlowField exact;
    Quality settled, unsettled;
    std::uint64_t rng = 77;
    for (int k = 0; k < 40; ++k) {
        const Cell goal = test::random_open_cell(cost, rng);
        const Cell start = test::random_open_cell(cost, rng);
        ASSERT_TRUE(builder.build(cost, {&goal, 1}, FieldParams{}, exact).ok());
        const std::string what = "start (" + std::to_string(start.x) + ", " + std::to_string(start.y) + "), goal (" +
                                 std::to_string(goal.x) + ", " + std::to_string(goal.y) + ")";
        RouteConfig on, off;
        on.settle_budget = 16;
        off.settle_budget = 0;
        check_query(cost, *g, {&goal, 1}, start, on, exact, builder, settled, what, k % 8 == 0, rng);
        check_query(cost, *g, {&goal, 1}, start, off, exact, builder, unsettled, what, false, rng);
    }
    std::printf("[ quality  ] maze 121x121, settled: %s\n", settled.text().c_str());
    std::printf("[ quality  ] maze 121x121, not settled: %s\n", unsettled.text().c_str());
    EXPECT_LE(settled.max, 1.011) << settled.text();
    EXPECT_GT(unsettled.max, settled.max + 0.01) << unsettled.text();
}

TEST(HierRoute, StartSectorIsRebuiltWithItsNewNeighbours) {
    // route(): "the starts' sectors first, then the sectors on their routes, goal first, then the
    // start sectors again with their new neighbours". A start in the goal's sector has its field
    // built first, seeded only by neighbours' node costs; once its route neighbours have fields
    // it must be rebuilt from them. Here a wall splits the goal's sector (16..31 x 16..31) so
    // that the start's best path leaves it over the wall's top, through sector 1.
    CostField cost = std::move(CostField::create(48, 48).value());
    cost.fill_rect(20, 16, 20, 31, kCostWall);
    cost.fill_rect(16, 31, 31, 31, kCostWall);
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok());
    const Cell goal{18, 20};
    const Cell start{25, 20};
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    const int home = g->sector_of(start.x, start.y);
    const SectorField* f = hf->sector_field(home);
    ASSERT_NE(f, nullptr);
    std::uint16_t built = 0;
    for (int k = 0; k < kDirectionCount; ++k) {
        const int tx = home % g->sectors_x() + kDirectionDx[k], ty = home / g->sectors_x() + kDirectionDy[k];
        if (tx < 0 || ty < 0 || tx >= g->sectors_x() || ty >= g->sectors_y()) continue;
        if (hf->sector_field(ty * g->sectors_x() + tx) != nullptr) built |= static_cast<std::uint16_t>(1u << k);
    }
    EXPECT_NE(built & (1u << 6), 0u) << "sector 1 (north) is on the route";
    EXPECT_EQ(built & ~f->seeded_from, 0)
        << "neighbours with a field: " << built << ", seeded from: " << f->seeded_from;
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, exact).ok());
    auto pc = hierarchical_path_cost(*hf, cost, start);
    ASSERT_TRUE(pc.ok());
    EXPECT_LE(*pc / builder.exact_integration(start.x, start.y), 1.05)
        << "path " << *pc << ", optimum " << builder.exact_integration(start.x, start.y);
}

TEST(HierRoute, StartsRoutedOneAfterAnotherOnOneField) {
    // Units ordered to one goal at different times share one plan: each route() call must still
    // give its start a near-optimal path, whatever earlier calls built; and the earlier starts'
    // paths stay sound after later calls rebuilt fields.
    Quality q;
    std::uint64_t rng = 777;
    const std::vector<RouteMap> maps = route_maps();
    for (std::size_t m = 0; m < maps.size(); m += 2) {
        const RouteMap& map = maps[m];
        SCOPED_TRACE(map.description);
        auto g = SectorGraph::build(map.cost, map.config);
        ASSERT_TRUE(g.ok());
        FieldBuilder builder;
        FlowField exact;
        const Cell goal = test::random_open_cell(map.cost, rng);
        ASSERT_TRUE(builder.build(map.cost, {&goal, 1}, map.config.params, exact).ok());
        auto hf = HierarchicalField::create(map.cost, *g, {&goal, 1});
        ASSERT_TRUE(hf.ok());
        std::vector<Cell> starts;
        for (int k = 0; k < 15; ++k) {
            const Cell start = test::random_open_cell(map.cost, rng);
            starts.push_back(start);
            SCOPED_TRACE(::testing::Message() << "start " << k << " (" << start.x << ", " << start.y << ")");
            ASSERT_TRUE(hf->route({&start, 1}).ok());
            auto pc = hierarchical_path_cost(*hf, map.cost, start);
            ASSERT_TRUE(pc.ok()) << pc.error().message;
            const double opt = builder.exact_integration(start.x, start.y);
            ++q.queries;
            ASSERT_EQ(std::isinf(*pc), std::isinf(opt));
            if (std::isinf(opt)) {
                ++q.unreachable;
            } else {
                const double ratio = opt > 0 ? *pc / opt : 1.0;
                EXPECT_GE(ratio, 1.0 - 1e-6);
                q.add(ratio, map.description + ", start " + std::to_string(k) + " (" + std::to_string(start.x) + ", " +
                                 std::to_string(start.y) + ")");
            }
        }
        for (const Cell& s : starts) {
            const test::FlowWalk walk = test::walk_flow(*hf, map.cost, map.config.params, s);
            EXPECT_EQ(walk.fault, "");
            EXPECT_EQ(walk.reached, exact.reachable(s.x, s.y));
            if (walk.reached) {
                EXPECT_GE(walk.cost, builder.exact_integration(s.x, s.y) * (1 - 1e-6));
            }
        }
    }
    std::printf("[ quality  ] one plan, starts one after another: %s\n", q.text().c_str());
    EXPECT_LE(q.mean(), 1.01) << q.text();
    EXPECT_LE(q.max, 1.05) << q.text();
}

TEST(HierRoute, SecondRouteOnOnePlanNeitherLoopsNorLosesThePath) {
    // Two units of one order: the second route() must not be spoiled by the fields the first one
    // left (corridor fields built before the search settled them). Maze 91 x 91, sector 16.
    const CostField cost = std::move(generate_maze(30, 30, 3).value());
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok());
    const Cell goal{50, 2};
    const Cell second{86, 5};
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, exact).ok());
    const double opt = builder.exact_integration(second.x, second.y);
    ASSERT_FALSE(std::isinf(opt));
    const Cell firsts[] = {{51, 22}, {47, 67}, {47, 22}, {86, 58}, {41, 38}};
    for (const Cell& first : firsts) {
        SCOPED_TRACE(::testing::Message() << "first route from (" << first.x << ", " << first.y << ")");
        auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
        ASSERT_TRUE(hf.ok());
        ASSERT_TRUE(hf->route({&first, 1}).ok());
        ASSERT_TRUE(hf->route({&second, 1}).ok());
        const test::FlowWalk walk = test::walk_flow(*hf, cost, {}, second);
        EXPECT_EQ(walk.fault, "");
        EXPECT_TRUE(walk.reached);
        auto pc = hierarchical_path_cost(*hf, cost, second);
        if (!pc.ok()) {
            ADD_FAILURE() << pc.error().message;
            continue;
        }
        EXPECT_FALSE(std::isinf(*pc)) << "a reachable start shown cut off";
        EXPECT_GE(*pc / opt, 1.0 - 1e-6);
        EXPECT_LE(*pc / opt, 1.05);
    }
}

TEST(HierRoute, SeveralGoalsInOneField) {
    CostField cost = test::weighted_map(96, 96, 0.2, test::HierCosts::presets, 21);
    const std::vector<Cell> goals = {{5, 90}, {50, 10}, {88, 60}, {52, 12}};
    for (const Cell& c : goals) cost.set(c.x, c.y, kCostPlain);
    const Quality q = run_goals(cost, sectors(16, 16), goals, random_starts(cost, 40, 5), "four goals");
    EXPECT_LE(q.max, 1.05) << q.text();
    // The field reports its goals sorted (row, then column) without duplicates.
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok());
    const std::vector<Cell> twice = {{88, 60}, {5, 90}, {88, 60}, {50, 10}};
    auto hf = HierarchicalField::create(cost, *g, twice);
    ASSERT_TRUE(hf.ok());
    ASSERT_EQ(hf->goals().size(), 3u);
    EXPECT_EQ(hf->goals()[0], (Cell{50, 10}));
    EXPECT_EQ(hf->goals()[1], (Cell{88, 60}));
    EXPECT_EQ(hf->goals()[2], (Cell{5, 90}));
}

TEST(HierRoute, GoalsOnSectorBordersAndCorners) {
    CostField cost = test::weighted_map(64, 64, 0.12, test::HierCosts::presets, 31);
    const std::vector<std::vector<Cell>> goal_sets = {{{15, 15}},
                                                      {{16, 16}},
                                                      {{15, 16}},
                                                      {{16, 15}},
                                                      {{0, 0}},
                                                      {{63, 63}},
                                                      {{31, 40}},
                                                      {{32, 8}},
                                                      {{47, 0}},
                                                      {{0, 48}},
                                                      {{15, 15}, {16, 16}, {48, 47}}};
    for (const auto& goals : goal_sets) {
        for (const Cell& c : goals) cost.set(c.x, c.y, kCostPlain);
    }
    std::uint64_t seed = 7;
    for (const auto& goals : goal_sets) {
        std::string what = "goals";
        for (const Cell& c : goals) what += " (" + std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
        std::vector<Cell> starts = random_starts(cost, 10, seed++);
        // Starts next to the goal, across the border or corner.
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const Cell s{goals[0].x + dx, goals[0].y + dy};
                if (cost.passable(s.x, s.y)) starts.push_back(s);
            }
        }
        const Quality q = run_goals(cost, sectors(16, 16), goals, starts, what);
        EXPECT_LE(q.max, 1.05) << q.text();
    }
}

TEST(HierRoute, StartOnTheGoal) {
    const CostField cost = test::weighted_map(64, 48, 0.2, test::HierCosts::presets, 41);
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok());
    std::uint64_t rng = 3;
    for (int k = 0; k < 10; ++k) {
        const Cell goal = test::random_open_cell(cost, rng);
        auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
        ASSERT_TRUE(hf.ok());
        ASSERT_TRUE(hf->route({&goal, 1}).ok());
        std::size_t steps = 99;
        auto pc = hierarchical_path_cost(*hf, cost, goal, &steps);
        ASSERT_TRUE(pc.ok()) << pc.error().message;
        EXPECT_EQ(*pc, 0.0);
        EXPECT_EQ(steps, 0u);
        EXPECT_EQ(hf->direction(goal.x, goal.y), Direction::goal);
        EXPECT_EQ(hf->integration(goal.x, goal.y), 0.0f);
        EXPECT_TRUE(hf->reachable(goal.x, goal.y));
        EXPECT_NE(hf->sector_field(g->sector_of(goal.x, goal.y)), nullptr);
    }
}

TEST(HierRoute, StartInTheGoalsSector) {
    // Inside one sector the best path may still leave it (around a wall): the bounds hold.
    const CostField cost = test::weighted_map(96, 96, 0.25, test::HierCosts::presets, 51);
    std::uint64_t rng = 11;
    for (int k = 0; k < 6; ++k) {
        const Cell goal = test::random_open_cell(cost, rng);
        std::vector<Cell> starts;
        const int sx0 = goal.x / 16 * 16, sy0 = goal.y / 16 * 16;
        SplitMix64 r{rng};
        while (starts.size() < 8) {
            const Cell c{sx0 + static_cast<int>(r.below(16)), sy0 + static_cast<int>(r.below(16))};
            if (cost.passable(c.x, c.y)) starts.push_back(c);
        }
        rng = r.state;
        const Quality q = run_goals(cost, sectors(16, 16), {goal}, starts, "same sector");
        EXPECT_LE(q.max, 1.05) << q.text();
    }
    // A U-shaped wall in the goal's sector: the path from the other arm leaves the sector.
    CostField u = std::move(CostField::create(48, 48).value());
    u.fill_rect(20, 16, 20, 31, kCostWall);  // splits sector 4 (16..31 x 16..31) into two parts
    u.fill_rect(16, 31, 31, 31, kCostWall);
    const Quality q = run_goals(u, sectors(16, 16), {{18, 20}}, {{25, 20}, {30, 30}, {16, 16}}, "u-wall");
    EXPECT_LE(q.max, 1.05) << q.text();
}

TEST(HierRoute, WallsSplitSectorsIntoSeveralParts) {
    // Comb: vertical walls every 4 columns with gaps alternating top and bottom, so each sector
    // holds several parts and the route zigzags.
    CostField comb = std::move(CostField::create(80, 48).value());
    for (int x = 3; x < 80; x += 4) {
        if ((x / 4) % 2 == 0) {
            comb.fill_rect(x, 0, x, 44, kCostWall);
        } else {
            comb.fill_rect(x, 3, x, 47, kCostWall);
        }
    }
    const Quality q = run_goals(comb, sectors(16, 16), {{78, 24}}, random_starts(comb, 25, 17), "comb");
    EXPECT_LE(q.max, 1.05) << q.text();
    EXPECT_LE(q.mean(), 1.01) << q.text();
    // A maze: every sector is cut into many parts.
    const CostField maze = std::move(generate_maze(25, 25, 5).value());
    const Quality qm = run_goals(maze, sectors(16, 16), {{1, 1}}, random_starts(maze, 25, 23), "maze");
    EXPECT_LE(qm.max, 1.05) << qm.text();
}

TEST(HierRoute, FourConnectivity) {
    const CostField cost = test::weighted_map(80, 80, 0.25, test::HierCosts::full_range, 61);
    std::uint64_t rng = 4;
    const std::vector<Cell> goals = {test::random_open_cell(cost, rng)};
    const Quality q = run_goals(cost, sectors(16, 16, four()), goals, random_starts(cost, 30, 19), "four-connected");
    EXPECT_LE(q.max, 1.05) << q.text();
}

TEST(HierRoute, RouteStatsAndSeveralStarts) {
    const CostField cost = test::weighted_map(128, 128, 0.15, test::HierCosts::presets, 71);
    auto g = SectorGraph::build(cost, sectors(16, 16));
    ASSERT_TRUE(g.ok());
    const Cell goal = {2, 2};
    ASSERT_TRUE(cost.passable(goal.x, goal.y));
    const std::vector<Cell> starts = {{120, 120}, {120, 4}, {4, 120}};
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    auto st = hf->route(starts);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_GT(st->nodes_settled, 0u);
    EXPECT_GE(st->route_sectors, 3u);
    EXPECT_EQ(st->fields_built - st->fields_rebuilt, hf->built_sectors());
    EXPECT_GE(st->settle_ms, 0.0);
    EXPECT_LE(st->settle_ms, st->fields_ms);
    EXPECT_GT(hf->field_bytes(), 0u);
    EXPECT_GE(hf->memory_bytes(), hf->field_bytes());
    // Every start's sector has a field, and every start's path stays on built fields.
    const std::size_t built = hf->built_sectors();
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, exact).ok());
    for (const Cell& s : starts) {
        EXPECT_NE(hf->sector_field(g->sector_of(s.x, s.y)), nullptr);
        auto pc = hierarchical_path_cost(*hf, cost, s);
        ASSERT_TRUE(pc.ok()) << pc.error().message;
        EXPECT_LE(*pc / builder.exact_integration(s.x, s.y), 1.05);
    }
    EXPECT_EQ(hf->built_sectors(), built) << "the routes' fields did not cover the paths";
    // Routing again from the same places builds nothing.
    auto again = hf->route(starts);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->fields_built, 0u);
    EXPECT_EQ(hf->built_sectors(), built);
}

// The landmark bounds only steer the search: with any number of landmarks (the vector path for 8,
// the general one for the others, none at all) every route's nodes get the same costs, so the
// paths cost the same as with straight-distance bounds alone, and landmarks settle fewer nodes.
// A bound that overestimates (a sign or margin slip in either path) settles a node too early and
// shows here as a dearer path.
TEST(HierRoute, LandmarkCountsChangeTheSearchNotTheRoutes) {
    RandomMapSpec spec;
    spec.width = 256;
    spec.height = 256;
    spec.seed = 21;
    const CostField mix = generate_random_map(spec).value();
    const CostField weighted = test::weighted_map(192, 160, 0.2, test::HierCosts::full_range, 22);
    const CostField maze = generate_maze(30, 30, 23).value();
    struct Case {
        const CostField* cost;
        int sector;
        const char* name;
        bool open;  // open ground: landmarks must cut the nodes settled (in a maze the search settles
                    // most of the small graph whatever its bounds)
    };
    const Case cases[] = {{&mix, 32, "256x256 benchmark mix, sector 32", true},
                          {&weighted, 16, "192x160 full range, sector 16", true},
                          {&maze, 16, "maze 91x91, sector 16", false}};
    const int counts[] = {0, 1, 5, 8, 13, 16};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        std::uint64_t rng = 0x1a2d0000u + c.cost->size();
        std::vector<std::pair<Cell, Cell>> pairs;  // (goal, start)
        for (int k = 0; k < 6; ++k) {
            const Cell goal = test::random_open_cell(*c.cost, rng);
            pairs.push_back({goal, test::random_open_cell(*c.cost, rng)});
        }
        std::vector<double> base_cost;
        std::size_t base_settled = 0;
        for (const int L : counts) {
            SCOPED_TRACE("landmarks " + std::to_string(L));
            SectorConfig sc = sectors(c.sector, c.sector);
            sc.landmarks = L;
            auto g = SectorGraph::build(*c.cost, sc);
            ASSERT_TRUE(g.ok()) << g.error().message;
            ASSERT_EQ(g->landmark_count(), L);
            std::size_t settled = 0;
            for (std::size_t k = 0; k < pairs.size(); ++k) {
                const Cell goal = pairs[k].first, start = pairs[k].second;
                auto hf = HierarchicalField::create(*c.cost, *g, {&goal, 1});
                ASSERT_TRUE(hf.ok()) << hf.error().message;
                auto st = hf->route({&start, 1});
                ASSERT_TRUE(st.ok()) << st.error().message;
                settled += st->nodes_settled;
                auto pc = hierarchical_path_cost(*hf, *c.cost, start);
                ASSERT_TRUE(pc.ok()) << pc.error().message;
                if (L == 0) {
                    base_cost.push_back(*pc);
                } else if (std::isinf(base_cost[k])) {
                    EXPECT_TRUE(std::isinf(*pc)) << "pair " << k;
                } else {
                    EXPECT_NEAR(*pc, base_cost[k], 1e-6 * std::max(1.0, base_cost[k]))
                        << "pair " << k << ": start (" << start.x << ", " << start.y << "), goal (" << goal.x << ", "
                        << goal.y << ")";
                }
            }
            if (L == 0) base_settled = settled;
            if (c.open && L >= 8) {
                EXPECT_LT(settled, base_settled) << "landmarks should settle fewer nodes";
            }
        }
    }
}

// Route fields built on a job system (RouteConfig::jobs: a sector starts as soon as the
// neighbours it reads are made) equal those built on the calling thread, bit for bit, whatever
// the threads and the order ranges run in: on every route map, and on a benchmark-mix map with
// small sectors, where a route is a long chain of sectors with rings and corner fills beside it.
TEST(HierRoute, FieldsDoNotDependOnTheJobSystem) {
    std::vector<RouteMap> maps = route_maps();
    RandomMapSpec spec;
    spec.width = 256;
    spec.height = 192;
    spec.seed = 12;
    maps.push_back({std::move(generate_random_map(spec).value()), sectors(16, 16), "256x192 benchmark mix, sector 16"});
    test::ThreadJobs two(2), three(3);
    test::LateJobs late(2);
    JobSystem* const systems[] = {&two, &three, &late};
    const char* const names[] = {"2 threads", "3 threads", "ranges one after the other"};
    std::size_t parallel_fields = 0;
    for (const RouteMap& m : maps) {
        SCOPED_TRACE(m.description);
        auto g = SectorGraph::build(m.cost, m.config);
        ASSERT_TRUE(g.ok()) << g.error().message;
        std::uint64_t state = 0x5eed0000u + m.cost.size();
        std::vector<Cell> goals = {test::random_open_cell(m.cost, state)};
        std::vector<std::vector<Cell>> calls;  // two route calls: the second reuses the first's fields
        for (int c = 0; c < 2; ++c) {
            calls.push_back({test::random_open_cell(m.cost, state), test::random_open_cell(m.cost, state)});
        }
        // The reference: fields built on the calling thread.
        RouteConfig serial;
        auto want = HierarchicalField::create(m.cost, *g, goals, serial);
        ASSERT_TRUE(want.ok());
        std::vector<RouteStats> want_stats;
        for (const auto& starts : calls) {
            auto st = want->route(starts);
            ASSERT_TRUE(st.ok()) << st.error().message;
            want_stats.push_back(*st);
        }
        for (int j = 0; j < 3; ++j) {
            SCOPED_TRACE(names[j]);
            RouteConfig rc;
            rc.jobs = systems[j];
            auto got = HierarchicalField::create(m.cost, *g, goals, rc);
            ASSERT_TRUE(got.ok());
            for (std::size_t c = 0; c < calls.size(); ++c) {
                auto st = got->route(calls[c]);
                ASSERT_TRUE(st.ok()) << st.error().message;
                EXPECT_EQ(st->fields_built, want_stats[c].fields_built);
                EXPECT_EQ(st->fields_rebuilt, want_stats[c].fields_rebuilt);
                EXPECT_EQ(st->nodes_settled, want_stats[c].nodes_settled);
                EXPECT_EQ(st->route_sectors, want_stats[c].route_sectors);
                if (j == 0) parallel_fields += st->fields_built;
            }
            int differ = 0;
            for (int sec = 0; sec < g->sector_count(); ++sec) {
                const SectorField* a = got->sector_field(sec);
                const SectorField* b = want->sector_field(sec);
                ASSERT_EQ(a == nullptr, b == nullptr) << "sector " << sec;
                if (a == nullptr) continue;
                const bool same =
                    a->directions == b->directions && std::memcmp(a->integration.data(), b->integration.data(),
                                                                  a->integration.size() * sizeof(float)) == 0;
                differ += !same;
            }
            EXPECT_EQ(differ, 0) << "sector fields differ from the serial build";
        }
    }
    // The maps gave the job systems real work (long routes, not one wave each).
    EXPECT_GT(parallel_fields, 400u);
}

}  // namespace
}  // namespace tide
