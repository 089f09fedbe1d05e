// Crowd scenarios that assert outcomes: arrival through a door, swamp slow-down, wall safety,
// settling, sealing and reopening, moving the goal, determinism, and refused input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include "support/jobs.hpp"
#include "support/test_maps.hpp"
#include "tide/crowd.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"
#include "tide/unit_class.hpp"

namespace tide {
namespace {

/// Agent settings with the given radius and speed (the crowd's defaults otherwise).
AgentParams agent(float radius, float max_speed = CrowdParams{}.max_speed) {
    AgentParams p;
    p.radius = radius;
    p.max_speed = max_speed;
    return p;
}

std::shared_ptr<const FlowField> field_for(const CostField& cost, Cell goal) {
    auto f = build_flow_field(cost, std::span<const Cell>(&goal, 1));
    EXPECT_TRUE(f.ok());
    return std::make_shared<const FlowField>(std::move(f.value()));
}

// Wall cells an agent's centre is in, or whose disc overlaps a wall cell by more than 5% of the radius.
int penetrations(const Crowd& crowd, const CostField& cost, float radius) {
    int bad = 0;
    for (AgentId id : crowd.agents()) {
        const Vec2 p = crowd.position(id);
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) return 1 << 30;
        if (!cost.passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
            ++bad;
            continue;
        }
        for (int y = static_cast<int>(p.y) - 1; y <= static_cast<int>(p.y) + 1; ++y) {
            for (int x = static_cast<int>(p.x) - 1; x <= static_cast<int>(p.x) + 1; ++x) {
                if (cost.passable(x, y)) continue;
                const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
                const float d = std::hypot(p.x - qx, p.y - qy);
                if (d < radius * 0.95f) ++bad;
            }
        }
    }
    return bad;
}

// A 40x20 room split by a wall at x = 20 with a door of `door` cells; goal on the right.
CostField door_map(int door) {
    CostField cost = std::move(CostField::create(40, 20).value());
    cost.fill_rect(20, 0, 20, 19, kCostWall);
    cost.fill_rect(20, 10 - door / 2, 20, 10 - door / 2 + door - 1, kCostPlain);
    return cost;
}

TEST(Crowd, ThousandAgentsThroughAFourCellDoorAllArrive) {
    CostField cost = door_map(4);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> ux(0.5f, 18.5f), uy(0.5f, 19.5f);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, g).ok());
    for (int s = 0; s < 60 * 90 && crowd.stats().arrived < 1000; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.stats().arrived, 1000u) << "after " << crowd.time() << " s";
    EXPECT_EQ(penetrations(crowd, cost, 0.16f), 0);
}

TEST(Crowd, TwoHundredAgentsThroughATwoCellPassageDoNotDeadlock) {
    CostField cost = door_map(2);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> ux(0.5f, 18.5f), uy(0.5f, 19.5f);
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, g).ok());
    for (int s = 0; s < 60 * 90 && crowd.stats().arrived < 200; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.stats().arrived, 200u) << "after " << crowd.time() << " s";
}

// Deepest pair overlap (radii of `radius`) and the pairs deeper than half a radius, all pairs.
std::pair<float, int> overlap_now(const Crowd& crowd, float radius) {
    const std::vector<AgentId> ids = crowd.agents();
    float deepest = 0.0f;
    int deep = 0;
    for (std::size_t i = 0; i < ids.size(); ++i)
        for (std::size_t j = i + 1; j < ids.size(); ++j) {
            const Vec2 p = crowd.position(ids[i]), q = crowd.position(ids[j]);
            const float depth = (2.0f * radius - std::hypot(p.x - q.x, p.y - q.y)) / radius;
            deepest = std::max(deepest, depth);
            deep += depth > 0.5f;
        }
    return {deepest, deep};
}

TEST(CrowdKeepingApart, AQueuePressingThroughATwoCellDoorDoesNotPileUp) {
    // 300 units pressing through a two-cell door: without the yield each row walks into the one
    // ahead at full speed and the queue overlaps deeper with every row (the old crowd: yield and
    // contact passes 0, checked below so that this test can fail).
    const CostField cost = door_map(2);
    auto run = [&](const CrowdParams& params, float& deepest, int& deep) {
        Crowd crowd(cost, params);
        const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> ux(0.5f, 14.5f), uy(0.5f, 19.5f);
        for (int i = 0; i < 300; ++i) ASSERT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, g).ok());
        for (int i = 0; i < 60; ++i) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());  // random spawns overlap
        deepest = 0.0f;
        deep = 0;
        for (int s = 0; s < 60 * 15; ++s) {
            ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
            if (s % 6 != 0) continue;
            const auto [d, n] = overlap_now(crowd, params.radius);
            deepest = std::max(deepest, d);
            deep = std::max(deep, n);
        }
        EXPECT_EQ(penetrations(crowd, cost, params.radius), 0);
    };
    float deepest = 0.0f, old_deepest = 0.0f;
    int deep = 0, old_deep = 0;
    run(CrowdParams{}, deepest, deep);
    EXPECT_LE(deepest, 0.5f);
    EXPECT_EQ(deep, 0);
    CrowdParams old;
    old.yield_overlap = 0.0f;
    old.contact_passes = 0;
    run(old, old_deepest, old_deep);
    EXPECT_GT(old_deepest, 0.5f) << "the scene no longer presses the queue: the test would not notice";
    EXPECT_GT(old_deep, 0);
    std::printf("deepest overlap %.2f radii, %d deep pairs (old crowd: %.2f, %d)\n", deepest, deep, old_deepest,
                old_deep);
}

// Deepest overlap (radii of `radius`) over the pairs with an arrived unit in them (the pack, and
// units pressing into it), through a grid of one-cell buckets (radius below 0.5).
float deepest_in_pack(const Crowd& crowd, const CostField& cost, float radius) {
    const std::vector<AgentId> ids = crowd.agents();
    const int w = cost.width(), h = cost.height();
    std::vector<std::vector<std::size_t>> grid(static_cast<std::size_t>(w) * h);
    std::vector<Vec2> p(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        p[i] = crowd.position(ids[i]);
        grid[static_cast<std::size_t>(p[i].y) * w + static_cast<std::size_t>(p[i].x)].push_back(i);
    }
    float deepest = 0.0f;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int cx = static_cast<int>(p[i].x), cy = static_cast<int>(p[i].y);
        for (int y = std::max(0, cy - 1); y <= std::min(h - 1, cy + 1); ++y)
            for (int x = std::max(0, cx - 1); x <= std::min(w - 1, cx + 1); ++x)
                for (std::size_t j : grid[static_cast<std::size_t>(y) * w + x]) {
                    if (j <= i) continue;
                    if (crowd.state(ids[i]) != AgentState::arrived && crowd.state(ids[j]) != AgentState::arrived)
                        continue;
                    const float d = std::hypot(p[i].x - p[j].x, p[i].y - p[j].y);
                    deepest = std::max(deepest, (2.0f * radius - d) / radius);
                }
    }
    return deepest;
}

TEST(CrowdKeepingApart, APackPressedByArrivalsStaysWithinItsBound) {
    // 3,000 units converge on the middle of a 48x48 map with scattered walls: the arrivals press
    // the pack, and the contact passes alone leave pairs in it deeper than the 0.45 radii allowed
    // here at some step (pack_overlap 2: 0.48, checked below so that this test can fail; 2,000
    // units pressed to 0.43 once units held in place by the pack count as slow and join it). The
    // deep pass bounds every pair with an arrived unit to pack_overlap (0.4) at every step.
    RandomMapSpec spec;
    spec.width = spec.height = 48;
    spec.walls = 0.1;
    spec.forest = spec.swamp = 0.0;
    spec.seed = 3;
    CostField cost = std::move(generate_random_map(spec).value());
    const Cell goal{24, 24};
    cost.set(goal.x, goal.y, kCostPlain);
    auto run = [&](float pack_overlap) {
        CrowdParams params;
        params.pack_overlap = pack_overlap;
        params.arrival_regions = false;  // units press the pack wherever they touch it
        Crowd crowd(cost, params);
        const GroupId g = crowd.add_group(field_for(cost, goal)).value();
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(0.5f, 47.5f);
        for (int added = 0; added < 3000;) {
            const Vec2 q{u(rng), u(rng)};
            if (cost.passable(static_cast<int>(q.x), static_cast<int>(q.y)) && crowd.add_agent(q, g).ok()) ++added;
        }
        for (int s = 0; s < 60; ++s) EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());  // random spawns overlap
        float deepest = 0.0f;
        for (int s = 0; s < 60 * 20; ++s) {
            EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
            deepest = std::max(deepest, deepest_in_pack(crowd, cost, params.radius));
        }
        EXPECT_EQ(crowd.stats().arrived, 3000u);
        EXPECT_EQ(penetrations(crowd, cost, params.radius), 0);
        return deepest;
    };
    const float bounded = run(CrowdParams{}.pack_overlap), unbounded = run(2.0f);
    EXPECT_LE(bounded, 0.45f);
    EXPECT_GT(unbounded, 0.46f) << "the arrivals no longer press the pack: the test would not notice";
    std::printf("deepest overlap with an arrived unit %.3f radii (no bound: %.3f)\n", bounded, unbounded);
}

