// Repair after terrain edits: SectorGraph::update() must leave the graph identical to a fresh build
// of the edited map, and a HierarchicalField told terrain_changed() must plan again correctly while
// keeping the fields the edit cannot have touched.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "hier/hier_checks.hpp"
#include "support/reference.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

struct Edit {
    int x0, y0, x1, y1;
    Cost cost;
};

std::string edit_text(const Edit& e) {
    std::ostringstream s;
    s << "[" << e.x0 << ", " << e.y0 << "] - [" << e.x1 << ", " << e.y1 << "] := " << static_cast<int>(e.cost);
    return s.str();
}

// A random edit: a small rectangle (often on a sector border or corner, sometimes partly off the
// map, corners sometimes given in reverse order) set to wall, a random cost, or plain ground.
Edit random_edit(const CostField& cost, int sector, SplitMix64& rng) {
    auto coordinate = [&](int extent) {
        if (rng.below(2) == 0) {
            // Next to a sector border: the last row or column of a sector or the first of the next.
            const int borders = std::max(1, (extent - 1) / sector);
            const int b = sector * (1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(borders))));
            return std::min(extent - 1, b - 1 + static_cast<int>(rng.below(2)));
        }
        return static_cast<int>(rng.below(static_cast<std::uint64_t>(extent)));
    };
    Edit e;
    e.x0 = coordinate(cost.width());
    e.y0 = coordinate(cost.height());
    e.x1 = e.x0 + static_cast<int>(rng.below(6)) - (rng.below(4) == 0 ? 3 : 0);
    e.y1 = e.y0 + static_cast<int>(rng.below(6)) - (rng.below(4) == 0 ? 3 : 0);
    if (rng.below(8) == 0) e.x1 += 20;  // off the map at times
    const int kind = static_cast<int>(rng.below(3));
    e.cost = kind == 0 ? kCostWall : kind == 1 ? static_cast<Cost>(1 + rng.below(kCostMax)) : kCostPlain;
    return e;
}

void apply(CostField& cost, const Edit& e) {
    cost.fill_rect(std::min(e.x0, e.x1), std::min(e.y0, e.y1), std::max(e.x0, e.x1), std::max(e.y0, e.y1), e.cost);
}

SectorConfig sectors(int size, int limit, bool merge, FieldParams params = {}) {
    SectorConfig c;
    c.sector_size = size;
    c.portal_limit = limit;
    c.merge_runs = merge;
    c.params = params;
    return c;
}

TEST(HierUpdate, RandomEditsMatchARebuild) {
    struct Case {
        CostField cost;
        SectorConfig config;
        std::string what;
    };
    FieldParams four;
    four.connectivity = Connectivity::four;
    FieldParams chebyshev;
    chebyshev.diagonal_factor = 1.0;
    std::vector<Case> cases;
    cases.push_back(
        {test::weighted_map(80, 70, 0.2, test::HierCosts::presets, 1), sectors(16, 16, true), "presets, merged"});
    cases.push_back({test::weighted_map(80, 70, 0.2, test::HierCosts::presets, 2), sectors(16, 8, false),
                     "presets, limit 8, unmerged"});
    cases.push_back({test::weighted_map(100, 90, 0.3, test::HierCosts::full_range, 3), sectors(32, 32, true, four),
                     "full range, sector 32, four-connected"});
    cases.push_back({test::weighted_map(70, 45, 0.1, test::HierCosts::dear, 4), sectors(16, 5, true, chebyshev),
                     "dear, limit 5, factor 1"});
    cases.push_back({std::move(generate_maze(22, 22, 5).value()), sectors(16, 16, true), "maze 67x67"});
    std::size_t edits = 0;
    for (Case& c : cases) {
        SCOPED_TRACE(c.what);
        auto g = SectorGraph::build(c.cost, c.config);
        ASSERT_TRUE(g.ok()) << g.error().message;
        SplitMix64 rng{static_cast<std::uint64_t>(edits) + 17};
        for (int k = 0; k < 40; ++k, ++edits) {
            const Edit e = random_edit(c.cost, c.config.sector_size, rng);
            SCOPED_TRACE("edit " + std::to_string(k) + ": " + edit_text(e));
            apply(c.cost, e);
            const std::uint64_t version = g->version();
            auto st = g->update(c.cost, e.x0, e.y0, e.x1, e.y1);
            ASSERT_TRUE(st.ok()) << st.error().message;
            EXPECT_EQ(g->version(), version + 1);
            auto fresh = SectorGraph::build(c.cost, c.config);
            ASSERT_TRUE(fresh.ok());
            const std::string diff = test::compare_graphs(*g, *fresh);
            ASSERT_EQ(diff, "");
        }
    }
}

