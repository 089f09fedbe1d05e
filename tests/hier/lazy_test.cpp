// Lazy sectors: a route builds the fields it needs and no others; far sectors stay without a field
// until asked for; units in sectors without a field get a coarse direction toward the goals.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "hier/hier_checks.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

SectorConfig sectors64() {
    SectorConfig c;
    c.sector_size = 64;
    c.portal_limit = 32;
    return c;
}

// Sector distance (Chebyshev, in sectors) between the sectors of two cells.
int sector_distance(const SectorGraph& g, int a, int b) {
    return std::max(std::abs(a % g.sectors_x() - b % g.sectors_x()), std::abs(a / g.sectors_x() - b / g.sectors_x()));
}

void check_nearby_route(const CostField& cost, Cell goal, Cell start) {
    auto g = SectorGraph::build(cost, sectors64());
    ASSERT_TRUE(g.ok()) << g.error().message;
    ASSERT_EQ(g->sector_count(), 64);
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    EXPECT_EQ(hf->built_sectors(), 0u);  // nothing before the first route
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    auto pc = hierarchical_path_cost(*hf, cost, start);
    ASSERT_TRUE(pc.ok()) << pc.error().message;
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, exact).ok());
    const double opt = builder.exact_integration(start.x, start.y);
    ASSERT_FALSE(std::isinf(opt));
    EXPECT_LE(*pc / opt, 1.05);
    EXPECT_GE(*pc / opt, 1.0 - 1e-6);
    // A few sectors around the two cells (with a corridor ring, paths from the start sector's
    // other portals may add a sector or two), none three sectors or more away.
    const std::size_t built = hf->built_sectors();
    EXPECT_GE(built, 1u);
    EXPECT_LE(built, 16u);
    const int home = g->sector_of(start.x, start.y);
    const int target = g->sector_of(goal.x, goal.y);
    for (int s = 0; s < g->sector_count(); ++s) {
        if (sector_distance(*g, s, home) >= 3 && sector_distance(*g, s, target) >= 3) {
            EXPECT_EQ(hf->sector_field(s), nullptr) << "sector " << s;
        }
    }
    // Cells of unbuilt sectors: no move, no value (walls stay walls).
    EXPECT_EQ(hf->direction(500, 500), cost.passable(500, 500) ? Direction::unreachable : Direction::wall);
    EXPECT_EQ(hf->integration(500, 500), kUnreachable);
    EXPECT_EQ(hf->sector_field(-1), nullptr);
    EXPECT_EQ(hf->sector_field(64), nullptr);
    // Asking for a far cell builds its sector (only it), and the flow from there is sound.
    std::uint64_t rng = 5;
    Cell far{500, 500};
    while (!cost.passable(far.x, far.y)) far = test::random_open_cell(cost, rng);
    const int far_sector = g->sector_of(far.x, far.y);
    ASSERT_EQ(hf->sector_field(far_sector), nullptr);
    auto f = hf->ensure_field(far.x, far.y);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_NE(*f, nullptr);
    EXPECT_EQ(hf->sector_field(far_sector), *f);
    EXPECT_EQ(hf->built_sectors(), built + 1);
    EXPECT_TRUE(is_move(hf->direction(far.x, far.y)));
    const test::FlowWalk walk = test::walk_flow(*hf, cost, {}, far);
    EXPECT_EQ(walk.fault, "");
    EXPECT_TRUE(walk.reached);
    const double far_opt = builder.exact_integration(far.x, far.y);
    EXPECT_GE(walk.cost / far_opt, 1.0 - 1e-6);
    // A route from there: near-optimal.
    ASSERT_TRUE(hf->route({&far, 1}).ok());
    auto far_pc = hierarchical_path_cost(*hf, cost, far);
    ASSERT_TRUE(far_pc.ok());
    EXPECT_LE(*far_pc / far_opt, 1.05);
}