// Deepest overlap (radii of `radius`) over the pairs of units that are both flagged
// stuck (a jam), found by testing every pair (a few hundred units).
float deepest_stuck_pair(const Crowd& crowd, float radius) {
    std::vector<Vec2> p;
    for (const AgentId id : crowd.agents())
        if (crowd.stuck(id) || crowd.state(id) == AgentState::queued) p.push_back(crowd.position(id));
    float deepest = 0.0f;
    for (std::size_t i = 0; i < p.size(); ++i)
        for (std::size_t j = i + 1; j < p.size(); ++j)
            deepest = std::max(deepest, (2.0f * radius - std::hypot(p[i].x - p[j].x, p[i].y - p[j].y)) / radius);
    return deepest;
}

TEST(CrowdKeepingApart, AJamOfStuckUnitsStaysWithinThePackBound) {
    // 400 units press through a one-cell door: the queue jams, units in it are found stuck and
    // sidestep into each other while the rows behind push. Pairs of mates with a stuck unit in them
    // are bounded like the pack (pack_overlap, 0.4 radii; measured here: pairs of two units stuck
    // or queued); with the bound off (pack_overlap 2, checked below so that this test can fail) the
    // jam squeezes such pairs deeper than half a radius. Measured: 0.401 radii (no bound: 0.659).
    const CostField cost = door_map(1);
    auto run = [&](float pack_overlap) {
        CrowdParams params;
        params.pack_overlap = pack_overlap;
        params.arrival_regions = false;  // the queue waits behind the door instead of jamming in it
        Crowd crowd(cost, params);
        const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> ux(0.5f, 18.5f), uy(0.5f, 19.5f);
        for (int i = 0; i < 400; ++i) EXPECT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, g).ok());
        for (int s = 0; s < 60; ++s) EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());  // random spawns overlap
        float deepest = 0.0f;
        for (int s = 0; s < 60 * 30; ++s) {
            EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
            deepest = std::max(deepest, deepest_stuck_pair(crowd, params.radius));
        }
        EXPECT_EQ(penetrations(crowd, cost, params.radius), 0);
        std::printf("pack_overlap %.1f: %zu arrived after 30 s\n", pack_overlap, crowd.stats().arrived);
        return deepest;
    };
    const float bounded = run(CrowdParams{}.pack_overlap), unbounded = run(2.0f);
    std::printf("deepest overlap of two stuck mates %.3f radii (no bound: %.3f)\n", bounded, unbounded);
    EXPECT_LE(bounded, 0.45f);
    EXPECT_GT(unbounded, 0.5f) << "the jam no longer squeezes stuck units: the test would not notice";
    // Crowd.DeterministicAcrossThreadCountsAndRuns checks that the jam's flags, set by any number
    // of agents at once, do not depend on the thread count.
}

TEST(CrowdKeepingApart, BadSettingsAreRefused) {
    CostField cost = std::move(CostField::create(8, 8).value());
    Crowd crowd(cost);
    CrowdParams p;
    p.yield_overlap = 1.5f;
    EXPECT_FALSE(crowd.set_params(p).ok());
    p.yield_overlap = -0.1f;
    EXPECT_FALSE(crowd.set_params(p).ok());
    p.yield_overlap = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(crowd.set_params(p).ok());
    p = {};
    p.contact_passes = 17;
    EXPECT_FALSE(crowd.set_params(p).ok());
    p.contact_passes = -1;
    EXPECT_FALSE(crowd.set_params(p).ok());
    p.contact_passes = 16;
    EXPECT_TRUE(crowd.set_params(p).ok());
    p = {};
    for (float bad : {2.5f, -0.1f, std::numeric_limits<float>::quiet_NaN()}) {
        p.pack_overlap = bad;
        const auto r = crowd.set_params(p);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_NE(r.error().message.find("pack_overlap"), std::string::npos) << r.error().message;
    }
    p.pack_overlap = 2.0f;
    EXPECT_TRUE(crowd.set_params(p).ok());
}

TEST(Crowd, CounterFlowInAThreeCellCorridor) {
    // Two groups of 100 swap the ends of a 3-cell-wide corridor between two rooms.
    CostField cost = std::move(CostField::create(60, 21).value());
    cost.fill_rect(15, 0, 44, 8, kCostWall);
    cost.fill_rect(15, 12, 44, 20, kCostWall);
    Crowd crowd(cost);
    const GroupId east = crowd.add_group(field_for(cost, {54, 10})).value();
    const GroupId west = crowd.add_group(field_for(cost, {5, 10})).value();
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(crowd.add_agent({1.5f + (i % 10), 5.5f + (i / 10)}, east).ok());
        ASSERT_TRUE(crowd.add_agent({48.5f + (i % 10), 5.5f + (i / 10)}, west).ok());
    }
    for (int s = 0; s < 60 * 120 && crowd.stats().arrived < 200; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.stats().arrived, 200u) << "after " << crowd.time() << " s, stuck " << crowd.stats().stuck;
}

TEST(Crowd, SwampIsSixTimesSlower) {
    // A straight corridor: plain on the left half, swamp on the right half; goal at the far end.
    CostField cost = std::move(CostField::create(60, 3).value());
    cost.fill_rect(0, 0, 59, 0, kCostWall);
    cost.fill_rect(0, 2, 59, 2, kCostWall);
    cost.fill_rect(30, 1, 59, 1, kCostSwamp);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {59, 1})).value();
    const AgentId a = crowd.add_agent({2.5f, 1.5f}, g).value();
    float plain = 0.0f, swamp = 0.0f;
    for (int s = 0; s < 60 * 40; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 p = crowd.position(a);
        if (p.x > 10.0f && p.x < 25.0f) plain = std::max(plain, crowd.velocity(a).x);
        if (p.x > 35.0f && p.x < 50.0f) swamp = std::max(swamp, crowd.velocity(a).x);
    }
    ASSERT_GT(plain, 2.9f);
    ASSERT_GT(swamp, 0.0f);
    EXPECT_NEAR(plain / swamp, 6.0f, 0.1f);
}

TEST(CrowdStuck, UnitsAtFullSpeedInSwampAreNotFlaggedStuck) {
    // A swamp cell (cost 6) takes 2 s to cross at 3 / 6 cells/s, longer than the 1 s stuck window:
    // progress must be judged against the unit's own terrain-adjusted speed. Straight and diagonal
    // walkers, one in a corridor, a few crossing an open swamp.
    CostField cost = std::move(CostField::create(40, 40).value());
    cost.fill_rect(0, 0, 39, 39, kCostSwamp);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {38, 38})).value();
    std::vector<AgentId> ids;
    for (const Vec2 p : {Vec2{1.5f, 38.5f}, Vec2{1.5f, 1.5f}, Vec2{20.2f, 4.7f}, Vec2{38.5f, 3.5f}})
        ids.push_back(crowd.add_agent(p, g).value());
    std::size_t most_stuck = 0;
    for (int s = 0; s < 60 * 30; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        most_stuck = std::max(most_stuck, crowd.stats().stuck);
        for (AgentId id : ids) ASSERT_FALSE(crowd.stuck(id)) << "at " << crowd.time() << " s";
    }
    EXPECT_EQ(most_stuck, 0u);
    // They did move at the swamp's pace: 30 s at 0.5 cells/s is about 15 cells.
    EXPECT_GT(std::hypot(crowd.position(ids[0]).x - 1.5f, crowd.position(ids[0]).y - 38.5f), 12.0f);
}

TEST(CrowdStuck, AUnitHeldBackByAWallIsStillFlaggedStuck) {
    // The check must still fire: a unit whose field leads into a wall it cannot pass (the field was
    // built before the wall went up) makes no progress.
    CostField open = std::move(CostField::create(30, 10).value());
    auto field = field_for(open, {25, 5});
    CostField cost = std::move(CostField::create(30, 10).value());
    cost.fill_rect(10, 0, 10, 9, kCostWall);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field).value();
    const AgentId a = crowd.add_agent({5.5f, 5.5f}, g).value();
    for (int s = 0; s < 60 * 5; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_TRUE(crowd.stuck(a));
    EXPECT_EQ(crowd.stats().stuck, 1u);
}

