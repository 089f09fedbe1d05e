// The C API (include/tide/tide.h): status codes, last-error messages, handles, the host's
// parallel-for, and that bad input is refused instead of crashing.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tide/field_builder.hpp"
#include "tide/flow_field.hpp"
#include "tide/map_io.hpp"
#include "tide/steering.hpp"
#include "tide/tide.h"

namespace {

std::string last_error() {
    return tide_last_error();
}

TEST(CApi, MapsAreMadeParsedAndRefusedWithCodes) {
    tide_map* map = nullptr;
    const std::vector<uint8_t> zero(4, 0);
    EXPECT_EQ(tide_map_create(2, 2, zero.data(), &map), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("cost 0"), std::string::npos) << last_error();
    EXPECT_EQ(tide_map_create(0, 5, nullptr, &map), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_map_create(20000, 5, nullptr, &map), TIDE_ERROR_TOO_LARGE);
    EXPECT_EQ(tide_map_create(3, 3, nullptr, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(map, nullptr);

    const std::string bad = "tide-map 1\nwidth 2\nheight 1\nmap\n..x\n";
    EXPECT_EQ(tide_map_parse(bad.data(), bad.size(), "bad.map", &map), TIDE_ERROR_PARSE);
    EXPECT_NE(last_error().find("bad.map:5"), std::string::npos) << last_error();
    EXPECT_EQ(tide_map_load("/no/such/file.map", &map), TIDE_ERROR_IO);
    EXPECT_STREQ(tide_status_name(TIDE_ERROR_IO), "TIDE_ERROR_IO");

    const std::string good = "tide-map 1\nwidth 3\nheight 2\nmap\n.#.\n...\n";
    ASSERT_EQ(tide_map_parse(good.data(), good.size(), nullptr, &map), TIDE_OK) << last_error();
    EXPECT_EQ(tide_map_width(map), 3);
    EXPECT_EQ(tide_map_height(map), 2);
    EXPECT_EQ(tide_map_costs(map)[1], TIDE_COST_WALL);
    EXPECT_EQ(tide_map_set_cost(map, 3, 0, 1), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_map_set_cost(map, 0, 0, 0), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_map_set_cost(map, 0, 0, 7), TIDE_OK);
    EXPECT_EQ(tide_map_costs(map)[0], 7);
    tide_map_destroy(map);
    tide_map_destroy(nullptr);
}

TEST(CApi, FieldsMatchTheCostsAndRefuseBadGoals) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(4, 3, nullptr, &map), TIDE_OK);
    ASSERT_EQ(tide_map_set_cost(map, 2, 1, TIDE_COST_WALL), TIDE_OK);
    tide_field* field = nullptr;
    const tide_cell wall{2, 1}, off{4, 0}, goal{0, 0};
    EXPECT_EQ(tide_field_build(map, &wall, 1, nullptr, &field), TIDE_ERROR_ON_WALL);
    EXPECT_NE(last_error().find("(2, 1) is on a wall"), std::string::npos) << last_error();
    EXPECT_EQ(tide_field_build(map, &off, 1, nullptr, &field), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_field_build(map, &goal, 0, nullptr, &field), TIDE_ERROR_INVALID_ARGUMENT);
    tide_field_params four = tide_field_params_default();
    four.connectivity = 5;
    EXPECT_EQ(tide_field_build(map, &goal, 1, &four, &field), TIDE_ERROR_INVALID_ARGUMENT);
    four.connectivity = 4;
    ASSERT_EQ(tide_field_build(map, &goal, 1, &four, &field), TIDE_OK) << last_error();
    EXPECT_EQ(tide_field_width(field), 4);
    EXPECT_FLOAT_EQ(tide_field_integration(field)[2 * 4 + 3], 5.0f);  // (3, 2): 3 + 2 moves
    EXPECT_TRUE(std::isinf(tide_field_integration(field)[1 * 4 + 2]));
    EXPECT_EQ(tide_field_directions(field)[0], TIDE_DIRECTION_GOAL);
    EXPECT_EQ(tide_field_directions(field)[1 * 4 + 2], TIDE_DIRECTION_WALL);
    const tide_vec2 v = tide_field_sample(field, {1.5f, 0.5f});
    EXPECT_LT(v.x, -0.9f);
    const tide_vec2 nowhere = tide_field_sample(field, {NAN, 0.5f});
    EXPECT_EQ(nowhere.x, 0.0f);
    tide_field_destroy(field);
    tide_map_destroy(map);
}

TEST(CApi, FleeAndMixedFieldsMatchTheCppBuilds) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(12, 8, nullptr, &map), TIDE_OK);
    ASSERT_EQ(tide_map_set_cost(map, 5, 5, TIDE_COST_WALL), TIDE_OK);
    const tide_cell danger{3, 3}, goal{11, 4}, wall{5, 5};
    tide_field* flee = nullptr;
    ASSERT_EQ(tide_field_build_flee(map, &danger, 1, 1.2, nullptr, &flee), TIDE_OK) << last_error();
    EXPECT_EQ(tide_field_is_flee(flee), 1);
    EXPECT_EQ(tide_field_build_flee(map, &wall, 1, 1.2, nullptr, &flee), TIDE_ERROR_ON_WALL);
    EXPECT_EQ(tide_field_build_flee(map, &danger, 1, 0.0, nullptr, &flee), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("flee factor 0"), std::string::npos) << last_error();
    tide_field* mixed = nullptr;
    ASSERT_EQ(tide_field_build_mixed(map, &goal, 1, &danger, 1, 20, 4.0, nullptr, &mixed), TIDE_OK) << last_error();
    EXPECT_EQ(tide_field_is_flee(mixed), 0);
    EXPECT_EQ(tide_field_build_mixed(map, &goal, 1, &danger, 1, 300, 4.0, nullptr, &mixed),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_field_build_mixed(map, &goal, 1, nullptr, 1, 20, 4.0, nullptr, &mixed), TIDE_ERROR_INVALID_ARGUMENT);

    // Both equal the C++ builds, layer by layer.
    tide::CostField cost = tide::CostField::create(12, 8).value();
    cost.set(5, 5, tide::kCostWall);
    tide::FieldBuilder builder;
    tide::FlowField want_flee, want_mixed;
    const tide::Cell d{3, 3}, g{11, 4};
    ASSERT_TRUE(builder.build_flee(cost, {&d, 1}, tide::FleeParams{1.2}, {}, want_flee).ok());
    ASSERT_TRUE(builder.build_mixed(cost, {&g, 1}, {&d, 1}, tide::DangerCost{20, 4.0}, {}, want_mixed).ok());
    for (std::size_t i = 0; i < 12 * 8; ++i) {
        const float a = tide_field_integration(flee)[i], b = want_flee.integration()[i];
        EXPECT_TRUE(a == b || (std::isinf(a) && std::isinf(b))) << i;
        EXPECT_EQ(tide_field_directions(flee)[i], static_cast<std::uint8_t>(want_flee.directions()[i])) << i;
        const float s = tide_field_to_stop(flee)[i], t = want_flee.to_stop()[i];
        EXPECT_TRUE(s == t || (std::isinf(s) && std::isinf(t))) << i;
        EXPECT_EQ(tide_field_directions(mixed)[i], static_cast<std::uint8_t>(want_mixed.directions()[i])) << i;
        const float m = tide_field_integration(mixed)[i], n = want_mixed.integration()[i];
        EXPECT_TRUE(m == n || (std::isinf(m) && std::isinf(n))) << i;
    }
    tide_field_destroy(flee);
    tide_field_destroy(mixed);
    tide_map_destroy(map);
}