TEST(HierUpdate, EditsOnBordersAndCornersMatchARebuild) {
    // Sector 16 on 64 x 64: walls, costs and reopenings exactly on a border, across a corner of
    // four sectors, along a whole border, and at the map's corner.
    CostField cost = test::weighted_map(64, 64, 0.1, test::HierCosts::presets, 9);
    const SectorConfig config = sectors(16, 16, true);
    auto g = SectorGraph::build(cost, config);
    ASSERT_TRUE(g.ok());
    const std::vector<Edit> edits = {
        {15, 15, 16, 16, kCostWall},                                // the corner of sectors 0, 1, 4, 5
        {15, 15, 16, 16, kCostPlain},                               // reopened
        {16, 0, 16, 63, kCostWall},                                 // the whole first column of sector column 1
        {15, 3, 15, 3, kCostPlain},                                 // one cell beside it
        {16, 0, 16, 63, kCostForest},                               // reopened as forest
        {0, 31, 63, 32, kCostSwamp},                                // both sides of a horizontal border, all along
        {47, 47, 48, 48, 200},                                      // dear cells across a corner
        {0, 0, 0, 0, kCostWall},                                    // the map's corner
        {63, 63, 63, 63, kCostWall},  {20, 20, 27, 27, kCostWall},  // inside one sector: its parts and costs change
        {8, 16, 8, 16, kCostWall},                                  // first row of a sector
        {31, 40, 33, 40, kCostWall},                                // across a vertical border
        {-5, -5, 100, 2, kCostPlain},                               // off the map on three sides
        {40, 10, 35, 5, kCostWall},                                 // corners in reverse order
    };
    for (const Edit& e : edits) {
        SCOPED_TRACE(edit_text(e));
        apply(cost, e);
        ASSERT_TRUE(g->update(cost, e.x0, e.y0, e.x1, e.y1).ok());
        auto fresh = SectorGraph::build(cost, config);
        ASSERT_TRUE(fresh.ok());
        ASSERT_EQ(test::compare_graphs(*g, *fresh), "");
    }
}

TEST(HierUpdate, GraphComparisonSeesEveryKindOfDifference) {
    // The comparison the repair tests rely on is not blind: a moved portal, a changed intra cost
    // and a graph left stale after an edit are all reported.
    const SectorConfig config = sectors(16, 16, true);
    CostField cost = std::move(CostField::create(48, 48).value());
    auto base = SectorGraph::build(cost, config);
    ASSERT_TRUE(base.ok());
    EXPECT_EQ(test::compare_graphs(*base, *base), "");
    CostField portal = cost;
    portal.set(15, 7, kCostWall);  // the first portal's node moves to row 8
    EXPECT_NE(test::compare_graphs(*SectorGraph::build(portal, config), *base), "");
    CostField inner = cost;
    inner.fill_rect(3, 3, 12, 12, kCostSwamp);  // same portals, other costs inside sector 0
    const std::string costs = test::compare_graphs(*SectorGraph::build(inner, config), *base);
    EXPECT_NE(costs.find("intra cost"), std::string::npos) << costs;
    CostField split = cost;
    split.fill_rect(0, 20, 47, 20, kCostWall);  // two components
    EXPECT_NE(test::compare_graphs(*SectorGraph::build(split, config), *base), "");
    // Not updating after an edit leaves the graph stale.
    auto stale = SectorGraph::build(cost, config);
    ASSERT_TRUE(stale.ok());
    cost.fill_rect(30, 14, 33, 17, kCostWall);
    EXPECT_NE(test::compare_graphs(*stale, *SectorGraph::build(cost, config)), "");
}

