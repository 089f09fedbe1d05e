// The ORCA reference crowd of `tide bench crowd` (bench/harness/orca_reference.hpp): agents keep
// apart in the paper's test scenes, bad input is refused, and the overlap measure agrees with an
// all-pairs count.

#include "orca_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "tide/generate.hpp"

namespace tide::bench {
namespace {

constexpr float kDt = 1.0f / 60.0f;

float distance(Vec2 a, Vec2 b) {
    return std::hypot(a.x - b.x, a.y - b.y);
}

// The preferred velocity toward `goal`: full speed, slowing so as to stop on it.
Vec2 toward(Vec2 from, Vec2 goal, float speed) {
    const float d = distance(from, goal);
    if (d < 1e-6f) return {0.0f, 0.0f};
    const float s = std::min(speed, d / kDt);
    return {(goal.x - from.x) / d * s, (goal.y - from.y) / d * s};
}

// Smallest centre distance over all pairs.
float closest_pair(const OrcaCrowd& crowd) {
    float best = std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < crowd.size(); ++i)
        for (std::size_t j = i + 1; j < crowd.size(); ++j)
            best = std::min(best, distance(crowd.position(i), crowd.position(j)));
    return best;
}

// Steers every agent to its goal in `goals` for `seconds`; returns the closest any pair came.
float run_to_goals(OrcaCrowd& crowd, const std::vector<Vec2>& goals, float seconds) {
    SerialJobSystem jobs;
    float closest = closest_pair(crowd);
    for (int step = 0; step < static_cast<int>(seconds / kDt); ++step) {
        for (std::size_t i = 0; i < crowd.size(); ++i)
            EXPECT_TRUE(crowd.set_preferred_velocity(i, toward(crowd.position(i), goals[i], 3.0f)).ok());
        EXPECT_TRUE(crowd.step(kDt, jobs).ok());
        closest = std::min(closest, closest_pair(crowd));
    }
    return closest;
}

TEST(OrcaReference, TwoAgentsHeadOnPassWithoutOverlap) {
    OrcaCrowd crowd = OrcaCrowd::create().value();
    const float r = crowd.params().radius;
    // Exactly head-on (a tiny offset would make it easy): only the tie-break of the leg choice parts them.
    ASSERT_TRUE(crowd.add_agent({0.0f, 0.0f}).ok());
    ASSERT_TRUE(crowd.add_agent({10.0f, 0.0f}).ok());
    const std::vector<Vec2> goals{{10.0f, 0.0f}, {0.0f, 0.0f}};
    const float closest = run_to_goals(crowd, goals, 8.0f);
    EXPECT_GE(closest, 2.0f * r * 0.98f);
    EXPECT_LT(distance(crowd.position(0), goals[0]), 0.05f);
    EXPECT_LT(distance(crowd.position(1), goals[1]), 0.05f);
}

// `count` agents on a circle of radius 12 cells, each sent to its antipode (the paper's test
// scene), with the benchmark's settings; returns the closest any pair came and checks all arrive.
float ring_swap(int count) {
    OrcaCrowd crowd = OrcaCrowd::create().value();
    std::vector<Vec2> goals;
    const float ring = 12.0f;
    for (int k = 0; k < count; ++k) {
        const float a = 2.0f * std::numbers::pi_v<float> * static_cast<float>(k) / static_cast<float>(count);
        EXPECT_TRUE(crowd.add_agent({ring * std::cos(a), ring * std::sin(a)}).ok());
        goals.push_back({-ring * std::cos(a), -ring * std::sin(a)});
    }
    const float closest = run_to_goals(crowd, goals, 40.0f);
    int arrived = 0;
    for (std::size_t i = 0; i < crowd.size(); ++i)
        arrived += distance(crowd.position(i), goals[i]) < 2.0f * crowd.params().radius;
    EXPECT_EQ(arrived, count);
    return closest;
}

// Twenty agents meet in the middle without overlapping by more than a tenth of a diameter.
TEST(OrcaReference, RingOfTwentySwapsToAntipodesApartAndArrives) {
    EXPECT_GE(ring_swap(20), 2.0f * OrcaParams{}.radius * 0.9f);
}

// A hundred agents crowd the middle so densely that the half-planes often leave no velocity (the 3D
// program): ORCA then lets pairs overlap a little. RVO2 2.0.3 itself, with the same settings on this
// scene, brings the closest pair to 0.77 of a diameter; this implementation 0.76. The bound below
// catches a crowd that stops avoiding (a sign error in a program: under 0.5).
TEST(OrcaReference, RingOfHundredSwapsToAntipodesAndArrives) {
    EXPECT_GE(ring_swap(100), 2.0f * OrcaParams{}.radius * 0.7f);
}

TEST(OrcaReference, DenseCrowdIsTheSameOnAnyThreadSplit) {
    // A pack pushed to one point: the 3D program runs; every range writes only its own agents, so
    // any split of the work gives the same state. A job system that splits in ranges of 7.
    struct Chunked final : JobSystem {
        void parallel_for(std::size_t count, std::size_t, RangeTask task, void* context) override {
            for (std::size_t b = 0; b < count; b += 7) task(context, b, std::min(count, b + 7));
        }
        int max_concurrency() const override { return 2; }
    } chunked;
    SerialJobSystem serial;
    OrcaCrowd a = OrcaCrowd::create().value(), b = OrcaCrowd::create().value();
    SplitMix64 rng{3};
    for (int k = 0; k < 200; ++k) {
        const Vec2 p{static_cast<float>(rng.uniform() * 6.0), static_cast<float>(rng.uniform() * 6.0)};
        ASSERT_TRUE(a.add_agent(p).ok());
        ASSERT_TRUE(b.add_agent(p).ok());
    }
    for (int step = 0; step < 120; ++step) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_TRUE(a.set_preferred_velocity(i, toward(a.position(i), {3.0f, 3.0f}, 3.0f)).ok());
            ASSERT_TRUE(b.set_preferred_velocity(i, toward(b.position(i), {3.0f, 3.0f}, 3.0f)).ok());
        }
        ASSERT_TRUE(a.step(kDt, serial).ok());
        ASSERT_TRUE(b.step(kDt, chunked).ok());
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a.position(i), b.position(i)) << "agent " << i;
        ASSERT_LE(std::hypot(a.velocity(i).x, a.velocity(i).y), a.params().max_speed * 1.0001f);
    }
}

