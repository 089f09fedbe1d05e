// FieldService on hierarchical maps: the same tickets hand out plans (FieldView), shared by equal
// requests, routed where units stand, brought up to date by edits at the next planning call, with
// goal blocks kept open; what hierarchical maps do not offer is refused by name.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "support/test_maps.hpp"
#include "tide/field_service.hpp"
#include "tide/generate.hpp"
#include "tide/jobs.hpp"

namespace tide {
namespace {

// A 96x96 random map with an open border and an open 3x3 block round (48, 48) and (4, 4).
CostField open_map() {
    RandomMapSpec spec;
    spec.width = spec.height = 96;
    spec.walls = 0.15;
    spec.seed = 7;
    CostField cost = generate_random_map(spec).value();
    for (int k = 0; k < 96; ++k) {
        cost.set(k, 0, kCostPlain);
        cost.set(0, k, kCostPlain);
    }
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            cost.set(48 + x, 48 + y, kCostPlain);
            cost.set(4 + x, 4 + y, kCostPlain);
        }
    }
    return cost;
}

FieldServiceConfig hierarchical_config() {
    FieldServiceConfig c;
    c.hierarchy_cells = 0;  // every map
    c.sectors.sector_size = 16;
    c.sectors.portal_limit = 8;
    c.classes.push_back(UnitClass{"size 2", 2, std::nullopt});
    return c;
}

TEST(ServicePlans, ARequestGetsAPlanSharedByEqualRequests) {
    SerialJobSystem jobs;
    auto service = FieldService::create(open_map(), jobs, hierarchical_config()).value();
    ASSERT_TRUE(service->hierarchical());
    ASSERT_NE(service->sector_graph(0), nullptr) << "the default class's graph is made at creation";
    EXPECT_EQ(service->sector_graph(1), nullptr) << "other classes' graphs wait for their first plan";
    const std::vector<Cell> goal{{48, 48}};
    const FieldTicket a = service->request(goal).value();
    const FieldTicket b = service->request(goal).value();
    EXPECT_FALSE(service->view(a)) << "nothing is current before publish()";
    EXPECT_EQ(service->publish(), 2u);
    const FieldView va = service->view(a), vb = service->view(b);
    ASSERT_TRUE(va.plan());
    EXPECT_EQ(va.flat(), nullptr);
    EXPECT_EQ(service->current(a), nullptr) << "current() is for whole-map fields";
    EXPECT_EQ(va, vb) << "equal requests share one plan";
    EXPECT_EQ(service->stats().plans, 1u);
    EXPECT_EQ(service->stats().plans_shared, 1u);
    EXPECT_TRUE(service->status(a).up_to_date);

    // Routing: the units' cells get routed fields; the view reads them like a field.
    const std::vector<Cell> starts{{4, 4}, {90, 2}};
    auto routed = service->route(a, starts);
    ASSERT_TRUE(routed.ok()) << routed.error().message;
    EXPECT_GT(routed->fields_built, 0u);
    for (const Cell c : starts) {
        EXPECT_TRUE(va.routed_at(c.x, c.y));
        EXPECT_LT(va.to_go(c.x, c.y), 1e30f);
        EXPECT_TRUE(is_move(va.direction(c.x, c.y)));
    }
    EXPECT_GT(service->stats().sector_fields, 0u);
    // A bigger class plans on its own graph.
    FieldOptions big;
    big.movement_class = 1;
    const FieldTicket c = service->request(std::vector<Cell>{{4, 4}}, big).value();
    service->publish();
    ASSERT_TRUE(service->view(c).plan());
    EXPECT_NE(service->sector_graph(1), nullptr);
    EXPECT_NE(&service->view(c).plan()->graph(), &va.plan()->graph());
}