struct Calls {
    int ranges = 0;
};

void counting_parallel_for(void* host, size_t count, size_t grain, tide_range_fn task, void* context) {
    for (size_t b = 0; b < count; b += grain) {
        ++static_cast<Calls*>(host)->ranges;
        task(context, b, b + grain < count ? b + grain : count);
    }
}

TEST(CApi, ACrowdRunsOnTheHostsJobsAndChecksHandles) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(20, 6, nullptr, &map), TIDE_OK);
    tide_field* field = nullptr;
    const tide_cell goal{18, 3};
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &field), TIDE_OK);
    tide_crowd_params bad = tide_crowd_params_default();
    bad.max_substep = 1.0f;
    tide_crowd* crowd = nullptr;
    EXPECT_EQ(tide_crowd_create(map, &bad, &crowd), TIDE_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tide_crowd_create(map, nullptr, &crowd), TIDE_OK);
    tide_group g{};
    ASSERT_EQ(tide_crowd_add_group(crowd, field, 1, &g), TIDE_OK);
    tide_field_destroy(field);  // the group keeps its reference
    tide_agent lost{};
    // A NULL out is refused before anything is added: the agent's handle would be lost.
    EXPECT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, g, nullptr, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tide_last_error()).find("out"), std::string::npos) << tide_last_error();
    EXPECT_EQ(tide_crowd_size(crowd), 0u);
    tide_field* again = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &again), TIDE_OK);
    EXPECT_EQ(tide_crowd_add_group(crowd, again, 1, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_crowd_add_group_of_class(crowd, again, 1, 0, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    tide_field_destroy(again);
    EXPECT_EQ(tide_crowd_add_agent(crowd, {25.0f, 1.0f}, g, nullptr, &lost), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, tide_group{g.index + 7, 0}, nullptr, &lost),
              TIDE_ERROR_NOT_FOUND);
    tide_agent_params p = tide_crowd_default_agent_params(crowd);
    p.radius = 9.0f;
    EXPECT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, g, &p, &lost), TIDE_ERROR_INVALID_ARGUMENT);
    p = tide_crowd_default_agent_params(crowd);
    tide_agent a{}, b{};
    p.user_tag = 41;
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, g, &p, &a), TIDE_OK);
    p.user_tag = 42;
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 4.5f}, g, &p, &b), TIDE_OK);
    ASSERT_EQ(tide_crowd_remove_agent(crowd, a), TIDE_OK);
    EXPECT_EQ(tide_crowd_remove_agent(crowd, a), TIDE_ERROR_NOT_FOUND) << "stale handle";
    tide_agent_params read{};
    EXPECT_EQ(tide_crowd_get_agent_params(crowd, a, &read), TIDE_ERROR_NOT_FOUND);
    ASSERT_EQ(tide_crowd_get_agent_params(crowd, b, &read), TIDE_OK);
    EXPECT_EQ(read.user_tag, 42u);
    EXPECT_EQ(tide_crowd_remove_group(crowd, g), TIDE_ERROR_INVALID_ARGUMENT) << "not empty";

    Calls calls;
    const tide_jobs jobs{counting_parallel_for, 1, &calls};
    EXPECT_EQ(tide_crowd_step(crowd, -1.0f, &jobs), TIDE_ERROR_INVALID_ARGUMENT);
    for (int s = 0; s < 600; ++s) ASSERT_EQ(tide_crowd_step(crowd, 1.0f / 60.0f, &jobs), TIDE_OK);
    EXPECT_GT(calls.ranges, 0);

    tide_vec2 pos[1];
    uint8_t state[1];
    uint64_t tag[1];
    size_t count = 0;
    EXPECT_EQ(tide_crowd_read_agents(crowd, 0, nullptr, pos, nullptr, nullptr, nullptr, &count), TIDE_ERROR_TOO_LARGE);
    ASSERT_EQ(tide_crowd_read_agents(crowd, 1, nullptr, pos, nullptr, state, tag, &count), TIDE_OK);
    ASSERT_EQ(count, 1u);
    EXPECT_EQ(tag[0], 42u);
    EXPECT_EQ(state[0], TIDE_AGENT_ARRIVED);
    // Arrived: within arrival_distance (1 cost unit, read bilinearly from the field) of the goal cell.
    EXPECT_NEAR(pos[0].x, 18.5f, 1.5f);
    tide_crowd_destroy(crowd);
    tide_map_destroy(map);
}

