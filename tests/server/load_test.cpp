// tide serve under load, on loopback: 50 clients order goals, paint and ping for 30 s while
// another client uploads a large valid map halfway through. Every client stays connected (or
// is refused with a message), the server keeps ticking at 30 Hz or more on the default map, and
// the process's memory stays bounded.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server_harness.hpp"

namespace tide::serve {
namespace {

using namespace tide::serve::test;

// Peak resident memory of this process (the server runs in it), bytes; 0 when unknown.
std::size_t peak_rss_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            std::size_t kb = 0;
            status >> kb;
            return kb * 1024;
        }
        status.ignore(1 << 12, '\n');
    }
    return 0;
}

// What one load client saw.
struct Outcome {
    int frames = 0;        // messages received
    int errors = 0;        // error replies (refused messages: flood limit, off the map after the upload)
    bool dropped = false;  // the connection ended before the test did
    std::string why;
};

// One client: every 100 ms an order to a goal, a paint stroke or a ping (ten messages a second,
// well inside the flood limits); reads everything in between.
void drive(unsigned short port, int index, const std::atomic<bool>& stop, Outcome& out) {
    Client c(port);
    int tick = 0;
    auto next = std::chrono::steady_clock::now();
    while (!stop) {
        if (std::chrono::steady_clock::now() >= next) {
            next += 100ms;
            const int x = (index * 7 + tick * 3) % 60 + 2, y = (index * 5 + tick) % 36 + 2;
            try {
                switch (tick++ % 3) {
                    case 0:
                        c.send(R"({"type":"order","goals":[[)" + std::to_string(x) + "," + std::to_string(y) +
                               R"(]],"select":[0,0,63,39]})");
                        break;
                    case 1:
                        c.send(R"({"type":"paint","x":)" + std::to_string(x) + R"(,"y":)" + std::to_string(y) +
                               R"(,"radius":1,"terrain":")" + (tick % 2 ? "forest" : "plain") + "\"}");
                        break;
                    default:
                        c.send(R"({"type":"ping","id":)" + std::to_string(tick) + "}");
                }
            } catch (const std::exception& e) {
                out.dropped = true;
                out.why = e.what();
                return;
            }
        }
        auto m = c.read(20ms);
        if (m) {
            ++out.frames;
            if (!m->binary && m->data.find(R"("type":"error")") != std::string::npos) ++out.errors;
        }
        if (c.ended) {
            out.dropped = true;
            out.why = c.ended.message();
            return;
        }
    }
}

TEST(ServerLoad, FiftyBusyClientsAndALargeUploadStayConnectedAtSpeed) {
    ServerOptions o;
    o.threads = 2;
    o.agents = 2000;
    Running s(o);
    const unsigned short port = s.server.port();
    std::atomic<bool> stop{false};
    std::vector<Outcome> outcomes(50);
    std::vector<std::thread> threads;
    for (int i = 0; i < 50; ++i) {
        threads.emplace_back([&, i] { drive(port, i, stop, outcomes[static_cast<std::size_t>(i)]); });
    }
    // 15 s on the default map: the tick rate, as the server measures it, sampled every second.
    double slowest_hz = 1e9;
    for (int second = 0; second < 15; ++second) {
        std::this_thread::sleep_for(1s);
        const double hz = state(port)["stats"]["tick_hz"].get<double>();
        if (second >= 2) slowest_hz = std::min(slowest_hz, hz);  // the first seconds fill the window
    }
    EXPECT_GE(slowest_hz, 30.0) << "tick rate on the default map with 50 busy clients";
    // Then a large valid map (2100 x 2100: planned hierarchically, sampled fields frames, terrain
    // streamed in bands) comes in while they carry on.
    std::string text = "type octile\nheight 2100\nwidth 2100\nmap\n";
    for (int y = 0; y < 2100; ++y) {
        std::string row(2100, '.');
        if (y % 50 == 25) std::fill(row.begin() + 100, row.begin() + 2000, '@');  // long walls
        text += row + "\n";
    }
    const HttpReply up = http_request(port, http::verb::post, "/api/map?name=large.map", text);
    EXPECT_EQ(up.status, 200) << up.body;
    for (int second = 0; second < 15; ++second) std::this_thread::sleep_for(1s);
    const auto st = state(port);
    EXPECT_EQ(st["map"], "large.map");
    stop = true;
    for (auto& t : threads) t.join();
    int dropped = 0;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const Outcome& r = outcomes[i];
        EXPECT_GT(r.frames, 100) << "client " << i;
        if (r.dropped) {
            ++dropped;
            ADD_FAILURE() << "client " << i << " was dropped: " << r.why;
        }
    }
    EXPECT_EQ(dropped, 0);
    EXPECT_EQ(st["stats"]["clients"], 50);
    // Bounded memory: the whole process (server, 50 clients, the 4.4 MB upload, its world and
    // sector graph) stays under 1 GiB.
    const std::size_t peak = peak_rss_bytes();
    std::printf("load: slowest tick rate %.1f Hz on the default map, peak RSS %.0f MiB\n", slowest_hz,
                static_cast<double>(peak) / (1 << 20));
    EXPECT_LT(peak, std::size_t{1} << 30);
}

