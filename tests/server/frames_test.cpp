// Frames of tide serve decode back to the world's state: agents (positions, states, groups, unit
// sizes), fields of a chosen group, selections; the JSON messages carry the groups (with their unit
// size and the counts of their units' states), the repair counters and tower answers.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstring>
#include <map>

#include "protocol.hpp"
#include "tide/generate.hpp"
#include "tide/scenarios.hpp"
#include "tide/viewer.hpp"

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
    const PlaceTower gap{13, 18, 15, 20};
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

TEST_F(DefaultWorld, FleeFieldsFrameIsQuantisedBelowZero) {
    ASSERT_TRUE(world.apply(SetGoals{{{40, 20}}, 0, true}).ok());
    world.finish_builds();
    const UnitGroupId g = world.largest_group();
    const FlowField& field = *world.field(g);
    ASSERT_EQ(field.kind(), FieldKind::flee);
    const std::string f = encode_fields(world, g, 1);
    EXPECT_EQ(f[2], 1) << "byte 2 marks a flee field";
    const float scale = get<float>(f, 16);
    const std::size_t cells = 64 * 40;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        const std::uint16_t q = get<std::uint16_t>(f, 28 + 2 * i);
        const float v = field.integration()[i];
        if (v == kUnreachable) {
            EXPECT_EQ(q, 65535);
            continue;
        }
        EXPECT_LE(v, 0.0f);
        EXPECT_NEAR(-(q * scale), v, scale);
        ++checked;
    }
    EXPECT_GT(checked, 1000u);
    const auto groups = nlohmann::json::parse(groups_json(world));
    EXPECT_EQ(groups["groups"][0]["flee"], true);
    // A goal field again: byte 2 is 0.
    ASSERT_TRUE(world.apply(SetGoals{{{40, 20}}, 0, false}).ok());
    world.finish_builds();
    EXPECT_EQ(encode_fields(world, world.largest_group(), 2)[2], 0);
    // The wall margin is echoed in the params.
    ASSERT_TRUE(world.apply(SetWallMargin{{2, 4}}).ok());
    const auto params = nlohmann::json::parse(params_json(world));
    EXPECT_EQ(params["params"]["wall_margin"], nlohmann::json::array({2, 4}));
    // And whether the groups plan around the crowd.
    EXPECT_EQ(params["params"]["congestion"], false);
    CongestionParams on = world.congestion();
    on.enabled = true;
    ASSERT_TRUE(world.apply(SetCongestion{on}).ok());
    EXPECT_EQ(nlohmann::json::parse(params_json(world))["params"]["congestion"], true);
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