// A crowd on `map` with one group `g` following a field toward `goal`; the field's handle in
// *field (the caller destroys it: the group keeps its own reference).
void crowd_toward(tide_map* map, tide_cell goal, tide_crowd** crowd, tide_group* g, tide_field** field) {
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, field), TIDE_OK);
    ASSERT_EQ(tide_crowd_create(map, nullptr, crowd), TIDE_OK);
    ASSERT_EQ(tide_crowd_add_group(*crowd, *field, 1, g), TIDE_OK);
}

// Units waiting their turn at a one-cell door read as TIDE_AGENT_QUEUED (the C++ AgentState::queued).
TEST(CApi, UnitsWaitingAtADoorReadAsQueued) {
    std::vector<uint8_t> costs(32 * 21, 1);
    for (int y = 0; y < 21; ++y) costs[static_cast<std::size_t>(y) * 32 + 20] = TIDE_COST_WALL;
    costs[10 * 32 + 20] = 1;
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(32, 21, costs.data(), &map), TIDE_OK);
    tide_field* field = nullptr;
    tide_crowd* crowd = nullptr;
    tide_group g{};
    ASSERT_NO_FATAL_FAILURE(crowd_toward(map, {28, 10}, &crowd, &g, &field));
    tide_field_destroy(field);
    for (int i = 0; i < 150; ++i) {
        tide_agent id{};
        ASSERT_EQ(tide_crowd_add_agent(crowd, {12.3f + 0.36f * (i % 20), 7.3f + 0.36f * (i / 20)}, g, nullptr, &id),
                  TIDE_OK);
    }
    std::vector<uint8_t> states(150);
    int queued = 0;
    for (int s = 0; s < 12; ++s) {
        for (int k = 0; k < 15; ++k) ASSERT_EQ(tide_crowd_step(crowd, 1.0f / 60.0f, nullptr), TIDE_OK);
        size_t count = 0;
        ASSERT_EQ(
            tide_crowd_read_agents(crowd, states.size(), nullptr, nullptr, nullptr, states.data(), nullptr, &count),
            TIDE_OK);
        for (size_t k = 0; k < count; ++k) {
            EXPECT_LE(states[k], TIDE_AGENT_QUEUED);
            queued += states[k] == TIDE_AGENT_QUEUED;
        }
    }
    EXPECT_GT(queued, 0) << "units at the door read as queued";
    tide_crowd_destroy(crowd);
    tide_map_destroy(map);
}

