// The World's C API (include/tide/tide_world.h): the order loop gives the C++ World's state hash,
// recordings replay, reads fill caller buffers, and bad input gets a status and a message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tide/default_map.hpp"
#include "tide/tide_world.h"
#include "tide/world.hpp"

namespace {

std::string last_error() {
    return tide_last_error();
}

// The loop on the default map: 1,000 units to the map's goal, the half right of x = 32
// ordered to (8, 30) across the wall's gap, a wall painted across their way (a disc of radius 3 in
// front of the gap), ticks of 1/60 s until every unit has arrived or 90 s have passed.
constexpr tide_cell kOrderGoal{8, 30};
constexpr int kMaxTicks = 90 * 60;

struct Outcome {
    std::uint64_t hash = 0;
    int ticks = 0;
    std::size_t arrived = 0, units = 0;
};

Outcome run_cpp() {
    tide::SerialJobSystem jobs;
    tide::WorldConfig config;
    config.lockstep = true;
    tide::World world(jobs, config);
    auto m = tide::make_builtin_map("default");
    EXPECT_TRUE(world.load("default", m->cost, m->goals, 1000).ok());
    EXPECT_TRUE(world.apply(tide::Order{.select = tide::SelectBox{32, 0, 64, 40}, .goals = {{8, 30}}}).ok());
    EXPECT_TRUE(world.apply(tide::Paint{.x = 22, .y = 20, .radius = 3, .cost = tide::kCostWall}).ok());
    Outcome o;
    for (; o.ticks < kMaxTicks && world.crowd().stats().arrived < world.agents().size(); ++o.ticks) {
        EXPECT_TRUE(world.tick(1.0f / 60.0f).ok());
    }
    o.hash = world.state_hash();
    o.arrived = world.crowd().stats().arrived;
    o.units = world.agents().size();
    return o;
}

Outcome run_c(tide_world* world) {
    auto m = tide::make_builtin_map("default");
    tide_map* map = nullptr;
    EXPECT_EQ(tide_map_create(m->cost.width(), m->cost.height(), m->cost.cells().data(), &map), TIDE_OK);
    const tide_cell goal{m->goals[0].x, m->goals[0].y};
    EXPECT_EQ(tide_world_load(world, map, "default", &goal, 1, 1000, nullptr), TIDE_OK) << last_error();
    tide_map_destroy(map);  // the world keeps its own copy
    tide_group_id group = 0;
    size_t ordered = 0;
    EXPECT_EQ(tide_world_order_box(world, 32, 0, 64, 40, &kOrderGoal, 1, 0, &group, &ordered), TIDE_OK);
    EXPECT_EQ(group, 2u);
    EXPECT_GT(ordered, 300u);
    EXPECT_EQ(tide_world_paint(world, 22, 20, 3, TIDE_COST_WALL), TIDE_OK);
    Outcome o;
    tide_world_stats s{};
    for (; o.ticks < kMaxTicks; ++o.ticks) {
        EXPECT_EQ(tide_world_get_stats(world, &s), TIDE_OK);
        if (s.arrived == s.units) break;
        EXPECT_EQ(tide_world_tick(world, 1.0f / 60.0f), TIDE_OK);
    }
    EXPECT_EQ(tide_world_get_stats(world, &s), TIDE_OK);
    o.hash = tide_world_state_hash(world);
    o.arrived = s.arrived;
    o.units = s.units;
    return o;
}

tide_world* make_world(int lockstep = 1) {
    tide_world_config c = tide_world_config_default();
    c.lockstep = lockstep;
    tide_world* w = nullptr;
    EXPECT_EQ(tide_world_create(&c, nullptr, nullptr, &w), TIDE_OK) << last_error();
    return w;
}

TEST(CWorld, TheOrderLoopEndsWithTheCppWorldsStateHash) {
    const Outcome cpp = run_cpp();
    EXPECT_EQ(cpp.arrived, cpp.units) << "not every unit arrived in 90 s";
    tide_world* world = make_world();
    const Outcome c = run_c(world);
    EXPECT_EQ(c.hash, cpp.hash);
    EXPECT_EQ(c.ticks, cpp.ticks);
    EXPECT_EQ(c.arrived, c.units);

    // Bulk reads into caller buffers, in roster order.
    const size_t n = tide_world_unit_count(world);
    ASSERT_EQ(n, 1000u);
    std::vector<tide_agent> ids(n);
    std::vector<tide_vec2> pos(n);
    std::vector<uint8_t> states(n), sizes(n);
    std::vector<tide_group_id> groups(n);
    size_t count = 0;
    EXPECT_EQ(tide_world_read_units(world, ids.data(), pos.data(), nullptr, states.data(), groups.data(), sizes.data(),
                                    n - 1, &count),
              TIDE_ERROR_TOO_LARGE);
    EXPECT_EQ(count, n);
    ASSERT_EQ(tide_world_read_units(world, ids.data(), pos.data(), nullptr, states.data(), groups.data(), sizes.data(),
                                    n, &count),
              TIDE_OK);
    const uint8_t* costs = tide_world_costs(world);
    const int32_t w = tide_world_width(world);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(states[i], TIDE_AGENT_ARRIVED);
        EXPECT_EQ(sizes[i], 1);
        EXPECT_NE(costs[static_cast<int>(pos[i].y) * w + static_cast<int>(pos[i].x)], TIDE_COST_WALL);
    }
    tide_world_group gs[4];
    ASSERT_EQ(tide_world_read_groups(world, gs, 4, &count), TIDE_OK);
    ASSERT_EQ(count, 2u);
    EXPECT_EQ(gs[0].members + gs[1].members, 1000u);
    EXPECT_EQ(gs[1].arrived, gs[1].members);
    tide_cell goal{};
    ASSERT_EQ(tide_world_group_goals(world, 2, &goal, 1, &count), TIDE_OK);
    EXPECT_EQ(goal.x, 8);
    EXPECT_EQ(goal.y, 30);
    tide_field* field = nullptr;
    ASSERT_EQ(tide_world_group_field(world, 2, &field), TIDE_OK) << last_error();
    EXPECT_EQ(tide_field_directions(field)[30 * w + 8], TIDE_DIRECTION_GOAL);
    tide_world_destroy(world);
    EXPECT_EQ(tide_field_width(field), 64);  // the field outlives the world
    tide_field_destroy(field);
}

