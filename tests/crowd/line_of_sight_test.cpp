// Line of sight and string pulling: the look-ahead never sees through a wall corner or across
// other terrain (checked against a dense exact disc sweep), a unit on an open map walks a straight
// line, and travelled paths on generated open and rooms maps stay close to the any-angle shortest
// path (a visibility graph over the wall corners), closer than a point following an Eikonal
// (fast-marching) field.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <random>
#include <vector>

#include "look_ahead.hpp"
#include "support/walk.hpp"
#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/hierarchy.hpp"

namespace tide {
namespace {

std::shared_ptr<const FlowField> field_for(const CostField& cost, Cell goal) {
    auto f = build_flow_field(cost, std::span<const Cell>(&goal, 1));
    EXPECT_TRUE(f.ok());
    return std::make_shared<const FlowField>(std::move(f.value()));
}

// True when touches(x, y) holds at some point of segment a-b, sampled about every `step` cells
// (both ends included).
template <class Touches>
bool any_point_along(Vec2 a, Vec2 b, float step, Touches touches) {
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    const int n = std::max(1, static_cast<int>(len / step));
    for (int k = 0; k <= n; ++k) {
        const float t = static_cast<float>(k) / n;
        if (touches(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)) return true;
    }
    return false;
}

// Reference: does a disc of radius r anywhere on segment a-b overlap a cell whose cost is not
// `terrain` (or leave the map)? Dense samples, exact disc-square distance.
bool sweep_touches_other_cells(const CostField& cost, Vec2 a, Vec2 b, float r, Cost terrain) {
    return any_point_along(a, b, 0.01f, [&](float x, float y) {
        if (x - r < 0 || y - r < 0 || x + r > cost.width() || y + r > cost.height()) return true;
        for (int cy = static_cast<int>(y - r); cy <= static_cast<int>(y + r); ++cy)
            for (int cx = static_cast<int>(x - r); cx <= static_cast<int>(x + r); ++cx) {
                if (cost.at(cx, cy) == terrain) continue;
                const float qx = std::clamp(x, float(cx), float(cx + 1)), qy = std::clamp(y, float(cy), float(cy + 1));
                if (std::hypot(x - qx, y - qy) < r) return true;
            }
        return false;
    });
}

TEST(LineOfSight, NeverThroughAWallCornerOrAcrossOtherTerrain) {
    std::mt19937 rng(7);
    int checked = 0, found = 0;
    for (int m = 0; m < 40; ++m) {
        CostField cost = std::move(CostField::create(40, 30).value());
        std::uniform_int_distribution<int> ux(0, 39), uy(0, 29), kind(0, 9);
        for (int i = 0; i < 120; ++i) {  // single cells and short bars of wall, forest and swamp
            const int x = ux(rng), y = uy(rng), k = kind(rng);
            const Cost c = k < 6 ? kCostWall : k < 8 ? kCostForest : kCostSwamp;
            const int len = 1 + (i % 4);
            if (i % 2)
                cost.fill_rect(x, y, std::min(39, x + len), y, c);
            else
                cost.fill_rect(x, y, x, std::min(29, y + len), c);
        }
        Cell goal{ux(rng), uy(rng)};
        if (!cost.passable(goal.x, goal.y)) continue;
        const auto field = field_for(cost, goal);
        for (int q = 0; q < 200; ++q) {
            const Vec2 p{std::uniform_real_distribution<float>(0.2f, 39.8f)(rng),
                         std::uniform_real_distribution<float>(0.2f, 29.8f)(rng)};
            const int cx = static_cast<int>(p.x), cy = static_cast<int>(p.y);
            if (!cost.passable(cx, cy) || !is_move(field->direction(cx, cy))) continue;
            const float r = q % 2 ? 0.16f : 0.4f;
            const std::uint32_t from = static_cast<std::uint32_t>(cy * 40 + cx);
            const detail::Sight w = detail::look_ahead(*field, cost, p, r, from, 64);
            ++checked;
            if (w.cell == detail::kNoCell) continue;
            ++found;
            const Vec2 target = w.aim;
            ASSERT_FALSE(sweep_touches_other_cells(cost, p, target, r, cost.at(cx, cy)))
                << "map " << m << " from (" << p.x << ", " << p.y << ") r " << r << " to (" << target.x << ", "
                << target.y << ")";
        }
    }
    EXPECT_GT(checked, 2000);
    EXPECT_GT(found, checked / 4);  // it does look ahead on such maps
}

TEST(LineOfSight, ASegmentGrazingAWallCornerIsNotClear) {
    CostField cost = std::move(CostField::create(10, 10).value());
    cost.set(5, 5, kCostWall);
    // The centre line passes 0.1 from the corner (5, 5): clear for a point, not for a 0.16 disc.
    EXPECT_FALSE(detail::segment_clear(cost, {2.0f, 2.2f}, {8.0f, 8.2f}, 0.16f, kCostPlain));
    EXPECT_TRUE(detail::segment_clear(cost, {2.0f, 3.5f}, {8.0f, 9.5f}, 0.16f, kCostPlain));
    // Across one swamp cell: not clear on plain ground.
    cost.set(5, 5, kCostSwamp);
    EXPECT_FALSE(detail::segment_clear(cost, {5.5f, 1.5f}, {5.5f, 8.5f}, 0.16f, kCostPlain));
}

// Reference for the other side: does the square of half-side h anywhere on segment a-b touch a
// cell whose cost is not `terrain` (or leave the map)? Dense samples.
bool square_sweep_touches_other_cells(const CostField& cost, Vec2 a, Vec2 b, float h, Cost terrain) {
    return any_point_along(a, b, 0.002f, [&](float x, float y) {
        if (x - h < 0 || y - h < 0 || x + h >= cost.width() || y + h >= cost.height()) return true;
        for (int cy = static_cast<int>(std::floor(y - h)); cy <= static_cast<int>(std::floor(y + h)); ++cy)
            for (int cx = static_cast<int>(std::floor(x - h)); cx <= static_cast<int>(std::floor(x + h)); ++cx)
                if (cost.at(cx, cy) != terrain) return true;
        return false;
    });
}

// segment_clear() between two dense references on random maps with walls and swamp: never clear
// when the disc's sweep touches other ground (sound), always clear when the square of half-side
// r + 0.075 sweeps only the unit's ground (no more careful than its 1/16-cell margin).
TEST(LineOfSight, SegmentClearIsSoundAndTight) {
    std::mt19937 rng(7);
    int clear = 0, blocked = 0;
    for (int map = 0; map < 20; ++map) {
        CostField cost = std::move(CostField::create(24, 24).value());
        std::uniform_int_distribution<int> cell(0, 23), kind(0, 9);
        for (int i = 0; i < 40; ++i) cost.set(cell(rng), cell(rng), kind(rng) < 7 ? kCostWall : kCostSwamp);
        std::uniform_real_distribution<float> pos(0.0f, 24.0f), radius(0.05f, 0.5f);
        for (int q = 0; q < 300; ++q) {
            const Vec2 a{pos(rng), pos(rng)};
            Vec2 b{pos(rng), pos(rng)};
            if (q % 3 == 0) b.y = a.y;  // level and upright segments too
            if (q % 3 == 1) b.x = a.x;
            const float r = radius(rng);
            const Cost terrain = cost.at(static_cast<int>(a.x), static_cast<int>(a.y));
            const bool ok = detail::segment_clear(cost, a, b, r, terrain);
            if (ok) {
                EXPECT_FALSE(sweep_touches_other_cells(cost, a, b, r, terrain))
                    << "clear from (" << a.x << ", " << a.y << ") to (" << b.x << ", " << b.y << ") r " << r;
                ++clear;
            } else {
                EXPECT_TRUE(square_sweep_touches_other_cells(cost, a, b, r + 0.075f, terrain))
                    << "refused from (" << a.x << ", " << a.y << ") to (" << b.x << ", " << b.y << ") r " << r;
                ++blocked;
            }
        }
    }
    EXPECT_GT(clear, 300);
    EXPECT_GT(blocked, 300);
}

// Units of size 2..4 (radius up to half their size): the look-ahead along a field built on the
// sized costs never lets the disc, centred (s-1)/2 cells right of and below the top-left point,
// sweep a wall or other ground; the same dense reference as above.
TEST(LineOfSight, BigUnitsNeverSeeThroughAWallCornerOrAcrossOtherTerrain) {
    std::mt19937 rng(11);
    int checked = 0, found = 0;
    for (int m = 0; m < 60; ++m) {
        CostField cost = std::move(CostField::create(40, 30).value());
        std::uniform_int_distribution<int> ux(0, 39), uy(0, 29), kind(0, 9);
        for (int i = 0; i < 40; ++i) {
            const int x = ux(rng), y = uy(rng), k = kind(rng);
            const Cost c = k < 6 ? kCostWall : k < 8 ? kCostForest : kCostSwamp;
            const int len = 1 + (i % 4);
            if (i % 2)
                cost.fill_rect(x, y, std::min(39, x + len), y, c);
            else
                cost.fill_rect(x, y, x, std::min(29, y + len), c);
        }
        const int size = 2 + m % 3;
        const CostField sized = std::move(sized_cost_field(cost, size).value());
        Cell goal{ux(rng), uy(rng)};
        if (!sized.passable(goal.x, goal.y)) continue;
        const auto field = field_for(sized, goal);
        const float lift = 0.5f * static_cast<float>(size - 1);
        for (int q = 0; q < 200; ++q) {
            const Vec2 tl{std::uniform_real_distribution<float>(0.0f, 40.0f)(rng),
                          std::uniform_real_distribution<float>(0.0f, 30.0f)(rng)};
            const int cx = static_cast<int>(tl.x), cy = static_cast<int>(tl.y);
            if (!sized.passable(cx, cy) || !is_move(field->direction(cx, cy))) continue;
            const float r = q % 2 ? 0.5f * static_cast<float>(size) : 0.3f * static_cast<float>(size);
            const Vec2 centre{tl.x + lift, tl.y + lift};
            // The disc must lie on the block where it stands (the crowd keeps it there).
            if (centre.x - r < cx || centre.y - r < cy || centre.x + r > cx + size || centre.y + r > cy + size)
                continue;
            const std::uint32_t from = static_cast<std::uint32_t>(cy * 40 + cx);
            const detail::Sight w =
                detail::look_ahead(*field, detail::SightCosts{&cost, size, nullptr}, tl, r, from, 64);
            ++checked;
            if (w.cell == detail::kNoCell) continue;
            ++found;
            const Vec2 target = w.aim;
            ASSERT_FALSE(
                sweep_touches_other_cells(cost, centre, {target.x + lift, target.y + lift}, r, cost.at(cx, cy)))
                << "map " << m << " size " << size << " from (" << tl.x << ", " << tl.y << ") r " << r << " to ("
                << target.x << ", " << target.y << ")";
        }
    }
    EXPECT_GT(checked, 1500);
    EXPECT_GT(found, checked / 5);
}

// Heading of a lone unit crossing an open map at an angle the 8 directions do not have.
TEST(LineOfSight, AUnitOnAnOpenMapWalksAStraightLine) {
    CostField cost = std::move(CostField::create(100, 50).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {90, 40})).value();
    const AgentId a = crowd.add_agent({10.5f, 10.5f}, g).value();
    test::Walk walk(crowd.position(a));
    for (int s = 0; s < 60 * 40 && crowd.state(a) == AgentState::moving; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        walk.add(crowd.position(a), crowd.velocity(a), crowd.time() >= 1.0);
    }
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
    EXPECT_LT(walk.turn_deg(), 3.0) << "heading changed by " << walk.turn_deg() << " deg";
    EXPECT_LT(walk.ratio({10.5f, 10.5f}, {90.5f, 40.5f}), 1.01);
}

// Round the end of a wall a unit alone passes just off the corners (it aims r + 1/16 + 0.01 out on
// each axis), not half a cell out where the cell centres of the field's path lie. Measured: 0.337
// cells under the wall's end at the deepest; 0.446 aiming at the cell centres (the corner aims off).
TEST(LineOfSight, ALoneUnitTakesACornerTight) {
    CostField cost = std::move(CostField::create(30, 24).value());
    cost.fill_rect(10, 0, 14, 11, kCostWall);  // the wall's end is the row y = 12
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {27, 10})).value();
    const AgentId a = crowd.add_agent({2.5f, 10.5f}, g).value();
    const float r = crowd.default_agent_params().radius;
    float lowest = 0.0f, closest = 1e9f;  // under the wall's end: deepest y; nearest approach to it
    for (int s = 0; s < 60 * 30 && crowd.state(a) == AgentState::moving; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 p = crowd.position(a);
        if (p.x >= 10.0f && p.x <= 15.0f) {
            lowest = std::max(lowest, p.y - 12.0f);
            closest = std::min(closest, p.y - 12.0f);
        }
    }
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
    EXPECT_GE(closest, r * 0.95f) << "the disc went into the wall";
    EXPECT_LT(lowest, 0.4f) << "the unit swung wide of the wall's end";
}

