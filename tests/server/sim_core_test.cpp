// The demo's simulation loop without a transport (SimCore, apps/tide/serve/sim_core.hpp), driven
// directly through a recording Outbox, as the static demo's worker drives it: a new client starts
// from the stored world messages and gets an agents and a fields frame; an order is answered to
// its client only; a bad command gets an error reply naming its type; a paint reaches the terrain;
// a map load tells everyone; commands past the tick's budget wait, in order, and one always runs.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "protocol.hpp"
#include "sim_core.hpp"
#include "tide/generate.hpp"

namespace tide::serve {
namespace {

struct Sent {
    std::uint64_t to = 0;  // 0: a broadcast
    std::string data;
    bool binary = false;
};

// Keeps everything the core sends, in order.
class RecordingOutbox final : public Outbox {
public:
    std::vector<Sent> sent;
    std::array<std::string, 5> slots;
    std::size_t connected = 1;
    int terrain_calls = 0;
    std::vector<std::uint64_t> taken_from;

    void broadcast(std::shared_ptr<const std::string> data, bool binary, bool, Slot keep) override {
        if (keep != Slot::none) slots[static_cast<std::size_t>(keep)] = *data;
        sent.push_back({0, *data, binary});
    }
    void send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) override {
        sent.push_back({session, *data, binary});
    }
    void store(Slot keep, std::shared_ptr<const std::string> data) override {
        slots[static_cast<std::size_t>(keep)] = *data;
    }
    void terrain(std::uint64_t, std::shared_ptr<const TerrainSnapshot>, int, int, int, int) override {
        ++terrain_calls;
    }
    std::size_t clients() const override { return connected; }
    void taken(std::uint64_t session) override { taken_from.push_back(session); }

    // JSON messages of `type` sent to `to` (or broadcast, to == 0).
    std::vector<nlohmann::json> json_of(const std::string& type, std::uint64_t to) const {
        std::vector<nlohmann::json> out;
        for (const Sent& s : sent) {
            if (s.binary || s.to != to) continue;
            auto j = nlohmann::json::parse(s.data);
            if (j.value("type", "") == type) out.push_back(std::move(j));
        }
        return out;
    }
    // Binary frames of kind `kind` (byte 0) sent to `to` or broadcast.
    int frames_of(std::uint8_t kind, std::uint64_t to) const {
        int n = 0;
        for (const Sent& s : sent)
            if (s.binary && (s.to == to || s.to == 0) && !s.data.empty() &&
                static_cast<std::uint8_t>(s.data[0]) == kind)
                ++n;
        return n;
    }
};

constexpr std::uint64_t kClient = 7;
constexpr float kDt = 1.0f / 60.0f;

struct CoreTest : ::testing::Test {
    SerialJobSystem jobs;
    World world{jobs};
    RecordingOutbox out;
    std::unique_ptr<SimCore> core;
    std::vector<Inbound> in;

    void SetUp() override {
        auto m = make_builtin_map("default");
        ASSERT_TRUE(m.ok());
        ASSERT_TRUE(world.load("default", std::move(m->cost), m->goals, 300).ok());
        core = std::make_unique<SimCore>(world, out, CoreOptions{});
        core->post_world_state();
        core->begin();
        in.emplace_back(kClient, SessionEvent{true});
    }
    // Parses a client message as the transports do and queues it.
    void send(const std::string& text) {
        ParsedMessage p = parse_client_message(text);
        ASSERT_TRUE(p.command.ok()) << text << ": " << p.command.error().message;
        in.emplace_back(kClient, std::move(*p.command), p.type);
    }
    // Steps `ticks` ticks 60 ms apart in wall time (frames go out at most so often).
    void run(int ticks) {
        for (int i = 0; i < ticks; ++i) {
            core->step(in, kDt);
            std::this_thread::sleep_for(std::chrono::milliseconds(60));
        }
    }
};

TEST_F(CoreTest, ANewClientGetsTheWorldAndItsFrames) {
    for (const Slot s : {Slot::world, Slot::groups, Slot::params, Slot::paused})
        EXPECT_FALSE(out.slots[static_cast<std::size_t>(s)].empty());
    const auto world_message = nlohmann::json::parse(out.slots[static_cast<std::size_t>(Slot::world)]);
    EXPECT_EQ(world_message["map"], "default");
    EXPECT_EQ(world_message["agents"], 300);
    run(3);
    EXPECT_GE(out.frames_of(1, kClient), 1) << "no agents frame";
    EXPECT_GE(out.frames_of(2, kClient), 1) << "no fields frame for the new client";
}

TEST_F(CoreTest, AnOrderIsAnsweredToItsClientAndABadCommandGetsAnError) {
    run(1);
    send(R"({"type":"order","goals":[[8,30]],"select":[32,0,63,39]})");
    send(R"({"type":"set_goals","goals":[[14,0]]})");  // a wall: refused by the world
    run(2);
    const auto ordered = out.json_of("ordered", kClient);
    ASSERT_EQ(ordered.size(), 1u);
    EXPECT_GT(ordered[0]["units"].get<int>(), 0);
    EXPECT_TRUE(out.json_of("ordered", 0).empty()) << "an order's answer went to everyone";
    const auto errors = out.json_of("error", kClient);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0]["request"], "set_goals");
    EXPECT_NE(errors[0]["message"].get<std::string>().find("wall"), std::string::npos);
    EXPECT_EQ(out.taken_from.size(), 2u);  // both commands' queue slots freed
    EXPECT_EQ(world.groups().size(), 2u);
}

TEST_F(CoreTest, APaintChangesTheTerrainAndALoadTellsEveryone) {
    run(1);
    const std::uint64_t terrain = world.terrain_version();
    send(R"({"type":"paint","x":20,"y":20,"radius":1,"terrain":"wall"})");
    run(2);
    EXPECT_GT(world.terrain_version(), terrain);
    EXPECT_EQ(world.cost().at(20, 20), kCostWall);
    const std::size_t before = out.sent.size();
    send(R"({"type":"load_map","name":"maze"})");
    run(1);
    bool world_broadcast = false;
    for (std::size_t i = before; i < out.sent.size(); ++i) {
        const Sent& s = out.sent[i];
        if (!s.binary && s.to == 0 && nlohmann::json::parse(s.data).value("type", "") == "world")
            world_broadcast = nlohmann::json::parse(s.data)["map"] == "maze";
    }
    EXPECT_TRUE(world_broadcast) << "no world message for the new map";
    EXPECT_EQ(world.name(), "maze");
}

TEST_F(CoreTest, CommandsPastTheTickBudgetWaitInOrder) {
    CoreOptions tight;
    tight.command_ms = 0.0;  // one command a tick: the first always runs
    core = std::make_unique<SimCore>(world, out, tight);
    core->begin();
    in.emplace_back(kClient, SessionEvent{true});
    for (int i = 0; i < 3; ++i) send(R"({"type":"order","goals":[[8,30]],"select":[32,0,63,39]})");
    core->step(in, kDt);
    EXPECT_EQ(out.json_of("ordered", kClient).size(), 1u);
    core->step(in, kDt);
    core->step(in, kDt);
    EXPECT_EQ(out.json_of("ordered", kClient).size(), 3u);
}

}  // namespace
}  // namespace tide::serve