TEST(CApi, AnAgentJoinsOnlyAGroupOfItsMovementClass) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(20, 6, nullptr, &map), TIDE_OK);
    const tide_cell goal{18, 3};
    tide_field* field = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &field), TIDE_OK);
    tide_crowd* crowd = nullptr;
    ASSERT_EQ(tide_crowd_create(map, nullptr, &crowd), TIDE_OK);
    tide_group foot{}, boats{};
    ASSERT_EQ(tide_crowd_add_group(crowd, field, 1, &foot), TIDE_OK);
    ASSERT_EQ(tide_crowd_add_group_of_class(crowd, field, 1, 2, &boats), TIDE_OK);
    tide_field_destroy(field);
    uint8_t c = 9;
    ASSERT_EQ(tide_crowd_get_group_movement_class(crowd, boats, &c), TIDE_OK);
    EXPECT_EQ(c, 2);
    ASSERT_EQ(tide_crowd_get_group_movement_class(crowd, foot, &c), TIDE_OK);
    EXPECT_EQ(c, 0);
    EXPECT_EQ(tide_crowd_get_group_movement_class(crowd, tide_group{boats.index + 5, 0}, &c), TIDE_ERROR_NOT_FOUND);

    tide_agent_params boat = tide_crowd_default_agent_params(crowd);
    boat.movement_class = 2;
    tide_agent refused{};
    EXPECT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, foot, &boat, &refused), TIDE_ERROR_INVALID_ARGUMENT);
    const std::string message = tide_last_error();
    EXPECT_NE(message.find("movement class 2"), std::string::npos) << message;
    EXPECT_NE(message.find("movement class 0"), std::string::npos) << message;
    EXPECT_EQ(tide_crowd_size(crowd), 0u);
    tide_agent a{}, w{};
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, boats, &boat, &a), TIDE_OK);
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 4.5f}, foot, nullptr, &w), TIDE_OK);
    EXPECT_EQ(tide_crowd_set_agent_group(crowd, w, boats), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_crowd_set_group_movement_class(crowd, boats, 0), TIDE_ERROR_INVALID_ARGUMENT)
        << "a member is a boat";

    tide_agent_params walker = boat;
    walker.movement_class = 0;
    EXPECT_EQ(tide_crowd_set_agent_params(crowd, a, &walker), TIDE_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tide_crowd_set_agent_group_and_params(crowd, a, foot, &walker), TIDE_OK);
    tide_agent_params read{};
    ASSERT_EQ(tide_crowd_get_agent_params(crowd, a, &read), TIDE_OK);
    EXPECT_EQ(read.movement_class, 0);
    EXPECT_EQ(tide_crowd_set_group_movement_class(crowd, boats, 0), TIDE_OK) << "empty now";
    ASSERT_EQ(tide_crowd_get_group_movement_class(crowd, boats, &c), TIDE_OK);
    EXPECT_EQ(c, 0);
    EXPECT_EQ(tide_crowd_set_agent_group(crowd, w, boats), TIDE_OK);
    tide_crowd_destroy(crowd);
    tide_map_destroy(map);
}

