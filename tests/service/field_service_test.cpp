// FieldService: cache, coalescing, cancellation, priorities, publication, terrain versions,
// errors, allocation once warm, parallel builds equal serial builds.

#include "tide/field_service.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory_resource>
#include <random>
#include <thread>
#include <vector>

#include "support/jobs.hpp"
#include "support/test_maps.hpp"
#include "tide/field_builder.hpp"
#include "tide/generate.hpp"

namespace tide {
namespace {

using test::ManualJobSystem;

// A random weighted map: 20% walls, costs 1..9 mostly plain; (0, 0) and the centre open.
CostField weighted_map(int w, int h, std::uint32_t seed) {
    std::mt19937 rng(seed);
    CostField cost = std::move(CostField::create(w, h).value());
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const int r = test::random_int(rng, 0, 99);
            cost.set(x, y, r < 20 ? kCostWall : r < 70 ? kCostPlain : static_cast<Cost>(test::random_int(rng, 1, 9)));
        }
    }
    // The cells the tests use as goals stay open.
    for (int k = 0; k < std::min(w, h); ++k) cost.set(k, k, kCostPlain);
    for (int k = 0; 3 * k < w && 2 * k < h; ++k) cost.set(3 * k, 2 * k, kCostPlain);
    for (const Cell c : {Cell{20, 15}, Cell{30, 20}, Cell{5, 5}, Cell{1, 1}, Cell{w / 2, h / 2}}) {
        if (cost.contains(c)) cost.set(c.x, c.y, kCostPlain);
    }
    return cost;
}

std::vector<Cell> passable_cells(const CostField& cost) {
    std::vector<Cell> out;
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) {
            if (cost.passable(x, y)) out.push_back({x, y});
        }
    }
    return out;
}

// The field a plain FieldBuilder makes.
FlowField reference(const CostField& cost, std::vector<Cell> goals, const FieldParams& params = {}) {
    FieldBuilder builder;
    FlowField f;
    EXPECT_TRUE(builder.build(cost, goals, params, f).ok());
    return f;
}

::testing::AssertionResult same_bits(const FlowField& a, const FlowField& b) {
    if (a.width() != b.width() || a.height() != b.height()) return ::testing::AssertionFailure() << "sizes differ";
    if (std::memcmp(a.integration().data(), b.integration().data(), a.integration().size_bytes()) != 0) {
        return ::testing::AssertionFailure() << "integration layers differ";
    }
    if (std::memcmp(a.directions().data(), b.directions().data(), a.directions().size_bytes()) != 0) {
        return ::testing::AssertionFailure() << "flow layers differ";
    }
    return ::testing::AssertionSuccess();
}

std::unique_ptr<FieldService> make_service(CostField cost, JobSystem& jobs, FieldServiceConfig config = {},
                                           std::pmr::memory_resource* memory = std::pmr::get_default_resource()) {
    auto s = FieldService::create(std::move(cost), jobs, std::move(config), memory);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    return std::move(s.value());
}

// Bytes a cached one-goal field counts: its 5 bytes per cell and its repair state (9 bytes per
// cell of the map plus a one-cell border, and the goal).
std::size_t field_bytes(int w, int h) {
    return static_cast<std::size_t>(w) * h * 5 + static_cast<std::size_t>(w + 2) * (h + 2) * 9 + sizeof(Cell);
}

TEST(FieldService, WaitIdleForGivesUpAtItsBudgetAndBuildsNothingItself) {
    ManualJobSystem jobs;  // runs its tasks only when told
    const CostField cost = weighted_map(40, 30, 2);
    auto svc = make_service(cost, jobs);
    auto t = svc->request(std::vector<Cell>{{20, 15}});
    ASSERT_TRUE(t.ok());
    EXPECT_FALSE(svc->wait_idle_for(std::chrono::milliseconds(0)));
    EXPECT_FALSE(svc->wait_idle_for(std::chrono::milliseconds(20))) << "nobody ran the build";
    EXPECT_TRUE(svc->status(*t).queued) << "the waiting thread must not build it";
    std::thread worker([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        jobs.run_all();
    });
    EXPECT_TRUE(svc->wait_idle_for(std::chrono::seconds(30))) << "woken when the job system built it";
    worker.join();
    EXPECT_EQ(svc->publish(), 1u);
    ASSERT_NE(svc->current(*t), nullptr);
    EXPECT_TRUE(same_bits(*svc->current(*t), reference(cost, {{20, 15}})));
    EXPECT_TRUE(svc->wait_idle_for(std::chrono::milliseconds(0)));
}

TEST(FieldService, RequestBuildsInTheBackgroundAndPublishesOnlyOnPublish) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 1);
    auto svc = make_service(cost, jobs);
    auto t = svc->request(std::vector<Cell>{{20, 15}});
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(svc->current(*t), nullptr);
    EXPECT_TRUE(svc->status(*t).queued);
    EXPECT_EQ(jobs.pending(), 1u);
    jobs.run_all();
    EXPECT_EQ(svc->current(*t), nullptr) << "visible before publish()";
    EXPECT_TRUE(svc->status(*t).ready);
    EXPECT_EQ(svc->publish(), 1u);
    const auto field = svc->current(*t);
    ASSERT_NE(field, nullptr);
    EXPECT_TRUE(same_bits(*field, reference(cost, {{20, 15}})));
    const TicketStatus st = svc->status(*t);
    EXPECT_TRUE(st.live && st.has_field && st.up_to_date && !st.ready && !st.queued && !st.building);
    EXPECT_EQ(svc->publish(), 0u);
}

TEST(FieldService, SecondRequestForTheSameKeyIsACacheHitWithTheSameField) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 2);
    auto svc = make_service(cost, jobs);
    auto a = svc->request(std::vector<Cell>{{20, 15}, {0, 0}});
    jobs.run_all();
    svc->publish();
    // Same goal set in another order, with a duplicate: the same canonical key.
    auto b = svc->request(std::vector<Cell>{{0, 0}, {20, 15}, {0, 0}});
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(jobs.pending(), 0u) << "a hit must not build";
    svc->publish();
    EXPECT_EQ(svc->current(*a), svc->current(*b));
    const FieldServiceStats s = svc->stats();
    EXPECT_EQ(s.requests, 2u);
    EXPECT_EQ(s.hits, 1u);
    EXPECT_EQ(s.misses, 1u);
    EXPECT_EQ(s.builds, 1u);
    EXPECT_EQ(svc->goals(*b), (std::vector<Cell>{{0, 0}, {20, 15}}));
}