// Units of size 2 and 3 on fields built on the sized costs walk as straight as units of size 1.
TEST(LineOfSight, BigUnitsOnAnOpenMapWalkStraightLines) {
    const CostField cost = std::move(CostField::create(100, 50).value());
    for (const bool sight : {true, false}) {
        for (const int size : {2, 3}) {
            const CostField sized = std::move(sized_cost_field(cost, size).value());
            CrowdParams params;
            params.line_of_sight = sight;
            Crowd crowd(cost, params);
            const GroupId g = crowd.add_group(field_for(sized, {88, 38}), size).value();
            AgentParams unit = crowd.default_agent_params();
            unit.radius = 0.4f * static_cast<float>(size);
            const float lift = 0.5f * static_cast<float>(size - 1);
            const Vec2 start{10.5f + lift, 10.5f + lift};
            const AgentId a = crowd.add_agent(start, g, unit).value();
            test::Walk walk(start);
            for (int s = 0; s < 60 * 40 && crowd.state(a) == AgentState::moving; ++s) {
                ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
                walk.add(crowd.position(a), crowd.velocity(a), crowd.time() >= 1.0);
            }
            EXPECT_EQ(crowd.state(a), AgentState::arrived);
            const double ratio = walk.ratio(start, {88.5f + lift, 38.5f + lift});
            const double turn = walk.turn_deg();
            if (sight) {
                EXPECT_LT(turn, 3.0) << "size " << size << ": heading changed by " << turn << " deg";
                EXPECT_LT(ratio, 1.01) << "size " << size;
            } else {  // the 8 directions: diagonal first, then straight
                EXPECT_GT(turn, 10.0) << "size " << size;
                EXPECT_GT(ratio, 1.05) << "size " << size;
            }
        }
    }
}