TEST(OrcaReference, RefusesBadInput) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    for (OrcaParams p : {OrcaParams{.radius = 0.0f}, OrcaParams{.radius = nan}, OrcaParams{.max_speed = -1.0f},
                         OrcaParams{.time_horizon = 0.0f}, OrcaParams{.neighbor_distance = inf},
                         OrcaParams{.max_neighbors = -1}, OrcaParams{.max_neighbors = kOrcaMaxNeighbors + 1}}) {
        const auto made = OrcaCrowd::create(p);
        ASSERT_FALSE(made.ok());
        EXPECT_EQ(made.error().code, ErrorCode::invalid_argument);
    }
    OrcaCrowd crowd = OrcaCrowd::create().value();
    SerialJobSystem jobs;
    EXPECT_TRUE(crowd.step(kDt, jobs).ok());  // no agents: nothing to do
    EXPECT_FALSE(crowd.add_agent({nan, 1.0f}).ok());
    EXPECT_FALSE(crowd.add_agent({1.0f, inf}).ok());
    EXPECT_EQ(crowd.size(), 0u);
    ASSERT_TRUE(crowd.add_agent({1.0f, 1.0f}).ok());
    ASSERT_TRUE(crowd.add_agent({1.0f, 1.0f}).ok());  // the same place: they must part, not turn NaN
    EXPECT_EQ(crowd.set_preferred_velocity(2, {1.0f, 0.0f}).error().code, ErrorCode::not_found);
    EXPECT_FALSE(crowd.set_preferred_velocity(0, {nan, 0.0f}).ok());
    for (float dt : {0.0f, -kDt, nan, inf, 11.0f}) EXPECT_FALSE(crowd.step(dt, jobs).ok()) << dt;
    for (int step = 0; step < 60; ++step) ASSERT_TRUE(crowd.step(kDt, jobs).ok());
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_TRUE(std::isfinite(crowd.position(i).x) && std::isfinite(crowd.position(i).y));
    }
    EXPECT_GE(distance(crowd.position(0), crowd.position(1)), 2.0f * crowd.params().radius * 0.98f);
}

TEST(OrcaReference, OverlapMeasureMatchesAllPairs) {
    SplitMix64 rng{11};
    const float r = 0.16f;
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<Vec2> pos;
        const double side = 2.0 + trial;
        for (int k = 0; k < 300; ++k)
            pos.push_back({static_cast<float>(rng.uniform() * side), static_cast<float>(rng.uniform() * side)});
        if (trial == 0) pos.push_back({1000.0f, -500.0f});  // far apart: the grid must not explode
        float deepest = 0.0f;
        std::size_t deep = 0;
        for (std::size_t i = 0; i < pos.size(); ++i)
            for (std::size_t j = i + 1; j < pos.size(); ++j) {
                const float d = distance(pos[i], pos[j]);
                if (d < 2.0f * r) deepest = std::max(deepest, (2.0f * r - d) / r);
                if (d < 1.5f * r) ++deep;
            }
        const OverlapSample s = measure_overlap(pos, r);
        EXPECT_NEAR(s.deepest, deepest, 1e-4f) << "trial " << trial;
        EXPECT_EQ(s.deep, deep) << "trial " << trial;
    }
}

}  // namespace
}  // namespace tide::bench
