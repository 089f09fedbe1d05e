// FieldService under concurrent requests, retargets, releases, terrain edits, reads and
// publishes from several threads, with builds on a thread pool. Run it under ThreadSanitizer
// too (make sanitize). Afterwards every live ticket must hold exactly the field a serial build
// of the final terrain gives.

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "support/jobs.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/field_service.hpp"

namespace tide {
namespace {

// A field seen by a reader must be whole: every cell with a move steps to a cheaper neighbour,
// goals cost 0, and codes are in range.
bool looks_whole(const FlowField& f, std::mt19937& rng) {
    for (int k = 0; k < 64; ++k) {
        const int x = static_cast<int>(rng() % static_cast<unsigned>(f.width()));
        const int y = static_cast<int>(rng() % static_cast<unsigned>(f.height()));
        const Direction d = f.direction(x, y);
        if (static_cast<int>(d) > static_cast<int>(Direction::wall)) return false;
        if (d == Direction::goal && f.integration(x, y) != 0.0f) return false;
        if (is_move(d)) {
            const int nx = x + kDirectionDx[static_cast<int>(d)], ny = y + kDirectionDy[static_cast<int>(d)];
            if (!f.contains(nx, ny) || !(f.integration(nx, ny) < f.integration(x, y))) return false;
        }
    }
    return true;
}

TEST(FieldServiceStress, ConcurrentRequestsEditsReadsAndPublishes) {
    const int w = 80, h = 64;
    std::mt19937 map_rng(21);
    CostField cost = std::move(CostField::create(w, h).value());
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int r = test::random_int(map_rng, 0, 99);
            cost.set(x, y,
                     r < 15   ? kCostWall
                     : r < 75 ? kCostPlain
                              : static_cast<Cost>(test::random_int(map_rng, 2, 6)));
        }
    }
    test::ThreadPoolJobSystem pool(3);
    FieldServiceConfig config;
    config.budget_bytes = static_cast<std::size_t>(w) * h * 5 * 6;
    std::atomic<int> callbacks{0};
    config.on_publish = [&](const Publication& p) {
        if (p.field) callbacks.fetch_add(1, std::memory_order_relaxed);
    };
    auto svc = std::move(FieldService::create(cost, pool, config).value());

    std::mutex shared_mutex;
    std::vector<FieldTicket> shared;  // tickets any thread may read
    std::atomic<int> bad_reads{0}, over_budget{0};
    constexpr int kThreads = 4;
    const int iterations = 600;
    auto worker = [&](int id) {
        std::mt19937 rng(100 + id);
        std::vector<FieldTicket> mine;
        auto random_open_cell = [&] {
            const auto map = svc->terrain();
            for (;;) {
                const Cell c{static_cast<int>(rng() % w), static_cast<int>(rng() % h)};
                if (map->passable(c.x, c.y)) return c;
            }
        };
        for (int it = 0; it < iterations; ++it) {
            const int action = static_cast<int>(rng() % 100);
            if (action < 20 || mine.empty()) {
                // A goal may be walled by another thread between the pick and the request: then
                // the request is refused, which is fine.
                auto t = svc->request(std::vector<Cell>{random_open_cell()});
                if (t) {
                    mine.push_back(*t);
                    std::lock_guard lock(shared_mutex);
                    shared.push_back(*t);
                }
            } else if (action < 40) {
                FieldOptions o;
                o.priority = static_cast<int>(rng() % 3);
                (void)svc->retarget(mine[rng() % mine.size()],
                                    std::vector<Cell>{random_open_cell(), random_open_cell()}, o);
            } else if (action < 48 && mine.size() > 2) {
                const std::size_t k = rng() % mine.size();
                EXPECT_TRUE(svc->release(mine[k]).ok());
                mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(k));
            } else if (action < 53) {
                const int x = static_cast<int>(rng() % w), y = static_cast<int>(rng() % h);
                const Cost c = rng() % 3 == 0 ? kCostWall : static_cast<Cost>(1 + rng() % 6);
                EXPECT_TRUE(svc->edit_rect(x - 1, y - 1, x + 1, y + 1, c).ok());
            } else if (action < 70) {
                svc->publish();
            } else {
                FieldTicket t;
                {
                    std::lock_guard lock(shared_mutex);
                    t = shared[rng() % shared.size()];  // maybe released by now: then nullptr
                }
                if (const auto f = svc->current(t); f && !looks_whole(*f, rng)) bad_reads.fetch_add(1);
                (void)svc->status(t);
                if (svc->stats().bytes_cached > config.budget_bytes) over_budget.fetch_add(1);
            }
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
    for (auto& t : threads) t.join();
    svc->wait_idle();
    svc->publish();

    EXPECT_EQ(bad_reads.load(), 0);
    EXPECT_EQ(over_budget.load(), 0);
    const FieldServiceStats s = svc->stats();
    EXPECT_LE(s.peak_bytes_cached, config.budget_bytes);
    EXPECT_GT(s.builds, 50u);
    EXPECT_GT(callbacks.load(), 0);
    EXPECT_EQ(s.queued + s.running, 0u);

    // Every live ticket now holds the field of its goals on the final terrain, bit for bit.
    const auto final_map = svc->terrain();
    FieldBuilder builder;
    std::size_t live = 0;
    for (const FieldTicket t : shared) {
        const TicketStatus st = svc->status(t);
        if (!st.live) continue;
        ++live;
        ASSERT_TRUE(st.up_to_date);
        std::vector<Cell> goals;
        for (const Cell& g : svc->goals(t)) {
            if (final_map->passable(g.x, g.y)) goals.push_back(g);
        }
        FlowField expect;
        if (goals.empty()) {
            builder.build_unreachable(*final_map, expect);
        } else {
            ASSERT_TRUE(builder.build(*final_map, goals, {}, expect).ok());
        }
        const auto f = svc->current(t);
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(std::memcmp(f->integration().data(), expect.integration().data(), f->integration().size_bytes()), 0);
        EXPECT_EQ(std::memcmp(f->directions().data(), expect.directions().data(), f->directions().size_bytes()), 0);
    }
    EXPECT_EQ(live, s.tickets);
    EXPECT_GT(live, 0u);
}

}  // namespace
}  // namespace tide