TEST(ServicePlans, AnEditReachesThePlansAtTheNextPlanningCallAndKeepsGoalBlocksOpen) {
    SerialJobSystem jobs;
    std::vector<Publication> seen;
    FieldServiceConfig config = hierarchical_config();
    config.on_publish = [&](const Publication& p) { seen.push_back(p); };
    auto service = FieldService::create(open_map(), jobs, config).value();
    FieldOptions big;
    big.movement_class = 1;
    const FieldTicket t = service->request(std::vector<Cell>{{48, 48}}, big).value();
    service->publish();
    const FieldView before = service->view(t);
    ASSERT_TRUE(service->route(t, std::vector<Cell>{{4, 4}}).ok());
    seen.clear();

    // A wall over the goal's 2x2 block and beside it: the block stays open, the rest is walled.
    std::vector<Cell> cells;
    for (int y = 46; y <= 50; ++y)
        for (int x = 46; x <= 50; ++x) cells.push_back({x, y});
    ASSERT_TRUE(service->edit_cells(cells, kCostWall).ok());
    const auto terrain = service->terrain();
    for (const Cell q : {Cell{48, 48}, Cell{49, 48}, Cell{48, 49}, Cell{49, 49}}) {
        EXPECT_TRUE(terrain->passable(q.x, q.y)) << q.x << "," << q.y << " is in the goal's block";
    }
    EXPECT_FALSE(terrain->passable(46, 46));
    EXPECT_FALSE(terrain->passable(50, 50));
    EXPECT_FALSE(service->status(t).up_to_date) << "the plan catches up at the next planning call";

    EXPECT_EQ(service->publish(), 1u);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_TRUE(seen[0].repaired);
    EXPECT_EQ(seen[0].view, before) << "the plan changed in place, and is published again";
    EXPECT_TRUE(service->status(t).up_to_date);
    EXPECT_EQ(&service->view(t).plan()->cost(), service->planning_costs(1).get())
        << "the plan reads the class's new costs";
    // Routes go round the new wall.
    ASSERT_TRUE(service->route(t, std::vector<Cell>{{4, 4}}).ok());
    EXPECT_TRUE(service->view(t).routed_at(4, 4));

    // A rectangle of walls keeps the block open too.
    ASSERT_TRUE(service->edit_rect(47, 47, 49, 49, kCostWall).ok());
    EXPECT_TRUE(service->terrain()->passable(48, 48));
    EXPECT_FALSE(service->terrain()->passable(47, 47));
}

TEST(ServicePlans, WhatHierarchicalMapsDoNotOfferIsRefusedByName) {
    SerialJobSystem jobs;
    auto service = FieldService::create(open_map(), jobs, hierarchical_config()).value();
    const std::vector<Cell> goal{{48, 48}};
    auto expect_unsupported = [&](const FieldOptions& o, const char* words) {
        auto r = service->request(goal, o);
        ASSERT_FALSE(r.ok()) << words;
        EXPECT_EQ(r.error().code, ErrorCode::unsupported) << r.error().message;
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find("not available on hierarchical maps"), std::string::npos);
        EXPECT_FALSE(service->check_options(o).ok());
        EXPECT_FALSE(service->check(goal, o).ok());
    };
    FieldOptions flee;
    flee.kind = FieldKind::flee;
    expect_unsupported(flee, "flee");
    FieldOptions margin;
    margin.wall_margin = {2, 4};
    expect_unsupported(margin, "wall margins");
    FieldOptions mixed;
    mixed.dangers = {{4, 4}};
    expect_unsupported(mixed, "mixed");
    FieldOptions congested;
    congested.congestion = std::make_shared<const CongestionLayer>();
    expect_unsupported(congested, "congestion");
    EXPECT_EQ(service->stats().tickets, 0u) << "refused requests leave no ticket";

    EXPECT_TRUE(service->check(goal).ok());
}