// A unit wedged in a wall corner: its field leads straight into a wall (the field was built before
// the wall went up, as when an edit's new field is still on its way), a settled pack of another
// group stands against the wall beside it, and the way on is round the wall's end 3 cells to the
// other side. Returns the seconds from the first stuck flag until the unit is past the wall, or a
// negative number if it never is within 40 s.
float seconds_to_get_free(float sidestep, bool* was_stuck) {
    CostField open = std::move(CostField::create(40, 24).value());
    const auto stale = field_for(open, {30, 8});
    CostField cost = std::move(CostField::create(40, 24).value());
    cost.fill_rect(20, 0, 20, 11, kCostWall);
    CrowdParams params;
    params.stuck_sidestep = sidestep;
    Crowd crowd(cost, params);
    const GroupId pack = crowd.add_group(field_for(cost, {19, 5})).value();
    for (int i = 0; i < 40; ++i)
        EXPECT_TRUE(crowd.add_agent({17.0f + 0.4f * (i % 8), 4.0f + 0.4f * (i / 8)}, pack).ok());
    for (int s = 0; s < 60 * 6; ++s) EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
    const GroupId g = crowd.add_group(stale).value();
    const AgentId a = crowd.add_agent({12.5f, 8.5f}, g).value();
    float first_stuck = -1.0f;
    *was_stuck = false;
    for (int s = 0; s < 60 * 40; ++s) {
        EXPECT_TRUE(crowd.step(1.0f / 60.0f).ok());
        if (first_stuck < 0.0f && crowd.stuck(a)) {
            first_stuck = static_cast<float>(crowd.time());
            *was_stuck = true;
        }
        if (crowd.position(a).x > 21.0f)
            return first_stuck < 0.0f ? 0.0f : static_cast<float>(crowd.time()) - first_stuck;
    }
    return -1.0f;
}

TEST(CrowdStuck, AUnitWedgedInAWallCornerBesideAPackGetsFreeWithinFiveSeconds) {
    bool was_stuck = false;
    // The scenario does wedge the unit: without sidesteps it stays stuck.
    EXPECT_LT(seconds_to_get_free(0.0f, &was_stuck), 0.0f);
    EXPECT_TRUE(was_stuck);
    const float with = seconds_to_get_free(CrowdParams{}.stuck_sidestep, &was_stuck);
    EXPECT_TRUE(was_stuck);
    EXPECT_GE(with, 0.0f);
    EXPECT_LE(with, 5.0f);
}

// 1,000 units at random open spots of the default map (64 x 40), the same ones every time.
void spawn_thousand_on_default_map(Crowd& crowd, const CostField& cost, GroupId g, unsigned seed = 5) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> ux(0.0f, 64.0f), uy(0.0f, 40.0f);
    for (int n = 0; n < 1000;) {
        const Vec2 p{ux(rng), uy(rng)};
        if (cost.passable(static_cast<int>(p.x), static_cast<int>(p.y)) && crowd.add_agent(p, g).ok()) ++n;
    }
}

TEST(CrowdArrival, AThousandUnitsOnTheDefaultMapPackRoundAndStandStill) {
    // Stopping at the first touch of the pack grows it along the lanes units come in by (an X along
    // the field's diagonals, mean distance to the goal 7.9 cells against 3.5 for an ideally packed
    // disc). Measure: the ideal disc's mean distance (2/3 of its radius, hexagonal packing) over the
    // pack's mean distance from the goal's centre.
    auto m = make_builtin_map("default");
    ASSERT_TRUE(m.ok());
    const CostField& cost = m->cost;
    const Cell goal{54, 18};
    // Measured (2026-12-04, spawn seeds 1-6): ratio 0.778-0.803, all arrived after 27-36 s, a pack
    // at rest; seeds 3 (the least round) to 5 are checked. The bound is below the spread, which
    // any change to the crowd reshuffles (0.855 before arrival regions, 0.447 with the old
    // settle radius).
    for (unsigned seed : {3u, 4u, 5u}) {
        Crowd crowd(cost);
        const GroupId g = crowd.add_group(field_for(cost, goal)).value();
        spawn_thousand_on_default_map(crowd, cost, g, seed);
        double all_arrived = -1.0;
        for (int s = 0; s < 60 * 60; ++s) {
            ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
            if (all_arrived < 0.0 && crowd.stats().arrived == 1000) all_arrived = crowd.time();
            if (all_arrived >= 0.0 && crowd.time() >= all_arrived + 3.0) break;
        }
        ASSERT_GE(all_arrived, 0.0) << "seed " << seed << ": arrived " << crowd.stats().arrived;
        double distance = 0.0, speed = 0.0;
        for (AgentId id : crowd.agents()) {
            const Vec2 p = crowd.position(id), v = crowd.velocity(id);
            distance += std::hypot(p.x - (goal.x + 0.5f), p.y - (goal.y + 0.5f));
            speed += std::hypot(v.x, v.y);
        }
        const double ideal = 2.0 / 3.0 * 0.16 * std::sqrt(1000 / 0.9069);
        std::printf("seed %u pack: mean distance %.2f cells, ideal %.2f, ratio %.3f; all arrived at %.1f s\n", seed,
                    distance / 1000.0, ideal, ideal / (distance / 1000.0), all_arrived);
        EXPECT_GE(ideal / (distance / 1000.0), 0.75)
            << "seed " << seed << ": mean distance " << distance / 1000.0 << ", ideal " << ideal;
        EXPECT_LT(speed / 1000.0, 0.05) << "seed " << seed << ": 3 s after the last unit arrived";
        EXPECT_EQ(crowd.stats().arrived, 1000u) << "seed " << seed;
    }
}

TEST(CrowdArrival, TenUnitsOnASmallPondAllArriveAndNoneQueuesForEver) {
    // A 5x3 pond (tide sim --class water on the lake map of tests/cli): units that reached the
    // anchor while a few mates stood arrived a cell away queued there for ever (20% arrived).
    CostField cost = std::move(CostField::create(7, 5).value());
    cost.fill_rect(0, 0, 6, 4, kCostWall);
    cost.fill_rect(1, 1, 5, 3, kCostPlain);
    for (unsigned seed = 1; seed <= 8; ++seed) {
        Crowd crowd(cost);
        const GroupId g = crowd.add_group(field_for(cost, {3, 2})).value();
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> ux(1.2f, 5.8f), uy(1.2f, 3.8f);
        for (int i = 0; i < 10; ++i) ASSERT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, g).ok());
        for (int s = 0; s < 60 * 5; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        EXPECT_EQ(crowd.stats().arrived, 10u) << "seed " << seed << ": queued " << crowd.stats().queued;
        EXPECT_EQ(penetrations(crowd, cost, CrowdParams{}.radius), 0) << "seed " << seed;
    }
}

TEST(Crowd, WallSafetyOnTheRandomBenchmarkMap) {
    // 2,000 agents for 20 s on a 128x128 map of the benchmark kind (the 10,000 x 60 s version runs in tide sim).
    CostField cost = std::move(CostField::create(128, 128).value());
    std::mt19937 rng(5);
    for (Cost& v : cost.cells()) {
        const int r = static_cast<int>(rng() % 100);
        v = r < 20 ? kCostWall : r < 35 ? kCostForest : r < 42 ? kCostSwamp : kCostPlain;
    }
    cost.set(64, 64, kCostPlain);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {64, 64})).value();
    while (crowd.size() < 2000) {
        const Vec2 p{static_cast<float>(rng() % 12800) / 100.0f, static_cast<float>(rng() % 12800) / 100.0f};
        (void)crowd.add_agent(p, g);  // positions in walls are refused; try again
    }
    for (int s = 0; s < 60 * 20; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        if (s % 60 == 0) {
            ASSERT_EQ(penetrations(crowd, cost, 0.16f), 0) << "at step " << s;
        }
    }
    EXPECT_EQ(penetrations(crowd, cost, 0.16f), 0);
}

