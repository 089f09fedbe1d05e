// The field service's C API (include/tide/tide.h, "The field service"): tickets, the cache,
// publication, repair after edits, the host's background queue, and refusals with messages.
#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tide/tide.h"

namespace {

std::string last_error() {
    return tide_last_error();
}

// A 16 x 8 map: a wall down column 8 with a gap in rows 3..4.
tide_map* walled_map() {
    tide_map* map = nullptr;
    EXPECT_EQ(tide_map_create(16, 8, nullptr, &map), TIDE_OK);
    for (int y = 0; y < 8; ++y) {
        if (y != 3 && y != 4) EXPECT_EQ(tide_map_set_cost(map, 8, y, TIDE_COST_WALL), TIDE_OK);
    }
    return map;
}

std::vector<float> integration(const tide_field* f) {
    const float* v = tide_field_integration(f);
    return std::vector<float>(v, v + tide_field_width(f) * tide_field_height(f));
}

TEST(CService, TicketsPublishCacheAndRepair) {
    tide_map* map = walled_map();
    tide_service* service = nullptr;
    ASSERT_EQ(tide_service_create(map, nullptr, nullptr, &service), TIDE_OK) << last_error();
    const tide_cell goal{14, 1};
    tide_ticket a{}, b{};
    ASSERT_EQ(tide_service_request(service, &goal, 1, nullptr, &a), TIDE_OK) << last_error();
    tide_field* none = nullptr;
    EXPECT_EQ(tide_service_current(service, a, &none), TIDE_ERROR_NOT_FOUND);  // not published yet
    tide_ticket_status st{};
    ASSERT_EQ(tide_service_status(service, a, &st), TIDE_OK);
    EXPECT_EQ(st.live, 1);
    EXPECT_EQ(st.ready, 1);  // built inside request (no background queue), waiting for publish
    EXPECT_EQ(tide_service_publish(service), 1u);
    tide_field* fa = nullptr;
    ASSERT_EQ(tide_service_current(service, a, &fa), TIDE_OK) << last_error();
    tide_field* direct = nullptr;
    ASSERT_EQ(tide_field_build(map, &goal, 1, nullptr, &direct), TIDE_OK);
    EXPECT_EQ(integration(fa), integration(direct));

    // The same goal again: answered from the cache.
    ASSERT_EQ(tide_service_request(service, &goal, 1, nullptr, &b), TIDE_OK);
    tide_service_stats stats{};
    ASSERT_EQ(tide_service_get_stats(service, &stats), TIDE_OK);
    EXPECT_EQ(stats.requests, 2u);
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.builds, 1u);
    EXPECT_EQ(stats.tickets, 2u);

    // Would walling the gap cut cells off? Yes: the whole left side.
    const tide_cell gap[2] = {{8, 3}, {8, 4}};
    int32_t blocks = 0;
    uint64_t cut = 0;
    ASSERT_EQ(tide_service_would_block(service, a, gap, 2, &blocks, &cut), TIDE_OK) << last_error();
    EXPECT_EQ(blocks, 1);
    EXPECT_EQ(cut, 8u * 8u);
    // Half the gap walled: the field is repaired, the cost from the left side grows or stays.
    ASSERT_EQ(tide_service_edit_cells(service, gap, 1, TIDE_COST_WALL), TIDE_OK);
    ASSERT_EQ(tide_service_wait_idle(service), TIDE_OK);
    EXPECT_GE(tide_service_publish(service), 1u);
    tide_field* repaired = nullptr;
    ASSERT_EQ(tide_service_current(service, a, &repaired), TIDE_OK);
    EXPECT_EQ(tide_field_directions(repaired)[3 * 16 + 8], TIDE_DIRECTION_WALL);
    EXPECT_GE(tide_field_integration(repaired)[4 * 16 + 0], tide_field_integration(fa)[4 * 16 + 0]);
    ASSERT_EQ(tide_service_get_stats(service, &stats), TIDE_OK);
    EXPECT_EQ(stats.terrain_version, 1u);
    EXPECT_GE(stats.repairs + stats.repair_rebuilds, 1u);
    tide_map* terrain = nullptr;
    ASSERT_EQ(tide_service_terrain(service, &terrain), TIDE_OK);
    EXPECT_EQ(tide_map_costs(terrain)[3 * 16 + 8], TIDE_COST_WALL);
    EXPECT_EQ(tide_map_costs(map)[3 * 16 + 8], 1);  // the caller's map is not the service's

    // Retarget and release; a released ticket is dead.
    const tide_cell other{1, 6};
    ASSERT_EQ(tide_service_retarget(service, b, &other, 1, nullptr), TIDE_OK);
    ASSERT_EQ(tide_service_release(service, a), TIDE_OK);
    EXPECT_EQ(tide_service_release(service, a), TIDE_ERROR_NOT_FOUND) << last_error();
    ASSERT_EQ(tide_service_status(service, a, &st), TIDE_OK);
    EXPECT_EQ(st.live, 0);

    tide_service_destroy(service);
    EXPECT_EQ(tide_field_width(repaired), 16);  // fields outlive the service
    for (tide_field* f : {fa, direct, repaired}) tide_field_destroy(f);
    tide_map_destroy(terrain);
    tide_map_destroy(map);
}

