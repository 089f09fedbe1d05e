// The world of tide serve: goal and paint checks, walls painted over units, sealing and reopening
// the default map's gap, frame encodings.

#include <gtest/gtest.h>

#include <cstring>

#include "protocol.hpp"
#include "tide/default_map.hpp"
#include "world.hpp"

namespace tide::serve {
namespace {

struct DefaultWorld : ::testing::Test {
    SerialJobSystem jobs;
    World world{jobs};
    void SetUp() override {
        auto m = make_builtin_map("default");
        ASSERT_TRUE(m.ok());
        ASSERT_TRUE(world.load("default", std::move(m->cost), m->goals, 300).ok());
    }
    void run(float seconds) {
        for (int i = 0; i < static_cast<int>(seconds * 60.0f); ++i) {
            world.poll_build();
            ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
        }
    }
};

TEST_F(DefaultWorld, RefusesBadGoalsAndKeepsTheOldOnes) {
    auto r = world.set_goals({{64, 3}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("goal (64, 3) is outside the 64x40 map"), std::string::npos);
    r = world.set_goals({{14, 3}});  // the left wall
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("is on a wall"), std::string::npos);
    EXPECT_FALSE(world.set_goals({}).ok());
    EXPECT_EQ(world.goals(), std::vector<Cell>{kDefaultGoal});
}

TEST_F(DefaultWorld, RefusesBadPaintAndSpawnAndParams) {
    EXPECT_FALSE(world.paint(70, 3, 0, kCostWall).ok());
    EXPECT_FALSE(world.paint(3, 3, 17, kCostWall).ok());
    EXPECT_FALSE(world.spawn(kMaxAgents + 1).ok());
    EXPECT_FALSE(world.set_params({0.0f, 6.0f, 0.16f}).ok());
    EXPECT_FALSE(world.set_params({3.0f, 6.0f, 0.6f}).ok());
    EXPECT_EQ(world.agents().size(), 300u);
}

TEST_F(DefaultWorld, GoalMoveSwapsInTheNewFieldWhole) {
    run(0.5f);
    const auto before = world.field().integration();
    std::vector<float> old(before.begin(), before.end());
    ASSERT_TRUE(world.set_goals({{20, 5}}).ok());
    world.finish_builds();
    EXPECT_EQ(world.field().integration(20, 5), 0.0f);
    EXPECT_NE(old[5 * 64 + 20], 0.0f);
    EXPECT_EQ(world.stats().field_version, 2u);
}

TEST_F(DefaultWorld, SealingTheGapStopsTheUnitsBehindItAndReopeningFreesThem) {
    for (int y = kDefaultGapY0; y <= kDefaultGapY1; ++y) {
        for (int x = kDefaultGapX0; x <= kDefaultGapX1; ++x) ASSERT_TRUE(world.paint(x, y, 0, kCostWall).ok());
    }
    world.finish_builds();
    run(2.0f);
    std::size_t behind = 0;
    for (const AgentId id : world.agents()) {
        const Vec2 p = world.crowd().position(id);
        EXPECT_TRUE(world.cost().passable(static_cast<int>(p.x), static_cast<int>(p.y)));
        if (p.x < kDefaultGapX0) {
            ++behind;
            EXPECT_EQ(world.crowd().state(id), AgentState::no_path);
            const Vec2 v = world.crowd().velocity(id);
            EXPECT_LT(v.x * v.x + v.y * v.y, 0.01f);
        }
    }
    EXPECT_GT(behind, 20u);
    for (int y = kDefaultGapY0; y <= kDefaultGapY1; ++y) {
        for (int x = kDefaultGapX0; x <= kDefaultGapX1; ++x) ASSERT_TRUE(world.paint(x, y, 0, kCostPlain).ok());
    }
    world.finish_builds();
    run(0.5f);
    std::size_t moving = 0;
    for (const AgentId id : world.agents()) {
        if (world.crowd().position(id).x < kDefaultGapX0 - 1 && world.crowd().state(id) == AgentState::moving) ++moving;
    }
    EXPECT_GT(moving, behind / 2);
}

TEST_F(DefaultWorld, WallPaintedOverUnitsMovesThemOut) {
    run(0.2f);
    // A big wall brush in the open middle of the map: nobody may stay inside it.
    ASSERT_TRUE(world.paint(40, 30, 4, kCostWall).ok());
    EXPECT_EQ(world.agents().size(), 300u);
    for (const AgentId id : world.agents()) {
        const Vec2 p = world.crowd().position(id);
        EXPECT_TRUE(world.cost().passable(static_cast<int>(p.x), static_cast<int>(p.y))) << p.x << "," << p.y;
    }
    // Goals are never walled over.
    ASSERT_TRUE(world.paint(kDefaultGoal.x, kDefaultGoal.y, 1, kCostWall).ok());
    EXPECT_TRUE(world.cost().passable(kDefaultGoal.x, kDefaultGoal.y));
}

TEST_F(DefaultWorld, FramesDecode) {
    run(0.1f);
    const std::string a = encode_agents(world);
    ASSERT_EQ(a.size(), 20u + 5u * 300u);
    EXPECT_EQ(a[0], 1);
    std::uint32_t n;
    std::memcpy(&n, a.data() + 4, 4);
    EXPECT_EQ(n, 300u);
    float sx;
    std::memcpy(&sx, a.data() + 12, 4);
    std::uint16_t qx;
    std::memcpy(&qx, a.data() + 20, 2);
    EXPECT_NEAR(qx * sx, world.crowd().position(world.agents()[0]).x, 0.001f);

    const std::string f = encode_fields(world);
    const std::size_t cells = 64 * 40;
    ASSERT_EQ(f.size(), 24u + 4u * cells);
    EXPECT_EQ(f[0], 2);
    float scale;
    std::memcpy(&scale, f.data() + 16, 4);
    for (std::size_t i = 0; i < cells; ++i) {
        std::uint16_t q;
        std::memcpy(&q, f.data() + 24 + 2 * i, 2);
        const float v = world.field().integration()[i];
        if (v == kUnreachable) {
            EXPECT_EQ(q, 65535);
        } else {
            EXPECT_NEAR(q * scale, v, scale);
        }
        EXPECT_EQ(static_cast<std::uint8_t>(f[24 + 2 * cells + i]), world.cost().cells()[i]);
        EXPECT_EQ(static_cast<std::uint8_t>(f[24 + 3 * cells + i]),
                  static_cast<std::uint8_t>(world.field().directions()[i]));
    }
}

TEST(NearestPassable, MatchesABruteForceScan) {
    // Random maps, many query points (some off the map): the ring search must find the same cell
    // as a full row-major scan for the least squared distance.
    std::uint64_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<int>(seed >> 33);
    };
    for (int trial = 0; trial < 40; ++trial) {
        const int w = 1 + next() % 30, h = 1 + next() % 30;
        CostField cost = CostField::create(w, h).value();
        const int wall_pct = 60 + next() % 40;  // mostly walls, so the search has to go far
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                if (next() % 100 < wall_pct) cost.set(x, y, kCostWall);
            }
        }
        for (int q = 0; q < 20; ++q) {
            const Cell from{next() % (w + 10) - 5, next() % (h + 10) - 5};
            std::optional<Cell> want;
            long best = 0;
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    if (!cost.passable(x, y)) continue;
                    const long d =
                        static_cast<long>(x - from.x) * (x - from.x) + static_cast<long>(y - from.y) * (y - from.y);
                    if (!want || d < best) {
                        want = Cell{x, y};
                        best = d;
                    }
                }
            }
            const auto got = nearest_passable(cost, from);
            ASSERT_EQ(got.has_value(), want.has_value());
            if (want) {
                EXPECT_EQ(got->x, want->x) << "trial " << trial << " from " << from.x << "," << from.y;
                EXPECT_EQ(got->y, want->y) << "trial " << trial << " from " << from.x << "," << from.y;
            }
        }
    }
}

TEST(BuiltinMaps, AllLoadWithAReachableGoal) {
    for (const std::string& name : builtin_map_names()) {
        auto m = make_builtin_map(name);
        ASSERT_TRUE(m.ok()) << name;
        ASSERT_FALSE(m->goals.empty());
        for (const Cell& g : m->goals) EXPECT_TRUE(m->cost.passable(g.x, g.y)) << name;
    }
    EXPECT_FALSE(make_builtin_map("nowhere").ok());
}

TEST(BuiltinMaps, MazeIsPerfectAndConnected) {
    const CostField maze = generate_maze(10, 8, 3);
    EXPECT_EQ(maze.width(), 31);
    EXPECT_EQ(maze.height(), 25);
    std::vector<Cell> goal{{1, 1}};
    auto f = build_flow_field(maze, goal);
    ASSERT_TRUE(f.ok());
    for (int j = 0; j < 8; ++j) {
        for (int i = 0; i < 10; ++i) EXPECT_TRUE(f->reachable(3 * i + 1, 3 * j + 1)) << i << "," << j;
    }
}

}  // namespace
}  // namespace tide::serve
