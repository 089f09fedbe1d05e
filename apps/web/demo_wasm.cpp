// The static demo's simulation (`make web`, docs/web.md): tide serve's own loop (SimCore,
// apps/tide/serve/sim_core.hpp) and protocol (protocol.hpp) compiled to WebAssembly, driven by
// web/worker.js in a Web Worker. The page talks to it with the messages it sends `tide serve`
// (docs/protocol.md); what the core sends waits in a queue the worker drains after each call.
// One client (session 1); a job system that runs on the calling thread (no threads in the
// browser build).
//
// The C functions (tide_demo_*) are the worker's whole interface; every one is exported.

#include <emscripten/emscripten.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "protocol.hpp"
#include "sim_core.hpp"
#include "tide/generate.hpp"
#include "tide/jobs.hpp"
#include "tide/limits.hpp"
#include "tide/map_io.hpp"
#include "tide/world.hpp"

namespace {

using namespace tide;
using namespace tide::serve;

constexpr std::uint64_t kSession = 1;

// What the core sends, queued for the worker: each message once, in order. An agents frame still
// queued is replaced by a newer one (latest wins, as on the server).
class WorkerOutbox final : public Outbox {
public:
    struct Message {
        std::shared_ptr<const std::string> data;
        bool binary = false;
        bool agents = false;
    };
    std::vector<Message> queue;
    std::array<std::shared_ptr<const std::string>, 5> last{};  // by Slot
    bool connected = false;

    void broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents, Slot keep) override {
        if (keep != Slot::none) last[static_cast<std::size_t>(keep)] = data;
        if (!connected) return;
        if (agents) {
            for (Message& m : queue) {
                if (m.agents) {
                    m.data = std::move(data);
                    return;
                }
            }
        }
        queue.push_back({std::move(data), binary, agents});
    }
    void send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) override {
        if (session == kSession && connected) queue.push_back({std::move(data), binary, false});
    }
    void store(Slot keep, std::shared_ptr<const std::string> data) override {
        last[static_cast<std::size_t>(keep)] = std::move(data);
    }
    // The changed rows go at once, in bands of at most kMaxTerrainFrameBytes (no network to pace).
    void terrain(std::uint64_t, std::shared_ptr<const TerrainSnapshot> s, int x0, int y0, int x1, int y1) override {
        if (!s || !connected) return;
        x0 = std::max(x0, 0), y0 = std::max(y0, 0);
        x1 = std::min(x1, s->width - 1), y1 = std::min(y1, s->height - 1);
        if (x1 < x0 || y1 < y0) return;
        const int w = x1 - x0 + 1;
        const int rows = std::max(1, static_cast<int>(kMaxTerrainFrameBytes / static_cast<std::size_t>(w)));
        for (int y = y0; y <= y1; y += rows) {
            const int h = std::min(rows, y1 - y + 1);
            queue.push_back(
                {std::make_shared<const std::string>(encode_terrain(s->cells, s->width, s->height, x0, y, w, h)), true,
                 false});
        }
    }
    std::size_t clients() const override { return connected ? 1 : 0; }
    void log(const std::string& line) override { std::printf("tide demo: %s\n", line.c_str()); }
};

struct Demo {
    SerialJobSystem jobs;
    std::unique_ptr<World> world;
    WorkerOutbox out;
    std::unique_ptr<SimCore> core;
    std::vector<Inbound> inbox;
    std::string error;  // the last call's error message
    std::string text;   // tide_demo_tmap()'s answer
};

Demo* g_demo = nullptr;  // the worker's one demo (a Web Worker runs one module instance)

void queue_text(std::string s) {
    g_demo->out.queue.push_back({std::make_shared<const std::string>(std::move(s)), false, false});
}

}  // namespace

