// The scripted run (tide/simulation.hpp): its report against what the crowd shows, determinism
// across job systems, flee runs, detail, and refused settings.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/jobs.hpp"
#include "tide/default_map.hpp"
#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/simulation.hpp"

namespace tide {
namespace {

CostField default_cost() {
    return std::move(parse_map(default_map_text(), "<default map>").value().cost);
}

SimulationSettings settings_to(Cell goal, int agents, double seconds) {
    SimulationSettings s;
    s.targets = {goal};
    s.agents = agents;
    s.seconds = seconds;
    return s;
}

TEST(Simulation, TheReportAgreesWithTheCrowdAndEveryStep) {
    SerialJobSystem jobs;
    SimulationSettings s = settings_to({54, 18}, 150, 12.0);
    s.detail = true;
    auto created = Simulation::create(jobs, "default", default_cost(), s);
    ASSERT_TRUE(created.ok()) << created.error().message;
    Simulation& sim = **created;
    EXPECT_EQ(sim.step_count(), 720);
    int samples = 0;
    while (sim.steps_done() < sim.step_count()) {
        ASSERT_TRUE(sim.step().ok());
        samples += sim.sampled();
        if (sim.steps_done() == 90) {
            EXPECT_FALSE(sim.sampled()) << "1.5 s: between samples";
        }
    }
    EXPECT_EQ(samples, 12);
    const SimulationReport r = sim.report();
    const Crowd& crowd = sim.world().crowd();
    EXPECT_EQ(r.agents, 150u);
    EXPECT_NEAR(r.seconds, 12.0, 1e-3);
    ASSERT_EQ(r.arrived_by_second.size(), 12u);
    ASSERT_EQ(r.step_ms_by_second.size(), 12u);  // one mean step per simulated second
    for (const double ms : r.step_ms_by_second) EXPECT_GT(ms, 0.0);
    EXPECT_EQ(r.arrived_fraction, r.arrived_by_second.back());
    EXPECT_EQ(r.arrived_fraction, static_cast<double>(crowd.stats().arrived) / 150.0);
    EXPECT_GT(r.arrived_fraction, 0.4);  // measured 0.50 (the farthest units need about 22 s)
    EXPECT_EQ(r.state_hash, crowd.state_hash());
    EXPECT_EQ(r.wall_penetrations, 0u);
    EXPECT_FALSE(r.nan);
    EXPECT_FALSE(r.hierarchical);
    ASSERT_EQ(r.units.size(), 150u);
    double sum = 0.0, latest = 0.0;
    std::size_t reached = 0;
    for (std::size_t k = 0; k < r.units.size(); ++k) {
        const SimulationUnit& u = r.units[k];
        const AgentId id = sim.world().agents()[k];
        EXPECT_EQ(u.end, crowd.position(id));
        EXPECT_EQ(u.state, crowd.state(id));
        if (u.state == AgentState::arrived) {
            EXPECT_GE(u.arrival_s, 0.0) << "arrived units have a time";
        }
        if (u.arrival_s >= 0) {
            sum += u.arrival_s;
            latest = std::max(latest, u.arrival_s);
            ++reached;
        }
        // Walked at least the straight line from where it started.
        EXPECT_GE(u.path_length + 1e-3, std::hypot(u.end.x - u.start.x, u.end.y - u.start.y));
    }
    EXPECT_NEAR(r.mean_arrival_s, sum / static_cast<double>(reached), 1e-9);
    EXPECT_EQ(r.max_arrival_s, latest);
}

TEST(Simulation, RunsAreTheSameOnAnyJobSystem) {
    SerialJobSystem serial;
    test::ThreadJobs three(3);
    const SimulationSettings s = settings_to({54, 18}, 200, 5.0);
    auto a = Simulation::create(serial, "default", default_cost(), s);
    auto b = Simulation::create(three, "default", default_cost(), s);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_TRUE((*a)->run().ok());
    ASSERT_TRUE((*b)->run().ok());
    EXPECT_EQ((*a)->report().state_hash, (*b)->report().state_hash);
    EXPECT_EQ((*a)->report().arrived_by_second, (*b)->report().arrived_by_second);
    EXPECT_EQ((*b)->report().threads, 3);
}

TEST(Simulation, AFleeRunMovesAwayFromTheDanger) {
    SerialJobSystem jobs;
    SimulationSettings s = settings_to({20, 20}, 80, 10.0);
    s.flee = true;
    s.spawn = SpawnArea{16, 16, 24, 24};
    auto sim = Simulation::create(jobs, "open", CostField::create(40, 40).value(), s);
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    ASSERT_TRUE((*sim)->run().ok());
    const SimulationReport r = (*sim)->report();
    EXPECT_LT(r.danger_distance_mean_start, 5.0);
    EXPECT_GT(r.danger_distance_mean_end, r.danger_distance_mean_start + 5.0);
    EXPECT_GT(r.danger_distance_min_end, 3.0);
}

// Units of size 2: the world holds units of that size (bodies of radius 0.61), they keep out of
// the walls and apart, and reach the goal; the overlap is measured in their own radii.
TEST(Simulation, UnitsOfSize2WalkWithTheirOwnBodies) {
    SerialJobSystem jobs;
    SimulationSettings s = settings_to({54, 18}, 60, 40.0);
    s.unit_size = 2;
    auto sim = Simulation::create(jobs, "default", default_cost(), s);
    ASSERT_TRUE(sim.ok()) << sim.error().message;
    const World& world = (*sim)->world();
    ASSERT_EQ(world.agents().size(), 60u);
    for (const AgentId id : world.agents()) {
        EXPECT_EQ(world.unit_size(id), 2);
        EXPECT_NEAR(world.crowd().agent_params(id).radius, 0.61f, 1e-6f);
    }
    ASSERT_TRUE((*sim)->run().ok());
    const SimulationReport r = (*sim)->report();
    EXPECT_EQ(r.wall_penetrations, 0u);
    EXPECT_FALSE(r.nan);
    EXPECT_GE(r.arrived_fraction, 0.95);
    EXPECT_LT(r.max_overlap, 0.5);
}

// The wall penetration test the report counts, written out plainly: every one of the 3 x 3 cells
// around the centre's.
bool penetrates_every_cell(const CostField& cost, Vec2 p, float r) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return true;
    if (!cost.passable(static_cast<int>(p.x), static_cast<int>(p.y))) return true;
    for (int y = static_cast<int>(p.y) - 1; y <= static_cast<int>(p.y) + 1; ++y) {
        for (int x = static_cast<int>(p.x) - 1; x <= static_cast<int>(p.x) + 1; ++x) {
            if (cost.passable(x, y)) continue;
            const float qx = std::clamp(p.x, float(x), float(x + 1)), qy = std::clamp(p.y, float(y), float(y + 1));
            if (std::hypot(p.x - qx, p.y - qy) < r * 0.95f) return true;
        }
    }
    return false;
}

TEST(Simulation, PenetrationTestMatchesEveryCellOfTheNeighbourhood) {
    // penetrates_wall looks only at the cells within reach of the disc; it must count exactly what
    // the plain nine-cell test counts, for small and big bodies, at map edges, and on cell borders.
    auto cost = generate_random_map({48, 40, 0.35, 0.1, 0.05, 7}).value();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> ux(0.0f, 48.0f), uy(0.0f, 40.0f), frac(0.0f, 1.0f);
    int hits = 0, misses = 0;
    for (const float r : {0.05f, 0.16f, 0.3f, 0.5f, 0.61f, 1.06f}) {
        for (int i = 0; i < 20000; ++i) {
            Vec2 p{ux(rng), uy(rng)};
            // A quarter of the points sit exactly at 0.95 r from a cell border, where rounding decides.
            if (i % 4 == 0) p.x = std::floor(p.x) + (frac(rng) < 0.5f ? r * 0.95f : 1.0f - r * 0.95f);
            const bool want = penetrates_every_cell(cost, p, r);
            ASSERT_EQ(penetrates_wall(cost, p, r), want) << "at " << p.x << "," << p.y << " radius " << r;
            (want ? hits : misses) += 1;
        }
    }
    EXPECT_GT(hits, 10000);
    EXPECT_GT(misses, 10000);
    EXPECT_TRUE(penetrates_wall(cost, {std::numeric_limits<float>::quiet_NaN(), 5.0f}, 0.16f));
    EXPECT_TRUE(penetrates_wall(cost, {-0.5f, 5.0f}, 0.16f));  // off the map
}

TEST(Simulation, OverlapMeasureSkipsPositionsThatAreNotFinite) {
    // A NaN position is the report's `nan` flag; the overlap measure leaves it out and still finds
    // the pairs of the others (a dense pack, about 10 discs a cell, and one far away).
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(10.0f, 14.0f);
    std::vector<Vec2> pos;
    for (int k = 0; k < 160; ++k) pos.push_back({u(rng), u(rng)});
    pos.push_back({900.0f, 3.0f});
    const OverlapSample want = measure_overlap(pos, 0.16f);
    ASSERT_GT(want.deep, 0u);
    pos.insert(pos.begin() + 40, Vec2{std::numeric_limits<float>::quiet_NaN(), 12.0f});
    pos.push_back({11.0f, std::numeric_limits<float>::infinity()});
    const OverlapSample got = measure_overlap(pos, 0.16f);
    EXPECT_EQ(got.deep, want.deep);
    EXPECT_EQ(got.deepest, want.deepest);
    EXPECT_EQ(got.at.x, want.at.x);
    EXPECT_EQ(got.at.y, want.at.y);
}

TEST(Simulation, RefusesBadSettings) {
    SerialJobSystem jobs;
    auto run = [&](const SimulationSettings& s) { return Simulation::create(jobs, "m", default_cost(), s); };
    SimulationSettings s = settings_to({54, 18}, 10, 1.0);
    s.targets.clear();
    EXPECT_EQ(run(s).error().code, ErrorCode::invalid_argument);
    s = settings_to({54, 18}, 0, 1.0);
    EXPECT_EQ(run(s).error().code, ErrorCode::invalid_argument);
    s = settings_to({54, 18}, 10, 3600.0);
    s.dt = 1e-4;
    EXPECT_EQ(run(s).error().code, ErrorCode::too_large);
    s = settings_to({54, 18}, 10, 1.0);
    s.spawn = SpawnArea{100, 100, 200, 200};
    EXPECT_EQ(run(s).error().code, ErrorCode::off_map);
    s.spawn = SpawnArea{5, 5, 4, 9};
    EXPECT_EQ(run(s).error().code, ErrorCode::invalid_argument);
    s = settings_to({-1, 3}, 10, 1.0);
    EXPECT_EQ(run(s).error().code, ErrorCode::off_map);
    s = settings_to({54, 18}, 10, 1.0);
    for (const int size : {0, kWorldUnitSizes + 1}) {
        s.unit_size = size;
        const auto r = run(s);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("unit size " + std::to_string(size) + " is outside 1..3"), std::string::npos)
            << r.error().message;
    }
}

}  // namespace
}  // namespace tide