// The crowd checks a big unit's field against the sized costs of the terrain as it is now, even
// when the host wrote the terrain through CostField::cells() (which leaves its version alone): a
// forest corner off the unit's way, then a field built on the new sized costs, and the unit still
// walks straight (a stale copy of the sized costs would refuse the field: the 8 directions, 45
// degrees of turn).
TEST(LineOfSight, BigUnitsSeeAlongAFieldBuiltAfterTheTerrainWasWrittenDirectly) {
    CostField cost = std::move(CostField::create(100, 50).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(std::move(sized_cost_field(cost, 2).value()), {88, 38}), 2).value();
    const std::uint64_t version = cost.version();
    const std::span<Cost> cells = cost.cells();
    for (int y = 0; y < 5; ++y)
        for (int x = 94; x < 100; ++x) cells[static_cast<std::size_t>(y) * 100 + x] = kCostForest;
    ASSERT_EQ(cost.version(), version);
    ASSERT_TRUE(crowd.set_group_field(g, field_for(std::move(sized_cost_field(cost, 2).value()), {88, 38})).ok());
    AgentParams unit = crowd.default_agent_params();
    unit.radius = 0.8f;
    const AgentId a = crowd.add_agent({11.0f, 11.0f}, g, unit).value();
    test::Walk walk(crowd.position(a));
    for (int s = 0; s < 60 * 40 && crowd.state(a) == AgentState::moving; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        walk.add(crowd.position(a), crowd.velocity(a), crowd.time() >= 1.0);
    }
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
    EXPECT_LT(walk.turn_deg(), 3.0);
}