TEST(CWorld, ARecordingReplaysFromItsFile) {
    tide_world* world = make_world();
    ASSERT_EQ(tide_world_record_start(world), TIDE_OK) << last_error();
    auto m = tide::make_builtin_map("default");
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(m->cost.width(), m->cost.height(), m->cost.cells().data(), &map), TIDE_OK);
    const tide_cell goal{m->goals[0].x, m->goals[0].y};
    ASSERT_EQ(tide_world_load(world, map, "default", &goal, 1, 400, nullptr), TIDE_OK);
    tide_map_destroy(map);
    ASSERT_EQ(tide_world_order_box(world, 32, 0, 64, 40, &kOrderGoal, 1, 0, nullptr, nullptr), TIDE_OK);
    tide_tower_check check{};
    ASSERT_EQ(tide_world_check_tower(world, tide_rect{7, 29, 9, 31}, &check), TIDE_OK);
    EXPECT_EQ(check.covers_goal, 1);
    EXPECT_EQ(tide_world_place_tower(world, tide_rect{7, 29, 9, 31}), TIDE_ERROR_ON_WALL);
    EXPECT_NE(last_error().find("goal"), std::string::npos) << last_error();
    for (int t = 0; t < 120; ++t) ASSERT_EQ(tide_world_tick(world, 1.0f / 60.0f), TIDE_OK);
    const std::string path = testing::TempDir() + "tide_capi_world.rec";
    ASSERT_EQ(tide_world_record_save(world, path.c_str()), TIDE_OK) << last_error();
    tide_replay_result r{};
    ASSERT_EQ(tide_replay_file(path.c_str(), nullptr, nullptr, &r), TIDE_OK) << last_error();
    EXPECT_EQ(r.ticks, 120u);
    EXPECT_EQ(r.first_mismatch, -1);
    EXPECT_EQ(r.final_hash, tide_world_state_hash(world));
    std::remove(path.c_str());
    tide_world_destroy(world);
}

