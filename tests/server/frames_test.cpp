// Frames of tide serve decode back to the world's state: agents (positions, states, groups),
// fields of a chosen group, selections; the JSON messages carry the groups.

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
    ASSERT_EQ(a.size(), 20u + 6u * 300u);
    EXPECT_EQ(a[0], 1);
    EXPECT_EQ(get<std::uint32_t>(a, 4), 300u);
    const float sx = get<float>(a, 12), sy = get<float>(a, 16);
    for (std::size_t i = 0; i < 300; ++i) {
        const AgentId id = world.agents()[i];
        EXPECT_NEAR(get<std::uint16_t>(a, 20 + 4 * i) * sx, world.crowd().position(id).x, 0.001f);
        EXPECT_NEAR(get<std::uint16_t>(a, 22 + 4 * i) * sy, world.crowd().position(id).y, 0.001f);
        EXPECT_EQ(static_cast<std::uint8_t>(a[20 + 5 * 300 + i]), world.group_of(id) & 0xFF);
    }
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
