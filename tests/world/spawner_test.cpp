// Spawners and sinks (World, SpawnerSpec): emissions at the scheduled simulated times in waves,
// units sunk at the exits and counted, the same counts and state for any job system, recordings,
// refusals, towers that would seal a spawner's lane, and the tower_defense scenario.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/jobs.hpp"
#include "tide/default_map.hpp"
#include "tide/recording.hpp"
#include "tide/scenarios.hpp"
#include "tide/simulation.hpp"
#include "tide/world.hpp"

namespace tide {
namespace {

// Waves from the left edge of the default map to an exit right of the wall: two waves of four
// emissions of three units, 0.5 s apart, 2 s between the waves, from 1 s after the command.
SpawnerSpec waves_spec() {
    SpawnerSpec s;
    s.area = CellRect{0, 2, 3, 8};
    s.goals = {{40, 30}};
    s.start_s = 1.0;
    s.every_s = 0.5;
    s.per_emission = 3;
    s.wave_emissions = 4;
    s.wave_pause_s = 2.0;
    s.waves = 2;
    return s;
}

std::unique_ptr<World> default_world(JobSystem& jobs, int units = 50, bool lockstep = true) {
    WorldConfig c;
    c.lockstep = lockstep;
    auto w = std::make_unique<World>(jobs, c);
    auto m = make_builtin_map("default");
    EXPECT_TRUE(w->load("default", m->cost, m->goals, units).ok());
    return w;
}

TEST(Spawners, EmitOnScheduleInWavesAndSinkAtTheExit) {
    SerialJobSystem jobs;
    auto world = default_world(jobs);
    auto added = world->apply(AddSpawner{waves_spec()});
    ASSERT_TRUE(added.ok()) << added.error().message;
    const SpawnerId id = added->spawner;
    EXPECT_EQ(id, 1u);
    // Emissions at 1.0, 1.5, 2.0, 2.5, then 4.5, 5.0, 5.5, 6.0 s (a tick emits what is due by the
    // crowd's clock at its start): counts after each tick of 1/60 s.
    std::vector<std::uint64_t> spawned_at;
    for (int t = 0; t < 60 * 7; ++t) {
        ASSERT_TRUE(world->tick(1.0f / 60.0f).ok());
        spawned_at.push_back(world->spawners()[0].spawned);
    }
    auto at = [&](double s) { return spawned_at[static_cast<std::size_t>(s * 60.0 + 0.5) - 1]; };
    EXPECT_EQ(at(0.95), 0u);
    EXPECT_EQ(at(1.05), 3u);
    EXPECT_EQ(at(2.55), 12u);
    EXPECT_EQ(at(4.4), 12u);  // the pause between the waves
    EXPECT_EQ(at(4.55), 15u);
    EXPECT_EQ(at(6.5), 24u);
    const SpawnerInfo& s = world->spawners()[0];
    EXPECT_TRUE(s.done);
    EXPECT_EQ(s.waves_done, 2);
    EXPECT_EQ(s.emissions, 8u);
    EXPECT_EQ(s.skipped, 0u);
    ASSERT_NE(s.group, 0u);
    const UnitGroup* g = world->group(s.group);
    ASSERT_NE(g, nullptr);
    EXPECT_TRUE(g->exit);
    // Every unit walks through the gap to the exit and leaves there.
    for (int t = 0; t < 60 * 60 && world->spawners()[0].sunk < 24; ++t) ASSERT_TRUE(world->tick(1.0f / 60.0f).ok());
    EXPECT_EQ(world->spawners()[0].sunk, 24u);
    EXPECT_EQ(world->agents().size(), 50u);  // the load's units stay
    EXPECT_EQ(world->stats().exited, 24u);
}

// The state and the counts after a scripted run: the same on any job system (and threads).
std::vector<std::uint64_t> scripted(JobSystem& jobs) {
    auto world = default_world(jobs, 300);
    SpawnerSpec endless;
    endless.area = CellRect{60, 30, 63, 39};
    endless.goals = {{2, 2}};
    endless.every_s = 0.25;
    endless.per_emission = 2;
    EXPECT_TRUE(world->apply(AddSpawner{endless}).ok());
    EXPECT_TRUE(world->apply(AddSpawner{waves_spec()}).ok());
    std::vector<std::uint64_t> trail;
    for (int t = 0; t < 60 * 20; ++t) {
        if (t == 600) EXPECT_TRUE(world->apply(RemoveSpawner{1}).ok());
        if (t == 300) EXPECT_TRUE(world->apply(Paint{.x = 30, .y = 20, .radius = 2, .cost = kCostWall}).ok());
        EXPECT_TRUE(world->tick(1.0f / 60.0f).ok());
        if (t % 30 == 0) trail.push_back(world->state_hash());
    }
    for (const SpawnerInfo& s : world->spawners()) {
        trail.push_back(s.spawned);
        trail.push_back(s.sunk);
    }
    return trail;
}

TEST(Spawners, TheSameCountsAndStateOnAnyJobSystem) {
    SerialJobSystem serial;
    const auto reference = scripted(serial);
    ASSERT_GE(reference.size(), 4u);
    EXPECT_EQ(reference[reference.size() - 4], 80u);  // the endless spawner: 40 emissions of 2 in its 10 s
    EXPECT_EQ(reference[reference.size() - 2], 24u);
    EXPECT_LE(reference[reference.size() - 1], 24u);  // sunk so far (the two streams meet in the gap)
    test::ThreadPoolJobSystem pool(3);
    EXPECT_EQ(scripted(pool), reference);
    test::ManualJobSystem manual;
    EXPECT_EQ(scripted(manual), reference);
}

TEST(Spawners, ARecordingWithSpawnersReplays) {
    SerialJobSystem jobs;
    WorldConfig c;
    c.lockstep = true;
    World world(jobs, c);
    Recording rec;
    ASSERT_TRUE(world.start_recording(rec).ok());
    auto m = make_builtin_map("default");
    ASSERT_TRUE(world.load("default", m->cost, m->goals, 20).ok());
    ASSERT_TRUE(world.apply(AddSpawner{waves_spec()}).ok());
    for (int t = 0; t < 600; ++t) ASSERT_TRUE(world.tick(1.0f / 60.0f).ok());
    auto text = parse_recording(recording_text(rec), "spawners.rec");
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_EQ(recording_text(*text), recording_text(rec));
    test::ThreadPoolJobSystem pool(2);
    auto r = replay(*text, pool);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->first_mismatch, -1);
    EXPECT_EQ(r->final_hash, world.state_hash());
}

// A tower defense must not let the player seal the lane while it is empty: before the first
// emission (no unit on the map) and after, a tower over the default map's gap is refused because
// it would cut the spawner's area off from its exit; once the spawner is done and its units are
// gone, the same tower is accepted.
TEST(Spawners, TowersMayNotSealASpawnersAreaEvenWithNoUnitsOnTheMap) {
    SerialJobSystem jobs;
    auto world = default_world(jobs, 0);
    auto added = world->apply(AddSpawner{waves_spec()});
    ASSERT_TRUE(added.ok()) << added.error().message;
    const SpawnerInfo& s = world->spawners()[0];
    ASSERT_NE(s.group, 0u) << "the spawner's group is made with the spawner";
    ASSERT_NE(world->group(s.group), nullptr);
    EXPECT_TRUE(world->agents().empty());
    const PlaceTower gap{14, 18, 15, 21};
    auto check = world->check_tower(gap.x0, gap.y0, gap.x1, gap.y1);
    ASSERT_TRUE(check.ok());
    EXPECT_TRUE(check->blocks);
    EXPECT_EQ(check->units_cut_off, 0u);
    EXPECT_EQ(check->spawn_cells_cut_off, 28u);  // the 4 x 7 area
    auto refused = world->apply(gap);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("spawner's area"), std::string::npos) << refused.error().message;
    // A tower beside the lane is fine.
    EXPECT_TRUE(world->apply(PlaceTower{30, 2, 31, 4}).ok());
    // The group stays while the spawner has emissions left, with no units between its waves.
    for (int t = 0; t < 60 * 60 && !(world->spawners()[0].done && world->agents().empty()); ++t) {
        ASSERT_TRUE(world->tick(1.0f / 60.0f).ok());
        if (!world->spawners()[0].done) ASSERT_NE(world->group(world->spawners()[0].group), nullptr);
    }
    EXPECT_EQ(world->spawners()[0].sunk, 24u);
    ASSERT_TRUE(world->agents().empty());
    check = world->check_tower(gap.x0, gap.y0, gap.x1, gap.y1);
    ASSERT_TRUE(check.ok());
    EXPECT_EQ(check->spawn_cells_cut_off, 0u) << "a done spawner holds no lane";
    EXPECT_TRUE(world->apply(gap).ok());
}