TEST(Crowd, ArrivedGroupSettles) {
    // 500 agents: once all have arrived, 3 simulated seconds later the pack stands still.
    CostField cost = std::move(CostField::create(60, 60).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {30, 30})).value();
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> u(2.0f, 58.0f);
    for (int i = 0; i < 500; ++i) ASSERT_TRUE(crowd.add_agent({u(rng), u(rng)}, g).ok());
    for (int s = 0; s < 60 * 60 && crowd.stats().arrived < 500; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    ASSERT_EQ(crowd.stats().arrived, 500u) << "after " << crowd.time() << " s";
    for (int s = 0; s < 60 * 3; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    float mean_speed = 0.0f;
    for (AgentId id : crowd.agents()) mean_speed += std::hypot(crowd.velocity(id).x, crowd.velocity(id).y);
    mean_speed /= 500.0f;
    EXPECT_EQ(crowd.stats().arrived, 500u);
    EXPECT_LT(mean_speed, 0.05f);
    float worst = 0.0f;  // deepest pair overlap, in radii
    const auto ids = crowd.agents();
    for (std::size_t a = 0; a < ids.size(); ++a)
        for (std::size_t b = a + 1; b < ids.size(); ++b) {
            const Vec2 p = crowd.position(ids[a]), q = crowd.position(ids[b]);
            worst = std::max(worst, (0.32f - std::hypot(p.x - q.x, p.y - q.y)) / 0.16f);
        }
    EXPECT_LT(worst, 0.3f);
}

TEST(Crowd, SealedDoorStopsAgentsAndReopeningLetsThemThrough) {
    CostField cost = door_map(4);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(crowd.add_agent({2.5f + (i % 10), 3.5f + (i / 10) * 2.0f}, g).ok());
    cost.fill_rect(20, 0, 20, 19, kCostWall);  // seal
    ASSERT_TRUE(crowd.set_group_field(g, field_for(cost, {34, 10})).ok());
    for (int s = 0; s < 60 * 5; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.stats().no_path, 50u);
    for (AgentId id : crowd.agents()) EXPECT_LT(std::hypot(crowd.velocity(id).x, crowd.velocity(id).y), 0.01f);
    EXPECT_EQ(penetrations(crowd, cost, 0.16f), 0);
    cost.fill_rect(20, 8, 20, 11, kCostPlain);  // reopen
    ASSERT_TRUE(crowd.set_group_field(g, field_for(cost, {34, 10})).ok());
    for (int s = 0; s < 60 * 40 && crowd.stats().arrived < 50; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.stats().arrived, 50u);
}

TEST(Crowd, MovingTheGoalTurnsEveryoneAtTheNextStep) {
    CostField cost = std::move(CostField::create(40, 40).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {38, 20})).value();
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(crowd.add_agent({10.5f + (i % 6), 15.5f + (i / 6)}, g).ok());
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    std::vector<Vec2> before;
    for (AgentId id : crowd.agents()) before.push_back(crowd.desired_velocity(id));
    ASSERT_TRUE(crowd.set_group_field(g, field_for(cost, {1, 20})).ok());
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    std::size_t k = 0;
    for (AgentId id : crowd.agents()) {
        const Vec2 now = crowd.desired_velocity(id);
        EXPECT_GT(before[k].x, 0.0f);
        EXPECT_LT(now.x, 0.0f) << "agent " << k << " still heads east";
        ++k;
    }
}

TEST(Crowd, MovingTheGoalDoesNotFlagUnitsStuck) {
    // Cost-to-go jumps when the goal moves; progress must be measured against the new field.
    CostField cost = std::move(CostField::create(60, 20).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {58, 10})).value();
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(crowd.add_agent({38.5f + (i % 8), 6.5f + (i / 8)}, g).ok());
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());  // 0.83 s: windows part-way
    ASSERT_TRUE(crowd.set_group_field(g, field_for(cost, {1, 10})).ok());
    for (int i = 0; i < 90; ++i) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        ASSERT_EQ(crowd.stats().stuck, 0u) << "after " << i + 1 << " steps";
    }
}

TEST(Crowd, DeterministicAcrossThreadCountsAndRuns) {
    auto run = [](int threads) {
        CostField cost = door_map(2);
        Crowd crowd(cost);
        const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
        std::mt19937 rng(9);
        std::uniform_real_distribution<float> ux(0.5f, 18.5f), uy(0.5f, 19.5f);
        for (int i = 0; i < 3000; ++i) (void)crowd.add_agent({ux(rng), uy(rng)}, g);
        test::ThreadJobs jobs(threads);
        // 3 s: the queue at the door has jammed (hundreds of units queued or stuck), so the deep
        // pass's jam flags, set by several agents at once, are part of what must not depend on the
        // split; so are the arrival regions and the lanes, made from the whole crowd.
        for (int s = 0; s < 180; ++s) EXPECT_TRUE(crowd.step(1.0f / 60.0f, jobs).ok());
        EXPECT_GT(crowd.stats().stuck + crowd.stats().queued, 100u);
        return crowd.state_hash();
    };
    const std::uint64_t one = run(1);
    EXPECT_EQ(one, run(2));
    EXPECT_EQ(one, run(8));
    EXPECT_EQ(one, run(1));
}

TEST(Crowd, BadInputIsRefused) {
    CostField cost = door_map(4);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {34, 10})).value();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    auto refused = [&](Vec2 p, const char* what, ErrorCode code) {
        auto r = crowd.add_agent(p, g);
        ASSERT_FALSE(r.ok()) << p.x << "," << p.y;
        EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
        EXPECT_EQ(r.error().code, code) << r.error().message;
    };
    refused({nan, 1.0f}, "not finite", ErrorCode::invalid_argument);
    refused({1.0f, inf}, "not finite", ErrorCode::invalid_argument);
    refused({-0.5f, 1.0f}, "outside the 40x20 map", ErrorCode::off_map);
    refused({40.0f, 1.0f}, "outside", ErrorCode::off_map);
    refused({20.5f, 1.5f}, "inside a wall", ErrorCode::on_wall);
    EXPECT_EQ(crowd.add_agent({1.5f, 1.5f}, GroupId{7, 0}).error().code, ErrorCode::not_found);
    EXPECT_FALSE(crowd.add_agent({1.5f, 1.5f}, g, agent(0.0f)).ok());
    EXPECT_FALSE(crowd.add_agent({1.5f, 1.5f}, g, agent(4.5f)).ok());
    EXPECT_FALSE(crowd.add_group(field_for(cost, {34, 10}), 0).ok());
    EXPECT_FALSE(crowd.add_group(field_for(cost, {34, 10}), 9).ok());
    EXPECT_FALSE(crowd.add_agent({1.5f, 1.5f}, g, agent(0.2f, nan)).ok());
    for (float dt : {0.0f, -1.0f, nan, inf, 11.0f}) EXPECT_FALSE(crowd.step(dt).ok()) << dt;
    const AgentId a = crowd.add_agent({1.5f, 1.5f}, g).value();
    ASSERT_TRUE(crowd.remove_agent(a).ok());
    EXPECT_EQ(crowd.remove_agent(a).error().code, ErrorCode::not_found) << "stale handle";
    EXPECT_FALSE(crowd.valid(a));
    const AgentId b = crowd.add_agent({1.5f, 1.5f}, g).value();
    EXPECT_EQ(b.index, a.index);
    EXPECT_NE(b.generation, a.generation);
    EXPECT_FALSE(crowd.set_position(b, {20.5f, 1.5f}).ok());
    CostField other = std::move(CostField::create(5, 5).value());
    EXPECT_FALSE(crowd.add_group(field_for(other, {1, 1})).ok());
}

TEST(Crowd, LargeStepIsSplitAndDoesNotTunnel) {
    // A one-cell wall between the agent and the goal: a 2 s step at full speed must not cross it.
    CostField cost = std::move(CostField::create(20, 5).value());
    cost.fill_rect(10, 0, 10, 4, kCostWall);
    cost.fill_rect(10, 2, 10, 2, kCostPlain);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {18, 2})).value();
    const AgentId a = crowd.add_agent({8.5f, 0.5f}, g).value();
    for (int s = 0; s < 5; ++s) ASSERT_TRUE(crowd.step(2.0f).ok());
    EXPECT_EQ(penetrations(crowd, cost, 0.16f), 0);
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
}

TEST(Crowd, AgentDrivenIntoAWallSlidesAlongItWithNoVelocityIntoIt) {
    // The field is built before the wall column x = 15 appears, so it points south-east into the
    // wall: the agent must lose the eastward part of its velocity on contact and slide south.
    CostField cost = std::move(CostField::create(30, 12).value());
    const auto field = field_for(cost, {20, 11});
    cost.fill_rect(15, 0, 15, 11, kCostWall);
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field).value();
    const float r = 0.16f;
    const AgentId a = crowd.add_agent({12.5f, 1.5f}, g, agent(r)).value();
    int contacts = 0, sliding = 0;
    for (int s = 0; s < 60 * 4; ++s) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 p = crowd.position(a), v = crowd.velocity(a);
        if (p.x + r < 15.0f - 1e-3f) continue;  // not touching the wall
        ++contacts;
        EXPECT_LE(v.x, 1e-5f) << "velocity into the wall at step " << s << ", y = " << p.y;
        if (v.y > 0.5f) ++sliding;
    }
    EXPECT_GT(contacts, 30);
    EXPECT_GT(sliding, 10) << "the agent should slide south along the wall";
    EXPECT_GT(crowd.position(a).y, 6.0f);
    EXPECT_EQ(penetrations(crowd, cost, r), 0);
}