TEST(HierUpdate, UntouchedSectorsKeepTheirCosts) {
    // An edit inside one sector (away from its borders) redoes that sector, and its four
    // neighbours only if their node lists change.
    CostField cost = std::move(CostField::create(96, 96).value());
    auto g = SectorGraph::build(cost, sectors(32, 32, true));
    ASSERT_TRUE(g.ok());
    cost.fill_rect(40, 40, 50, 50, kCostWall);
    auto st = g->update(cost, 40, 40, 50, 50);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->sectors, 1u);
    EXPECT_EQ(st->searches, static_cast<std::size_t>(g->node_begin(5) - g->node_begin(4)));
}

// The exact optimum from every start, against paths after the edit.
struct Replan {
    double mean_ratio = 1.0;
    double max_ratio = 1.0;
    std::size_t finite = 0;
    std::size_t unreachable = 0;
    std::string worst;
};

void check_starts(HierarchicalField& hf, const CostField& cost, const FieldParams& params, std::span<const Cell> goals,
                  std::span<const Cell> starts, Replan& r) {
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, goals, params, exact).ok());
    double sum = r.mean_ratio * static_cast<double>(r.finite);
    for (const Cell& s : starts) {
        if (!cost.passable(s.x, s.y)) continue;
        SCOPED_TRACE("start (" + std::to_string(s.x) + ", " + std::to_string(s.y) + ")");
        auto routed = hf.route({&s, 1});
        ASSERT_TRUE(routed.ok()) << routed.error().message;
        auto pc = hierarchical_path_cost(hf, cost, s);
        ASSERT_TRUE(pc.ok()) << pc.error().message;
        const double opt = builder.exact_integration(s.x, s.y);
        ASSERT_EQ(std::isinf(*pc), std::isinf(opt)) << "path " << *pc << ", optimum " << opt;
        EXPECT_EQ(hf.reachable(s.x, s.y), !std::isinf(opt));
        const test::FlowWalk walk = test::walk_flow(hf, cost, params, s);
        EXPECT_EQ(walk.fault, "");
        if (std::isinf(opt)) {
            ++r.unreachable;
            continue;
        }
        const double ratio = opt > 0 ? *pc / opt : 1.0;
        EXPECT_GE(ratio, 1.0 - 1e-6);
        sum += ratio;
        ++r.finite;
        if (ratio > r.max_ratio) {
            r.max_ratio = ratio;
            r.worst = "start (" + std::to_string(s.x) + ", " + std::to_string(s.y) + ")";
        }
    }
    r.mean_ratio = r.finite > 0 ? sum / static_cast<double>(r.finite) : 1.0;
}

