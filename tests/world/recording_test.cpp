// Lockstep tools (include/tide/recording.hpp): lockstep worlds agree on any job system without
// the host waiting for builds, a recording replays to the same hash at every tick, and the
// differences between two runs are found at the right tick, group and unit.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../support/jobs.hpp"
#include "tide/default_map.hpp"
#include "tide/recording.hpp"
#include "tide/world.hpp"

namespace tide {
namespace {

// The host's side of a demo session on the default map (congestion on): a box order through the
// gap, a wall painted, one tower refused (on a goal) and one placed, a goal change, line of sight
// toggled, units removed and added. Returns World::state_hash() after every tick.
std::vector<std::uint64_t> demo_session(World& world, int ticks = 240) {
    auto m = make_builtin_map("default");
    EXPECT_TRUE(m.ok());
    EXPECT_TRUE(world.load("default", m->cost, m->goals, 600).ok());
    std::vector<std::uint64_t> trail;
    for (int t = 0; t < ticks; ++t) {
        switch (t) {
            case 20:
                EXPECT_TRUE(world.apply(Order{.select = SelectBox{16, 0, 64, 40}, .goals = {{12, 19}}}).ok());
                break;
            case 50:
                EXPECT_TRUE(world.apply(Paint{.x = 40, .y = 30, .radius = 2, .cost = kCostWall}).ok());
                break;
            case 70:
                EXPECT_FALSE(world.apply(PlaceTower{11, 18, 13, 20}).ok());  // covers the order's goal
                // The first 2x2 tower along row 3 that cuts nobody off (a unit under it counts as cut off).
                for (int x = 18; x < 60; x += 3) {
                    auto check = world.check_tower(x, 3, x + 1, 4);
                    if (check.ok() && !check->blocks) {
                        EXPECT_TRUE(world.apply(PlaceTower{x, 3, x + 1, 4}).ok());
                        break;
                    }
                }
                break;
            case 100:
                EXPECT_TRUE(world.apply(SetGoals{.goals = {{5, 5}}, .group = 2}).ok());
                break;
            case 120:
                world.set_line_of_sight(false);
                break;
            case 140:
                EXPECT_TRUE(world.apply(RemoveUnits{SelectBox{0, 0, 10, 10}}).ok());
                break;
            case 160:
                EXPECT_TRUE(world.apply(Spawn{.count = 50, .add = true}).ok());
                break;
            case 200:
                EXPECT_TRUE(world.apply(Paint{.x = 30, .y = 8, .radius = 3, .cost = 6}).ok());
                break;
            default:
                break;
        }
        EXPECT_TRUE(world.tick(1.0f / 60.0f).ok());
        trail.push_back(world.state_hash());
    }
    return trail;
}

WorldConfig lockstep_config(bool lockstep = true) {
    WorldConfig c;
    c.congestion.enabled = true;
    c.lockstep = lockstep;
    return c;
}

TEST(Lockstep, WorldsAgreeOnAnyJobSystemWithoutTheHostWaiting) {
    SerialJobSystem serial;
    World a(serial, lockstep_config());
    const auto reference = demo_session(a);
    test::ThreadPoolJobSystem pool(3);
    World b(pool, lockstep_config());
    EXPECT_EQ(demo_session(b), reference);
    test::ManualJobSystem manual;  // builds run only when the world waits for them
    World c(manual, lockstep_config());
    EXPECT_EQ(demo_session(c), reference);
}

TEST(Lockstep, WithoutItFieldsGoOutWhenTheThreadsHaveBuiltThem) {
    // The check above can fail: the same session off lockstep, with builds that only run when
    // someone waits, publishes the order's field later and parts from the lockstep run.
    SerialJobSystem serial;
    World a(serial, lockstep_config());
    test::ManualJobSystem manual;
    World b(manual, lockstep_config(false));
    EXPECT_NE(demo_session(b), demo_session(a));
}

TEST(Recording, ReplayGivesTheSameHashAtEveryTickOnOtherJobSystems) {
    test::ThreadPoolJobSystem pool(2);
    World world(pool, lockstep_config());
    Recording rec;
    ASSERT_TRUE(world.start_recording(rec).ok());
    const auto trail = demo_session(world);
    world.finish_builds();
    const std::string text = recording_text(rec);
    auto parsed = parse_recording(text, "demo.rec");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(recording_text(*parsed), text);

    std::vector<std::uint64_t> recorded;
    for (const RecordedEvent& e : parsed->events) {
        if (const auto* t = std::get_if<RecordedTick>(&e)) recorded.push_back(t->hash);
    }
    EXPECT_EQ(recorded, trail);
    SerialJobSystem serial;
    test::ThreadPoolJobSystem pool3(3);
    for (JobSystem* jobs : std::initializer_list<JobSystem*>{&serial, &pool3}) {
        auto r = replay(*parsed, *jobs, {.snapshot = true});
        ASSERT_TRUE(r.ok()) << r.error().message;
        EXPECT_EQ(r->ticks, trail.size());
        EXPECT_EQ(r->first_mismatch, -1);
        EXPECT_EQ(r->final_hash, trail.back());
        ASSERT_TRUE(r->last.has_value());
        const Desync d = first_difference(*r->last, snapshot(world, trail.size()));
        EXPECT_FALSE(d.found) << d.what;
    }
}

TEST(Recording, ReplayNamesTheFirstTickThatDiffers) {
    SerialJobSystem jobs;
    World world(jobs, lockstep_config());
    Recording rec;
    ASSERT_TRUE(world.start_recording(rec).ok());
    demo_session(world, 120);
    // A recorded hash changed: the replay names that tick.
    Recording tampered = rec;
    int ticks = 0;
    for (RecordedEvent& e : tampered.events) {
        if (auto* t = std::get_if<RecordedTick>(&e); t && ++ticks == 77) t->hash ^= 1;
    }
    auto r = replay(tampered, jobs, {.stop_at_mismatch = true});
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->first_mismatch, 77);
    EXPECT_EQ(r->ticks, 77u);
    const Desync d = first_difference(rec, tampered);
    EXPECT_TRUE(d.found);
    EXPECT_EQ(d.tick, 77);
    EXPECT_NE(d.what.find("tick 77"), std::string::npos) << d.what;