// A hierarchical plan (16-cell sectors, so the walk crosses a dozen sector borders): the unit
// sees along the flow of the sectors that have fields and walks as straight as on a flat field. A
// plan made on other costs (a class's: here a swamp bar across the straight line that the
// terrain does not have) is looked along too, but the look-ahead reads the plan's costs as well:
// the unit goes round the bar in straight legs and never crosses it, as its plan does.
TEST(LineOfSight, AcrossTheSectorsOfAHierarchicalPlan) {
    const CostField cost = std::move(CostField::create(160, 80).value());
    CostField class_costs = cost;
    class_costs.fill_rect(80, 20, 80, 60, kCostSwamp);
    SectorConfig sc;
    sc.sector_size = 16;
    sc.portal_limit = 16;
    struct Run {
        double turn, ratio;  // largest heading change (deg); travelled / straight line
        int on_bar;          // sub-steps with the disc over the class's swamp bar
    };
    auto run = [&](const CostField& plan_costs, bool sight) {
        const SectorGraph graph = std::move(SectorGraph::build(plan_costs, sc).value());
        const Cell goal{150, 70};
        auto plan = std::make_shared<HierarchicalField>(
            std::move(HierarchicalField::create(plan_costs, graph, std::span<const Cell>(&goal, 1)).value()));
        CrowdParams params;
        params.line_of_sight = sight;
        Crowd crowd(cost, params);
        const GroupId g = crowd.add_group(std::shared_ptr<const HierarchicalField>(plan)).value();
        const AgentId a = crowd.add_agent({10.5f, 10.5f}, g).value();
        const float r = crowd.default_agent_params().radius;
        test::Walk walk(crowd.position(a));
        int on_bar = 0;
        for (int s = 0; s < 60 * 80 && crowd.state(a) == AgentState::moving; ++s) {
            const Vec2 p = crowd.position(a);
            const Cell at{static_cast<int>(p.x), static_cast<int>(p.y)};
            EXPECT_TRUE(plan->route(std::span<const Cell>(&at, 1)).ok());  // as the World does every tick
            EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
            const Vec2 q = crowd.position(a);
            on_bar += q.x + r > 80.0f && q.x - r < 81.0f && q.y + r > 20.0f && q.y - r < 61.0f;
            walk.add(q, crowd.velocity(a), crowd.time() >= 1.0);
        }
        EXPECT_EQ(crowd.state(a), AgentState::arrived);
        return Run{walk.turn_deg(), walk.ratio({10.5f, 10.5f}, {150.5f, 70.5f}), on_bar};
    };
    const Run own = run(cost, true);
    EXPECT_LT(own.turn, 3.0) << "heading changed by " << own.turn << " deg";
    EXPECT_LT(own.ratio, 1.01);
    // Round the bar: the any-angle way passes an end of it, (80, 61) then (81, 61) or (80, 20)
    // then (81, 20), both 157.05 cells long, 1.031x the straight line.
    const double round = (std::hypot(69.5, 50.5) + 1.0 + std::hypot(69.5, 9.5)) / std::hypot(140.0, 60.0);
    const Run other = run(class_costs, true);
    EXPECT_EQ(other.on_bar, 0) << "the unit crossed what its plan goes round";
    EXPECT_LT(other.ratio, round * 1.02);
    const Run blind = run(class_costs, false);  // the 8 directions (the disc grazes the bar's end)
    EXPECT_GT(blind.ratio, other.ratio + 0.02);
}