TEST(Crowd, CentreLandingExactlyOnAWallEdgeLosesItsVelocityIntoTheWall) {
    // Exact binary numbers: from rest at x = 10.25 (radius 0.25, touching the wall cell x = 9)
    // one 1/16 s sub-step at speed 8 accelerates by 8 * 8 to vx = -4 and moves 0.25 west, so the
    // centre lands exactly on the wall's edge x = 10: pushed back to 10.25 with vx dropped to 0.
    CostField cost = std::move(CostField::create(20, 11).value());
    const auto field = field_for(cost, {1, 5});  // due west along row 5
    cost.fill_rect(9, 0, 9, 10, kCostWall);
    CrowdParams params;
    params.max_force = 100.0f;
    params.max_substep = 0.0625f;
    Crowd crowd(cost, params);
    const GroupId g = crowd.add_group(field).value();
    const AgentId a = crowd.add_agent({10.25f, 5.5f}, g, agent(0.25f, 8.0f)).value();
    for (int s = 0; s < 3; ++s) {
        ASSERT_TRUE(crowd.step(0.0625f).ok());
        EXPECT_EQ(crowd.position(a), (Vec2{10.25f, 5.5f})) << "step " << s;
        EXPECT_EQ(crowd.velocity(a), (Vec2{0.0f, 0.0f})) << "step " << s;
    }
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

TEST(CrowdGroups, AnAgentMovedToAnotherGroupFollowsItsFieldAndTheOthersDoNot) {
    CostField cost = std::move(CostField::create(40, 20).value());
    const auto west = field_for(cost, {0, 10}), east = field_for(cost, {39, 10});
    Crowd crowd(cost);
    const GroupId a = crowd.add_group(west).value();
    const GroupId b = crowd.add_group(east).value();
    std::vector<AgentId> ids;
    for (int k = 0; k < 10; ++k) ids.push_back(crowd.add_agent({20.5f, 1.5f + 1.8f * k}, a).value());
    EXPECT_EQ(crowd.group_size(a), 10u);
    for (int k = 0; k < 10; k += 2) ASSERT_TRUE(crowd.set_agent_group(ids[k], b).ok());
    EXPECT_EQ(crowd.group_size(a), 5u);
    EXPECT_EQ(crowd.group_size(b), 5u);
    std::vector<float> x0;
    for (const AgentId id : ids) x0.push_back(crowd.position(id).x);
    for (int s = 0; s < 60; ++s) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    for (int k = 0; k < 10; ++k) {
        EXPECT_EQ(crowd.group(ids[k]), k % 2 == 0 ? b : a);
        if (k % 2 == 0) {
            EXPECT_GT(crowd.position(ids[k]).x, x0[k] + 1.0f) << "agent " << k << " should head east";
        } else {
            EXPECT_LT(crowd.position(ids[k]).x, x0[k] - 1.0f) << "agent " << k << " should head west";
        }
    }
}

TEST(CrowdGroups, AnArrivedAgentGivenANewGroupMovesAgain) {
    CostField cost = std::move(CostField::create(30, 10).value());
    Crowd crowd(cost);
    const GroupId here = crowd.add_group(field_for(cost, {5, 5})).value();
    const GroupId there = crowd.add_group(field_for(cost, {25, 5})).value();
    const AgentId id = crowd.add_agent({5.5f, 5.5f}, here).value();
    ASSERT_TRUE(crowd.step(0.1f).ok());
    ASSERT_EQ(crowd.state(id), AgentState::arrived);
    ASSERT_TRUE(crowd.set_agent_group(id, there).ok());
    EXPECT_EQ(crowd.state(id), AgentState::moving);
    for (int s = 0; s < 30; ++s) ASSERT_TRUE(crowd.step(1.0f / 30.0f).ok());
    EXPECT_GT(crowd.position(id).x, 7.0f);
}

TEST(CrowdGroups, OnlyEmptyGroupsCanBeRemovedAndTheirSlotsAreReused) {
    CostField cost = std::move(CostField::create(10, 10).value());
    const auto f = field_for(cost, {5, 5});
    Crowd crowd(cost);
    const GroupId a = crowd.add_group(f).value();
    const GroupId b = crowd.add_group(f).value();
    const AgentId id = crowd.add_agent({1.5f, 1.5f}, a).value();
    EXPECT_FALSE(crowd.remove_group(a).ok());
    EXPECT_TRUE(crowd.remove_group(b).ok());
    EXPECT_FALSE(crowd.has_group(b));
    EXPECT_FALSE(crowd.remove_group(b).ok()) << "removed twice";
    EXPECT_FALSE(crowd.set_agent_group(id, b).ok()) << "moved into a removed group";
    EXPECT_FALSE(crowd.add_agent({2.5f, 2.5f}, b).ok());
    EXPECT_FALSE(crowd.set_group_field(b, f).ok());
    const GroupId reused = crowd.add_group(f).value();
    EXPECT_EQ(reused.index, b.index) << "the free slot is reused";
    EXPECT_NE(reused, b) << "under a new generation (group_id_test.cpp)";
    ASSERT_TRUE(crowd.set_agent_group(id, reused).ok());
    EXPECT_TRUE(crowd.remove_group(a).ok());
    ASSERT_TRUE(crowd.remove_agent(id).ok());
    EXPECT_EQ(crowd.group_size(reused), 0u);
    EXPECT_TRUE(crowd.remove_group(reused).ok());
    EXPECT_FALSE(crowd.set_agent_group(id, a).ok()) << "stale handle";
    EXPECT_FALSE(crowd.set_agent_group(AgentId{}, GroupId{99, 0}).ok());
}

TEST(CrowdAgents, ParamsAreSetAfterCreationAndReadBackInBulk) {
    CostField cost = std::move(CostField::create(30, 10).value());
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {25, 5})).value();
    const AgentParams defaults = crowd.default_agent_params();
    EXPECT_EQ(defaults.radius, crowd.params().radius);
    EXPECT_EQ(defaults.max_speed, crowd.params().max_speed);
    AgentParams p = agent(0.3f, 2.0f);
    p.user_tag = 0xfeedbeef12345678ull;
    const AgentId a = crowd.add_agent({2.5f, 5.5f}, g, p).value();
    const AgentId b = crowd.add_agent({2.5f, 2.5f}, g).value();
    EXPECT_EQ(crowd.agent_params(a).user_tag, p.user_tag);
    EXPECT_EQ(crowd.agent_params(b).radius, defaults.radius);
    AgentParams q = crowd.agent_params(b);
    q.user_tag = 7;
    q.max_speed = 5.0f;
    ASSERT_TRUE(crowd.set_agent_params(b, q).ok());
    EXPECT_FALSE(crowd.set_agent_params(b, agent(-1.0f)).ok());
    EXPECT_EQ(crowd.agent_params(b).user_tag, 7u) << "a refused change leaves the agent as it was";
    for (int s = 0; s < 10; ++s) ASSERT_TRUE(crowd.step(0.1f).ok());
    // b is faster (5 cells/s against 2), so it is further along after a second.
    EXPECT_GT(crowd.position(b).x, crowd.position(a).x + 1.0f);

    ASSERT_TRUE(crowd.remove_agent(crowd.add_agent({4.5f, 4.5f}, g).value()).ok());  // a hole in the slots
    std::vector<AgentId> ids(2);
    std::vector<Vec2> pos(2), vel(2);
    std::vector<AgentState> states(2);
    std::vector<std::uint64_t> tags(2);
    AgentBuffers out;
    out.ids = ids;
    out.positions = pos;
    out.velocities = vel;
    out.states = states;
    out.user_tags = tags;
    auto n = crowd.read_agents(out);
    ASSERT_TRUE(n.ok()) << n.error().message;
    ASSERT_EQ(*n, 2u);
    EXPECT_EQ(ids, crowd.agents());
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(pos[k], crowd.position(ids[k]));
        EXPECT_EQ(vel[k], crowd.velocity(ids[k]));
        EXPECT_EQ(states[k], crowd.state(ids[k]));
        EXPECT_EQ(tags[k], crowd.agent_params(ids[k]).user_tag);
    }
    std::vector<Vec2> small(1);
    AgentBuffers too_small;
    too_small.positions = small;
    EXPECT_EQ(crowd.read_agents(too_small).error().code, ErrorCode::too_large);
}