TEST(FieldService, OptionsAndMovementClassArePartOfTheKey) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(30, 30, 3);
    FieldServiceConfig config;
    for (int k = 0; k < 3; ++k) config.classes.push_back(UnitClass{"c" + std::to_string(k + 1), 1, std::nullopt});
    auto svc = make_service(cost, jobs, config);
    const std::vector<Cell> g{{15, 15}};
    FieldOptions four;
    four.params.connectivity = Connectivity::four;
    FieldOptions four_other_factor = four;
    four_other_factor.params.diagonal_factor = 1.2;  // plays no part in 4-direction mode
    FieldOptions textbook;
    textbook.params.diagonal_factor = 1.4;
    FieldOptions other_class;
    other_class.movement_class = 3;
    for (const FieldOptions& o : {FieldOptions{}, four, four_other_factor, textbook, other_class}) {
        ASSERT_TRUE(svc->request(g, o).ok());
    }
    jobs.run_all();
    const FieldServiceStats s = svc->stats();
    EXPECT_EQ(s.builds, 4u) << "default, 4-dir (twice, one key), factor 1.4, class 3";
    EXPECT_EQ(s.coalesced, 1u);
}

TEST(FieldService, IdenticalRequestsInFlightShareOneBuild) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 4);
    auto svc = make_service(cost, jobs);
    std::vector<FieldTicket> tickets;
    for (int k = 0; k < 5; ++k) tickets.push_back(svc->request(std::vector<Cell>{{5, 5}, {0, 0}}).value());
    jobs.run_all();
    svc->publish();
    const FieldServiceStats s = svc->stats();
    EXPECT_EQ(s.builds, 1u);
    EXPECT_EQ(s.misses, 5u);
    EXPECT_EQ(s.coalesced, 4u);
    for (const FieldTicket t : tickets) EXPECT_EQ(svc->current(t), svc->current(tickets[0]));
}

TEST(FieldService, SupersededOrReleasedBeforeItStartsCancelsTheBuild) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 5);
    auto svc = make_service(cost, jobs);
    const FieldTicket group = svc->request(std::vector<Cell>{{1, 1}}).value();
    ASSERT_TRUE(svc->retarget(group, std::vector<Cell>{{20, 15}}).ok());  // a new order before the build ran
    const FieldTicket gone = svc->request(std::vector<Cell>{{30, 20}}).value();
    ASSERT_TRUE(svc->release(gone).ok());
    // A build two tickets wait for survives when one of them leaves.
    const FieldTicket shared1 = svc->request(std::vector<Cell>{{0, 0}}).value();
    const FieldTicket shared2 = svc->request(std::vector<Cell>{{0, 0}}).value();
    ASSERT_TRUE(svc->release(shared1).ok());
    EXPECT_EQ(svc->stats().builds_cancelled, 2u);
    jobs.run_all();
    svc->publish();
    const FieldServiceStats s = svc->stats();
    EXPECT_EQ(s.builds, 2u) << "only (20, 15) and (0, 0) were built";
    EXPECT_EQ(s.builds_cancelled, 2u);
    ASSERT_NE(svc->current(group), nullptr);
    EXPECT_TRUE(same_bits(*svc->current(group), reference(cost, {{20, 15}})));
    EXPECT_NE(svc->current(shared2), nullptr);
    EXPECT_EQ(svc->current(gone), nullptr);
    EXPECT_FALSE(svc->status(gone).live);
}

TEST(FieldService, RetargetKeepsTheOldFieldUntilTheNewOneIsPublished) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 6);
    auto svc = make_service(cost, jobs);
    const FieldTicket t = svc->request(std::vector<Cell>{{1, 1}}).value();
    jobs.run_all();
    svc->publish();
    const auto old_field = svc->current(t);
    ASSERT_NE(old_field, nullptr);
    const FlowField old_copy = *old_field;
    ASSERT_TRUE(svc->retarget(t, std::vector<Cell>{{30, 20}}).ok());
    EXPECT_EQ(svc->current(t), old_field);
    EXPECT_FALSE(svc->status(t).up_to_date);
    jobs.run_all();
    EXPECT_EQ(svc->current(t), old_field) << "changed before publish()";
    svc->publish();
    ASSERT_NE(svc->current(t), old_field);
    EXPECT_TRUE(svc->status(t).up_to_date);
    EXPECT_TRUE(same_bits(*svc->current(t), reference(cost, {{30, 20}})));
    // The reader that kept the old field still has it, unchanged.
    EXPECT_TRUE(same_bits(*old_field, old_copy));
}

// A service publishing as builds finish, recording the first goal of each field in build order.
struct RecordedOrder {
    std::vector<Cell> order;
    std::unique_ptr<FieldService> svc;
    RecordedOrder(const CostField& cost, JobSystem& jobs) {
        FieldServiceConfig config;
        config.auto_publish = true;
        config.on_publish = [this](const Publication& p) { order.push_back(svc->goals(p.ticket).front()); };
        svc = make_service(cost, jobs, config);
    }
};

TEST(FieldService, QueuedBuildsRunHighestPriorityFirstThenOldestFirst) {
    ManualJobSystem jobs(1);
    RecordedOrder rec(weighted_map(30, 30, 7), jobs);
    auto& svc = rec.svc;
    auto& order = rec.order;
    FieldOptions low, high;
    high.priority = 5;
    ASSERT_TRUE(svc->request(std::vector<Cell>{{1, 1}}, low).ok());
    ASSERT_TRUE(svc->request(std::vector<Cell>{{2, 2}}, low).ok());
    ASSERT_TRUE(svc->request(std::vector<Cell>{{3, 3}}, high).ok());
    // A low-priority build joined by a high-priority ticket rises with it.
    ASSERT_TRUE(svc->request(std::vector<Cell>{{4, 4}}, low).ok());
    ASSERT_TRUE(svc->request(std::vector<Cell>{{4, 4}}, high).ok());
    jobs.run_all();
    const std::vector<Cell> expected{{3, 3}, {4, 4}, {4, 4}, {1, 1}, {2, 2}};
    EXPECT_EQ(order, expected);
}