// Group handles carry a generation, as agent handles do: a removed group's handle is refused
// (TIDE_ERROR_NOT_FOUND) once a new group reuses its slot, and never reaches that group.
TEST(CApi, AStaleGroupHandleIsRefusedAfterItsSlotIsReused) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(20, 6, nullptr, &map), TIDE_OK);
    const tide_cell goal{18, 3};
    tide_field* field = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &field), TIDE_OK);
    tide_crowd* crowd = nullptr;
    ASSERT_EQ(tide_crowd_create(map, nullptr, &crowd), TIDE_OK);
    tide_group old{}, fresh{};
    ASSERT_EQ(tide_crowd_add_group_of_class(crowd, field, 1, 2, &old), TIDE_OK);
    ASSERT_EQ(tide_crowd_remove_group(crowd, old), TIDE_OK);
    ASSERT_EQ(tide_crowd_add_group(crowd, field, 1, &fresh), TIDE_OK);
    EXPECT_EQ(fresh.index, old.index) << "the free slot is reused";
    EXPECT_NE(fresh.generation, old.generation);

    uint8_t c = 9;
    EXPECT_EQ(tide_crowd_get_group_movement_class(crowd, old, &c), TIDE_ERROR_NOT_FOUND);
    EXPECT_NE(std::string(tide_last_error()).find("generation"), std::string::npos) << tide_last_error();
    EXPECT_EQ(c, 9) << "nothing written";
    EXPECT_EQ(tide_crowd_set_group_movement_class(crowd, old, 3), TIDE_ERROR_NOT_FOUND);
    EXPECT_EQ(tide_crowd_set_group_field(crowd, old, field), TIDE_ERROR_NOT_FOUND);
    tide_agent a{};
    EXPECT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, old, nullptr, &a), TIDE_ERROR_NOT_FOUND);
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 1.5f}, fresh, nullptr, &a), TIDE_OK);
    EXPECT_EQ(tide_crowd_set_agent_group(crowd, a, old), TIDE_ERROR_NOT_FOUND);
    tide_agent_params p = tide_crowd_default_agent_params(crowd);
    EXPECT_EQ(tide_crowd_set_agent_group_and_params(crowd, a, old, &p), TIDE_ERROR_NOT_FOUND);
    EXPECT_EQ(tide_crowd_remove_group(crowd, old), TIDE_ERROR_NOT_FOUND);
    // The group in the slot is untouched.
    ASSERT_EQ(tide_crowd_get_group_movement_class(crowd, fresh, &c), TIDE_OK);
    EXPECT_EQ(c, 0);
    EXPECT_EQ(tide_crowd_remove_group(crowd, fresh), TIDE_ERROR_INVALID_ARGUMENT) << "it still has its agent";
    tide_field_destroy(field);
    tide_crowd_destroy(crowd);
    tide_map_destroy(map);
}