// Towers on hierarchical maps: would_block() answers as a flat field's query does (the same
// BlockAnswer, cell counts included), on random maps, for random boxes and spawns; a ring that
// seals a unit in is refused; a box that walls a goal is answered over the whole map.
TEST(ServicePlans, WouldBlockOnPlansAnswersAsOnAField) {
    SerialJobSystem jobs;
    std::size_t blocking = 0, queries = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        RandomMapSpec spec;
        spec.width = spec.height = 48;
        spec.walls = 0.25;
        spec.seed = seed;
        const CostField cost = generate_random_map(spec).value();
        std::vector<Cell> goal{{24, 24}};
        if (!cost.passable(24, 24)) continue;
        auto hier = FieldService::create(cost, jobs, hierarchical_config()).value();
        auto flat = FieldService::create(cost, jobs).value();
        const FieldTicket th = hier->request(goal).value();
        const FieldTicket tf = flat->request(goal).value();
        hier->publish();
        flat->wait_idle();
        flat->publish();
        SplitMix64 rng{seed};
        for (int q = 0; q < 40; ++q) {
            const int x0 = static_cast<int>(rng.below(46)), y0 = static_cast<int>(rng.below(46));
            const int side = 1 + static_cast<int>(rng.below(3));
            std::vector<Cell> walls;
            for (int y = y0; y < std::min(48, y0 + side); ++y)
                for (int x = x0; x < std::min(48, x0 + side); ++x) walls.push_back({x, y});
            std::vector<Cell> spawns;
            for (int k = 0; k < 6; ++k)
                spawns.push_back({static_cast<int>(rng.below(48)), static_cast<int>(rng.below(48))});
            for (const auto& s : {std::vector<Cell>{}, spawns}) {
                const BlockAnswer a = hier->would_block(th, walls, s).value();
                const BlockAnswer b = flat->would_block(tf, walls, s).value();
                EXPECT_EQ(a.blocks, b.blocks) << "seed " << seed << " box " << x0 << "," << y0 << " side " << side;
                EXPECT_EQ(a.cut_off_cells, b.cut_off_cells) << "seed " << seed << " box " << x0 << "," << y0;
                EXPECT_EQ(a.cut_off_spawns, b.cut_off_spawns) << "seed " << seed << " box " << x0 << "," << y0;
                blocking += a.blocks ? 1 : 0;
                ++queries;
            }
        }
        // A ring round a free cell seals it in; the goal walled over cuts every cell off.
        std::vector<Cell> ring;
        for (int d = 0; d < kDirectionCount; ++d) ring.push_back({5 + kDirectionDx[d], 5 + kDirectionDy[d]});
        const std::vector<Cell> inside{{5, 5}};
        if (cost.passable(5, 5)) {
            const BlockAnswer sealed = hier->would_block(th, ring, inside).value();
            EXPECT_EQ(sealed.cut_off_spawns, flat->would_block(tf, ring, inside).value().cut_off_spawns);
        }
        const BlockAnswer on_goal = hier->would_block(th, goal).value();
        EXPECT_EQ(on_goal.cut_off_cells, flat->would_block(tf, goal).value().cut_off_cells);
        EXPECT_TRUE(on_goal.blocks);
    }
    EXPECT_GT(queries, 500u);
    EXPECT_GT(blocking, 10u) << "some boxes should cut cells off";
    // Errors: off the map, a dead ticket.
    auto service = FieldService::create(open_map(), jobs, hierarchical_config()).value();
    const FieldTicket t = service->request(std::vector<Cell>{{48, 48}}).value();
    EXPECT_EQ(service->would_block(t, std::vector<Cell>{{96, 3}}).error().code, ErrorCode::off_map);
    service->release(t);
    EXPECT_EQ(service->would_block(t, std::vector<Cell>{{3, 3}}).error().code, ErrorCode::not_found);
}

TEST(ServicePlans, BadSectorSettingsAreRefusedAtCreation) {
    SerialJobSystem jobs;
    FieldServiceConfig config = hierarchical_config();
    config.sectors.portal_limit = 28;  // over the sector size of 16
    auto r = FieldService::create(open_map(), jobs, config);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("portal limit"), std::string::npos) << r.error().message;
    config = hierarchical_config();
    config.routes.corridor = 9;
    r = FieldService::create(open_map(), jobs, config);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("corridor"), std::string::npos) << r.error().message;
}

TEST(ServicePlans, FlatMapsHandOutWholeMapFieldsThroughTheSameView) {
    SerialJobSystem jobs;
    auto service = FieldService::create(open_map(), jobs).value();  // default: no map is hierarchical
    EXPECT_FALSE(service->hierarchical());
    const FieldTicket t = service->request(std::vector<Cell>{{48, 48}}).value();
    service->wait_idle();
    service->publish();
    const FieldView v = service->view(t);
    ASSERT_TRUE(v.flat());
    EXPECT_EQ(v.flat(), service->current(t));
    EXPECT_FALSE(v.routes());
    EXPECT_TRUE(v.routed_at(4, 4));
    auto routed = service->route(t, std::vector<Cell>{{4, 4}});
    ASSERT_TRUE(routed.ok());
    EXPECT_EQ(routed->fields_built, 0u) << "nothing to route on a whole-map field";
    EXPECT_EQ(service->sector_graph(0), nullptr);
    EXPECT_TRUE(service->would_block(t, std::vector<Cell>{{10, 10}}).ok());
}

}  // namespace
}  // namespace tide