TEST(HierUpdate, RoutesAfterEditsStayCorrect) {
    Replan total;
    std::size_t kept_total = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        CostField cost =
            test::weighted_map(96, 96, 0.15 + 0.03 * static_cast<double>(seed), test::HierCosts::presets, seed);
        const SectorConfig config = sectors(16, 16, true);
        auto g = SectorGraph::build(cost, config);
        ASSERT_TRUE(g.ok());
        std::uint64_t rng = seed * 7;
        const Cell goal = test::random_open_cell(cost, rng);
        std::vector<Cell> starts;
        for (int k = 0; k < 12; ++k) starts.push_back(test::random_open_cell(cost, rng));
        auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
        ASSERT_TRUE(hf.ok());
        ASSERT_TRUE(hf->route(starts).ok());
        SplitMix64 edits{seed};
        for (int k = 0; k < 12; ++k) {
            Edit e = random_edit(cost, 16, edits);
            if (k % 3 == 0) {
                // A wall across a start's path, near the start.
                const Cell s = starts[static_cast<std::size_t>(k) % starts.size()];
                e = {s.x - 4, s.y + 2, s.x + 4, s.y + 2, kCostWall};
            }
            // Never over the goal (that is an error, tested elsewhere).
            const int ex0 = std::min(e.x0, e.x1), ex1 = std::max(e.x0, e.x1);
            const int ey0 = std::min(e.y0, e.y1), ey1 = std::max(e.y0, e.y1);
            if (goal.x >= ex0 && goal.x <= ex1 && goal.y >= ey0 && goal.y <= ey1) continue;
            SCOPED_TRACE("edit " + std::to_string(k) + ": " + edit_text(e));
            apply(cost, e);
            ASSERT_TRUE(g->update(cost, e.x0, e.y0, e.x1, e.y1).ok());
            auto changed = hf->terrain_changed(e.x0, e.y0, e.x1, e.y1);
            ASSERT_TRUE(changed.ok()) << changed.error().message;
            kept_total += hf->built_sectors();
            Replan r;
            check_starts(*hf, cost, config.params, {&goal, 1}, starts, r);
            if (::testing::Test::HasFatalFailure()) return;
            if (r.max_ratio > total.max_ratio) {
                total.max_ratio = r.max_ratio;
                total.worst = "seed " + std::to_string(seed) + ", edit " + std::to_string(k) + " " + edit_text(e) +
                              ", " + r.worst;
            }
            total.mean_ratio =
                (total.mean_ratio * static_cast<double>(total.finite) + r.mean_ratio * static_cast<double>(r.finite)) /
                static_cast<double>(std::max<std::size_t>(1, total.finite + r.finite));
            total.finite += r.finite;
            total.unreachable += r.unreachable;
        }
    }
    std::printf(
        "[ quality  ] after edits: %zu paths (%zu unreachable), mean ratio %.5f, max %.5f (%s), %zu fields kept\n",
        total.finite, total.unreachable, total.mean_ratio, total.max_ratio, total.worst.c_str(), kept_total);
    EXPECT_GT(total.finite, 100u);
    EXPECT_LE(total.mean_ratio, 1.01);
    EXPECT_LE(total.max_ratio, 1.05);
}

TEST(HierUpdate, FieldsFarFromTheEditAreKept) {
    // 128 x 128 open ground, sector 16. The route (2, 2) <- (60, 4) runs along the top rows; a
    // field far away (bottom right) has larger values. A wall in that far sector drops only the
    // far field (and fields with values as large): the route's fields stay, unrebuilt.
    CostField cost = std::move(CostField::create(128, 128).value());
    auto g = SectorGraph::build(cost, sectors(16, 16, true));
    ASSERT_TRUE(g.ok());
    const Cell goal{2, 2};
    const Cell start{60, 4};
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    ASSERT_TRUE(hierarchical_path_cost(*hf, cost, start).ok());
    const int far = g->sector_of(120, 120);
    ASSERT_TRUE(hf->ensure_field(120, 120).ok());
    ASSERT_NE(hf->sector_field(far), nullptr);
    std::vector<std::uint32_t> builds(static_cast<std::size_t>(g->sector_count()), 0);
    for (int s = 0; s < g->sector_count(); ++s) {
        if (const SectorField* f = hf->sector_field(s)) builds[static_cast<std::size_t>(s)] = f->build;
    }
    const std::size_t before = hf->built_sectors();
    cost.fill_rect(116, 116, 122, 118, kCostWall);
    ASSERT_TRUE(g->update(cost, 116, 116, 122, 118).ok());
    ASSERT_TRUE(hf->terrain_changed(116, 116, 122, 118).ok());
    EXPECT_EQ(hf->sector_field(far), nullptr);
    EXPECT_GT(hf->built_sectors(), 0u);
    EXPECT_LT(hf->built_sectors(), before);
    // The route's sectors (goal's and start's included) are the same fields as before.
    for (int s : {g->sector_of(goal.x, goal.y), g->sector_of(start.x, start.y), g->sector_of(30, 3)}) {
        const SectorField* f = hf->sector_field(s);
        ASSERT_NE(f, nullptr) << "sector " << s;
        EXPECT_EQ(f->build, builds[static_cast<std::size_t>(s)]) << "sector " << s;
    }
    // And both places still get (near-)optimal paths.
    Replan r;
    const Cell starts[] = {start, {120, 120}, {121, 119}};
    check_starts(*hf, cost, {}, {&goal, 1}, starts, r);
    EXPECT_LE(r.max_ratio, 1.05);
}