TEST(FieldService, NewOrdersBuildBeforeTerrainRefreshes) {
    ManualJobSystem jobs(1);
    RecordedOrder rec(CostField::create(30, 30).value(), jobs);
    auto& svc = rec.svc;
    auto& order = rec.order;
    const FieldTicket a = svc->request(std::vector<Cell>{{1, 1}}).value();
    const FieldTicket b = svc->request(std::vector<Cell>{{2, 2}}).value();
    jobs.run_all();
    order.clear();
    // An edit queues refreshes of a and b; then c is ordered and b gets new goals: those two go first.
    ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{10, 10}}, kCostWall).ok());
    ASSERT_TRUE(svc->request(std::vector<Cell>{{3, 3}}).ok());
    ASSERT_TRUE(svc->retarget(b, std::vector<Cell>{{4, 4}}).ok());
    jobs.run_all();
    EXPECT_EQ(order, (std::vector<Cell>{{3, 3}, {4, 4}, {1, 1}}));
    EXPECT_TRUE(svc->status(a).up_to_date);
}

TEST(FieldService, LeastRecentlyUsedFieldsAreEvictedUnderTheBudget) {
    ManualJobSystem jobs;
    const int w = 32, h = 32;
    const CostField cost = weighted_map(w, h, 8);
    FieldServiceConfig config;
    config.budget_bytes = field_bytes(w, h) * 5 / 2;  // room for two fields
    auto svc = make_service(cost, jobs, config);
    auto once = [&](Cell goal) {
        const FieldTicket t = svc->request(std::vector<Cell>{goal}).value();
        jobs.run_all();
        svc->publish();
        auto f = svc->current(t);
        EXPECT_TRUE(svc->release(t).ok());
        EXPECT_LE(svc->stats().bytes_cached, config.budget_bytes);
        return f;
    };
    const auto a = once({0, 0});
    once({16, 16});
    once({0, 0});  // hit: A becomes the most recently used
    EXPECT_EQ(svc->stats().hits, 1u);
    once({1, 1});  // evicts B, the least recently used
    FieldServiceStats s = svc->stats();
    EXPECT_EQ(s.evictions, 1u);
    EXPECT_EQ(s.fields_cached, 2u);
    EXPECT_EQ(s.bytes_cached, 2 * field_bytes(w, h));
    EXPECT_EQ(s.peak_bytes_cached, 2 * field_bytes(w, h));
    EXPECT_GE(s.bytes_in_use, s.bytes_cached);
    EXPECT_EQ(once({0, 0}), a) << "A must still be cached";
    once({16, 16});  // B again: a miss
    s = svc->stats();
    EXPECT_EQ(s.builds, 4u);
    EXPECT_EQ(s.hits, 2u);
    EXPECT_LE(s.peak_bytes_cached, config.budget_bytes);
}

TEST(FieldService, HeldFieldsSurviveEvictionAndTheService) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(32, 32, 9);
    FieldServiceConfig config;
    config.budget_bytes = field_bytes(32, 32);  // one field
    std::shared_ptr<const FlowField> held;
    {
        auto svc = make_service(cost, jobs, config);
        const FieldTicket t = svc->request(std::vector<Cell>{{0, 0}}).value();
        jobs.run_all();
        svc->publish();
        held = svc->current(t);
        ASSERT_TRUE(svc->release(t).ok());
        svc->request(std::vector<Cell>{{16, 16}}).value();
        jobs.run_all();
        EXPECT_EQ(svc->stats().evictions, 1u);
        svc->clear_cache();
        EXPECT_EQ(svc->stats().bytes_cached, 0u);
    }
    ASSERT_NE(held, nullptr);
    EXPECT_TRUE(same_bits(*held, reference(cost, {{0, 0}})));
}

TEST(FieldService, AFieldLargerThanTheBudgetIsDeliveredButNotCached) {
    ManualJobSystem jobs;
    FieldServiceConfig config;
    config.budget_bytes = 100;
    auto svc = make_service(weighted_map(32, 32, 10), jobs, config);
    const FieldTicket t = svc->request(std::vector<Cell>{{0, 0}}).value();
    jobs.run_all();
    svc->publish();
    EXPECT_NE(svc->current(t), nullptr);
    EXPECT_EQ(svc->stats().bytes_cached, 0u);
    EXPECT_EQ(svc->stats().peak_bytes_cached, 0u);
}

TEST(FieldService, TerrainEditsRepairTheCachedFieldsForLiveTickets) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(20, 10).value());
    auto svc = make_service(cost, jobs);
    const FieldTicket t = svc->request(std::vector<Cell>{{19, 5}}).value();
    jobs.run_all();
    svc->publish();
    const auto before = svc->current(t);
    EXPECT_EQ(svc->terrain_version(), 0u);
    ASSERT_TRUE(svc->edit_rect(10, 0, 10, 8, kCostWall).ok());  // a wall with a gap at the bottom
    EXPECT_EQ(svc->terrain_version(), 1u);
    EXPECT_EQ(svc->stats().invalidations, 0u) << "the cached field becomes a repair";
    EXPECT_EQ(svc->stats().bytes_cached, 0u);
    EXPECT_EQ(svc->stats().queued, 1u);
    EXPECT_EQ(svc->current(t), before) << "the old field stays until the repaired one is published";
    EXPECT_FALSE(svc->status(t).up_to_date);
    // A new request for the same goals is not answered with the old terrain's field: it joins the repair.
    const FieldTicket fresh = svc->request(std::vector<Cell>{{19, 5}}).value();
    svc->publish();
    EXPECT_EQ(svc->current(fresh), nullptr);
    EXPECT_EQ(svc->stats().coalesced, 2u) << "the edited ticket and the new one join the repair";
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->stats().builds, 1u) << "no second build";
    EXPECT_EQ(svc->stats().repairs, 1u) << "one repair for both tickets";
    EXPECT_EQ(svc->stats().repair_rebuilds, 0u);
    ASSERT_NE(svc->current(t), before);
    EXPECT_EQ(svc->current(t), svc->current(fresh));
    EXPECT_TRUE(svc->status(t).up_to_date);
    EXPECT_EQ(svc->status(t).field_terrain_version, 1u);
    cost.fill_rect(10, 0, 10, 8, kCostWall);
    EXPECT_TRUE(same_bits(*svc->current(t), reference(cost, {{19, 5}})));
    EXPECT_TRUE(same_bits(*before, reference(CostField::create(20, 10).value(), {{19, 5}})))
        << "the field held from before the edit is untouched";
    EXPECT_TRUE(std::equal(svc->terrain()->cells().begin(), svc->terrain()->cells().end(), cost.cells().begin()));
    // An edit that changes nothing keeps the version.
    ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{10, 0}}, kCostWall).ok());
    EXPECT_EQ(svc->terrain_version(), 1u);
}