    // A command changed (the wall painted one cell over): the first tick after it differs.
    tampered = rec;
    ticks = 0;
    int paint_tick = -1;
    for (RecordedEvent& e : tampered.events) {
        if (std::holds_alternative<RecordedTick>(e)) ++ticks;
        auto* c = std::get_if<RecordedCommand>(&e);
        if (auto* p = c ? std::get_if<Paint>(&c->command) : nullptr; p && paint_tick < 0) {
            p->x += 1;
            paint_tick = ticks;
        }
    }
    ASSERT_EQ(paint_tick, 50);
    r = replay(tampered, jobs);
    ASSERT_TRUE(r.ok());
    // The wall moved under units shows at once; else through the fields within a second.
    EXPECT_GT(r->first_mismatch, paint_tick);
    EXPECT_LE(r->first_mismatch, paint_tick + 60);
    const Desync e = first_difference(rec, tampered);
    EXPECT_NE(e.what.find("paint 40 30 2 255"), std::string::npos) << e.what;

    // A command the recording says was refused but is accepted now.
    tampered = rec;
    for (RecordedEvent& ev : tampered.events) {
        if (auto* c = std::get_if<RecordedCommand>(&ev); c && std::holds_alternative<Order>(c->command)) {
            c->refused = true;
        }
    }
    r = replay(tampered, jobs);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("refused when recorded, accepted on replay"), std::string::npos)
        << r.error().message;
}

TEST(Recording, SnapshotsNameTheFirstUnitThatDiffers) {
    SerialJobSystem jobs;
    World world(jobs, lockstep_config());
    demo_session(world, 90);
    const WorldSnapshot a = snapshot(world, 90);
    auto parsed = parse_snapshot(snapshot_text(a), "a.state");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->units, a.units);
    EXPECT_EQ(parsed->groups, a.groups);
    EXPECT_EQ(parsed->state_hash, a.state_hash);
    EXPECT_FALSE(first_difference(a, *parsed).found);

    WorldSnapshot b = a;
    UnitSnapshot& u = b.units[37];
    u.position.x = std::nextafter(u.position.x, 1e9f);
    const Desync d = first_difference(a, b);
    ASSERT_TRUE(d.found);
    EXPECT_EQ(d.tick, 90);
    const std::string name = "unit " + std::to_string(u.id.index) + ":" + std::to_string(u.id.generation);
    EXPECT_NE(d.what.find(name), std::string::npos) << d.what;
    EXPECT_NE(d.what.find("1 ulp apart"), std::string::npos) << d.what;

    b = a;
    b.groups.back().field_hash ^= 4;
    EXPECT_NE(first_difference(a, b).what.find("group " + std::to_string(a.groups.back().id) + ": field"),
              std::string::npos);
}