TEST(HierUpdate, FieldBuiltAloneIsDroppedWhenTheRouteItReliedOnIsCut) {
    // 96 x 32, sector 16: sectors 0..5 on top, 6..11 below. Only the field of sector 5 (far east)
    // is built, from the search's node costs: its values rely on the straight way west through
    // sectors 4..1. A wall across sector 2's top half (no field in it or next to it) closes that
    // way: the path must dip into the bottom row. Sector 5's values are now too low; keeping
    // them would mislead (or loop) the flow.
    CostField cost = std::move(CostField::create(96, 32).value());
    auto g = SectorGraph::build(cost, sectors(16, 16, true));
    ASSERT_TRUE(g.ok());
    const Cell goal{2, 8};
    const Cell unit{88, 8};
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    ASSERT_TRUE(hf->ensure_field(unit.x, unit.y).ok());
    ASSERT_EQ(hf->built_sectors(), 1u);
    cost.fill_rect(40, 0, 40, 15, kCostWall);
    ASSERT_TRUE(g->update(cost, 40, 0, 40, 15).ok());
    ASSERT_TRUE(hf->terrain_changed(40, 0, 40, 15).ok());
    Replan r;
    check_starts(*hf, cost, {}, {&goal, 1}, {&unit, 1}, r);
    EXPECT_LE(r.max_ratio, 1.05);
}

TEST(HierUpdate, ReopenedWallReconnectsACutOffRegion) {
    // A closed box around the start: unreachable; opening a door makes it reachable again.
    CostField cost = std::move(CostField::create(64, 64).value());
    cost.fill_rect(36, 36, 52, 52, kCostWall);
    cost.fill_rect(37, 37, 51, 51, kCostPlain);
    auto g = SectorGraph::build(cost, sectors(16, 16, true));
    ASSERT_TRUE(g.ok());
    const Cell goal{3, 3};
    const Cell inside{44, 44};
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    ASSERT_TRUE(hf->route({&inside, 1}).ok());
    EXPECT_FALSE(hf->reachable(inside.x, inside.y));
    auto pc = hierarchical_path_cost(*hf, cost, inside);
    ASSERT_TRUE(pc.ok());
    EXPECT_TRUE(std::isinf(*pc));
    // A door in the box's north wall where it crosses the border of sector columns 2 and 3.
    cost.fill_rect(47, 36, 48, 36, kCostPlain);
    ASSERT_TRUE(g->update(cost, 47, 36, 48, 36).ok());
    ASSERT_TRUE(hf->terrain_changed(47, 36, 48, 36).ok());
    EXPECT_TRUE(hf->reachable(inside.x, inside.y));
    Replan r;
    const Cell starts[] = {inside, {50, 50}, {37, 37}};
    check_starts(*hf, cost, {}, {&goal, 1}, starts, r);
    EXPECT_EQ(r.unreachable, 0u);
    EXPECT_LE(r.max_ratio, 1.05);
    // Close it again: cut off again.
    cost.fill_rect(47, 36, 48, 36, kCostWall);
    ASSERT_TRUE(g->update(cost, 47, 36, 48, 36).ok());
    ASSERT_TRUE(hf->terrain_changed(47, 36, 48, 36).ok());
    Replan closed;
    check_starts(*hf, cost, {}, {&goal, 1}, starts, closed);
    EXPECT_EQ(closed.unreachable, 3u);
}

}  // namespace
}  // namespace tide