TEST(FieldService, WithRepairsOffEditsInvalidateTheCacheAndRebuild) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(20, 10).value());
    FieldServiceConfig config;
    config.repair = false;
    auto svc = make_service(cost, jobs, config);
    const FieldTicket t = svc->request(std::vector<Cell>{{19, 5}}).value();
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->stats().bytes_cached, static_cast<std::size_t>(20 * 10 * 5)) << "no repair state kept";
    ASSERT_TRUE(svc->edit_rect(10, 0, 10, 8, kCostWall).ok());
    EXPECT_EQ(svc->stats().invalidations, 1u);
    const FieldTicket fresh = svc->request(std::vector<Cell>{{19, 5}}).value();
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->stats().builds, 2u) << "one rebuild for both tickets";
    EXPECT_EQ(svc->stats().repairs, 0u);
    EXPECT_EQ(svc->current(t), svc->current(fresh));
    cost.fill_rect(10, 0, 10, 8, kCostWall);
    EXPECT_TRUE(same_bits(*svc->current(t), reference(cost, {{19, 5}})));
}

TEST(FieldService, PaintingWhileFieldsAreBuiltEndsExact) {
    // Edits land while builds and repairs are queued and between them: the queued work is re-keyed,
    // repairs take the cells edited since their base, and the published fields end exact.
    ManualJobSystem jobs;
    CostField cost = weighted_map(40, 30, 21);
    auto svc = make_service(cost, jobs);
    const std::vector<std::vector<Cell>> goals{{{0, 0}}, {{20, 15}}, {{30, 20}, {5, 5}}};
    std::vector<FieldTicket> tickets;
    for (const auto& g : goals) tickets.push_back(svc->request(g).value());
    std::mt19937 rng(21);
    for (int k = 0; k < 60; ++k) {
        const Cell c{test::random_int(rng, 0, 39), test::random_int(rng, 0, 29)};
        bool goal = false;
        for (const auto& g : goals) goal |= std::find(g.begin(), g.end(), c) != g.end();
        if (goal) continue;
        const Cost v = k % 3 == 0 ? kCostWall : static_cast<Cost>(test::random_int(rng, 1, 9));
        ASSERT_TRUE(svc->edit_rect(c.x, c.y, c.x + 1, c.y, v).ok());
        cost.fill_rect(c.x, c.y, c.x + 1, c.y, v);
        if (k % 4 == 1) jobs.run_one();
        if (k % 9 == 2) jobs.run_all();
        svc->publish();
    }
    jobs.run_all();
    svc->publish();
    for (std::size_t i = 0; i < goals.size(); ++i) {
        ASSERT_TRUE(svc->status(tickets[i]).up_to_date);
        EXPECT_TRUE(same_bits(*svc->current(tickets[i]), reference(cost, goals[i]))) << "ticket " << i;
    }
    EXPECT_GT(svc->stats().repairs, 20u);
}

// Memory that runs `hook` once, at the first allocation of at least `threshold` bytes after arm():
// with repairs off only a builder's scratch is that large, and a builder runs outside the service's
// lock, so the hook may call the service while a build runs, on the same thread.
class HookOnLargeAllocation final : public std::pmr::memory_resource {
public:
    HookOnLargeAllocation(std::size_t threshold, std::function<void()> hook)
        : threshold_(threshold), hook_(std::move(hook)) {}
    void arm() { armed_ = true; }
    bool fired() const { return fired_; }

private:
    void* do_allocate(std::size_t bytes, std::size_t align) override {
        if (armed_ && !fired_ && bytes >= threshold_) {
            fired_ = true;
            hook_();
        }
        return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
        std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    std::size_t threshold_;
    std::function<void()> hook_;
    bool armed_ = false;
    bool fired_ = false;
};

TEST(FieldService, AnEditDuringABuildIsAnsweredWithTheNewTerrain) {
    // The terrain changes while the build for the old terrain runs. That build stays what it is;
    // the ticket waiting for it and a request for the same goals made after the edit must end with
    // the field of the new terrain, not join the running build of the old one.
    ManualJobSystem jobs;
    const int w = 60, h = 40;
    CostField cost = weighted_map(w, h, 31);
    const std::vector<Cell> goals{{20, 15}};
    FieldService* service = nullptr;
    FieldTicket later{};
    HookOnLargeAllocation memory(std::size_t{8} * w * h, [&] {
        // A wall across the map but for one gap: most values change.
        ASSERT_TRUE(service->edit_rect(0, 25, w - 2, 25, kCostWall).ok());
        cost.fill_rect(0, 25, w - 2, 25, kCostWall);
        later = service->request(goals).value();
    });
    FieldServiceConfig config;
    config.repair = false;  // builds only: the first large allocation is the builder's scratch
    // Declared after `memory`, so the service goes first.
    auto svc = make_service(cost, jobs, config, &memory);
    service = svc.get();
    const FieldTicket first = svc->request(goals).value();
    memory.arm();
    jobs.run_all();
    ASSERT_TRUE(memory.fired()) << "no build allocated its scratch from the service's memory";
    svc->publish();
    const FlowField expected = reference(cost, goals);
    for (const FieldTicket t : {first, later}) {
        ASSERT_TRUE(svc->status(t).up_to_date);
        ASSERT_NE(svc->current(t), nullptr);
        EXPECT_TRUE(same_bits(*svc->current(t), expected));
    }
    EXPECT_EQ(svc->stats().builds, 2u) << "the old terrain's build and one for the new terrain";
}

TEST(FieldService, EditsBetweenPublishesPublishTheNewestFieldOnly) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(20, 10).value());
    auto svc = make_service(cost, jobs);
    const FieldTicket t = svc->request(std::vector<Cell>{{0, 0}}).value();
    for (int k = 0; k < 5; ++k) {
        ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{5 + k, 5}}, kCostSwamp).ok());
        cost.set(5 + k, 5, kCostSwamp);
    }
    EXPECT_EQ(svc->stats().builds_cancelled, 0u) << "the queued build is re-keyed to each new terrain";
    EXPECT_EQ(svc->stats().queued, 1u);
    jobs.run_all();
    EXPECT_EQ(svc->publish(), 1u);
    EXPECT_EQ(svc->stats().builds, 1u);
    EXPECT_TRUE(same_bits(*svc->current(t), reference(cost, {{0, 0}})));
}