// The tower_defense scenario as `tide sim --scenario tower_defense` runs it: every unit of the six
// waves gets through the two lines of towers, the tower that would seal each line is refused, no
// unit enters a wall, and in lockstep (`tide sim --lockstep`) the counts and the world's state
// are the same on one thread and three.
TEST(Spawners, TheTowerDefenseScenarioLetsEveryWaveThroughOnAnyJobSystem) {
    auto scenario = make_scenario("tower_defense");
    ASSERT_TRUE(scenario.ok());
    auto run = [&](JobSystem& jobs) {
        SimulationSettings settings;
        settings.seconds = 0.0;  // the scenario's own 120 s
        settings.world.lockstep = true;
        auto sim = Simulation::create(jobs, *scenario, settings);
        EXPECT_TRUE(sim.ok()) << sim.error().message;
        EXPECT_TRUE((*sim)->run().ok());
        return (*sim)->report();
    };
    SerialJobSystem serial;
    const SimulationReport a = run(serial);
    ASSERT_EQ(a.spawners.size(), 1u);
    EXPECT_EQ(a.spawners[0].spawned, 240u);
    EXPECT_EQ(a.spawners[0].skipped, 0u);
    EXPECT_EQ(a.spawners[0].sunk, 240u);
    EXPECT_EQ(a.spawners[0].waves_done, 6);
    EXPECT_EQ(a.refused, 2u);
    EXPECT_EQ(a.agents, 240u);
    EXPECT_EQ(a.exited, 240u);
    EXPECT_EQ(a.wall_penetrations, 0u);
    test::ThreadPoolJobSystem pool(3);
    const SimulationReport b = run(pool);
    EXPECT_EQ(b.spawners[0].sunk, 240u);
    EXPECT_EQ(b.world_hash, a.world_hash);
    EXPECT_EQ(b.empty_s, a.empty_s);
}