// Hierarchical maps take the same calls (every map plans hierarchically with hierarchy_cells 0):
// an order's units arrive; a group's whole-map field is what they do not have.
TEST(CWorld, HierarchicalMapsTakeTheSameCalls) {
    tide_world_config c = tide_world_config_default();
    c.hierarchy_cells = 0;
    tide_world* world = nullptr;
    ASSERT_EQ(tide_world_create(&c, nullptr, nullptr, &world), TIDE_OK);
    tide_map* map = nullptr;
    tide_cell goal{};
    ASSERT_EQ(tide_map_builtin("default", &map, &goal), TIDE_OK);
    ASSERT_EQ(tide_world_load(world, map, "default", &goal, 1, 300, nullptr), TIDE_OK) << last_error();
    tide_map_destroy(map);
    ASSERT_EQ(tide_world_order_box(world, 32, 0, 64, 40, &kOrderGoal, 1, 0, nullptr, nullptr), TIDE_OK);
    ASSERT_EQ(tide_world_paint(world, 22, 20, 3, TIDE_COST_WALL), TIDE_OK);
    tide_world_stats s{};
    for (int t = 0; t < kMaxTicks; ++t) {
        ASSERT_EQ(tide_world_get_stats(world, &s), TIDE_OK);
        if (s.arrived == s.units) break;
        ASSERT_EQ(tide_world_tick(world, 1.0f / 60.0f), TIDE_OK);
    }
    EXPECT_EQ(s.hierarchical, 1);
    EXPECT_EQ(s.arrived, s.units);
    tide_field* field = nullptr;
    EXPECT_EQ(tide_world_group_field(world, 2, &field), TIDE_ERROR_UNSUPPORTED);
    tide_tower_check check{};
    EXPECT_EQ(tide_world_check_tower(world, tide_rect{7, 29, 9, 31}, &check), TIDE_OK);
    EXPECT_EQ(check.covers_goal, 1);
    tide_world_destroy(world);
}

// Waves from the C API: two waves of two emissions of five units, then done; refusals named.
TEST(CWorld, SpawnersEmitWavesAndCountTheSunk) {
    tide_world* world = make_world();
    tide_map* map = nullptr;
    tide_cell goal{};
    ASSERT_EQ(tide_map_builtin("default", &map, &goal), TIDE_OK);
    ASSERT_EQ(tide_world_load(world, map, "default", &goal, 1, 10, nullptr), TIDE_OK);
    tide_map_destroy(map);
    const tide_cell exit{20, 20};
    tide_spawner_spec spec{};
    spec.area = tide_rect{0, 0, 5, 5};
    spec.goals = &exit;
    spec.goal_count = 1;
    spec.exit = 1;
    spec.size = 1;
    spec.every_s = 0.5;
    spec.per_emission = 5;
    spec.wave_emissions = 2;
    spec.wave_pause_s = 1.0;
    spec.waves = 2;
    uint32_t id = 0;
    ASSERT_EQ(tide_world_add_spawner(world, &spec, &id), TIDE_OK) << last_error();
    EXPECT_EQ(id, 1u);
    tide_spawner_info info{};
    size_t n = 0;
    for (int t = 0; t < 60 * 40; ++t) {
        ASSERT_EQ(tide_world_tick(world, 1.0f / 60.0f), TIDE_OK);
        ASSERT_EQ(tide_world_read_spawners(world, &info, 1, &n), TIDE_OK);
        if (info.sunk == 20) break;
    }
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(tide_world_spawner_count(world), 1u);
    EXPECT_EQ(info.spawned, 20u);
    EXPECT_EQ(info.sunk, 20u);
    EXPECT_EQ(info.done, 1);
    EXPECT_EQ(info.waves_done, 2);
    EXPECT_EQ(tide_world_unit_count(world), 10u);
    spec.every_s = 0;
    EXPECT_EQ(tide_world_add_spawner(world, &spec, &id), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("every_s"), std::string::npos) << last_error();
    EXPECT_EQ(tide_world_remove_spawner(world, 42), TIDE_ERROR_NOT_FOUND);
    EXPECT_EQ(tide_world_add_spawner(world, nullptr, &id), TIDE_ERROR_INVALID_ARGUMENT);
    tide_world_destroy(world);
}