// ---- Path length against the any-angle shortest path ----------------------------------------

// Shortest path for a point between a and b around wall cells: Dijkstra on the visibility graph
// of the convex wall corners.
struct AnyAngle {
    const CostField& cost;
    std::vector<Vec2> corners;

    explicit AnyAngle(const CostField& c) : cost(c) {
        for (int y = 1; y < c.height(); ++y)
            for (int x = 1; x < c.width(); ++x) {
                const int walls =
                    !c.passable(x - 1, y - 1) + !c.passable(x, y - 1) + !c.passable(x - 1, y) + !c.passable(x, y);
                if (walls != 1) continue;  // a convex corner: step off it, away from its wall cell
                const float ox = !c.passable(x - 1, y - 1) || !c.passable(x - 1, y) ? 3e-4f : -3e-4f;
                const float oy = !c.passable(x - 1, y - 1) || !c.passable(x, y - 1) ? 3e-4f : -3e-4f;
                corners.push_back({static_cast<float>(x) + ox, static_cast<float>(y) + oy});
            }
    }
    // True when the segment misses every wall cell grown by a hair (so it may not slip along the
    // edge between two wall cells; the corner nodes sit a little further out).
    bool visible(Vec2 a, Vec2 b) const {
        constexpr double e = 1e-4;
        const int x0 = static_cast<int>(std::min(a.x, b.x)), x1 = static_cast<int>(std::max(a.x, b.x));
        const int y0 = static_cast<int>(std::min(a.y, b.y)), y1 = static_cast<int>(std::max(a.y, b.y));
        const double d[2] = {b.x - a.x, b.y - a.y}, o[2] = {a.x, a.y};
        for (int y = std::max(0, y0 - 1); y <= std::min(cost.height() - 1, y1 + 1); ++y)
            for (int x = std::max(0, x0 - 1); x <= std::min(cost.width() - 1, x1 + 1); ++x) {
                if (cost.passable(x, y)) continue;
                const double lo[2] = {x - e, y - e}, hi[2] = {x + 1 + e, y + 1 + e};
                double t0 = 0.0, t1 = 1.0;
                bool hit = true;
                for (int k = 0; k < 2 && hit; ++k) {
                    if (std::fabs(d[k]) < 1e-12) {
                        hit = o[k] > lo[k] && o[k] < hi[k];
                    } else {
                        double ta = (lo[k] - o[k]) / d[k], tb = (hi[k] - o[k]) / d[k];
                        if (ta > tb) std::swap(ta, tb);
                        t0 = std::max(t0, ta);
                        t1 = std::min(t1, tb);
                        hit = t0 < t1;
                    }
                }
                if (hit) return false;
            }
        return true;
    }
    double shortest(Vec2 a, Vec2 b) const {
        std::vector<Vec2> nodes = corners;
        nodes.push_back(a);
        nodes.push_back(b);
        const std::size_t n = nodes.size(), s = n - 2, t = n - 1;
        std::vector<double> dist(n, std::numeric_limits<double>::infinity());
        std::vector<char> done(n, 0);
        dist[s] = 0.0;
        for (;;) {
            std::size_t u = n;
            for (std::size_t i = 0; i < n; ++i)
                if (!done[i] && (u == n || dist[i] < dist[u])) u = i;
            if (u == n || !std::isfinite(dist[u])) return dist[t];
            if (u == t) return dist[t];
            done[u] = 1;
            for (std::size_t v = 0; v < n; ++v) {
                if (done[v]) continue;
                const double w = std::hypot(nodes[u].x - nodes[v].x, nodes[u].y - nodes[v].y);
                if (dist[u] + w < dist[v] && visible(nodes[u], nodes[v])) dist[v] = dist[u] + w;
            }
        }
    }
};