// The host's worker queue: enqueue only stores the task; the test decides when a thread of its own
// runs them, so it can see that request() returned without building.
struct Queue {
    std::mutex m;
    std::deque<std::pair<tide_task_fn, void*>> q;
    static void enqueue(void* host, tide_task_fn task, void* context) {
        auto* self = static_cast<Queue*>(host);
        std::lock_guard l(self->m);
        self->q.emplace_back(task, context);
    }
    std::size_t size() {
        std::lock_guard l(m);
        return q.size();
    }
    // Runs every queued task on a new thread (tasks may queue more) and joins it; how many ran.
    std::size_t drain_on_a_thread() {
        std::size_t ran = 0;
        std::thread worker([&] {
            while (true) {
                std::pair<tide_task_fn, void*> t;
                {
                    std::lock_guard l(m);
                    if (q.empty()) return;
                    t = q.front();
                    q.pop_front();
                }
                t.first(t.second);
                ++ran;
            }
        });
        worker.join();
        return ran;
    }
};

TEST(CService, BuildsRunOnTheHostsQueue) {
    Queue queue;
    const tide_background background{&Queue::enqueue, 2, &queue};
    tide_map* map = walled_map();
    tide_service* service = nullptr;
    ASSERT_EQ(tide_service_create(map, nullptr, &background, &service), TIDE_OK) << last_error();
    std::vector<tide_ticket> tickets(6);
    for (int i = 0; i < 6; ++i) {
        const tide_cell goal{i + 1, 1};
        ASSERT_EQ(tide_service_request(service, &goal, 1, nullptr, &tickets[i]), TIDE_OK);
    }
    tide_ticket_status st{};
    ASSERT_EQ(tide_service_status(service, tickets[0], &st), TIDE_OK);
    EXPECT_EQ(st.queued, 1);  // request() returned at once: nothing built yet
    EXPECT_EQ(st.ready, 0);
    EXPECT_GT(queue.size(), 0u);
    EXPECT_EQ(tide_service_publish(service), 0u);
    EXPECT_GT(queue.drain_on_a_thread(), 0u);  // the host's thread builds them
    EXPECT_EQ(tide_service_publish(service), 6u);
    for (const tide_ticket t : tickets) {
        tide_field* f = nullptr;
        ASSERT_EQ(tide_service_current(service, t, &f), TIDE_OK);
        tide_field_destroy(f);
    }
    tide_service_destroy(service);
    tide_map_destroy(map);
}

TEST(CService, BadInputGetsAStatusAndAMessage) {
    tide_map* map = walled_map();
    tide_service* service = nullptr;
    const tide_background no_fn{nullptr, 1, nullptr};
    EXPECT_EQ(tide_service_create(map, nullptr, &no_fn, &service), TIDE_ERROR_INVALID_ARGUMENT);
    tide_service_config zero = tide_service_config_default();
    zero.budget_bytes = 0;
    EXPECT_EQ(tide_service_create(map, &zero, nullptr, &service), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_service_create(nullptr, nullptr, nullptr, &service), TIDE_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tide_service_create(map, nullptr, nullptr, &service), TIDE_OK);
    tide_ticket t{};
    const tide_cell wall{8, 0}, off{20, 1}, ok{1, 1};
    EXPECT_EQ(tide_service_request(service, &wall, 1, nullptr, &t), TIDE_ERROR_ON_WALL);
    EXPECT_EQ(tide_service_request(service, &off, 1, nullptr, &t), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_service_request(service, nullptr, 0, nullptr, &t), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_service_request(service, &ok, 1, nullptr, nullptr), TIDE_ERROR_INVALID_ARGUMENT);
    tide_field_options o = tide_field_options_default();
    o.movement_class = 3;
    EXPECT_EQ(tide_service_request(service, &ok, 1, &o, &t), TIDE_ERROR_NOT_FOUND) << last_error();
    o = tide_field_options_default();
    o.params.connectivity = 5;
    EXPECT_EQ(tide_service_request(service, &ok, 1, &o, &t), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("connectivity 5"), std::string::npos) << last_error();
    EXPECT_EQ(tide_service_edit_rect(service, 0, 0, 1, 1, 0), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_service_edit_rect(service, 30, 30, 31, 31, 5), TIDE_ERROR_OFF_MAP);
    EXPECT_EQ(tide_service_retarget(service, tide_ticket{77, 0}, &ok, 1, nullptr), TIDE_ERROR_NOT_FOUND);
    // A flee field from a danger: values below zero away from it.
    o = tide_field_options_default();
    o.flee = 1;
    ASSERT_EQ(tide_service_request(service, &ok, 1, &o, &t), TIDE_OK) << last_error();
    tide_service_publish(service);
    tide_field* f = nullptr;
    ASSERT_EQ(tide_service_current(service, t, &f), TIDE_OK);
    EXPECT_EQ(tide_field_is_flee(f), 1);
    tide_field_destroy(f);

    EXPECT_EQ(tide_service_set_budget(service, 0), TIDE_ERROR_INVALID_ARGUMENT);
    ASSERT_EQ(tide_service_set_budget(service, 1u << 20), TIDE_OK);
    ASSERT_EQ(tide_service_clear_cache(service), TIDE_OK);
    tide_service_stats stats{};
    ASSERT_EQ(tide_service_get_stats(service, &stats), TIDE_OK);
    EXPECT_EQ(stats.budget_bytes, 1u << 20);
    EXPECT_EQ(stats.fields_cached, 0u);
    EXPECT_STREQ(tide_version(), "0.1.0");

    tide_service_destroy(service);
    tide_service_destroy(service);  // a second destroy does nothing
    EXPECT_EQ(tide_service_request(service, &ok, 1, nullptr, &t), TIDE_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(tide_service_publish(service), 0u);
    tide_map_destroy(map);
}

}  // namespace