extern "C" {

/// Starts the demo on built-in map `map` ("default", "maze", ...) with `units` units, and
/// connects the page: the world messages it starts from are queued. 0, or -1 (tide_demo_error()).
EMSCRIPTEN_KEEPALIVE int tide_demo_start(const char* map, int units) {
    delete g_demo;
    g_demo = new Demo;
    Demo& d = *g_demo;
    auto m = make_builtin_map(map);
    if (!m) {
        d.error = m.error().message;
        return -1;
    }
    if (units < 0 || units > kMaxAgents) {
        d.error = "units " + std::to_string(units) + " outside 0.." + std::to_string(kMaxAgents);
        return -1;
    }
    WorldConfig config;
    config.congestion.enabled = static_cast<std::int64_t>(m->cost.size()) <= CoreOptions{}.congestion_cells;
    d.world = std::make_unique<World>(d.jobs, config);
    const auto t0 = Clock::now();
    if (auto r = d.world->load(map, std::move(m->cost), std::move(m->goals), units, m->spawn_area); !r) {
        d.error = r.error().message;
        return -1;
    }
    d.out.log(std::string("loaded map ") + map + load_note(t0, *d.world));
    CoreOptions options;
    // One client and no network: A* comparisons may plan every unit (seed 002's 5,000), and a
    // tick may spend longer on commands than a server shared by many would allow.
    options.compare_search_ms = 20000.0;
    options.command_ms = 30.0;
    options.client_burst_ms = 1e9;
    d.core = std::make_unique<SimCore>(*d.world, d.out, options);
    d.core->post_world_state();
    d.out.connected = true;
    for (const auto& m2 : d.out.last)
        if (m2) d.out.queue.push_back({m2, false, false});
    d.inbox.emplace_back(kSession, SessionEvent{true});
    d.core->begin();
    return 0;
}

/// One client text message (JSON, docs/protocol.md): applied at the next tide_demo_step(); a
/// ping is answered at once; a malformed message gets its error reply at once.
EMSCRIPTEN_KEEPALIVE void tide_demo_message(const char* json, std::size_t size) {
    if (!g_demo) return;
    const std::string_view text(json, size);
    if (text.size() > kMaxMessageBytes) {
        queue_text(error_json("message over " + std::to_string(kMaxMessageBytes) + " bytes refused", ""));
        return;
    }
    ParsedMessage parsed = parse_client_message(text);
    if (!parsed.command) {
        queue_text(error_json(parsed.command.error().message, parsed.type));
        return;
    }
    const auto* viewer = std::get_if<ViewerCommand>(&*parsed.command);
    if (const auto* ping = viewer ? std::get_if<Ping>(viewer) : nullptr) {
        queue_text(pong_json(ping->id));
        return;
    }
    g_demo->inbox.emplace_back(kSession, std::move(*parsed.command), parsed.type);
}

/// A map file the user picked (.map or .tmap text, `name` its file name): loaded at the next
/// step. 0, or -1 with the error naming the file and line (tide_demo_error()).
EMSCRIPTEN_KEEPALIVE int tide_demo_upload(const char* name, const char* body, std::size_t size) {
    if (!g_demo) return -1;
    auto map = parse_map_upload(std::string_view(body, size), name);
    if (!map) {
        g_demo->error = map.error().message;
        return -1;
    }
    g_demo->inbox.emplace_back(0, LoadParsed{map->name, std::make_shared<CostField>(std::move(map->cost))});
    return 0;
}

/// One tick of `dt` seconds: the messages since the last, the step, the frames queued.
EMSCRIPTEN_KEEPALIVE void tide_demo_step(float dt) {
    if (g_demo) g_demo->core->step(g_demo->inbox, dt);
}

/// Messages queued for the page since the last tide_demo_clear().
EMSCRIPTEN_KEEPALIVE int tide_demo_count() {
    return g_demo ? static_cast<int>(g_demo->out.queue.size()) : 0;
}
/// Message i's bytes, size and kind (1 binary frame, 0 JSON text).
EMSCRIPTEN_KEEPALIVE const char* tide_demo_data(int i) {
    return g_demo->out.queue[static_cast<std::size_t>(i)].data->data();
}
EMSCRIPTEN_KEEPALIVE std::size_t tide_demo_size(int i) {
    return g_demo->out.queue[static_cast<std::size_t>(i)].data->size();
}
EMSCRIPTEN_KEEPALIVE int tide_demo_binary(int i) {
    return g_demo->out.queue[static_cast<std::size_t>(i)].binary ? 1 : 0;
}
/// Drops the queued messages (the worker has copied them out).
EMSCRIPTEN_KEEPALIVE void tide_demo_clear() {
    if (g_demo) g_demo->out.queue.clear();
}

/// The current map as a .tmap (first line its download name), or null (tide_demo_error()).
EMSCRIPTEN_KEEPALIVE const char* tide_demo_tmap() {
    if (!g_demo) return nullptr;
    auto text = format_tide_map(g_demo->world->cost());
    if (!text) {
        g_demo->error = text.error().message;
        return nullptr;
    }
    g_demo->text = tmap_file_name(g_demo->world->name()) + "\n" + *text;
    return g_demo->text.c_str();
}

/// The last failed call's message.
EMSCRIPTEN_KEEPALIVE const char* tide_demo_error() {
    return g_demo ? g_demo->error.c_str() : "the demo is not started";
}

}  // extern "C"