// The state bytes of the agents frame, /api/agents and the counts per group all say what
// unit_state() says: queued (waiting at the door by design) apart from stuck (a moving unit the
// crowd flags stuck) and from moving.
TEST(UnitStates, FrameAndCountsTellQueuedAndStuckApart) {
    SerialJobSystem jobs;
    World world{jobs};
    ASSERT_TRUE(load_scenario(world, "door").ok());
    std::array<std::size_t, kUnitStates> seen{};
    for (int t = 1; t <= 60 * 20; ++t) {
        ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
        if (t % 60 != 0) continue;
        const std::string a = encode_agents(world);
        EXPECT_EQ(a[1], 3) << "format 3: state codes 0..4";
        const std::size_t n = world.agents().size();
        const auto agents = nlohmann::json::parse(agents_json(world, n));
        std::map<UnitGroupId, std::array<std::size_t, kUnitStates>> by_group;
        for (std::size_t i = 0; i < n; ++i) {
            const AgentId id = world.agents()[i];
            const int code = static_cast<std::uint8_t>(a[20 + 4 * n + i]);
            ASSERT_LT(code, kUnitStates);
            const AgentState s = world.crowd().state(id);
            const bool stuck = world.crowd().stuck(id);
            switch (static_cast<UnitState>(code)) {
                case UnitState::moving:
                    EXPECT_TRUE(s == AgentState::moving && !stuck);
                    break;
                case UnitState::stuck:
                    EXPECT_TRUE(s == AgentState::moving && stuck);
                    break;
                case UnitState::arrived:
                    EXPECT_EQ(s, AgentState::arrived);
                    break;
                case UnitState::no_path:
                    EXPECT_EQ(s, AgentState::no_path);
                    break;
                case UnitState::queued:
                    EXPECT_EQ(s, AgentState::queued);
                    break;
            }
            EXPECT_EQ(agents["state"][i], code);
            ++seen[code];
            ++by_group[world.group_of(id)][code];
        }
        const auto stats = nlohmann::json::parse(stats_json(world, 60.0, 1));
        const auto state = nlohmann::json::parse(state_json(world, 60.0, 1));
        ASSERT_EQ(stats["group_states"].size(), world.groups().size());
        ASSERT_EQ(state["groups"].size(), world.groups().size());
        for (std::size_t k = 0; k < world.groups().size(); ++k) {
            const UnitGroup& g = world.groups()[k];
            const auto& counts = by_group[g.id];
            for (const auto* j : {&stats["group_states"][k], &state["groups"][k]}) {
                EXPECT_EQ((*j)["id"], g.id);
                EXPECT_EQ((*j)["moving"], counts[0]);
                EXPECT_EQ((*j)["arrived"], counts[1]);
                EXPECT_EQ((*j)["no_path"], counts[2]);
                EXPECT_EQ((*j)["queued"], counts[3]);
                EXPECT_EQ((*j)["stuck"], counts[4]);
            }
            EXPECT_EQ(counts[0] + counts[1] + counts[2] + counts[3] + counts[4], g.members);
        }
        EXPECT_EQ(stats["queued"], world.stats().crowd.queued);
        EXPECT_EQ(stats["stuck"], world.stats().crowd.stuck);
    }
    EXPECT_GT(seen[static_cast<int>(UnitState::queued)], 100u) << "units wait at the door";
    EXPECT_GT(seen[static_cast<int>(UnitState::arrived)], 0u);
    EXPECT_GT(seen[static_cast<int>(UnitState::moving)], 0u);
    EXPECT_STREQ(unit_state_name(UnitState::queued), "queued");
    EXPECT_STREQ(unit_state_name(UnitState::stuck), "stuck");
}

// Exit groups say so, and count the units that left by their exits; the stats count them all.
TEST(UnitStates, ExitGroupsCountTheUnitsThatLeft) {
    SerialJobSystem jobs;
    World world{jobs};
    ASSERT_TRUE(load_scenario(world, "evacuation").ok());
    for (int t = 0; t < 60 * 5; ++t) ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    const auto groups = nlohmann::json::parse(groups_json(world))["groups"];
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0]["exit"], true);
    const std::size_t left = groups[0]["exited"].get<std::size_t>();
    EXPECT_GT(left, 0u);
    EXPECT_EQ(left + world.agents().size(), 1200u);
    const auto stats = nlohmann::json::parse(stats_json(world, 60.0, 1));
    EXPECT_EQ(stats["exited"], left);
    EXPECT_EQ(stats["group_states"][0]["exited"], left);
    EXPECT_EQ(stats["agents"], 1200u - left);
}

// ---- Hierarchical maps and big maps ----------------------------------------------------------------

struct HierarchicalWorld : ::testing::Test {
    SerialJobSystem jobs;
    World world{jobs, config()};
    static WorldConfig config() {
        WorldConfig c;
        c.hierarchy_cells = 0;
        c.sectors.sector_size = 32;
        return c;
    }
    void SetUp() override {
        auto m = make_builtin_map("random256");
        ASSERT_TRUE(m.ok());
        ASSERT_TRUE(world.load("random256", std::move(m->cost), m->goals, 200, CellRect{0, 0, 40, 40}).ok());
        ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    }
};