TEST(FieldService, GoalsWalledInByAnEditAreLeftOutAndAllWalledMeansUnreachable) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(12, 8).value());
    auto svc = make_service(cost, jobs);
    const FieldTicket two = svc->request(std::vector<Cell>{{1, 1}, {10, 6}}).value();
    const FieldTicket one = svc->request(std::vector<Cell>{{1, 1}}).value();
    ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{1, 1}}, kCostWall).ok());
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->status(two).blocked_goals, 1u);
    cost.set(1, 1, kCostWall);
    EXPECT_TRUE(same_bits(*svc->current(two), reference(cost, {{10, 6}})));
    const auto none = svc->current(one);
    ASSERT_NE(none, nullptr);
    EXPECT_EQ(none->direction(1, 1), Direction::wall);
    EXPECT_EQ(none->direction(5, 5), Direction::unreachable);
    EXPECT_FALSE(none->reachable(5, 5));
    // Reopened: the goal counts again.
    ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{1, 1}}, kCostPlain).ok());
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->current(one)->direction(1, 1), Direction::goal);
    EXPECT_EQ(svc->status(one).blocked_goals, 0u);
}

TEST(FieldService, PublishMakesEveryReadyFieldVisibleAtOnce) {
    ManualJobSystem jobs;
    const CostField cost = weighted_map(40, 30, 11);
    std::vector<Publication> seen;
    FieldServiceConfig config;
    config.on_publish = [&](const Publication& p) { seen.push_back(p); };
    auto svc = make_service(cost, jobs, config);
    std::vector<FieldTicket> tickets;
    for (int k = 0; k < 6; ++k) tickets.push_back(svc->request(std::vector<Cell>{{k * 3, k * 2}}).value());
    jobs.run_all();
    for (const FieldTicket t : tickets) EXPECT_EQ(svc->current(t), nullptr);
    EXPECT_TRUE(seen.empty()) << "callbacks before publish()";
    EXPECT_EQ(svc->publish(), 6u);
    for (const FieldTicket t : tickets) EXPECT_NE(svc->current(t), nullptr);
    ASSERT_EQ(seen.size(), 6u);
    for (const Publication& p : seen) {
        EXPECT_EQ(p.field, svc->current(p.ticket));
        EXPECT_TRUE(p.up_to_date);
        EXPECT_FALSE(p.from_cache);
        EXPECT_LE(p.requested, p.ready);
    }
}

TEST(FieldService, AutoPublishShowsFieldsAsSoonAsTheyAreBuilt) {
    ManualJobSystem jobs;
    int calls = 0;
    FieldServiceConfig config;
    config.auto_publish = true;
    config.on_publish = [&](const Publication& p) {
        ++calls;
        EXPECT_TRUE(p.up_to_date);
    };
    auto svc = make_service(weighted_map(30, 30, 12), jobs, config);
    const FieldTicket t = svc->request(std::vector<Cell>{{15, 15}}).value();
    jobs.run_all();
    EXPECT_NE(svc->current(t), nullptr);
    const FieldTicket hit = svc->request(std::vector<Cell>{{15, 15}}).value();
    EXPECT_EQ(svc->current(hit), svc->current(t)) << "a hit is current at once with auto_publish";
    EXPECT_EQ(calls, 2);
}

TEST(FieldService, BadInputIsAnErrorAndChangesNothing) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(10, 10).value());
    cost.set(3, 3, kCostWall);
    FieldServiceConfig zero;
    zero.budget_bytes = 0;
    auto bad = FieldService::create(cost, jobs, zero);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("budget"), std::string::npos);

    auto svc = make_service(cost, jobs);
    auto expect_error = [](const auto& r, const char* words) {
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
    };
    expect_error(svc->request(std::vector<Cell>{}), "no goal");
    expect_error(svc->request(std::vector<Cell>{{3, 3}}), "(3, 3) is on a wall");
    expect_error(svc->request(std::vector<Cell>{{1, 1}, {10, 2}}), "(10, 2) is outside the 10x10 map");
    expect_error(svc->request(std::vector<Cell>{{-1, 0}}), "(-1, 0) is outside");
    FieldOptions nan;
    nan.params.diagonal_factor = std::nan("");
    expect_error(svc->request(std::vector<Cell>{{1, 1}}, nan), "diagonal factor");
    FieldOptions big;
    big.params.diagonal_factor = 2.5;
    expect_error(svc->request(std::vector<Cell>{{1, 1}}, big), "diagonal factor");
    EXPECT_EQ(svc->stats().requests, 0u);
    EXPECT_EQ(jobs.pending(), 0u);

    const FieldTicket t = svc->request(std::vector<Cell>{{1, 1}}).value();
    expect_error(svc->retarget(t, std::vector<Cell>{{3, 3}}), "on a wall");
    EXPECT_EQ(svc->goals(t), (std::vector<Cell>{{1, 1}})) << "a refused retarget keeps the order";
    ASSERT_TRUE(svc->release(t).ok());
    expect_error(svc->release(t), "not live");
    expect_error(svc->retarget(t, std::vector<Cell>{{1, 1}}), "not live");
    EXPECT_EQ(svc->current(t), nullptr);
    EXPECT_FALSE(svc->status(FieldTicket{99, 0}).live);

    expect_error(svc->edit_rect(0, 0, 2, 2, 0), "cost 0");
    expect_error(svc->edit_rect(10, 0, 12, 3, kCostWall), "outside the 10x10 map");
    expect_error(svc->edit_rect(5, 5, 4, 6, kCostWall), "empty");
    expect_error(svc->edit_cells(std::vector<Cell>{{1, 1}, {0, 10}}, kCostWall), "(0, 10) is outside");
    EXPECT_EQ(svc->terrain_version(), 0u);
    EXPECT_EQ(svc->terrain()->at(1, 1), kCostPlain) << "a refused cell list changes nothing";
    expect_error(svc->set_budget(0), "budget");
    // A rectangle partly off the map is clipped.
    ASSERT_TRUE(svc->edit_rect(-5, -5, 0, 0, kCostSwamp).ok());
    EXPECT_EQ(svc->terrain()->at(0, 0), kCostSwamp);
}