TEST(CrowdAgents, AnAgentOnlyJoinsAGroupOfItsMovementClass) {
    CostField cost = std::move(CostField::create(30, 10).value());
    Crowd crowd(cost);
    const auto field = field_for(cost, {25, 5});
    const GroupId foot = crowd.add_group(field).value();
    const GroupId boats = crowd.add_group(field, 1, 2).value();
    EXPECT_EQ(crowd.movement_class(foot), 0);
    EXPECT_EQ(crowd.movement_class(boats), 2);
    AgentParams boat = agent(0.2f);
    boat.movement_class = 2;

    // Refused: a boat into the walkers' group; nothing added.
    auto refused = crowd.add_agent({2.5f, 5.5f}, foot, boat);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(refused.error().message.find("movement class 2"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("movement class 0"), std::string::npos) << refused.error().message;
    EXPECT_EQ(crowd.size(), 0u);

    // Accepted: each into a group of its own class.
    const AgentId b = crowd.add_agent({2.5f, 5.5f}, boats, boat).value();
    const AgentId w = crowd.add_agent({2.5f, 2.5f}, foot).value();
    EXPECT_EQ(crowd.group_size(boats), 1u);
    EXPECT_EQ(crowd.group_size(foot), 1u);

    // Moving into a group of another class is refused and leaves the agent where it was.
    auto moved = crowd.set_agent_group(w, boats);
    ASSERT_FALSE(moved.ok());
    EXPECT_EQ(moved.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(moved.error().message.find("movement class 0"), std::string::npos) << moved.error().message;
    EXPECT_NE(moved.error().message.find("movement class 2"), std::string::npos) << moved.error().message;
    EXPECT_EQ(crowd.group(w), foot);
    EXPECT_EQ(crowd.group_size(boats), 1u);

    // Changing the class in place would leave the agent in a group of another class: refused.
    AgentParams walker = crowd.agent_params(b);
    walker.movement_class = 0;
    EXPECT_EQ(crowd.set_agent_params(b, walker).error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(crowd.agent_params(b).movement_class, 2);

    // A change of class goes with a move into a group of the new class, in one call.
    AgentParams bad = walker;
    bad.radius = -1.0f;
    EXPECT_FALSE(crowd.set_agent_group(b, foot, bad).ok());
    AgentParams wrong = walker;
    wrong.movement_class = 1;
    EXPECT_EQ(crowd.set_agent_group(b, foot, wrong).error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(crowd.group(b), boats) << "a refused move changes nothing";
    EXPECT_EQ(crowd.agent_params(b).movement_class, 2);
    ASSERT_TRUE(crowd.set_agent_group(b, foot, walker).ok());
    EXPECT_EQ(crowd.group(b), foot);
    EXPECT_EQ(crowd.agent_params(b).movement_class, 0);
    EXPECT_EQ(crowd.group_size(boats), 0u);
    EXPECT_EQ(crowd.group_size(foot), 2u);

    // A group's class changes only when no member is of another class.
    EXPECT_EQ(crowd.set_group_movement_class(foot, 1).error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(crowd.movement_class(foot), 0);
    ASSERT_TRUE(crowd.set_group_movement_class(boats, 1).ok()) << "empty";
    EXPECT_EQ(crowd.movement_class(boats), 1);
    EXPECT_EQ(crowd.set_group_movement_class(GroupId{99, 0}, 0).error().code, ErrorCode::not_found);
    ASSERT_TRUE(crowd.remove_group(boats).ok());
    const GroupId reused = crowd.add_group(field).value();
    EXPECT_EQ(crowd.movement_class(reused), 0) << "a reused id starts with the class it is given";

    // The members follow their group's field as before.
    for (int s = 0; s < 300; ++s) ASSERT_TRUE(crowd.step(1.0f / 30.0f).ok());
    EXPECT_EQ(crowd.state(b), AgentState::arrived);
    EXPECT_EQ(crowd.state(w), AgentState::arrived);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// Distance from (x, y) to the nearest wall cell or the map border.
float clearance(const CostField& cost, float x, float y) {
    float best = std::min({x, y, static_cast<float>(cost.width()) - x, static_cast<float>(cost.height()) - y});
    for (int wy = 0; wy < cost.height(); ++wy) {
        for (int wx = 0; wx < cost.width(); ++wx) {
            if (cost.passable(wx, wy)) continue;
            const float qx = std::clamp(x, float(wx), float(wx + 1)), qy = std::clamp(y, float(wy), float(wy + 1));
            best = std::min(best, std::hypot(x - qx, y - qy));
        }
    }
    return best;
}

TEST(CrowdUnitSizes, BigUnitsTakeTheWideGapSmallOnesTheNarrowOneAndNoneClipsAWall) {
    // A wall across the map with a 1-cell gap near the units and a 3-cell gap far down.
    const CostField cost = test::grid_from_rows({
        "..........#.........",
        "..........#.........",
        "....................",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "..........#.........",
        "....................",
        "....................",
        "....................",
        "..........#.........",
    });
    const Cell goal{16, 2};
    Crowd crowd(cost);
    const GroupId small = crowd.add_group(field_for(cost, goal), 1).value();
    const CostField sized = sized_cost_field(cost, 2).value();
    const GroupId big = crowd.add_group(field_for(sized, goal), 2).value();
    EXPECT_EQ(crowd.unit_size(big), 2);
    EXPECT_EQ(crowd.unit_size(small), 1);
    const AgentId s = crowd.add_agent({3.5f, 2.5f}, small, agent(0.3f)).value();
    const AgentId b = crowd.add_agent({3.0f, 3.0f}, big, agent(0.9f)).value();  // centre of the block at (2, 2)
    float big_lowest = 0.0f, small_lowest = 0.0f;
    for (int i = 0; i < 60 * 25; ++i) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 pb = crowd.position(b), ps = crowd.position(s);
        big_lowest = std::max(big_lowest, pb.y);
        small_lowest = std::max(small_lowest, ps.y);
        ASSERT_GE(clearance(cost, pb.x, pb.y), 0.9f - 1e-3f) << "step " << i << " at " << pb.x << "," << pb.y;
        ASSERT_GE(clearance(cost, ps.x, ps.y), 0.3f - 1e-3f) << "step " << i;
    }
    EXPECT_EQ(crowd.state(s), AgentState::arrived);
    EXPECT_EQ(crowd.state(b), AgentState::arrived);
    EXPECT_LT(small_lowest, 5.0f) << "the small unit goes through the 1-cell gap";
    EXPECT_GT(big_lowest, 11.0f) << "the big unit goes round by the wide gap";
}

// A unit of size 2 (radius 0.61) standing beside a wall's corner, its block's far corner cell the
// wall, which its round body does not reach: its top-left cell is closed to its size, but it is
// not cut off. It steps to the open top-left cell next to it and walks to the goal; it was
// reported "no path" and stood there for good (seen in the demo, at the corner of the L wall).
TEST(CrowdUnitSizes, ABigUnitWhoseBlockTouchesAWallCornerIsNotCutOff) {
    CostField cost = CostField::create(20, 20).value();
    cost.fill_rect(11, 11, 15, 15, kCostWall);
    const CostField sized = sized_cost_field(cost, 2).value();
    ASSERT_FALSE(sized.passable(10, 10));  // the block at (10, 10) holds the wall cell (11, 11)
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(sized, {2, 2}), 2).value();
    const AgentId a = crowd.add_agent({10.55f, 10.55f}, g, agent(0.61f)).value();  // 0.64 from the corner
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.state(a), AgentState::moving);
    for (int i = 0; i < 60 * 10 && crowd.state(a) == AgentState::moving; ++i) {
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        const Vec2 p = crowd.position(a);
        ASSERT_GE(clearance(cost, p.x, p.y), 0.61f - 1e-3f) << "step " << i;
    }
    EXPECT_EQ(crowd.state(a), AgentState::arrived);
    // Walled in for its size (a 1-cell pocket): still no path.
    CostField pocket = CostField::create(20, 20, kCostWall).value();
    pocket.fill_rect(5, 5, 5, 5, kCostPlain);
    pocket.fill_rect(10, 10, 14, 14, kCostPlain);
    const CostField pocket_sized = sized_cost_field(pocket, 2).value();
    Crowd walled(pocket);
    const GroupId h = walled.add_group(field_for(pocket_sized, {11, 11}), 2).value();
    const AgentId b = walled.add_agent({5.5f, 5.5f}, h, agent(0.4f)).value();
    ASSERT_TRUE(walled.step(1.0f / 60.0f).ok());
    EXPECT_EQ(walled.state(b), AgentState::no_path);
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

// The stopping chain reaction: a moving unit that touches an arrived mate of its own group within
// settle distance of the goal stops there (it would otherwise keep pushing into the pack). Two
// cells from the goal it is outside the arrival distance, so only the chain can stop it.
TEST(CrowdArrival, TouchingAnArrivedMateNearTheGoalStopsAUnit) {
    const auto cost = CostField::create(20, 20).value();
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(cost, {10, 10})).value();
    const AgentId at_goal = crowd.add_agent({10.5f, 10.5f}, g, agent(0.9f)).value();
    const AgentId mate =
        crowd.add_agent({12.2f, 10.5f}, g, agent(0.9f)).value();  // cell (12, 10): 2 from the goal, touching
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    ASSERT_EQ(crowd.state(at_goal), AgentState::arrived);
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd.state(mate), AgentState::arrived) << "stopped by its arrived mate";
    EXPECT_GT(crowd.position(mate).x, 11.9f) << "where it touched the mate, not at the goal";

    // A unit of another group with the same goal joins the pack; one going elsewhere is not stopped.
    Crowd crowd2(cost);
    const GroupId g2 = crowd2.add_group(field_for(cost, {10, 10})).value();
    const GroupId same = crowd2.add_group(field_for(cost, {10, 10})).value();
    const GroupId elsewhere = crowd2.add_group(field_for(cost, {10, 2})).value();
    const AgentId a2 = crowd2.add_agent({10.5f, 10.5f}, g2, agent(0.9f)).value();
    const AgentId b2 = crowd2.add_agent({12.2f, 10.5f}, same, agent(0.9f)).value();
    const AgentId c2 = crowd2.add_agent({10.5f, 12.2f}, elsewhere, agent(0.9f)).value();
    ASSERT_TRUE(crowd2.step(1.0f / 60.0f).ok());
    ASSERT_TRUE(crowd2.step(1.0f / 60.0f).ok());
    EXPECT_EQ(crowd2.state(a2), AgentState::arrived);
    EXPECT_EQ(crowd2.state(b2), AgentState::arrived) << "a group with the same goal shares the pack";
    EXPECT_NE(crowd2.state(c2), AgentState::arrived) << "a unit going elsewhere is not stopped by the pack";
}

// A hierarchical plan (sector fields built as routes need them) beside a flat field: the host
// routes the units' cells between steps, as World does.
TEST(CrowdHierarchical, AGroupFollowingAPlanArrivesThroughTheDoorBesideAFlatGroup) {
    CostField cost = door_map(4);
    SectorConfig sc;
    sc.sector_size = 16;
    sc.portal_limit = 16;
    const SectorGraph graph = SectorGraph::build(cost, sc).value();
    const Cell goal{34, 10};
    auto plan = std::make_shared<HierarchicalField>(
        HierarchicalField::create(cost, graph, std::span<const Cell>(&goal, 1)).value());
    Crowd crowd(cost);
    const GroupId gh = crowd.add_group(std::shared_ptr<const HierarchicalField>(plan)).value();
    const GroupId gf = crowd.add_group(field_for(cost, goal)).value();
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> ux(0.5f, 18.5f), uy(0.5f, 19.5f);
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(crowd.add_agent({ux(rng), uy(rng)}, i % 2 ? gh : gf).ok());
    std::vector<Cell> cells;
    for (int s = 0; s < 60 * 90 && crowd.stats().arrived < 300; ++s) {
        cells.clear();
        for (const AgentId id : crowd.agents()) {
            if (crowd.group(id) != gh) continue;
            const Vec2 p = crowd.position(id);
            cells.push_back({static_cast<int>(p.x), static_cast<int>(p.y)});
        }
        ASSERT_TRUE(plan->route(cells).ok());
        ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
        ASSERT_EQ(crowd.stats().no_path, 0u) << "at " << crowd.time() << " s";
    }
    EXPECT_EQ(crowd.stats().arrived, 300u) << "after " << crowd.time() << " s";
    EXPECT_EQ(penetrations(crowd, cost, 0.16f), 0);
    // A plan for another map, or none, is refused.
    const CostField other = std::move(CostField::create(32, 32).value());
    const SectorGraph other_graph = SectorGraph::build(other, sc).value();
    auto foreign = std::make_shared<const HierarchicalField>(
        HierarchicalField::create(other, other_graph, std::vector<Cell>{{1, 1}}).value());
    EXPECT_FALSE(crowd.add_group(foreign).ok());
    EXPECT_FALSE(crowd.add_group(std::shared_ptr<const HierarchicalField>()).ok());
    EXPECT_FALSE(crowd.set_group_field(gh, foreign).ok());
    EXPECT_TRUE(crowd.set_group_field(gh, field_for(cost, {2, 2})).ok()) << "a group may change kind";
    EXPECT_TRUE(crowd.set_group_field(gf, std::shared_ptr<const HierarchicalField>(plan)).ok());
}

// Distance from a point to the nearest wall cell (or the map edge), cells; looks 6 cells around.
float wall_distance(const CostField& cost, Vec2 p) {
    float best = 6.0f;
    const int px = static_cast<int>(p.x), py = static_cast<int>(p.y);
    for (int y = py - 6; y <= py + 6; ++y) {
        for (int x = px - 6; x <= px + 6; ++x) {
            if (cost.passable(x, y)) continue;
            const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
            best = std::min(best, std::hypot(p.x - qx, p.y - qy));
        }
    }
    return best;
}

// Mean distance from the walls of 120 agents walking an L-shaped corridor 6 cells wide (sampled
// every 0.25 s while they move), planning on `plan` (the map or a wall-margin layer over it).
float mean_wall_distance(const CostField& cost, const CostField& plan) {
    Crowd crowd(cost);
    const GroupId g = crowd.add_group(field_for(plan, {47, 27})).value();
    for (int i = 0; i < 120; ++i) {
        EXPECT_TRUE(
            crowd.add_agent({2.5f + static_cast<float>(i % 12) * 0.5f, 2.5f + static_cast<float>(i / 12) * 0.5f}, g)
                .ok());
    }
    double sum = 0.0;
    std::size_t samples = 0;
    for (int t = 0; t < 120; ++t) {
        EXPECT_TRUE(crowd.step(0.25f).ok());
        for (AgentId id : crowd.agents()) {
            if (crowd.state(id) != AgentState::moving) continue;
            sum += wall_distance(cost, crowd.position(id));
            ++samples;
        }
    }
    EXPECT_GT(samples, 1000u);
    return static_cast<float>(sum / static_cast<double>(samples));
}

TEST(Crowd, WallMarginKeepsACrowdOffTheWallsOfACorridor) {
    CostField cost = std::move(CostField::create(60, 30, kCostWall).value());
    cost.fill_rect(1, 2, 50, 7, kCostPlain);    // east along rows 2..7
    cost.fill_rect(45, 2, 50, 28, kCostPlain);  // then south down columns 45..50
    const float plain = mean_wall_distance(cost, cost);
    const float margin = mean_wall_distance(cost, wall_margin_cost_field(cost, {2, 4}).value());
    // Without the margin the crowd cuts the inner corner and walks along the walls.
    // Measured: 1.50 without, 2.58 with the margin (r = 2, +4).
    EXPECT_LT(plain, 1.8f) << "margin " << margin;
    EXPECT_GT(margin, 2.3f) << "plain " << plain;
}

// ---- Sleeping -------------------------------------------------------------------------------

// 1,000 units on the default map, stepped until every one has arrived and `settle_s` more seconds.
struct SettledPack {
    CostField cost;
    Crowd crowd;
    GroupId group;
    explicit SettledPack(bool sleep, JobSystem& jobs, double settle_s = 3.0)
        : cost(std::move(make_builtin_map("default").value().cost)), crowd(cost, params(sleep)) {
        group = crowd.add_group(field_for(cost, {54, 18})).value();
        spawn_thousand_on_default_map(crowd, cost, group);
        double all_arrived = -1.0;
        for (int s = 0; s < 60 * 60; ++s) {
            EXPECT_TRUE(crowd.step(1.0f / 60.0f, jobs).ok());
            if (all_arrived < 0.0 && crowd.stats().arrived == 1000) all_arrived = crowd.time();
            if (all_arrived >= 0.0 && crowd.time() >= all_arrived + settle_s) break;
        }
        EXPECT_GE(all_arrived, 0.0) << "arrived " << crowd.stats().arrived;
    }
    static CrowdParams params(bool sleep) {
        CrowdParams p;
        p.sleep = sleep;
        return p;
    }
};

TEST(CrowdSleeping, ASettledPackSleepsAndStaysPut) {
    SerialJobSystem serial;
    SettledPack pack(true, serial);
    EXPECT_GE(pack.crowd.stats().sleeping, 900u) << "of 1,000 arrived units 3 s after the last arrival";
    std::vector<Vec2> before;
    for (AgentId id : pack.crowd.agents()) before.push_back(pack.crowd.position(id));
    for (int s = 0; s < 60; ++s) ASSERT_TRUE(pack.crowd.step(1.0f / 60.0f).ok());
    double moved = 0.0;
    std::size_t k = 0;
    for (AgentId id : pack.crowd.agents()) {
        const Vec2 p = pack.crowd.position(id);
        moved = std::max(moved, static_cast<double>(std::hypot(p.x - before[k].x, p.y - before[k].y)));
        ++k;
    }
    EXPECT_LT(moved, 0.06) << "a settled pack crept over one more second";
    EXPECT_EQ(pack.crowd.stats().arrived, 1000u);
    EXPECT_EQ(penetrations(pack.crowd, pack.cost, 0.16f), 0);
}

TEST(CrowdSleeping, UnitsSleepWhileOthersStillArriveAndThreadsDoNotMatter) {
    // Arrived and queued units at rest sleep even while others are still arriving near them (a
    // mover wakes only the sleepers in its own reach): 10 s into the default map's run, with units
    // still arriving everywhere near the goal, some of the pack sleeps. Any number of threads gives
    // the same state, with most of the pack asleep.
    auto run = [](JobSystem& jobs, int steps) {
        auto m = make_builtin_map("default");
        Crowd crowd(m->cost);
        const GroupId g = crowd.add_group(field_for(m->cost, {54, 18})).value();
        spawn_thousand_on_default_map(crowd, m->cost, g);
        for (int s = 0; s < steps; ++s) EXPECT_TRUE(crowd.step(1.0f / 60.0f, jobs).ok());
        return std::tuple{crowd.state_hash(), crowd.stats().sleeping, crowd.stats().arrived};
    };
    SerialJobSystem serial;
    test::ThreadJobs two(2), three(3);
    const auto early = run(serial, 600);
    EXPECT_GT(std::get<1>(early), 0u) << "nobody sleeps while units still arrive";
    EXPECT_LT(std::get<2>(early), 1000u) << "the test wants units still arriving at 10 s";
    const auto one = run(serial, 40 * 60);
    EXPECT_GT(std::get<1>(one), 500u);
    EXPECT_EQ(run(two, 40 * 60), one);
    EXPECT_EQ(run(three, 40 * 60), one);
}

TEST(CrowdSleeping, ANewFieldWakesThePack) {
    SerialJobSystem serial;
    SettledPack pack(true, serial);
    ASSERT_GE(pack.crowd.stats().sleeping, 900u);
    auto mean_x = [&] {
        double sum = 0.0;
        for (AgentId id : pack.crowd.agents()) sum += pack.crowd.position(id).x / 1000.0;
        return sum;
    };
    const double before = mean_x();
    // The goal moves to the far left: every unit sets off again.
    ASSERT_TRUE(pack.crowd.set_group_field(pack.group, field_for(pack.cost, {3, 18})).ok());
    ASSERT_TRUE(pack.crowd.step(1.0f / 60.0f).ok());
    EXPECT_EQ(pack.crowd.stats().sleeping, 0u);
    EXPECT_EQ(pack.crowd.stats().arrived, 0u);
    for (int s = 0; s < 240; ++s) ASSERT_TRUE(pack.crowd.step(1.0f / 60.0f).ok());
    EXPECT_LT(mean_x(), before - 3.0) << "the pack did not set off in 4 s";
}

TEST(CrowdSleeping, AUnitWalkingIntoThePackWakesItAndJoins) {
    SerialJobSystem serial;
    SettledPack pack(true, serial);
    const std::size_t asleep = pack.crowd.stats().sleeping;
    ASSERT_GE(asleep, 900u);
    // A newcomer from the far side of the map: the sleepers in its reach wake as it comes near (not
    // the whole pack), and it joins the pack (arrives) with nobody pushed into a wall.
    const AgentId late = pack.crowd.add_agent({3.5f, 18.5f}, pack.group).value();
    std::size_t fewest = asleep;
    for (int s = 0; s < 30 * 60 && pack.crowd.state(late) != AgentState::arrived; ++s) {
        ASSERT_TRUE(pack.crowd.step(1.0f / 60.0f).ok());
        fewest = std::min(fewest, pack.crowd.stats().sleeping);
    }
    EXPECT_EQ(pack.crowd.state(late), AgentState::arrived);
    EXPECT_LT(fewest, asleep) << "the pack did not wake round the newcomer";
    EXPECT_GT(fewest, asleep - 200) << "the newcomer woke the pack as a whole";
    EXPECT_EQ(penetrations(pack.crowd, pack.cost, 0.16f), 0);
}

TEST(CrowdSleeping, AWallPaintedOntoSleepersPushesThemOut) {
    SerialJobSystem serial;
    SettledPack pack(true, serial);
    ASSERT_GE(pack.crowd.stats().sleeping, 900u);
    // A wall across the middle of the pack, without a new field (the host has not replanned yet).
    int covered = 0;
    for (AgentId id : pack.crowd.agents()) {
        const Vec2 p = pack.crowd.position(id);
        covered += static_cast<int>(p.x) == 52 && p.y >= 14.0f && p.y < 22.0f;
    }
    ASSERT_GT(covered, 0);
    for (int y = 14; y < 22; ++y) pack.cost.set(52, y, kCostWall);
    for (int s = 0; s < 30; ++s) ASSERT_TRUE(pack.crowd.step(1.0f / 60.0f).ok());
    // Units whose centre the wall covers are the host's to move (the World relocates them, as
    // without sleeping); every other disc was pushed clear, asleep or not.
    int into_walls = 0, walled_in = 0;
    for (AgentId id : pack.crowd.agents()) {
        const Vec2 p = pack.crowd.position(id);
        if (!pack.cost.passable(static_cast<int>(p.x), static_cast<int>(p.y))) {
            ++walled_in;
            continue;
        }
        for (int y = static_cast<int>(p.y) - 1; y <= static_cast<int>(p.y) + 1; ++y) {
            for (int x = static_cast<int>(p.x) - 1; x <= static_cast<int>(p.x) + 1; ++x) {
                if (pack.cost.passable(x, y)) continue;
                const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
                into_walls += std::hypot(p.x - qx, p.y - qy) < 0.16f * 0.95f;
            }
        }
    }
    EXPECT_EQ(into_walls, 0) << covered << " units stood on the new wall, " << walled_in << " are walled in";
}

// Exits: a room (x < 20) whose right wall has a one-cell door at (20, 10); the door cell is the
// exit group's goal. 60 units start in the room.
struct ExitRoom {
    CostField cost = CostField::create(40, 21).value();
    std::unique_ptr<Crowd> crowd;
    GroupId exit_group{};
    std::vector<AgentId> units;
    explicit ExitRoom(bool remove) {
        cost.fill_rect(20, 0, 20, 20, kCostWall);
        cost.set(20, 10, kCostPlain);
        crowd = std::make_unique<Crowd>(cost);
        exit_group = crowd->add_group(field_for(cost, {20, 10})).value();
        EXPECT_TRUE(crowd->set_group_exit(exit_group, true, remove).ok());
        for (int i = 0; i < 60; ++i) {
            units.push_back(crowd->add_agent({6.3f + 0.5f * (i % 10), 7.3f + 0.5f * (i / 10)}, exit_group).value());
        }
    }
};

TEST(CrowdExits, UnitsLeaveThroughTheExitOnceEachAndTheirHandlesGoStale) {
    ExitRoom room(true);
    std::vector<AgentId> left;
    for (int s = 0; s < 60 * 60 && room.crowd->size() > 0; ++s) {
        ASSERT_TRUE(room.crowd->step(1.0f / 60.0f).ok());
        EXPECT_EQ(room.crowd->stats().exited, room.crowd->exited().size());
        for (const AgentId id : room.crowd->exited()) {
            EXPECT_FALSE(room.crowd->valid(id));
            left.push_back(id);
        }
    }
    EXPECT_EQ(room.crowd->size(), 0u) << "every unit left";
    std::sort(left.begin(), left.end(), [](AgentId a, AgentId b) { return a.index < b.index; });
    EXPECT_EQ(left.size(), 60u);
    EXPECT_TRUE(std::adjacent_find(left.begin(), left.end(), [](AgentId a, AgentId b) { return a.index == b.index; }) ==
                left.end())
        << "a unit listed twice";
    EXPECT_TRUE(room.crowd->set_group_exit(GroupId{99, 0}, true).error().code == ErrorCode::not_found);
}

TEST(CrowdExits, AGroupThatKeepsItsUnitsHandsThemToTheHostWhoSendsThemOn) {
    // The host's choice: units that reach the door stay in the crowd and go on to (35, 10).
    ExitRoom room(false);
    const GroupId beyond = room.crowd->add_group(field_for(room.cost, {35, 10})).value();
    std::size_t handed = 0;
    for (int s = 0; s < 90 * 60; ++s) {
        ASSERT_TRUE(room.crowd->step(1.0f / 60.0f).ok());
        for (const AgentId id : room.crowd->exited()) {
            ASSERT_TRUE(room.crowd->valid(id)) << "a kept unit's handle stays valid";
            EXPECT_EQ(room.crowd->state(id), AgentState::arrived) << "it stands on the exit until sent on";
            ASSERT_TRUE(room.crowd->set_agent_group(id, beyond).ok());
            ++handed;
        }
        if (room.crowd->stats().arrived == 60u && handed == 60u) break;
    }
    EXPECT_EQ(handed, 60u) << "each unit handed over once";
    EXPECT_EQ(room.crowd->size(), 60u);
    std::size_t past_the_door = 0;
    for (const AgentId id : room.units) {
        EXPECT_EQ(room.crowd->group(id), beyond);
        EXPECT_EQ(room.crowd->state(id), AgentState::arrived);
        past_the_door += room.crowd->position(id).x > 21.0f;
    }
    EXPECT_EQ(past_the_door, 60u);
}

}  // namespace
}  // namespace tide