TEST_F(HierarchicalWorld, SectorsFrameListsEveryPortal) {
    const SectorGraph& graph = *world.sector_graph(1);
    const std::string f = encode_sectors(world, 1);
    const auto portals = graph.portals();
    ASSERT_EQ(f.size(), 32u + 12u * portals.size());
    EXPECT_EQ(f[0], 4);
    EXPECT_EQ(get<std::uint32_t>(f, 4), 256u);
    EXPECT_EQ(get<std::uint32_t>(f, 8), 256u);
    EXPECT_EQ(get<std::uint32_t>(f, 12), 32u);
    EXPECT_EQ(get<std::uint32_t>(f, 16), 1u);
    EXPECT_EQ(get<std::uint32_t>(f, 20), graph.version());
    EXPECT_EQ(get<std::uint32_t>(f, 24), portals.size());
    EXPECT_EQ(get<std::uint32_t>(f, 28), graph.nodes().size());
    for (std::size_t k = 0; k < portals.size(); ++k) {
        const Portal& p = portals[k];
        const std::size_t o = 32 + 12 * k;
        EXPECT_EQ(get<std::uint16_t>(f, o), p.node_a.x);
        EXPECT_EQ(get<std::uint16_t>(f, o + 2), p.node_a.y);
        EXPECT_EQ(get<std::uint16_t>(f, o + 4), p.node_b.x);
        EXPECT_EQ(get<std::uint16_t>(f, o + 6), p.node_b.y);
        EXPECT_EQ(get<std::uint16_t>(f, o + 8), p.first);
        EXPECT_EQ(get<std::uint16_t>(f, o + 10), p.last);
    }
    EXPECT_TRUE(encode_sectors(world, 2).empty()) << "no unit of size 2: no graph";
}

TEST_F(HierarchicalWorld, SectorFieldsFrameIsABitsetOfThePlansFields) {
    const UnitGroupId g = world.groups()[0].id;
    const auto plan = world.plan(g);
    ASSERT_NE(plan, nullptr);
    const std::string f = encode_sector_fields(world, g);
    ASSERT_EQ(f.size(), 24u + 8u);
    EXPECT_EQ(f[0], 5);
    EXPECT_EQ(get<std::uint32_t>(f, 4), g);
    EXPECT_EQ(get<std::uint32_t>(f, 8), 1u);
    EXPECT_EQ(get<std::uint32_t>(f, 12), 64u);
    EXPECT_EQ(get<std::uint32_t>(f, 16), plan->built_sectors());
    EXPECT_EQ(get<std::uint32_t>(f, 20), plan->field_bytes());
    std::size_t built = 0;
    for (int sec = 0; sec < 64; ++sec) {
        const bool bit = (static_cast<std::uint8_t>(f[24 + sec / 8]) >> (sec % 8)) & 1;
        EXPECT_EQ(bit, plan->sector_field(sec) != nullptr) << sec;
        built += bit;
    }
    EXPECT_GT(built, 0u);
    EXPECT_LT(built, 64u) << "units in one corner: only the sectors on their way";
    EXPECT_TRUE(encode_sector_fields(world, 999).empty());
}

TEST_F(HierarchicalWorld, FieldsFrameShowsThePlanAndWhereItHasNoFieldYet) {
    const UnitGroupId g = world.groups()[0].id;
    const auto plan = world.plan(g);
    const std::string f = encode_fields(world, g, 3);
    const std::size_t cells = 256 * 256;
    ASSERT_EQ(f.size(), 28u + 4u * cells);
    EXPECT_EQ(f[1], 0) << "every cell";
    EXPECT_EQ(get<std::uint32_t>(f, 24), g);
    const float scale = get<float>(f, 16);
    std::size_t not_planned = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        const int x = static_cast<int>(i % 256), y = static_cast<int>(i / 256);
        const std::uint8_t d = static_cast<std::uint8_t>(f[28 + 3 * cells + i]);
        const std::uint16_t q = get<std::uint16_t>(f, 28 + 2 * i);
        if (world.cost().at(x, y) == kCostWall) {
            EXPECT_EQ(d, static_cast<std::uint8_t>(Direction::wall));
        } else if (plan->sector_field(plan->graph().sector_of(x, y)) == nullptr) {
            EXPECT_EQ(d, kNotPlannedCode);
            EXPECT_EQ(q, 65535);
            ++not_planned;
        } else {
            EXPECT_EQ(d, static_cast<std::uint8_t>(plan->direction(x, y)));
            const float v = plan->integration(x, y);
            if (v == kUnreachable) {
                EXPECT_EQ(q, 65535);
            } else {
                EXPECT_NEAR(q * scale, v, scale);
            }
        }
    }
    EXPECT_GT(not_planned, 0u);
}