// A box order through the C API: the group marches in formation and stands in it at the goal; its
// slots come back through tide_world_formation; bad shapes and spacings are refused by name.
TEST(CWorld, AFormationOrderMarchesAndStandsInShape) {
    tide_world* world = make_world();
    tide_map* map = nullptr;
    tide_cell goal{};
    ASSERT_EQ(tide_map_builtin("default", &map, &goal), TIDE_OK);
    const tide_rect area{2, 2, 10, 10};
    ASSERT_EQ(tide_world_load(world, map, "default", &goal, 1, 25, &area), TIDE_OK);
    tide_map_destroy(map);
    tide_formation f = tide_formation_default();
    EXPECT_EQ(f.shape, TIDE_FORMATION_BOX);
    const tide_cell to{8, 30};
    tide_group_id group = 0;
    size_t units = 0;
    ASSERT_EQ(tide_world_order_box_formation(world, 0, 0, 64, 40, &to, 1, &f, &group, &units), TIDE_OK) << last_error();
    EXPECT_EQ(units, 25u);
    tide_formation_state st{};
    std::vector<tide_vec2> slots(25);
    for (int t = 0; t < 60 * 60; ++t) {
        ASSERT_EQ(tide_world_tick(world, 1.0f / 60.0f), TIDE_OK);
        ASSERT_EQ(tide_world_formation(world, group, &st, slots.data(), slots.size()), TIDE_OK) << last_error();
        tide_world_stats s{};
        ASSERT_EQ(tide_world_get_stats(world, &s), TIDE_OK);
        if (st.arrived && s.arrived == s.units) break;
    }
    EXPECT_EQ(st.active, 1);
    EXPECT_EQ(st.arrived, 1);
    EXPECT_EQ(st.slot_count, 25u);
    EXPECT_EQ(st.reassignments, 1u);
    EXPECT_LT(std::hypot(st.anchor.x - 8.5f, st.anchor.y - 30.5f), 1.0f);
    EXPECT_EQ(tide_world_formation(world, group, &st, slots.data(), 3), TIDE_ERROR_TOO_LARGE);
    EXPECT_EQ(tide_world_formation(world, 999, &st, nullptr, 0), TIDE_ERROR_NOT_FOUND);
    f.spacing = 0.0f;
    EXPECT_EQ(tide_world_order_box_formation(world, 0, 0, 64, 40, &to, 1, &f, nullptr, nullptr),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("spacing"), std::string::npos) << last_error();
    f = tide_formation_default();
    f.shape = 9;
    EXPECT_EQ(tide_world_order_box_formation(world, 0, 0, 64, 40, &to, 1, &f, nullptr, nullptr),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_order_box_formation(world, 0, 0, 64, 40, &to, 1, nullptr, nullptr, nullptr),
              TIDE_ERROR_INVALID_ARGUMENT);
    tide_world_destroy(world);
}