// Rooms: a grid of rooms (walls every `room` cells) joined by doors of 2..4 cells at random places.
CostField rooms_map(int w, int h, int room, std::mt19937& rng) {
    CostField cost = std::move(CostField::create(w, h).value());
    for (int x = room; x < w - 1; x += room) cost.fill_rect(x, 0, x, h - 1, kCostWall);
    for (int y = room; y < h - 1; y += room) cost.fill_rect(0, y, w - 1, y, kCostWall);
    for (int x = room; x < w - 1; x += room)
        for (int y0 = 0; y0 < h; y0 += room) {
            const int door = 2 + static_cast<int>(rng() % 3);
            const int at = y0 + 1 + static_cast<int>(rng() % std::max(1, room - door - 1));
            cost.fill_rect(x, at, x, std::min(h - 1, at + door - 1), kCostPlain);
        }
    for (int y = room; y < h - 1; y += room)
        for (int x0 = 0; x0 < w; x0 += room) {
            const int door = 2 + static_cast<int>(rng() % 3);
            const int at = x0 + 1 + static_cast<int>(rng() % std::max(1, room - door - 1));
            cost.fill_rect(at, y, std::min(w - 1, at + door - 1), y, kCostPlain);
        }
    return cost;
}

// Open: scattered rectangular blocks of wall.
CostField open_map(int w, int h, std::mt19937& rng) {
    CostField cost = std::move(CostField::create(w, h).value());
    for (int i = 0; i < 12; ++i) {
        const int x = 3 + static_cast<int>(rng() % (w - 10)), y = 3 + static_cast<int>(rng() % (h - 10));
        cost.fill_rect(x, y, x + 1 + static_cast<int>(rng() % 5), y + 1 + static_cast<int>(rng() % 5), kCostWall);
    }
    return cost;
}

// Travelled length of a lone unit plus what is left to the goal's centre when it stops, over the
// any-angle shortest path from its start to the goal's centre.
double path_ratio(const CostField& cost, Vec2 start, Cell goal, const AnyAngle& reference, bool line_of_sight) {
    CrowdParams params;
    params.line_of_sight = line_of_sight;
    Crowd crowd(cost, params);
    const GroupId g = crowd.add_group(field_for(cost, goal)).value();
    const AgentId a = crowd.add_agent(start, g).value();
    double length = 0.0;
    Vec2 last = crowd.position(a);
    for (int s = 0; s < 60 * 120 && crowd.state(a) == AgentState::moving; ++s) {
        EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 p = crowd.position(a);
        length += std::hypot(p.x - last.x, p.y - last.y);
        last = p;
    }
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
    const Vec2 centre{goal.x + 0.5f, goal.y + 0.5f};
    length += std::hypot(centre.x - last.x, centre.y - last.y);
    const double best = reference.shortest(start, centre);
    return length / best;
}