TEST(Recording, EveryCommandKindRoundTrips) {
    Recording rec;
    rec.config.seed = 99;
    rec.config.crowd.radius = 0.3f;
    rec.config.flee.factor = 1.7;
    RecordedLoad load{"two words", CostField::create(5, 3).value(), {{1, 1}, {3, 2}}, 4, CellRect{0, 0, 2, 1}};
    load.cost.set(2, 1, kCostWall);
    load.cost.set(4, 2, 17);
    rec.events.emplace_back(std::move(load));
    const std::vector<WorldCommand> commands{
        SetGoals{{{1, 2}}, 3, true, false},
        Order{std::vector<AgentId>{{4, 1}, {7, 0}}, {{0, 0}, {2, 2}}, false, true},
        Order{SelectBox{0.25f, 1.0f / 3.0f, 4.5f, 3.0f}, {{1, 1}}},
        Paint{1, 2, 3, 6},
        Spawn{10, true, 0, 1, 2, 3, 2, true},
        SetUnitParams{{2.5f, 0.1f, 0.2f}},
        SetPaused{true},
        PlaceTower{1, 1, 2, 2},
        SetWallMargin{{2, 5}},
        SetCongestion{{true, 3.0f, 0.5f, 0.2f, 0.5f, 7.0f, 2, 40}},
        RemoveUnits{std::vector<AgentId>{}},
    };
    for (const WorldCommand& c : commands) rec.events.emplace_back(RecordedCommand{c, false});
    rec.events.emplace_back(RecordedCommand{Paint{9, 9, 1, 1}, true});
    rec.events.emplace_back(RecordedTick{1.0f / 60.0f, true, 0x0123456789abcdefull});
    rec.events.emplace_back(RecordedFinish{});
    rec.events.emplace_back(RecordedLineOfSight{false});
    const std::string text = recording_text(rec);
    auto back = parse_recording(text, "all.rec");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->events.size(), rec.events.size());
    EXPECT_EQ(recording_text(*back), text);
    EXPECT_EQ(back->config.seed, 99u);
    EXPECT_EQ(back->config.crowd.radius, 0.3f);
    EXPECT_EQ(back->config.flee.factor, 1.7);
    const auto& l = std::get<RecordedLoad>(back->events.front());
    EXPECT_EQ(l.name, "two words");
    EXPECT_EQ(l.cost.at(2, 1), kCostWall);
    EXPECT_EQ(l.cost.at(4, 2), 17);
    EXPECT_EQ(std::get<RecordedTick>(back->events[13]).dt, 1.0f / 60.0f);
}

TEST(Recording, BadInputIsRefusedWithItsLine) {
    auto expect_error = [](std::string text, const std::string& what) {
        auto r = parse_recording(text, "bad.rec");
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
    };
    expect_error("tide-map 1\n", "bad.rec:1: not a recording");
    expect_error("tide-recording 1\nset crowd.nope 1\n", "bad.rec:2: unknown setting");
    expect_error("tide-recording 1\nset seed x\n", "bad.rec:2: bad value 'x' for seed");
    expect_error("tide-recording 1\ntick 1p-6 0\n", "bad.rec:2: expected 'tick DT FORCE HASH'");
    expect_error("tide-recording 1\ncommand 0 paint 1 2\n", "bad.rec:2: malformed command");
    expect_error("tide-recording 1\nload 4 1,1 -\nname m\nmap 2 2\n1*3\nend\n",
                 "bad.rec:6: the map holds 3 costs, not 4");
    expect_error("tide-recording 1\nload 4 1,1 -\nname m\nmap 2 2\n1*5\nend\n", "bad.rec:5: the costs run past");
    expect_error("tide-recording 1\nload 4 1,1 -\nname m\nmap 2 2\n0*4\nend\n", "bad.rec:5: '0*4' is not COST");
    expect_error("tide-recording 1\nhello\n", "bad.rec:2: unknown line 'hello'");
    EXPECT_FALSE(parse_snapshot("tide-snapshot 1\nunit 1 2\n", "s").ok());

    SerialJobSystem jobs;
    World plain(jobs);
    Recording rec;
    EXPECT_NE(plain.start_recording(rec).error().message.find("lockstep"), std::string::npos);
    World loaded(jobs, lockstep_config());
    auto m = make_builtin_map("default");
    ASSERT_TRUE(loaded.load("default", m->cost, m->goals, 10).ok());
    EXPECT_NE(loaded.start_recording(rec).error().message.find("before the first load"), std::string::npos);
    EXPECT_FALSE(replay(Recording{}, jobs).ok());
}

}  // namespace
}  // namespace tide