// Issue 43: one client floods the server with everything it may send at the documented limits
// (A* comparisons of 256 samples, map uploads, paints, orders) while a second client measures
// its own GET /api/state round trips. Before the budgets, one client's A* comparisons at 110/s
// left /api/state unanswered for about 204 s on random256, and re-uploads queued 37 loads.
TEST(ServerLoad, AFloodFromOneClientLeavesAnotherAnsweredWithin100ms) {
    ServerOptions o;
    o.threads = 2;
    o.agents = 2000;
    o.map_path = "@random256";
    Running s(o);
    const unsigned short port = s.server.port();
    std::atomic<bool> stop{false};
    std::atomic<int> sent{0}, refused{0}, uploads_ok{0}, uploads_refused{0};
    std::mutex reasons_mutex;
    std::map<std::string, int> reasons;  // refusals by the start of their message
    // The flood: astar_compare at 110/s (under the 120/s message limit), paints at 250/s, an order
    // every 100 ms, all from one WebSocket.
    std::thread flood([&] {
        Client c(port);
        auto next = std::chrono::steady_clock::now();
        int k = 0;
        while (!stop) {
            const auto now = std::chrono::steady_clock::now();
            if (now < next) {
                if (auto m = c.read(1ms); m && !m->binary && m->data.find(R"("type":"error")") != std::string::npos) {
                    ++refused;
                    const auto j = nlohmann::json::parse(m->data, nullptr, false);
                    const std::string why = j.is_object() ? j.value("message", j.value("error", std::string())) : "";
                    std::lock_guard lock(reasons_mutex);
                    ++reasons[why.substr(0, why.find_first_of(":0123456789"))];
                }
                continue;
            }
            next += 4ms;  // 250 messages a second in all
            ++k;
            try {
                if (k % 3 == 0) {  // about 83 a second
                    c.send(R"({"type":"astar_compare","samples":256})");
                } else if (k % 25 == 1) {
                    c.send(R"({"type":"order","goals":[[)" + std::to_string(20 + k % 200) +
                           R"(,128]],"select":[0,0,255,255]})");
                } else {
                    c.send(R"({"type":"paint","x":)" + std::to_string(k % 250) + R"(,"y":)" + std::to_string(k % 199) +
                           R"(,"radius":2,"terrain":")" + (k % 2 ? "forest" : "plain") + "\"}");
                }
                ++sent;
            } catch (const std::exception&) {
                return;
            }
        }
    });
    // Uploads of a valid 1200 x 1200 map, back to back, from another connection.
    std::string text = "type octile\nheight 1200\nwidth 1200\nmap\n";
    for (int y = 0; y < 1200; ++y) text += std::string(1200, y % 40 == 20 ? '@' : '.').replace(0, 8, 8, '.') + "\n";
    std::thread uploader([&] {
        while (!stop) {
            const HttpReply r = http_request(port, http::verb::post, "/api/map?name=flood.map", text);
            (r.status == 200 ? uploads_ok : uploads_refused)++;
        }
    });
    // The second client: GET /api/state every 50 ms for 12 s, timed.
    std::this_thread::sleep_for(1s);
    std::vector<double> ms;
    const auto end = std::chrono::steady_clock::now() + 12s;
    while (std::chrono::steady_clock::now() < end) {
        const auto t0 = std::chrono::steady_clock::now();
        const HttpReply r = http_request(port, http::verb::get, "/api/state");
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        EXPECT_EQ(r.status, 200);
        std::this_thread::sleep_for(50ms);
    }
    stop = true;
    flood.join();
    uploader.join();
    ASSERT_GT(ms.size(), 20u) << "state requests answered in 12 s";
    std::sort(ms.begin(), ms.end());
    const double p50 = ms[ms.size() / 2], p95 = ms[ms.size() * 95 / 100], worst = ms.back();
    std::printf(
        "flood: %d messages sent, %d refused; uploads %d taken, %d refused; GET /api/state over %zu "
        "requests: median %.1f ms, p95 %.1f ms, worst %.1f ms\n",
        sent.load(), refused.load(), uploads_ok.load(), uploads_refused.load(), ms.size(), p50, p95, worst);
    for (const auto& [why, n] : reasons) std::printf("  refused %d x: %s\n", n, why.c_str());
    const auto last = state(port);
    std::printf("  tick rate at the end %.1f Hz\n", last["stats"]["tick_hz"].get<double>());
    EXPECT_LT(p95, 100.0) << "the 95th percentile of another client's /api/state round trip";
    EXPECT_GT(refused.load(), 0) << "the flood's excess was refused with error replies";
    EXPECT_GT(uploads_refused.load(), 0) << "back-to-back uploads were refused while one was pending";
}

}  // namespace
}  // namespace tide::serve