TEST(FieldService, ParallelBuildsEqualSerialBuildsBitForBit) {
    test::ThreadPoolJobSystem pool(4);
    const CostField cost = weighted_map(160, 120, 13);
    const std::vector<Cell> open = passable_cells(cost);
    std::mt19937 rng(13);
    auto svc = make_service(cost, pool);
    std::vector<std::pair<FieldTicket, std::vector<Cell>>> asked;
    for (int k = 0; k < 24; ++k) {
        std::vector<Cell> goals;
        const int n = 1 + k % 3;
        for (int g = 0; g < n; ++g) goals.push_back(open[static_cast<std::size_t>(rng() % open.size())]);
        FieldOptions o;
        if (k % 4 == 1) o.params.diagonal_factor = 1.4;
        if (k % 4 == 2) o.params.connectivity = Connectivity::four;
        asked.emplace_back(svc->request(goals, o).value(), goals);
    }
    svc->wait_idle();
    svc->publish();
    for (std::size_t k = 0; k < asked.size(); ++k) {
        FieldParams p;
        if (k % 4 == 1) p.diagonal_factor = 1.4;
        if (k % 4 == 2) p.connectivity = Connectivity::four;
        const auto f = svc->current(asked[k].first);
        ASSERT_NE(f, nullptr);
        EXPECT_TRUE(same_bits(*f, reference(cost, asked[k].second, p))) << "request " << k;
    }
}

TEST(FieldService, AWarmServiceBuildsWithoutAllocating) {
    ManualJobSystem jobs;
    test::CountingResource memory;
    const int w = 48, h = 40;
    const CostField cost = weighted_map(w, h, 14);
    const std::vector<Cell> open = passable_cells(cost);
    FieldServiceConfig config;
    config.budget_bytes = field_bytes(w, h) * 30;  // room to recycle a burst of ten rebuilds
    auto svc = make_service(cost, jobs, config, &memory);
    std::mt19937 rng(14);
    std::vector<FieldTicket> groups;
    auto cycle = [&](int k) {
        // Ten groups re-ordered in turn, a terrain edit now and then, publish every round.
        const std::size_t g = static_cast<std::size_t>(k) % 10;
        const std::vector<Cell> goals{open[rng() % open.size()], open[rng() % open.size()]};
        if (groups.size() < 10) {
            groups.push_back(svc->request(goals).value());
        } else {
            ASSERT_TRUE(svc->retarget(groups[g], goals).ok());
        }
        if (k % 7 == 3) {  // an edit that changes a cost: every group's field is rebuilt
            const Cell c = open[rng() % open.size()];
            const Cost now = svc->terrain()->at(c);
            ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{c}, static_cast<Cost>(now % 5 + 1)).ok());
        }
        jobs.run_all();
        svc->publish();
    };
    for (int k = 0; k < 200; ++k) cycle(k);
    memory.reset_counts();
    const std::uint64_t builds_before = svc->stats().builds;
    const std::uint64_t repairs_before = svc->stats().repairs;
    for (int k = 200; k < 400; ++k) cycle(k);
    EXPECT_GT(svc->stats().builds - builds_before, 150u);
    EXPECT_GT(svc->stats().repairs - repairs_before, 100u);
    EXPECT_EQ(memory.allocations(), 0u) << "bytes: " << memory.bytes_allocated();
    EXPECT_LE(svc->stats().peak_bytes_cached, config.budget_bytes);
}

TEST(FieldService, DestroyedWithTasksNotYetRunLeavesNothingBehind) {
    ManualJobSystem jobs;
    test::CountingResource memory;
    std::shared_ptr<const FlowField> held;
    {
        auto svc = make_service(weighted_map(30, 30, 15), jobs, {}, &memory);
        const FieldTicket t = svc->request(std::vector<Cell>{{15, 15}}).value();
        jobs.run_all();
        svc->publish();
        held = svc->current(t);
        svc->request(std::vector<Cell>{{0, 0}}).value();  // queued, its task not run
        EXPECT_EQ(jobs.pending(), 1u);
    }
    // Only the held field's blocks are still out of the host's resource.
    EXPECT_EQ(memory.allocations() - memory.deallocations(), 3u) << "control block + object, two layers";
    EXPECT_EQ(jobs.run_all(), 1u) << "the late task must find the service gone and do nothing";
    EXPECT_EQ(held->direction(15, 15), Direction::goal);
    held.reset();
    EXPECT_EQ(memory.allocations(), memory.deallocations()) << "everything given back";
}

TEST(FieldService, DestroyedWhileAThreadPoolBuildsGivesEverythingBack) {
    test::CountingResource memory;
    std::shared_ptr<const FlowField> held;
    {
        test::ThreadPoolJobSystem pool(1);
        const CostField cost = weighted_map(200, 200, 16);
        const std::vector<Cell> open = passable_cells(cost);
        {
            auto svc = make_service(cost, pool, {}, &memory);
            const FieldTicket t = svc->request(std::vector<Cell>{{15, 15}}).value();
            svc->wait_idle();
            svc->publish();
            held = svc->current(t);
            for (int k = 0; k < 20; ++k) (void)svc->request(std::vector<Cell>{open[static_cast<std::size_t>(k) * 97]});
        }
    }
    ASSERT_NE(held, nullptr);
    EXPECT_EQ(held->direction(15, 15), Direction::goal);
    held.reset();
    EXPECT_EQ(memory.allocations(), memory.deallocations());
}

}  // namespace
}  // namespace tide

