// Frames of tide serve decode back to the world's state: agents (positions, states, groups, unit
// sizes), fields of a chosen group, selections; the JSON messages carry the groups (with their unit
// size), the repair counters and tower answers.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>

#include "protocol.hpp"
#include "tide/generate.hpp"

namespace tide::serve {
namespace {

template <class T>
T get(const std::string& s, std::size_t offset) {
    T v;
    std::memcpy(&v, s.data() + offset, sizeof v);
    return v;
}

struct DefaultWorld : ::testing::Test {
    SerialJobSystem jobs;
    World world{jobs};
    void SetUp() override {
        auto m = make_builtin_map("default");
        ASSERT_TRUE(m.ok());
        ASSERT_TRUE(world.load("default", std::move(m->cost), m->goals, 300).ok());
        for (int i = 0; i < 6; ++i) ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    }
};

TEST_F(DefaultWorld, AgentsFrameDecodes) {
    auto order = world.apply(Order{SelectBox{0, 0, 30, 40}, {{5, 5}}});
    ASSERT_TRUE(order.ok());
    const std::string a = encode_agents(world);
    ASSERT_EQ(a.size(), 20u + 7u * 300u);
    EXPECT_EQ(a[0], 1);
    EXPECT_EQ(a[1], kAgentsFrameFormat);
    EXPECT_EQ(get<std::uint32_t>(a, 4), 300u);
    const float sx = get<float>(a, 12), sy = get<float>(a, 16);
    for (std::size_t i = 0; i < 300; ++i) {
        const AgentId id = world.agents()[i];
        EXPECT_NEAR(get<std::uint16_t>(a, 20 + 4 * i) * sx, world.crowd().position(id).x, 0.001f);
        EXPECT_NEAR(get<std::uint16_t>(a, 22 + 4 * i) * sy, world.crowd().position(id).y, 0.001f);
        EXPECT_EQ(static_cast<std::uint8_t>(a[20 + 5 * 300 + i]), world.group_of(id) & 0xFF);
        EXPECT_EQ(a[20 + 6 * 300 + i], 1);
    }
}

TEST_F(DefaultWorld, AgentsFrameCarriesUnitSizes) {
    Spawn add;
    add.count = 40;
    add.size = 2;
    add.add = true;
    ASSERT_TRUE(world.apply(add).ok());
    add.count = 10;
    add.size = 3;
    ASSERT_TRUE(world.apply(add).ok());
    world.finish_builds();
    const std::size_t n = world.agents().size();
    ASSERT_EQ(n, 350u);
    const std::string a = encode_agents(world);
    ASSERT_EQ(a.size(), 20u + 7u * n);
    const float sx = get<float>(a, 12), sy = get<float>(a, 16);
    std::size_t counts[4] = {};
    for (std::size_t i = 0; i < n; ++i) {
        const AgentId id = world.agents()[i];
        const int size = a[20 + 6 * n + i];
        EXPECT_EQ(size, world.unit_size(id));
        ASSERT_TRUE(size >= 1 && size <= 3) << size;
        ++counts[size];
        // The old fields keep their offsets.
        EXPECT_NEAR(get<std::uint16_t>(a, 20 + 4 * i) * sx, world.crowd().position(id).x, 0.001f);
        EXPECT_NEAR(get<std::uint16_t>(a, 22 + 4 * i) * sy, world.crowd().position(id).y, 0.001f);
        EXPECT_EQ(static_cast<std::uint8_t>(a[20 + 5 * n + i]), world.group_of(id) & 0xFF);
    }
    EXPECT_EQ(counts[1], 300u);
    EXPECT_EQ(counts[2], 40u);
    EXPECT_EQ(counts[3], 10u);
    // The groups and /api/agents say the same.
    const auto groups = nlohmann::json::parse(groups_json(world))["groups"];
    std::size_t by_size[4] = {};
    for (const auto& g : groups) by_size[g["size"].get<int>()] += g["members"].get<std::size_t>();
    EXPECT_EQ(by_size[1], 300u);
    EXPECT_EQ(by_size[2], 40u);
    EXPECT_EQ(by_size[3], 10u);
    const auto agents = nlohmann::json::parse(agents_json(world, n));
    ASSERT_EQ(agents["size"].size(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(agents["size"][i], world.unit_size(world.agents()[i]));
    const auto w = nlohmann::json::parse(world_json(world, {"default"}, 200000));
    EXPECT_EQ(w["unit_sizes"], 3);
    EXPECT_EQ(w["max_tower_side"], 8);
}

TEST_F(DefaultWorld, TowerAnswersSayWhetherItBlocks) {
    // Units behind the left wall only, away from its gap (x 14..15, y 18..21): a unit under a
    // tower would count as cut off.
    Spawn behind;
    behind.count = 30;
    behind.in_area = true;
    behind.x1 = 9;
    behind.y1 = 39;
    ASSERT_TRUE(world.apply(behind).ok());
    world.finish_builds();
    // A 3x3 tower at (13..15, 18..20) leaves a one-cell row of the gap open: enough for units of
    // size 1 only.
    const TowerRect gap{13, 18, 15, 20};
    auto check = world.check_tower(gap.x0, gap.y0, gap.x1, gap.y1);
    ASSERT_TRUE(check.ok()) << check.error().message;
    EXPECT_FALSE(check->blocks);
    auto j = nlohmann::json::parse(tower_json(gap, *check));
    EXPECT_EQ(j["type"], "tower");
    EXPECT_EQ(j["x0"], 13);
    EXPECT_EQ(j["y1"], 20);
    EXPECT_EQ(j["blocks"], false);
    EXPECT_EQ(j["covers_goal"], false);
    EXPECT_EQ(j["units_cut_off"], 0);

    // Size-2 units behind the wall cannot squeeze through that row: all of them would be cut off.
    Spawn add = behind;
    add.count = 20;
    add.size = 2;
    add.add = true;
    ASSERT_TRUE(world.apply(add).ok());
    world.finish_builds();
    check = world.check_tower(gap.x0, gap.y0, gap.x1, gap.y1);
    ASSERT_TRUE(check.ok());
    j = nlohmann::json::parse(tower_json(gap, *check));
    EXPECT_EQ(j["blocks"], true);
    EXPECT_EQ(j["covers_goal"], false);
    EXPECT_EQ(j["units_cut_off"], 20);
    EXPECT_EQ(j["units_cut_off"], check->units_cut_off);
    EXPECT_EQ(j["cells_cut_off"], check->cells_cut_off);

    // Over the goal.
    const Cell goal = world.groups().front().goals.front();
    check = world.check_tower(goal.x, goal.y, goal.x + 1, goal.y + 1);
    ASSERT_TRUE(check.ok());
    j = nlohmann::json::parse(tower_json({goal.x, goal.y, goal.x + 1, goal.y + 1}, *check));
    EXPECT_EQ(j["covers_goal"], true);
    EXPECT_EQ(j["blocks"], true);

    EXPECT_EQ(nlohmann::json::parse(tower_placed_json(gap)),
              nlohmann::json::parse(R"({"type":"tower_placed","x0":13,"y0":18,"x1":15,"y1":20})"));
}

TEST_F(DefaultWorld, StatsAndStateCarryRepairs) {
    auto stats = nlohmann::json::parse(stats_json(world, 60.0, 1));
    EXPECT_EQ(stats["repairs"], 0);
    EXPECT_EQ(stats["repair_ms"], 0.0);
    ASSERT_TRUE(stats.contains("field_ms"));
    // A paint edit: the field is repaired, not rebuilt.
    ASSERT_TRUE(world.apply(Paint{30, 30, 1, kCostForest}).ok());
    world.finish_builds();
    ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    stats = nlohmann::json::parse(stats_json(world, 60.0, 1));
    EXPECT_GE(stats["repairs"].get<int>(), 1);
    EXPECT_EQ(stats["repairs"], world.stats().repairs_published);
    EXPECT_DOUBLE_EQ(stats["repair_ms"].get<double>(), world.stats().repair_ms);
    const auto state = nlohmann::json::parse(state_json(world, 60.0, 1));
    EXPECT_EQ(state["stats"]["repairs"], stats["repairs"]);
    EXPECT_GE(state["service"]["repairs"].get<int>() + state["service"]["repair_rebuilds"].get<int>(), 1);
    EXPECT_EQ(state["service"]["repairs"], world.service_stats().repairs);
    EXPECT_EQ(state["service"]["repair_rebuilds"], world.service_stats().repair_rebuilds);
}

TEST_F(DefaultWorld, FieldsFrameShowsTheAskedGroup) {
    auto order = world.apply(Order{SelectBox{0, 0, 30, 40}, {{5, 5}}});
    ASSERT_TRUE(order.ok());
    world.finish_builds();
    for (const UnitGroupId g : {order->group, world.largest_group()}) {
        const FlowField& field = *world.field(g);
        const std::string f = encode_fields(world, g, 7);
        const std::size_t cells = 64 * 40;
        ASSERT_EQ(f.size(), 28u + 4u * cells);
        EXPECT_EQ(f[0], 2);
        EXPECT_EQ(get<std::uint32_t>(f, 12), 7u);
        EXPECT_EQ(get<std::uint32_t>(f, 24), g);
        const float scale = get<float>(f, 16);
        for (std::size_t i = 0; i < cells; ++i) {
            const std::uint16_t q = get<std::uint16_t>(f, 28 + 2 * i);
            const float v = field.integration()[i];
            if (v == kUnreachable) {
                EXPECT_EQ(q, 65535);
            } else {
                EXPECT_NEAR(q * scale, v, scale);
            }
            EXPECT_EQ(static_cast<std::uint8_t>(f[28 + 2 * cells + i]), world.cost().cells()[i]);
            EXPECT_EQ(static_cast<std::uint8_t>(f[28 + 3 * cells + i]),
                      static_cast<std::uint8_t>(field.directions()[i]));
        }
    }
    // An unknown group shows the largest group's field.
    EXPECT_EQ(get<std::uint32_t>(encode_fields(world, 999, 1), 24), world.largest_group());
}

TEST_F(DefaultWorld, SelectionFrameIsABitsetOverTheRoster) {
    const std::vector<AgentId> picked = world.select({30, 0, 64, 40});
    ASSERT_GT(picked.size(), 10u);
    const std::string s = encode_selection(world, picked);
    ASSERT_EQ(s.size(), 16u + (300u + 7) / 8);
    EXPECT_EQ(s[0], 3);
    EXPECT_EQ(get<std::uint32_t>(s, 4), picked.size());
    EXPECT_EQ(get<std::uint32_t>(s, 8), 300u);
    EXPECT_EQ(get<std::uint32_t>(s, 12), world.largest_group());
    std::size_t set = 0;
    for (std::size_t i = 0; i < 300; ++i) {
        const bool bit = (static_cast<std::uint8_t>(s[16 + i / 8]) >> (i % 8)) & 1;
        const bool in = std::find(picked.begin(), picked.end(), world.agents()[i]) != picked.end();
        EXPECT_EQ(bit, in) << i;
        set += bit;
    }
    EXPECT_EQ(set, picked.size());
    EXPECT_EQ(get<std::uint32_t>(encode_selection(world, {}), 12), 0u);
}

TEST_F(DefaultWorld, MajorityGroupOfASelection) {
    auto a = world.apply(Order{SelectBox{0, 0, 20, 40}, {{5, 5}}});
    ASSERT_TRUE(a.ok());
    std::vector<AgentId> mixed = world.select({0, 0, 20, 40});
    ASSERT_FALSE(mixed.empty());
    const std::vector<AgentId> rest = world.select({20, 0, 64, 40});
    mixed.push_back(rest.front());
    EXPECT_EQ(majority_group(world, mixed), a->group);
    EXPECT_EQ(majority_group(world, {}), 0u);
}

TEST_F(DefaultWorld, JsonMessagesListGroupsAndServiceCounters) {
    auto a = world.apply(Order{SelectBox{0, 0, 20, 40}, {{5, 5}, {6, 30}}});
    ASSERT_TRUE(a.ok());
    world.finish_builds();
    const auto groups = nlohmann::json::parse(groups_json(world));
    EXPECT_EQ(groups["type"], "groups");
    ASSERT_EQ(groups["groups"].size(), 2u);
    const auto state = nlohmann::json::parse(state_json(world, 60.0, 1));
    ASSERT_EQ(state["groups"].size(), 2u);
    bool found = false;
    for (const auto& g : state["groups"]) {
        if (g["id"] == a->group) {
            found = true;
            EXPECT_EQ(g["goals"], nlohmann::json::parse("[[5,5],[6,30]]"));
            EXPECT_EQ(g["members"], a->units);
            EXPECT_EQ(g["field_ready"], true);
        }
    }
    EXPECT_TRUE(found);
    for (const char* k : {"hits", "misses", "builds", "cached_bytes", "builds_cancelled", "tickets"}) {
        EXPECT_TRUE(state["service"].contains(k)) << k;
    }
    EXPECT_GE(state["service"]["builds"].get<int>(), 2);
    EXPECT_GT(state["service"]["cached_bytes"].get<long>(), 0);
    const auto agents = nlohmann::json::parse(agents_json(world, 1000));
    ASSERT_EQ(agents["group"].size(), 300u);
    for (std::size_t i = 0; i < 300; ++i) EXPECT_EQ(agents["group"][i], world.group_of(world.agents()[i]));
}

}  // namespace
}  // namespace tide::serve
