// Congestion layers (congestion.hpp): the density term never turns a wall passable nor a passable
// cell into a wall and keeps costs in 1..254; the density counts every disc once, in the cell of
// its centre; counter-flow costs more than flow along the group; the field service keys fields by
// their layer and plans around the crowd.

#include "tide/congestion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"

namespace tide {
namespace {

// A random layer of extra costs 0..253 on every cell (walls included: congestion_cost_field must
// ignore what a layer says about walls).
CongestionLayer random_layer(int w, int h, std::mt19937& rng) {
    CongestionLayer layer;
    layer.width = w;
    layer.height = h;
    layer.extra.resize(static_cast<std::size_t>(w) * h);
    for (auto& e : layer.extra) e = static_cast<std::uint8_t>(test::random_int(rng, 0, 253));
    return layer;
}

TEST(Congestion, CostsStayInRangeAndWallsStayWallsOnRandomMaps) {
    std::mt19937 rng(12);
    for (std::uint32_t seed = 1; seed <= 300; ++seed) {
        const test::RandomCase c = test::make_random_case(seed, 40);
        const CongestionLayer layer = random_layer(c.cost.width(), c.cost.height(), rng);
        const auto out = congestion_cost_field(c.cost, layer);
        ASSERT_TRUE(out.ok()) << c.description;
        for (std::size_t i = 0; i < c.cost.cells().size(); ++i) {
            const Cost before = c.cost.cells()[i], after = out->cells()[i];
            ASSERT_EQ(before == kCostWall, after == kCostWall) << c.description << " cell " << i;
            if (before == kCostWall) continue;
            ASSERT_GE(after, 1) << c.description;
            ASSERT_LE(after, kCostMax) << c.description;
            ASSERT_EQ(after, std::min<int>(kCostMax, before + layer.extra[i])) << c.description;
        }
    }
}

TEST(Congestion, LayersFromARealCrowdKeepWallsAndOpenCells) {
    // A crowd packed on a map with walls, every cell as full as it gets: the largest weights and
    // caps still leave walls walls and open cells open.
    const CostField cost = test::grid_from_rows({
        "##########",
        "#....#...#",
        "#.~~.#.F.#",
        "#........#",
        "##########",
    });
    Crowd crowd(cost);
    FieldBuilder builder;
    FlowField field;
    const Cell goal{8, 3};
    ASSERT_TRUE(builder.build(cost, std::span<const Cell>(&goal, 1), {}, field).ok());
    const GroupId g = crowd.add_group(std::make_shared<FlowField>(field)).value();
    for (int y = 1; y < 4; ++y)
        for (int x = 1; x < 9; ++x) {
            if (!cost.passable(x, y)) continue;
            for (int k = 0; k < 12; ++k) ASSERT_TRUE(crowd.add_agent({x + 0.1f + 0.07f * k, y + 0.5f}, g).ok());
        }
    // A few steps only: the stopping chain reaction soon settles most of this crowd (and a
    // settled pack is not congestion).
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    ASSERT_LT(crowd.stats().arrived, crowd.stats().agents / 2);
    CrowdDensity density;
    measure_density(crowd, cost, density);
    CongestionParams p;
    p.density_weight = p.counter_weight = 253.0f;
    p.max_extra = 253;
    for (int radius : {0, 1, 3}) {
        p.radius = radius;
        const auto layer = congestion_layer(density, cost, &field, 3.0f, p);
        ASSERT_TRUE(layer.ok());
        const auto out = congestion_cost_field(cost, *layer).value();
        int raised = 0;
        for (std::size_t i = 0; i < cost.cells().size(); ++i) {
            EXPECT_EQ(cost.cells()[i] == kCostWall, out.cells()[i] == kCostWall);
            if (cost.cells()[i] == kCostWall) {
                EXPECT_EQ(layer->extra[i], 0);
            }
            raised += out.cells()[i] > cost.cells()[i];
        }
        EXPECT_GT(raised, 10) << "radius " << radius;
    }
}

TEST(Congestion, DensityCountsEveryMovingDiscOnceInItsCell) {
    const CostField cost = CostField::create(8, 6).value();
    Crowd crowd(cost);
    FlowField field;
    FieldBuilder builder;
    const Cell goal{7, 3};
    ASSERT_TRUE(builder.build(cost, std::span<const Cell>(&goal, 1), {}, field).ok());
    const GroupId g = crowd.add_group(std::make_shared<FlowField>(field)).value();
    ASSERT_TRUE(crowd.add_agent({2.5f, 2.5f}, g).ok());
    ASSERT_TRUE(crowd.add_agent({2.2f, 2.7f}, g).ok());
    AgentParams big = crowd.default_agent_params();
    big.radius = 0.4f;
    ASSERT_TRUE(crowd.add_agent({5.5f, 1.5f}, g, big).ok());
    CrowdDensity d;
    measure_density(crowd, cost, d);
    ASSERT_EQ(d.cover.size(), 48u);
    const auto small = static_cast<std::uint32_t>(std::lround(3.14159265 * 0.16 * 0.16 * kDensityScale));
    const auto large = static_cast<std::uint32_t>(std::lround(3.14159265 * 0.4 * 0.4 * kDensityScale));
    EXPECT_EQ(d.cover[2 * 8 + 2], 2 * small);
    EXPECT_EQ(d.cover[1 * 8 + 5], large);
    EXPECT_EQ(std::accumulate(d.cover.begin(), d.cover.end(), std::uint64_t{0}), 2 * small + large);
    // Standing still: no flow.
    for (std::size_t i = 0; i < d.flow_x.size(); ++i) EXPECT_EQ(d.flow_x[i] | d.flow_y[i], 0);
    // A unit that has arrived (it stands on its goal) no longer counts.
    ASSERT_TRUE(crowd.add_agent({7.5f, 3.5f}, g).ok());
    ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());
    measure_density(crowd, cost, d);
    EXPECT_EQ(d.cover[3 * 8 + 7], 0u);
    EXPECT_EQ(std::accumulate(d.cover.begin(), d.cover.end(), std::uint64_t{0}), 2 * small + large);
}

TEST(Congestion, UnitsMovingAgainstTheGroupCostMoreThanUnitsMovingWithIt) {
    // Two crowds on a corridor walking toward each other; each side's layer, seen from a group
    // whose field leads east, is dearer where the westbound units walk.
    const CostField cost = CostField::create(40, 3).value();
    FieldBuilder builder;
    FlowField east, west;
    const Cell east_goal{39, 1}, west_goal{0, 1};
    ASSERT_TRUE(builder.build(cost, std::span<const Cell>(&east_goal, 1), {}, east).ok());
    ASSERT_TRUE(builder.build(cost, std::span<const Cell>(&west_goal, 1), {}, west).ok());
    Crowd crowd(cost);
    const GroupId ge = crowd.add_group(std::make_shared<FlowField>(east)).value();
    const GroupId gw = crowd.add_group(std::make_shared<FlowField>(west)).value();
    for (int k = 0; k < 8; ++k) {
        ASSERT_TRUE(
            crowd.add_agent({5.2f + 0.4f * static_cast<float>(k % 4), 0.5f + static_cast<float>(k / 4)}, ge).ok());
        ASSERT_TRUE(
            crowd.add_agent({30.2f + 0.4f * static_cast<float>(k % 4), 0.5f + static_cast<float>(k / 4)}, gw).ok());
    }
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(crowd.step(1.0f / 60.0f).ok());  // both up to speed
    CrowdDensity d;
    measure_density(crowd, cost, d);
    CongestionParams p;
    p.radius = 0;
    auto extra_around = [&](const CongestionLayer& layer, int x0, int x1) {
        int sum = 0;
        for (int y = 0; y < 3; ++y)
            for (int x = x0; x <= x1; ++x) sum += layer.extra[static_cast<std::size_t>(y) * 40 + x];
        return sum;
    };
    const CongestionLayer seen_east = congestion_layer(d, cost, &east, 3.0f, p).value();
    const CongestionLayer density_only = congestion_layer(d, cost, nullptr, 3.0f, p).value();
    // The eastbound group pays extra for the westbound crowd (x ~ 27..31 after a second) only.
    EXPECT_GT(extra_around(seen_east, 25, 33), extra_around(density_only, 25, 33));
    EXPECT_EQ(extra_around(seen_east, 5, 12), extra_around(density_only, 5, 12));
    EXPECT_NE(seen_east.hash, density_only.hash);
}

TEST(Congestion, BadParamsAndSizesAreRefused) {
    const CostField cost = CostField::create(6, 4).value();
    CrowdDensity d;
    d.width = 6;
    d.height = 4;
    d.cover.assign(24, 0);
    d.flow_x.assign(24, 0);
    d.flow_y.assign(24, 0);
    CongestionParams p;
    EXPECT_TRUE(congestion_layer(d, cost, nullptr, 3.0f, p).ok());
    using Spoil = void (*)(CongestionParams&);
    for (Spoil bad :
         {Spoil{[](CongestionParams& q) { q.refresh_hz = 0.0f; }}, Spoil{[](CongestionParams& q) { q.radius = 9; }},
          Spoil{[](CongestionParams& q) { q.density_weight = -1.0f; }},
          Spoil{[](CongestionParams& q) { q.counter_weight = NAN; }},
          Spoil{[](CongestionParams& q) { q.threshold = 1.5f; }},
          Spoil{[](CongestionParams& q) { q.full = q.threshold - 0.01f; }},
          Spoil{[](CongestionParams& q) { q.max_extra = 254; }}}) {
        CongestionParams q;
        bad(q);
        EXPECT_FALSE(check_congestion_params(q).ok());
        EXPECT_FALSE(congestion_layer(d, cost, nullptr, 3.0f, q).ok());
    }
    EXPECT_FALSE(congestion_layer(d, CostField::create(5, 4).value(), nullptr, 3.0f, p).ok());
    CongestionLayer small;
    small.width = 5;
    small.height = 4;
    small.extra.assign(20, 1);
    EXPECT_FALSE(congestion_cost_field(cost, small).ok());
}

TEST(Congestion, TheFieldServicePlansAroundTheCrowdAndKeysFieldsByTheirLayer) {
    // Two ways from west to east round a block: the upper one is shorter. A layer that makes the
    // upper way's cells dear sends the field along the lower one; the terrain is not changed.
    const CostField cost = test::grid_from_rows({
        "..........",
        ".########.",
        ".########.",
        "..........",
        "..........",
    });
    SerialJobSystem jobs;
    auto service = FieldService::create(cost, jobs).value();
    const Cell goal{9, 0};
    FieldOptions plain;
    auto t_plain = service->request(std::span<const Cell>(&goal, 1), plain).value();
    auto layer = std::make_shared<CongestionLayer>();
    layer->width = 10;
    layer->height = 5;
    layer->extra.assign(50, 0);
    for (int x = 0; x < 9; ++x) layer->extra[static_cast<std::size_t>(x)] = 30;  // the top row, but the goal
    layer->hash = 77;
    FieldOptions congested;
    congested.congestion = layer;
    auto t_congested = service->request(std::span<const Cell>(&goal, 1), congested).value();
    service->wait_idle();
    service->publish();
    const auto a = service->current(t_plain), b = service->current(t_congested);
    ASSERT_TRUE(a && b);
    EXPECT_NE(a, b);
    EXPECT_EQ(a->direction(0, 0), Direction::east);   // along the top
    EXPECT_EQ(b->direction(0, 0), Direction::south);  // down and round the block
    EXPECT_EQ(service->terrain()->cells()[0], kCostPlain);
    // The same layer, another copy: the same key (coalesced or equal), and never cached.
    auto copy = std::make_shared<CongestionLayer>(*layer);
    FieldOptions again;
    again.congestion = copy;
    auto t_again = service->request(std::span<const Cell>(&goal, 1), again).value();
    service->wait_idle();
    service->publish();
    EXPECT_EQ(service->current(t_again)->directions()[0], Direction::south);
    EXPECT_EQ(service->stats().fields_cached, 1u);  // the plain field only
    // A layer of another size is refused.
    auto wrong = std::make_shared<CongestionLayer>();
    wrong->width = 4;
    wrong->height = 4;
    wrong->extra.assign(16, 0);
    FieldOptions bad;
    bad.congestion = wrong;
    EXPECT_FALSE(service->request(std::span<const Cell>(&goal, 1), bad).ok());
    FieldOptions flee;
    flee.kind = FieldKind::flee;
    flee.congestion = layer;
    EXPECT_FALSE(service->request(std::span<const Cell>(&goal, 1), flee).ok());
}

}  // namespace
}  // namespace tide