namespace tide {
namespace {

TEST(FieldServiceClasses, EachClassPlansOnItsOwnSizedCostsAndEditsReachThemAll) {
    ManualJobSystem jobs;
    CostField cost = weighted_map(36, 28, 31);
    cost.fill_rect(10, 0, 11, 20, kCostWall);  // a wall with openings of various widths
    cost.set(10, 5, kCostPlain);
    cost.set(11, 5, kCostPlain);
    // A "hover" class for which the swamp-like cost 9 is plain, and a size-2 class.
    CostField hover = cost;
    for (int y = 0; y < hover.height(); ++y)
        for (int x = 0; x < hover.width(); ++x)
            if (hover.at(x, y) == 9) hover.set(x, y, kCostPlain);
    FieldServiceConfig config;
    config.classes.push_back(UnitClass{"hover", 1, hover});
    config.classes.push_back(UnitClass{"big", 2, std::nullopt});
    auto svc = make_service(cost, jobs, config);
    EXPECT_EQ(svc->class_count(), 3);
    const std::vector<Cell> goals{{1, 1}};
    std::vector<FieldTicket> t;
    for (MovementClass c = 0; c < 3; ++c) {
        FieldOptions o;
        o.movement_class = c;
        t.push_back(svc->request(goals, o).value());
    }
    jobs.run_all();
    svc->publish();
    auto expected = [&](MovementClass c) {
        const CostField& source = c == 1 ? hover : cost;
        return reference(sized_cost_field(source, c == 2 ? 2 : 1).value(), goals);
    };
    for (MovementClass c = 0; c < 3; ++c) {
        ASSERT_NE(svc->current(t[c]), nullptr);
        EXPECT_TRUE(same_bits(*svc->current(t[c]), expected(c))) << "class " << int(c);
        EXPECT_TRUE(std::equal(svc->planning_costs(c)->cells().begin(), svc->planning_costs(c)->cells().end(),
                               (c == 2   ? sized_cost_field(cost, 2).value()
                                : c == 1 ? hover
                                         : cost)
                                   .cells()
                                   .begin()));
    }
    // Edits: a wall and a cost, then a cell list; every class's field is repaired to the exact result.
    ASSERT_TRUE(svc->edit_rect(20, 10, 22, 12, kCostWall).ok());
    cost.fill_rect(20, 10, 22, 12, kCostWall);
    hover.fill_rect(20, 10, 22, 12, kCostWall);
    ASSERT_TRUE(svc->edit_cells(std::vector<Cell>{{10, 5}, {30, 3}}, 9).ok());
    cost.set(10, 5, 9);
    cost.set(30, 3, 9);
    hover.set(10, 5, 9);
    hover.set(30, 3, 9);
    jobs.run_all();
    svc->publish();
    for (MovementClass c = 0; c < 3; ++c) {
        ASSERT_TRUE(svc->status(t[c]).up_to_date);
        EXPECT_TRUE(same_bits(*svc->current(t[c]), expected(c))) << "class " << int(c) << " after the edits";
    }
    EXPECT_EQ(svc->stats().repairs + svc->stats().repair_rebuilds, 3u) << "one repair per class, no fresh build";
    EXPECT_EQ(svc->stats().builds, 3u + svc->stats().repair_rebuilds);
}

TEST(FieldServiceClasses, BadClassesAndGoalsTheClassCannotStandOnAreRefused) {
    ManualJobSystem jobs;
    CostField cost = std::move(CostField::create(10, 10).value());
    cost.set(5, 5, kCostWall);
    FieldServiceConfig config;
    config.classes.push_back(UnitClass{"big", 3, std::nullopt});
    auto svc = make_service(cost, jobs, config);
    FieldOptions o;
    o.movement_class = 1;
    auto r = svc->request(std::vector<Cell>{{4, 4}}, o);  // its 3x3 block holds the wall
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("(4, 4)"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("'big' (size 3)"), std::string::npos) << r.error().message;
    EXPECT_TRUE(svc->request(std::vector<Cell>{{4, 4}}).ok()) << "fine for the default class";
    o.movement_class = 2;
    r = svc->request(std::vector<Cell>{{0, 0}}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("movement class 2 is unknown"), std::string::npos) << r.error().message;

    for (const UnitClass& bad : {UnitClass{"zero", 0, std::nullopt}, UnitClass{"nine", 9, std::nullopt},
                                 UnitClass{"odd", 1, CostField::create(9, 10).value()}}) {
        FieldServiceConfig c;
        c.classes.push_back(bad);
        auto s = FieldService::create(cost, jobs, c);
        ASSERT_FALSE(s.ok()) << bad.name;
        EXPECT_NE(s.error().message.find("'" + bad.name + "'"), std::string::npos) << s.error().message;
    }
}

// Flee fields, mixed fields and wall margins go through the service like any request: keyed,
// cached, built in the background, repaired after edits, bit-identical to a direct build.
TEST(FieldService, FleeFieldsAndWallMarginsAreKeyedBuiltAndRepairedAfterEdits) {
    ManualJobSystem jobs;
    CostField cost = weighted_map(40, 30, 9);
    cost.set(30, 20, kCostPlain);  // the mixed fields' dangers
    cost.set(12, 20, kCostPlain);
    auto svc = make_service(cost, jobs);
    const std::vector<Cell> cells{{20, 15}, {5, 5}};
    FieldOptions flee;
    flee.kind = FieldKind::flee;
    FieldOptions flee2 = flee;
    flee2.flee.factor = 2.0;
    FieldOptions margin;
    margin.wall_margin = {2, 5};
    FieldOptions flee_margin = flee;
    flee_margin.wall_margin = {1, 3};
    FieldOptions mixed;
    mixed.dangers = {{30, 20}, {12, 20}};
    mixed.danger = {10, 6.0};
    FieldOptions mixed2 = mixed;  // same dangers in another order: the same key
    mixed2.dangers = {{12, 20}, {30, 20}, {12, 20}};
    FieldOptions mixed3 = mixed;  // another radius: another key
    mixed3.danger.radius = 9.0;
    mixed3.wall_margin = {1, 2};
    const std::vector<FieldOptions> kinds{FieldOptions{}, flee, flee2, margin, flee_margin, mixed, mixed2, mixed3};
    const std::size_t keys = kinds.size() - 1;
    std::vector<FieldTicket> tickets;
    for (const FieldOptions& o : kinds) tickets.push_back(svc->request(cells, o).value());
    EXPECT_EQ(svc->stats().queued, keys) << "each option set is its own key, the two equal mixed ones share one";
    jobs.run_all();
    svc->publish();

    auto expect_fresh = [&](const CostField& terrain) {
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            const FieldOptions& o = kinds[k];
            const CostField plan = wall_margin_cost_field(terrain, o.wall_margin).value();
            FieldBuilder builder;
            FlowField want;
            if (o.kind == FieldKind::flee) {
                ASSERT_TRUE(builder.build_flee(plan, cells, o.flee, o.params, want).ok());
            } else if (!o.dangers.empty()) {
                ASSERT_TRUE(builder.build_mixed(plan, cells, o.dangers, o.danger, o.params, want).ok());
            } else {
                ASSERT_TRUE(builder.build(plan, cells, o.params, want).ok());
            }
            const auto got = svc->current(tickets[k]);
            ASSERT_NE(got, nullptr) << k;
            EXPECT_EQ(got->kind(), o.kind) << k;
            EXPECT_TRUE(same_bits(*got, want)) << "options " << k;
            if (o.kind == FieldKind::flee) {
                EXPECT_EQ(std::memcmp(got->to_stop().data(), want.to_stop().data(), want.to_stop().size_bytes()), 0);
            }
            EXPECT_TRUE(svc->status(tickets[k]).up_to_date) << k;
        }
    };
    expect_fresh(cost);
    // A second request for a flee key is a hit.
    const auto hits = svc->stats().hits;
    auto again = svc->request(std::vector<Cell>{{5, 5}, {20, 15}}, flee);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(jobs.pending(), 0u);
    EXPECT_EQ(svc->stats().hits, hits + 1);
    ASSERT_TRUE(svc->release(*again).ok());