TEST(CWorld, BadInputGetsAStatusAndAMessage) {
    tide_world* world = nullptr;
    tide_world_config c = tide_world_config_default();
    c.unit_speed = 0;
    EXPECT_EQ(tide_world_create(&c, nullptr, nullptr, &world), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(world, nullptr);
    EXPECT_EQ(tide_world_create(nullptr, nullptr, nullptr, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    const tide_jobs no_fn{nullptr, 1, nullptr};
    EXPECT_EQ(tide_world_create(nullptr, &no_fn, nullptr, &world), TIDE_ERROR_INVALID_ARGUMENT);

    world = make_world(0);
    EXPECT_EQ(tide_world_tick(world, 0.1f), TIDE_OK);  // an empty world ticks
    EXPECT_EQ(tide_world_order_box(world, 0, 0, 1, 1, &kOrderGoal, 1, 0, nullptr, nullptr),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("no map loaded"), std::string::npos) << last_error();
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(10, 10, nullptr, &map), TIDE_OK);
    ASSERT_EQ(tide_map_set_cost(map, 5, 5, TIDE_COST_WALL), TIDE_OK);
    const tide_cell wall{5, 5}, off{12, 3}, ok{1, 1};
    EXPECT_EQ(tide_world_load(world, map, "m", &wall, 1, 10, nullptr), TIDE_ERROR_ON_WALL);
    EXPECT_EQ(tide_world_load(world, map, "m", &off, 1, 10, nullptr), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_world_load(world, map, "m", nullptr, 1, 10, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_load(world, map, "m", &ok, 1, 100000, nullptr), TIDE_ERROR_TOO_LARGE);
    ASSERT_EQ(tide_world_load(world, map, "m", &ok, 1, 10, nullptr), TIDE_OK) << last_error();
    EXPECT_EQ(tide_world_record_start(world), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("lockstep"), std::string::npos) << last_error();
    EXPECT_EQ(tide_world_record_save(world, "/tmp/x.rec"), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_tick(world, -1.0f), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_tick(world, NAN), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_paint(world, 50, 50, 1, TIDE_COST_WALL), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_world_order_box(world, 0, 0, 0.5f, 0.5f, &ok, 1, 0, nullptr, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_set_goals(world, 99, &ok, 1, 0), TIDE_ERROR_NOT_FOUND);
    EXPECT_EQ(tide_world_set_unit_params(world, 100.0f, 1.0f, 0.2f), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_spawn(world, 5, 9, nullptr, 0, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    tide_tower_check check{};
    EXPECT_EQ(tide_world_check_tower(world, tide_rect{0, 0, 9, 0}, &check), TIDE_ERROR_TOO_LARGE);
    EXPECT_EQ(tide_world_check_tower(world, tide_rect{8, 8, 12, 9}, &check), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_world_check_tower(world, tide_rect{3, 3, 3, 3}, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    tide_field* field = nullptr;
    EXPECT_EQ(tide_world_group_field(world, 7, &field), TIDE_ERROR_NOT_FOUND);
    tide_world_group g{};
    size_t count = 0;
    EXPECT_EQ(tide_world_read_groups(world, &g, 0, &count), TIDE_ERROR_TOO_LARGE);
    EXPECT_EQ(count, 1u);
    tide_replay_result r{};
    EXPECT_EQ(tide_replay_file("/no/such.rec", nullptr, nullptr, &r), TIDE_ERROR_IO);
    EXPECT_NE(last_error().find("/no/such.rec"), std::string::npos);
    tide_map_destroy(map);

    tide_world_destroy(world);
    tide_world_destroy(world);  // a second destroy does nothing
    EXPECT_EQ(tide_world_tick(world, 0.1f), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_world_state_hash(world), 0u);
    EXPECT_EQ(tide_world_unit_count(world), 0u);
    EXPECT_EQ(tide_world_costs(world), nullptr);
}

}  // namespace