// The 22 runs of the path-length tests: 3 open and 3 rooms maps of 60 x 40, 6 random queries each,
// kept when both ends are open and at least 10 cells apart; fn(map index, cost, reference, start,
// goal) for each. Returns the number of runs.
template <class Fn>
int for_each_route_run(Fn&& fn) {
    std::mt19937 rng(12);
    int runs = 0;
    for (int m = 0; m < 6; ++m) {
        const CostField cost = m % 2 ? rooms_map(60, 40, 12 + m, rng) : open_map(60, 40, rng);
        const AnyAngle reference(cost);
        for (int q = 0; q < 6; ++q) {
            Cell goal{static_cast<int>(rng() % 60), static_cast<int>(rng() % 40)};
            Vec2 start{static_cast<float>(rng() % 60) + 0.5f, static_cast<float>(rng() % 40) + 0.5f};
            if (!cost.passable(goal.x, goal.y) || !cost.passable(static_cast<int>(start.x), static_cast<int>(start.y)))
                continue;
            if (std::hypot(start.x - goal.x, start.y - goal.y) < 10.0f) continue;
            fn(m, cost, reference, start, goal);
            ++runs;
        }
    }
    return runs;
}

TEST(LineOfSight, PathsOnGeneratedOpenAndRoomsMapsAreNearTheAnyAngleShortest) {
    double sum = 0.0, worst = 0.0, sum_field = 0.0, worst_field = 0.0;
    const int runs =
        for_each_route_run([&](int m, const CostField& cost, const AnyAngle& reference, Vec2 start, Cell goal) {
            const double ratio = path_ratio(cost, start, goal, reference, true);
            if (ratio > 1.05)
                std::printf("map %d (%s) from (%.1f, %.1f) to (%d, %d): ratio %.4f\n", m, m % 2 ? "rooms" : "open",
                            start.x, start.y, goal.x, goal.y, ratio);
            sum += ratio;
            worst = std::max(worst, ratio);
            const double field_only = path_ratio(cost, start, goal, reference, false);  // the same without
            sum_field += field_only;
            worst_field = std::max(worst_field, field_only);
        });
    ASSERT_GT(runs, 15);
    const double mean = sum / runs;
    RecordProperty("mean_ratio", std::to_string(mean));
    RecordProperty("worst_ratio", std::to_string(worst));
    std::printf("path ratio over %d runs: mean %.4f, worst %.4f (line of sight off: mean %.4f, worst %.4f)\n", runs,
                mean, worst, sum_field / runs, worst_field);
    // Measured: mean 1.0126, worst 1.0432 (a short route through two doors); 1.057 and 1.117 with
    // line of sight off. Aiming at the cell centres of the field's path (moved 0.3 toward the turn)
    // instead of just off the corners it turns round gave 1.014 and 1.057: the unit swung half a
    // cell wide of each corner.
    EXPECT_LE(mean, 1.02);
    EXPECT_LE(worst, 1.05);
}

// ---- The other way to straight paths: an any-angle (Eikonal) integration ----------------------

// Arrival times of the Eikonal equation |grad T| = cost (first-order upwind fast marching on the
// 4-neighbour stencil, as Continuum Crowds and most game implementations use), walls excluded.
std::vector<double> fast_marching(const CostField& cost, Cell goal) {
    const int W = cost.width(), H = cost.height();
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> t(static_cast<std::size_t>(W) * H, inf);
    std::vector<char> done(t.size(), 0);
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    t[static_cast<std::size_t>(goal.y) * W + goal.x] = 0.0;
    open.push({0.0, goal.y * W + goal.x});
    auto at = [&](int x, int y) {
        return x < 0 || y < 0 || x >= W || y >= H || !cost.passable(x, y) ? inf
                                                                          : t[static_cast<std::size_t>(y) * W + x];
    };
    while (!open.empty()) {
        const auto [d, i] = open.top();
        open.pop();
        if (done[static_cast<std::size_t>(i)]) continue;
        done[static_cast<std::size_t>(i)] = 1;
        const int x0 = i % W, y0 = i / W;
        const int nx[4] = {x0 + 1, x0 - 1, x0, x0}, ny[4] = {y0, y0, y0 + 1, y0 - 1};
        for (int k = 0; k < 4; ++k) {
            const int x = nx[k], y = ny[k];
            if (x < 0 || y < 0 || x >= W || y >= H || !cost.passable(x, y) || done[static_cast<std::size_t>(y) * W + x])
                continue;
            const double f = cost.at(x, y), a = std::min(at(x - 1, y), at(x + 1, y)),
                         b = std::min(at(x, y - 1), at(x, y + 1));
            const double v =
                std::fabs(a - b) >= f ? std::min(a, b) + f : 0.5 * (a + b + std::sqrt(2.0 * f * f - (a - b) * (a - b)));
            if (v < t[static_cast<std::size_t>(y) * W + x]) {
                t[static_cast<std::size_t>(y) * W + x] = v;
                open.push({v, y * W + x});
            }
        }
    }
    return t;
}