// Issue 43: destroyed handles are refused, not used after free (SIGSEGV before; ASan reported a
// heap-use-after-free when a crowd outlived its map), and the order of the destroys is free.
TEST(CApi, DestroyedHandlesAreRefusedAndACrowdKeepsItsMapAlive) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(20, 10, nullptr, &map), TIDE_OK);
    const tide_cell goal{18, 5};
    tide_field* field = nullptr;
    tide_crowd* crowd = nullptr;
    tide_group g{};
    ASSERT_NO_FATAL_FAILURE(crowd_toward(map, goal, &crowd, &g, &field));
    tide_agent a{};
    ASSERT_EQ(tide_crowd_add_agent(crowd, {1.5f, 5.5f}, g, nullptr, &a), TIDE_OK);

    tide_field_destroy(field);
    tide_field_destroy(field);  // twice: nothing happens
    EXPECT_EQ(tide_field_width(field), 0);
    EXPECT_EQ(tide_field_integration(field), nullptr);
    tide_group g2{};
    EXPECT_EQ(tide_crowd_add_group(crowd, field, 1, &g2), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tide_last_error()).find("not a live tide_field"), std::string::npos) << tide_last_error();

    tide_map_destroy(map);  // before the crowd: the crowd keeps the terrain
    EXPECT_EQ(tide_map_width(map), 0);
    EXPECT_EQ(tide_map_set_cost(map, 1, 1, 255), TIDE_ERROR_INVALID_ARGUMENT);
    tide_field* again = nullptr;
    EXPECT_EQ(tide_field_build(map, &goal, 1, nullptr, &again), TIDE_ERROR_INVALID_ARGUMENT);
    for (int i = 0; i < 600; ++i) ASSERT_EQ(tide_crowd_step(crowd, 1.0f / 60.0f, nullptr), TIDE_OK);
    uint8_t state = 0;
    size_t count = 0;
    ASSERT_EQ(tide_crowd_read_agents(crowd, 1, nullptr, nullptr, nullptr, &state, nullptr, &count), TIDE_OK);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(state, TIDE_AGENT_ARRIVED) << "the crowd walked on the destroyed map's terrain";
    tide_crowd_destroy(crowd);  // frees the map too
    tide_crowd_destroy(crowd);
    EXPECT_EQ(tide_crowd_size(crowd), 0u);
    EXPECT_EQ(tide_crowd_step(crowd, 1.0f / 60.0f, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    int made_up = 0;
    EXPECT_EQ(tide_crowd_step(reinterpret_cast<tide_crowd*>(&made_up), 0.1f, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
}

}  // namespace

namespace {

// Steering through the C API: the same answers as tide::Steering, in world units, with the map
// kept alive by the steering, and bad input refused.
TEST(CApi, SteeringForHostsMatchesTheCppSteering) {
    const std::string text =
        "tide-map 1\nwidth 10\nheight 6\nmap\n..........\n....#.....\n....#.....\n....#.....\n"
        "..........\n..........\n";
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_parse(text.data(), text.size(), "steer.map", &map), TIDE_OK) << last_error();
    const tide_cell goal{8, 2};
    tide_field* field = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &field), TIDE_OK);
    tide_steering* steering = nullptr;
    tide_steer_params params = tide_steer_params_default();
    EXPECT_EQ(params.size, 1);
    params.radius = -0.5f;
    EXPECT_EQ(tide_steering_create(field, map, &params, nullptr, &steering), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("radius -0.5"), std::string::npos) << last_error();
    params.radius = 0.25f;
    tide_grid_transform bad = tide_grid_transform_identity();
    bad.cell_size = 0.0f;
    EXPECT_EQ(tide_steering_create(field, map, &params, &bad, &steering), TIDE_ERROR_INVALID_ARGUMENT);
    const tide_grid_transform world = tide_grid_transform_y_up(10.0f, 20.0f, 0.5f, 6);
    const tide_cell top_left = tide_grid_cell_of(&world, {10.1f, 22.9f});
    EXPECT_EQ(top_left.x, 0);
    EXPECT_EQ(top_left.y, 0);
    const tide_vec2 centre = tide_grid_to_world(&world, {0.5f, 5.5f});  // the bottom-left cell's centre
    EXPECT_FLOAT_EQ(centre.x, 10.25f);
    EXPECT_FLOAT_EQ(centre.y, 20.25f);
    EXPECT_FLOAT_EQ(tide_grid_to_grid(&world, centre).y, 5.5f);
    EXPECT_EQ(tide_grid_cell_of(nullptr, {NAN, 1.0f}).x, -(1 << 30));
    ASSERT_EQ(tide_steering_create(field, map, &params, &world, &steering), TIDE_OK) << last_error();
    tide_map_destroy(map);  // the steering keeps it alive
    tide_field_destroy(field);

    // The C++ twin.
    const tide::Map cpp_map = tide::parse_map(text, "steer.map").value();
    auto cpp_field = std::make_shared<tide::FlowField>();
    tide::FieldBuilder builder;
    const tide::Cell g{8, 2};
    ASSERT_TRUE(builder.build(cpp_map.cost, {&g, 1}, {}, *cpp_field).ok());
    tide::SteerParams p;
    p.radius = 0.25f;
    const auto cpp = tide::Steering::create(tide::FieldView(cpp_field), cpp_map.cost, p,
                                            tide::GridTransform::y_up({10.0f, 20.0f}, 0.5f, 6));
    ASSERT_TRUE(cpp.ok());
    std::vector<float> xs, ys;
    for (float y = 20.1f; y < 23.0f; y += 0.37f)
        for (float x = 10.1f; x < 15.0f; x += 0.41f) {
            xs.push_back(x);
            ys.push_back(y);
        }
    std::vector<float> ox(xs.size()), oy(xs.size());
    ASSERT_EQ(tide_steering_sample_batch(steering, xs.data(), ys.data(), xs.size(), ox.data(), oy.data()), TIDE_OK);
    std::vector<tide_steer_memory> memory(xs.size(), tide_steer_memory_empty());
    std::vector<float> sx(xs.size()), sy(xs.size());
    ASSERT_EQ(tide_steering_steer_batch(steering, xs.data(), ys.data(), xs.size(), memory.data(), sx.data(), sy.data()),
              TIDE_OK);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const tide::Vec2 want = cpp->sample({xs[i], ys[i]});
        EXPECT_EQ(ox[i], want.x);
        EXPECT_EQ(oy[i], want.y);
        const tide_vec2 one = tide_steering_sample(steering, {xs[i], ys[i]});
        EXPECT_EQ(one.x, want.x);
        tide::SteerMemory m;
        const tide::Vec2 steer = cpp->steer({xs[i], ys[i]}, m);
        EXPECT_EQ(sx[i], steer.x);
        EXPECT_EQ(sy[i], steer.y);
        EXPECT_EQ(tide_steering_steer(steering, {xs[i], ys[i]}).x, cpp->steer({xs[i], ys[i]}).x);
        EXPECT_EQ(tide_steering_move(steering, {xs[i], ys[i]}).y, cpp->move({xs[i], ys[i]}).y);
    }
    EXPECT_EQ(tide_steering_sample_batch(steering, nullptr, ys.data(), 3, ox.data(), oy.data()),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_steering_steer_batch(steering, xs.data(), ys.data(), 3, nullptr, ox.data(), oy.data()),
              TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_steering_sample(steering, {NAN, 21.0f}).x, 0.0f);
    tide_steering_destroy(steering);
    tide_steering_destroy(steering);  // a second destroy does nothing
    EXPECT_EQ(tide_steering_sample(steering, {11.0f, 21.0f}).x, 0.0f);
}

