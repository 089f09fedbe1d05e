// Congestion-aware fields in the world: a crowd that queues at the nearer of two parallel channels
// spreads over both with congestion on, so 90% of it arrives sooner; the run is bit-identical on
// 1 and 2 threads; no unit ever stands in a wall; turning congestion off hands the groups their
// plain fields back.

#include <gtest/gtest.h>

#include <optional>

#include "support/jobs.hpp"
#include "tide/world.hpp"

namespace tide {
namespace {

// 64 x 32, plain, a wall 8 cells thick at x = 28..35 crossed by two channels 1 cell wide: the
// near one at y = 15, in line with both spawns and goals, and a far one 5 cells up.
constexpr int kWallX0 = 28, kWallX1 = 35, kNearY = 15, kFarY = 10;

CostField two_channels() {
    CostField cost = CostField::create(64, 32).value();
    for (int y = 0; y < 32; ++y) {
        for (int x = kWallX0; x <= kWallX1; ++x) {
            const bool channel = y == kNearY || y == kFarY;
            if (!channel) cost.set(x, y, kCostWall);
        }
    }
    return cost;
}

constexpr Cell kEastGoal{58, 16}, kWestGoal{5, 16};
constexpr int kUnitsPerSide = 150;

struct RunResult {
    double ninety = 0.0;          // simulated seconds until 90% had arrived (the run's length if never)
    std::size_t in_walls = 0;     // unit-ticks with the centre in a wall cell
    std::size_t far_channel = 0;  // units that crossed by the far channel
    std::uint64_t hash = 0;
};

// Two groups trade sides: one spawned west of the wall heads east, one spawned east heads west.
RunResult run(JobSystem& jobs, bool congestion, float seconds) {
    WorldConfig config;
    config.congestion.enabled = congestion;
    World world(jobs, config);
    EXPECT_TRUE(world.load("two channels", two_channels(), {kEastGoal}, 0).ok());
    Spawn spawn;
    spawn.count = kUnitsPerSide;
    spawn.in_area = true;
    spawn.x0 = 2;
    spawn.x1 = 14;
    spawn.y0 = 10;
    spawn.y1 = 22;
    EXPECT_TRUE(world.apply(spawn).ok());
    spawn.add = true;
    spawn.x0 = 50;
    spawn.x1 = 62;
    EXPECT_TRUE(world.apply(spawn).ok());
    EXPECT_TRUE(world.apply(Order{SelectBox{49, 0, 64, 32}, {kWestGoal}}).ok());
    world.finish_builds();
    EXPECT_EQ(world.groups().size(), 2u);
    RunResult out;
    out.ninety = seconds;
    std::vector<char> far(world.agents().size(), 0);
    const int steps = static_cast<int>(seconds * 60.0f);
    bool done = false;
    for (int s = 0; s < steps; ++s) {
        EXPECT_TRUE(world.tick(1.0f / 60.0f).ok());
        std::size_t arrived = 0;
        for (std::size_t k = 0; k < world.agents().size(); ++k) {
            const AgentId id = world.agents()[k];
            const Vec2 p = world.crowd().position(id);
            out.in_walls += !world.cost().passable(static_cast<int>(p.x), static_cast<int>(p.y));
            if (p.x > kWallX0 && p.x < kWallX1 + 1 && p.y < kFarY + 2) far[k] = 1;
            arrived += world.crowd().state(id) == AgentState::arrived;
        }
        if (!done && 10 * arrived >= 9 * world.agents().size()) {
            out.ninety = world.crowd().time();
            done = true;
        }
    }
    for (char f : far) out.far_channel += f;
    out.hash = world.crowd().state_hash();
    if (congestion) {
        EXPECT_GT(world.stats().congestion_refreshes, 0u);
    }
    return out;
}

TEST(WorldCongestion, TwoGroupsTradingSidesSplitOverTwoChannelsAndArriveSooner) {
    SerialJobSystem jobs;
    const RunResult off = run(jobs, false, 90.0f);
    const RunResult on = run(jobs, true, 90.0f);
    std::printf("[congestion] 90%% of %d units arrived after %.2f s off, %.2f s on; far channel %zu off, %zu on\n",
                2 * kUnitsPerSide, off.ninety, on.ninety, off.far_channel, on.far_channel);
    EXPECT_LT(on.ninety, 0.85 * off.ninety);
    EXPECT_GT(on.far_channel, off.far_channel + kUnitsPerSide / 5) << "the far channel carries part of the crowd";
    EXPECT_EQ(off.in_walls, 0u);
    EXPECT_EQ(on.in_walls, 0u);
}

TEST(WorldCongestion, RunsAreBitIdenticalOnOneAndTwoThreads) {
    SerialJobSystem serial;
    test::ThreadPoolJobSystem pool(2);
    const RunResult a = run(serial, true, 6.0f);
    const RunResult b = run(pool, true, 6.0f);
    EXPECT_EQ(a.hash, b.hash);
    // And the density term changes the run (the comparison above is not between equal runs).
    EXPECT_NE(a.hash, run(serial, false, 6.0f).hash);
}

TEST(WorldCongestion, TurningItOffGivesTheGroupsTheirPlainFieldsBack) {
    SerialJobSystem jobs;
    WorldConfig config;
    config.congestion.enabled = true;
    World world(jobs, config);
    ASSERT_TRUE(world.load("two channels", two_channels(), {kEastGoal}, 200).ok());
    for (int s = 0; s < 60; ++s) ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    const UnitGroupId id = world.largest_group();
    const GroupId crowd_group = world.crowd().group(world.agents().front());
    EXPECT_NE(world.crowd().group_steering(crowd_group), nullptr);
    EXPECT_NE(world.crowd().group_steering(crowd_group), world.field(id));
    // The map itself never changes.
    EXPECT_EQ(world.cost().cells()[static_cast<std::size_t>(kNearY) * 64 + 30], kCostPlain);
    CongestionParams off = world.congestion();
    off.enabled = false;
    ASSERT_TRUE(world.apply(SetCongestion{off}).ok());
    EXPECT_EQ(world.crowd().group_steering(crowd_group), nullptr);
    EXPECT_FALSE(world.congestion().enabled);
    CongestionParams bad = off;
    bad.refresh_hz = 100.0f;
    EXPECT_FALSE(world.apply(SetCongestion{bad}).ok());
}

}  // namespace
}  // namespace tide