TEST_F(HierarchicalWorld, WorldAndStatsMessagesNameThePlanner) {
    const auto w = nlohmann::json::parse(world_json(world, builtin_map_names(), 1000));
    EXPECT_EQ(w["planner"], "hierarchical");
    EXPECT_EQ(w["sector_size"], 32);
    EXPECT_EQ(w["field_stride"], 1);
    const auto s = nlohmann::json::parse(stats_json(world, 60.0, 1));
    EXPECT_EQ(s["planner"], "hierarchical");
    EXPECT_EQ(s["sector_fields"], world.stats().sector_fields);
    EXPECT_GT(s["sector_fields"].get<int>(), 0);
    EXPECT_GT(s["graph_ms"].get<double>(), 0.0);
    const auto groups = nlohmann::json::parse(groups_json(world));
    EXPECT_EQ(groups["groups"][0]["sector_fields"], world.stats().sector_fields);
}

TEST_F(DefaultWorld, FlatMapsSayFlatAndSendNoSectors) {
    EXPECT_EQ(nlohmann::json::parse(world_json(world, builtin_map_names(), 1000))["planner"], "flat");
    EXPECT_FALSE(nlohmann::json::parse(world_json(world, builtin_map_names(), 1000)).contains("sector_size"));
    EXPECT_EQ(nlohmann::json::parse(stats_json(world, 60.0, 1))["planner"], "flat");
    EXPECT_TRUE(encode_sectors(world, 1).empty());
    EXPECT_TRUE(encode_sector_fields(world, world.groups()[0].id).empty());
}

TEST(FieldsFrame, MapsOverAMillionCellsAreSampled) {
    EXPECT_EQ(field_stride(64, 40), 1);
    EXPECT_EQ(field_stride(1024, 1024), 1);
    EXPECT_EQ(field_stride(1025, 1024), 2);
    EXPECT_EQ(field_stride(4096, 4096), 4);
    EXPECT_EQ(field_stride(16384, 16384), 16);
    SerialJobSystem jobs;
    World world{jobs};
    const int w = 1100, h = 1000;  // flat (under WorldConfig::hierarchy_cells), stride 2
    CostField cost = generate_random_map({w, h, 0.2, 0.15, 0.07, 3}).value();
    cost.set(550, 500, kCostPlain);
    ASSERT_TRUE(world.load("big", cost, {{550, 500}}, 0).ok());
    ASSERT_FALSE(world.hierarchical());
    const std::string f = encode_fields(world, 0, 1);
    const int sw = 550, sh = 500;
    const std::size_t n = static_cast<std::size_t>(sw) * sh;
    ASSERT_EQ(f.size(), 28u + 4u * n);
    EXPECT_EQ(f[1], 2);
    EXPECT_EQ(get<std::uint32_t>(f, 4), static_cast<std::uint32_t>(w));
    EXPECT_EQ(get<std::uint32_t>(f, 8), static_cast<std::uint32_t>(h));
    const FlowField& field = *world.field(world.groups()[0].id);
    for (std::size_t k = 0; k < n; k += 97) {
        const int x = static_cast<int>(k % sw) * 2 + 1, y = static_cast<int>(k / sw) * 2 + 1;  // the block's middle
        EXPECT_EQ(static_cast<std::uint8_t>(f[28 + 2 * n + k]), cost.at(x, y));
        EXPECT_EQ(static_cast<std::uint8_t>(f[28 + 3 * n + k]), static_cast<std::uint8_t>(field.direction(x, y)));
    }
}