TEST(CApi, FieldSampleBatchAndBlend) {
    tide_map* map = nullptr;
    ASSERT_EQ(tide_map_create(5, 5, nullptr, &map), TIDE_OK);
    ASSERT_EQ(tide_map_set_cost(map, 2, 2, TIDE_COST_WALL), TIDE_OK);
    const tide_cell goal{4, 4};
    tide_field* field = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &field), TIDE_OK);
    const float xs[3] = {1.8f, 0.5f, -1.0f}, ys[3] = {1.8f, 3.5f, 0.0f};
    float ox[3], oy[3];
    ASSERT_EQ(tide_field_sample_batch(field, xs, ys, 3, ox, oy), TIDE_OK);
    for (int i = 0; i < 3; ++i) {
        const tide_vec2 v = tide_field_sample(field, {xs[i], ys[i]});
        EXPECT_EQ(ox[i], v.x);
        EXPECT_EQ(oy[i], v.y);
    }
    const tide_vec2 b = tide_field_blend(field, {1.8f, 1.8f});
    EXPECT_NEAR(std::hypot(b.x, b.y), 1.0f, 1e-5f);
    EXPECT_EQ(tide_field_sample_batch(field, xs, nullptr, 3, ox, oy), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_field_sample_batch(field, nullptr, nullptr, 0, nullptr, nullptr), TIDE_OK);
    tide_field_destroy(field);
    tide_map_destroy(map);
}

}  // namespace