TEST(HierLazy, RouteFromAFieldBuiltAloneBuildsTheWholeWay) {
    // ensure_field() builds one sector; a later route() from a cell of that sector must still
    // make sure there are fields "all the way to the goals".
    RandomMapSpec spec;
    spec.width = 256;
    spec.height = 256;
    spec.seed = 4;
    CostField cost = std::move(generate_random_map(spec).value());
    const Cell goal{20, 20}, unit{230, 200};
    cost.set(goal.x, goal.y, kCostPlain);
    cost.set(unit.x, unit.y, kCostPlain);
    auto g = SectorGraph::build(cost, sectors64());
    ASSERT_TRUE(g.ok());
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1});
    ASSERT_TRUE(hf.ok());
    ASSERT_TRUE(hf->ensure_field(unit.x, unit.y).ok());
    EXPECT_EQ(hf->built_sectors(), 1u);
    ASSERT_TRUE(hf->route({&unit, 1}).ok());
    // Follow the flow on the fields as they are, building nothing.
    Cell at = unit;
    bool arrived = false;
    for (std::size_t k = 0; k <= cost.size(); ++k) {
        ASSERT_NE(hf->sector_field(g->sector_of(at.x, at.y)), nullptr)
            << "the path from (" << unit.x << ", " << unit.y << ") enters sector " << g->sector_of(at.x, at.y)
            << " at (" << at.x << ", " << at.y << "), which has no field";
        const Direction d = hf->direction(at.x, at.y);
        if (d == Direction::goal) {
            arrived = true;
            break;
        }
        ASSERT_TRUE(is_move(d));
        at = {at.x + kDirectionDx[static_cast<int>(d)], at.y + kDirectionDy[static_cast<int>(d)]};
    }
    EXPECT_TRUE(arrived);
    FieldBuilder builder;
    FlowField exact;
    ASSERT_TRUE(builder.build(cost, {&goal, 1}, {}, exact).ok());
    auto pc = hierarchical_path_cost(*hf, cost, unit);
    ASSERT_TRUE(pc.ok());
    EXPECT_LE(*pc / builder.exact_integration(unit.x, unit.y), 1.05);
}

TEST(HierLazy, NearbyRouteOnOpenGroundBuildsAFewSectors) {
    const CostField cost = std::move(CostField::create(512, 512).value());
    check_nearby_route(cost, {100, 100}, {120, 110});
    check_nearby_route(cost, {130, 70}, {120, 60});  // across a sector corner
}

TEST(HierLazy, NearbyRouteOnTheBenchmarkMixBuildsAFewSectors) {
    RandomMapSpec spec;
    spec.width = 512;
    spec.height = 512;
    spec.seed = 3;
    CostField cost = std::move(generate_random_map(spec).value());
    const Cell goal{300, 200}, start{280, 215};
    cost.set(goal.x, goal.y, kCostPlain);
    cost.set(start.x, start.y, kCostPlain);
    check_nearby_route(cost, goal, start);
}

TEST(HierLazy, CoarseDirectionPointsTowardTheGoalSide) {
    const CostField cost = std::move(CostField::create(512, 512).value());
    auto g = SectorGraph::build(cost, sectors64());
    ASSERT_TRUE(g.ok());
    const Cell goal{300, 96};
    const Cell start{40, 96};
    RouteConfig rc;
    rc.corridor = 0;
    rc.short_route = 0;  // no extra ring: the sectors beside the route stay without fields
    auto hf = HierarchicalField::create(cost, *g, {&goal, 1}, rc);
    ASSERT_TRUE(hf.ok());
    // Before any search nothing is known.
    EXPECT_EQ(hf->coarse_direction(160, 160), (Vec2{0.0f, 0.0f}));
    ASSERT_TRUE(hf->route({&start, 1}).ok());
    // The route runs along sector row 1; the sectors below it (row 2) between start and goal have
    // no field, but the search reached their northern nodes.
    int checked = 0;
    for (int x = 70; x < 300; x += 37) {
        const Cell c{x, 150};
        if (hf->sector_field(g->sector_of(c.x, c.y)) != nullptr) continue;
        SCOPED_TRACE(::testing::Message() << "cell (" << c.x << ", " << c.y << ")");
        const Vec2 v = hf->coarse_direction(c.x, c.y);
        const float len = std::sqrt(v.x * v.x + v.y * v.y);
        ASSERT_NEAR(len, 1.0f, 1e-5f) << "no coarse direction";
        const float gx = static_cast<float>(goal.x - c.x), gy = static_cast<float>(goal.y - c.y);
        EXPECT_GT(v.x * gx + v.y * gy, 0.0f) << "(" << v.x << ", " << v.y << ") points away from the goal";
        EXPECT_LT(v.y, 0.0f) << "toward the route's row";
        // sample() in a sector without a field uses the coarse direction.
        const Vec2 sv = hf->sample({static_cast<float>(c.x) + 0.5f, static_cast<float>(c.y) + 0.5f});
        EXPECT_NEAR(sv.x, v.x, 1e-5f);
        EXPECT_NEAR(sv.y, v.y, 1e-5f);
        EXPECT_TRUE(hf->reachable(c.x, c.y));
        ++checked;
    }
    EXPECT_GE(checked, 3);
    // Off the map: nothing.
    EXPECT_EQ(hf->coarse_direction(-1, 5), (Vec2{0.0f, 0.0f}));
    EXPECT_EQ(hf->sample({-3.0f, 2.0f}), (Vec2{0.0f, 0.0f}));
}

}  // namespace
}  // namespace tide