TEST(Spawners, NoRoomIsCountedAndBadSpecsAreRefused) {
    SerialJobSystem jobs;
    auto world = default_world(jobs);
    SpawnerSpec tight;
    tight.area = CellRect{0, 0, 0, 0};  // one cell: room for kMaxUnitsPerFreeCell units
    tight.goals = {{5, 5}};
    tight.exit = false;
    tight.per_emission = kMaxUnitsPerFreeCell + 1;
    ASSERT_TRUE(world->apply(AddSpawner{tight}).ok());
    ASSERT_TRUE(world->tick(1.0f / 60.0f).ok());
    EXPECT_EQ(world->spawners()[0].spawned, 0u);
    EXPECT_EQ(world->spawners()[0].skipped, static_cast<std::uint64_t>(kMaxUnitsPerFreeCell + 1));

    auto refused = [&](SpawnerSpec s, const std::string& what) {
        auto r = world->apply(AddSpawner{s});
        ASSERT_FALSE(r.ok()) << what;
        EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
    };
    SpawnerSpec s = waves_spec();
    s.area = CellRect{70, 0, 80, 5};
    refused(s, "off the 64x40 map");
    s = waves_spec();
    s.every_s = 0.0;
    refused(s, "every_s");
    s = waves_spec();
    s.wave_emissions = 0;
    refused(s, "waves need wave_emissions");
    s = waves_spec();
    s.per_emission = kMaxSpawnPerEmission + 1;
    refused(s, "per_emission");
    s = waves_spec();
    s.goals = {{14, 0}};
    refused(s, "wall");
    s = waves_spec();
    s.size = 4;
    refused(s, "size 4");
    EXPECT_EQ(world->apply(RemoveSpawner{99}).error().code, ErrorCode::not_found);
    EXPECT_EQ(world->spawners().size(), 1u);
}

}  // namespace
}  // namespace tide