// A point following -grad T (upwind differences per cell, interpolated bilinearly between cell
// centres) in steps of 0.02 cells to within half a cell of the goal's centre: its length plus
// what is left, and whether it ever stood in a wall cell. No radius and no inertia: the best case
// for the Eikonal field.
double eikonal_walk(const CostField& cost, const std::vector<double>& t, Vec2 start, Cell goal, bool& hit) {
    const int W = cost.width(), H = cost.height();
    const double inf = std::numeric_limits<double>::infinity();
    auto T = [&](int x, int y) {
        return x < 0 || y < 0 || x >= W || y >= H || !cost.passable(x, y) ? inf
                                                                          : t[static_cast<std::size_t>(y) * W + x];
    };
    auto grad = [&](int x, int y, double& gx, double& gy) {
        const double c = T(x, y), l = T(x - 1, y), r = T(x + 1, y), u = T(x, y - 1), d = T(x, y + 1);
        gx = std::min(l, r) < c ? (l < r ? c - l : r - c) : 0.0;
        gy = std::min(u, d) < c ? (u < d ? c - u : d - c) : 0.0;
    };
    const Vec2 centre{goal.x + 0.5f, goal.y + 0.5f};
    double px = start.x, py = start.y, length = 0.0;
    hit = false;
    for (int step = 0; step < 200000; ++step) {
        if (std::hypot(px - centre.x, py - centre.y) < 0.5) break;
        // Bilinear over the four cell centres around p (walls and unreached cells left out).
        const int x0 = static_cast<int>(std::floor(px - 0.5)), y0 = static_cast<int>(std::floor(py - 0.5));
        const double fx = px - 0.5 - x0, fy = py - 0.5 - y0;
        double gx = 0.0, gy = 0.0, wsum = 0.0;
        for (int k = 0; k < 4; ++k) {
            const int cx = x0 + (k & 1), cy = y0 + (k >> 1);
            if (!(T(cx, cy) < inf)) continue;
            const double w = ((k & 1) ? fx : 1.0 - fx) * ((k >> 1) ? fy : 1.0 - fy);
            double a, b;
            grad(cx, cy, a, b);
            gx += w * a;
            gy += w * b;
            wsum += w;
        }
        const double n = std::hypot(gx, gy);
        if (wsum <= 0.0 || n < 1e-12) break;
        px -= 0.02 * gx / n;
        py -= 0.02 * gy / n;
        length += 0.02;
        hit |= !cost.passable(static_cast<int>(px), static_cast<int>(py));
    }
    return length + std::hypot(centre.x - px, centre.y - py);
}

// The issue asked for both ways to straight paths, measured, keeping the better: the look-ahead on
// the 8-direction field (the crowd's line of sight) and an any-angle integration. Over the same 22
// runs as the test above, a point following the Eikonal field's gradient (no radius, no inertia:
// its best case) walks further than the crowd's units with line of sight (first-order arrival
// times and cell-sized upwind differences: its way round a corner is a curve, not a tangent).
// Measured: line of sight mean 1.0126, worst 1.0432; Eikonal mean 1.0177, worst 1.0672 (no walk
// stood in a wall cell). So line of sight stays; this test keeps the comparison honest if either
// changes.
TEST(LineOfSight, BeatsFollowingAnEikonalField) {
    double sum_los = 0.0, worst_los = 0.0, sum_eik = 0.0, worst_eik = 0.0;
    int through_walls = 0;
    const int runs =
        for_each_route_run([&](int, const CostField& cost, const AnyAngle& reference, Vec2 start, Cell goal) {
            const double los = path_ratio(cost, start, goal, reference, true);
            bool hit = false;
            const double eik = eikonal_walk(cost, fast_marching(cost, goal), start, goal, hit) /
                               reference.shortest(start, {goal.x + 0.5f, goal.y + 0.5f});
            sum_los += los;
            worst_los = std::max(worst_los, los);
            sum_eik += eik;
            worst_eik = std::max(worst_eik, eik);
            through_walls += hit;
        });
    ASSERT_GT(runs, 15);
    std::printf(
        "over %d runs: line of sight mean %.4f worst %.4f; Eikonal gradient mean %.4f worst %.4f, %d through "
        "walls\n",
        runs, sum_los / runs, worst_los, sum_eik / runs, worst_eik, through_walls);
    EXPECT_LE(sum_los / runs, sum_eik / runs);
    EXPECT_LE(worst_los, worst_eik);
}

}  // namespace
}  // namespace tide