    // An edit: every field (goal, flee, mixed, with and without margins) is repaired
    // incrementally, and all equal fresh builds.
    ASSERT_TRUE(svc->edit_rect(10, 10, 14, 12, kCostWall).ok());
    cost.fill_rect(10, 10, 14, 12, kCostWall);
    const auto before = svc->stats();
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->stats().repairs, before.repairs + keys);
    EXPECT_EQ(svc->stats().repair_rebuilds, before.repair_rebuilds);
    EXPECT_EQ(svc->stats().builds, before.builds);
    expect_fresh(cost);
    // A cheaper patch near the dangers: every field goes through a repair again (one that would
    // touch more than a sixteenth of this small map rebuilds inside the repair).
    ASSERT_TRUE(svc->edit_rect(26, 18, 28, 22, kCostPlain).ok());
    cost.fill_rect(26, 18, 28, 22, kCostPlain);
    jobs.run_all();
    svc->publish();
    EXPECT_EQ(svc->stats().repairs + svc->stats().repair_rebuilds, before.repairs + 2 * keys);
    EXPECT_EQ(svc->stats().builds, before.builds + svc->stats().repair_rebuilds - before.repair_rebuilds);
    expect_fresh(cost);
    // A danger walled in is left out of the next build (like a goal); the field is the mixed field
    // of the dangers still open.
    ASSERT_TRUE(svc->edit_rect(30, 20, 30, 20, kCostWall).ok());
    cost.fill_rect(30, 20, 30, 20, kCostWall);
    jobs.run_all();
    svc->publish();
    {
        const CostField plan = wall_margin_cost_field(cost, mixed3.wall_margin).value();
        FieldBuilder builder;
        FlowField want;
        ASSERT_TRUE(
            builder.build_mixed(plan, cells, std::vector<Cell>{{12, 20}}, mixed3.danger, mixed3.params, want).ok());
        EXPECT_TRUE(same_bits(*svc->current(tickets[7]), want));
    }

    // Bad flee and margin settings are refused with the value named.
    FieldOptions bad = flee;
    bad.flee.factor = 0.0;
    auto r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("flee factor 0"), std::string::npos) << r.error().message;
    bad = margin;
    bad.wall_margin.extra = 300;
    r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "wall margin extra cost 300 is outside 0..253");
    r = svc->request(std::vector<Cell>{{0, 0}, {-1, 2}}, flee);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "danger (-1, 2) is outside the 40x30 map");
    bad = mixed;
    bad.danger.radius = std::numeric_limits<double>::quiet_NaN();
    r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "danger radius nan is outside (0, 65536]");
    bad = mixed;
    bad.danger.weight = 254;
    r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "danger weight 254 is outside 0..253");
    r = svc->request(cells, mixed);  // (30, 20) was walled above
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "danger (30, 20) is on a wall");
    bad = mixed;
    bad.dangers = {{12, 20}, {40, 3}};
    r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "danger (40, 3) is outside the 40x30 map");
    bad = flee;
    bad.dangers = {{1, 1}};
    r = svc->request(cells, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("FieldOptions::dangers is for mixed goal fields"), std::string::npos);
}

// Fields with a wall margin are repaired after edits, exactly: the margin moves with the walls, so
// the repair covers the edited cells and those within the margin's radius. Random wall, cost and
// erase strokes, for a plain and a sized class; after each, every field equals a fresh build.
TEST(FieldService, WallMarginFieldsAreRepairedExactly) {
    ManualJobSystem jobs;
    CostField cost = weighted_map(64, 48, 21);
    cost.fill_rect(50, 40, 51, 41, kCostPlain);  // the goal's block, open for both unit sizes
    FieldServiceConfig config;
    config.classes.push_back(UnitClass{"big", 2, std::nullopt});
    auto svc = FieldService::create(cost, jobs, config).value();
    const std::vector<Cell> goals{{50, 40}};
    std::vector<FieldOptions> kinds;
    for (MovementClass c : {MovementClass{0}, MovementClass{1}}) {
        for (WallMargin m : {WallMargin{1, 3}, WallMargin{3, 7}}) {
            FieldOptions o;
            o.movement_class = c;
            o.wall_margin = m;
            kinds.push_back(o);
        }
    }
    std::vector<FieldTicket> tickets;
    for (const FieldOptions& o : kinds) tickets.push_back(svc->request(goals, o).value());
    jobs.run_all();
    svc->publish();
    SplitMix64 rng{77};
    for (int step = 0; step < 40; ++step) {
        const int x = static_cast<int>(rng.next() % 60), y = static_cast<int>(rng.next() % 44);
        const int w = 1 + static_cast<int>(rng.next() % 3), h = 1 + static_cast<int>(rng.next() % 3);
        const Cost v = step % 3 == 0 ? Cost{1} : (step % 3 == 1 ? kCostWall : Cost{5});
        if (x <= 51 && x + w >= 49 && y <= 41 && y + h >= 39) continue;  // keep the goal's block open
        ASSERT_TRUE(svc->edit_rect(x, y, x + w - 1, y + h - 1, v).ok());
        jobs.run_all();
        svc->publish();
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            const FieldOptions& o = kinds[k];
            const CostField plan =
                wall_margin_cost_field(*svc->planning_costs(o.movement_class), o.wall_margin).value();
            FieldBuilder builder;
            FlowField want;
            ASSERT_TRUE(builder.build(plan, goals, o.params, want).ok());
            const auto got = svc->current(tickets[k]);
            ASSERT_NE(got, nullptr);
            ASSERT_TRUE(same_bits(*got, want)) << "step " << step << ", options " << k;
        }
    }
    EXPECT_GT(svc->stats().repairs, 40u) << "most edits are repaired, not rebuilt";
}

}  // namespace
}  // namespace tide