// Applies fields patch `patch` to a copy of fields frame `base`: what the page does.
std::string apply_patch(const std::string& base, const std::string& patch) {
    std::string out = base;
    std::memcpy(out.data(), patch.data(), 28);
    out[0] = 2;
    const auto w = get<std::uint32_t>(base, 4), h = get<std::uint32_t>(base, 8);
    const std::uint32_t stride = std::max(1, static_cast<int>(static_cast<std::uint8_t>(base[1])));
    const std::size_t sw = (w + stride - 1) / stride, n = sw * ((h + stride - 1) / stride);
    const auto x0 = get<std::uint32_t>(patch, 32), y0 = get<std::uint32_t>(patch, 36);
    const auto pw = get<std::uint32_t>(patch, 40), ph = get<std::uint32_t>(patch, 44);
    const std::size_t m = static_cast<std::size_t>(pw) * ph;
    for (std::size_t r = 0; r < ph; ++r) {
        const std::size_t to = (y0 + r) * sw + x0, from = r * pw;
        std::memcpy(out.data() + 28 + 2 * to, patch.data() + 48 + 2 * from, 2 * pw);
        std::memcpy(out.data() + 28 + 2 * n + to, patch.data() + 48 + 2 * m + from, pw);
        std::memcpy(out.data() + 28 + 3 * n + to, patch.data() + 48 + 3 * m + from, pw);
    }
    return out;
}

// After a paint, a frame keeping the group's scale differs from the last one in a small rectangle:
// the patch is small, and applied to the last frame it gives the new frame byte for byte.
TEST_F(DefaultWorld, FieldsPatchAfterAPaintRebuildsTheNewFrame) {
    world.finish_builds();
    const UnitGroupId g = world.largest_group();
    float scale = 0.0f;
    const std::string before = encode_fields(world, g, 1, &scale);
    EXPECT_EQ(get<float>(before, 16), scale) << "the first frame sets the group's scale";
    ASSERT_TRUE(world.apply(Paint{20, 30, 1, 6}).ok());
    world.finish_builds();
    const std::string after = encode_fields(world, g, 2, &scale);
    EXPECT_EQ(get<float>(after, 16), get<float>(before, 16)) << "values that fit keep the scale";
    const std::string patch = encode_fields_patch(before, after);
    ASSERT_FALSE(patch.empty());
    EXPECT_EQ(patch[0], 7);
    EXPECT_EQ(get<std::uint32_t>(patch, 28), 1u) << "the base version";
    EXPECT_EQ(get<std::uint32_t>(patch, 12), 2u);
    const auto pw = get<std::uint32_t>(patch, 40), ph = get<std::uint32_t>(patch, 44);
    EXPECT_GT(pw * ph, 0u);
    EXPECT_LT(patch.size(), after.size() / 2);
    EXPECT_EQ(apply_patch(before, patch), after);
    // Nothing changed: an empty rectangle that only moves the version.
    const std::string again = encode_fields(world, g, 3, &scale);
    const std::string none = encode_fields_patch(after, again);
    ASSERT_EQ(none.size(), 48u);
    EXPECT_EQ(get<std::uint32_t>(none, 40), 0u);
    EXPECT_EQ(apply_patch(after, none), again);
}

// Frames that differ in a header field (another group, another scale) or almost everywhere are
// not patched.
TEST_F(DefaultWorld, FieldsPatchIsRefusedAcrossHeadersAndForLargeChanges) {
    world.finish_builds();
    const UnitGroupId g = world.largest_group();
    const std::string a = encode_fields(world, g, 1);
    std::string other_scale = a;
    other_scale[16] ^= 1;
    EXPECT_TRUE(encode_fields_patch(a, other_scale).empty());
    std::string other_group = a;
    other_group[24] ^= 1;
    EXPECT_TRUE(encode_fields_patch(a, other_group).empty());
    EXPECT_TRUE(encode_fields_patch(a, a.substr(0, a.size() - 1)).empty());
    // A new goal changes most samples: a whole frame.
    ASSERT_TRUE(world.apply(SetGoals{{{3, 3}}, 0, false}).ok());
    world.finish_builds();
    float scale = get<float>(a, 16);
    EXPECT_TRUE(encode_fields_patch(a, encode_fields(world, world.largest_group(), 2, &scale)).empty());
}

}  // namespace
}  // namespace tide::serve
