// tide serve over real sockets on loopback: refused messages get error replies, floods are cut,
// oversized frames close only their own connection, 50 clients at once, clients dropping
// mid-stream, the HTTP API, and a clean shutdown.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "protocol.hpp"
#include "server_harness.hpp"
#include "tide/recording.hpp"
#include "tide/scenarios.hpp"

namespace tide::serve {
namespace {

using namespace tide::serve::test;

TEST(Server, NewClientGetsTheWorldTheFieldsAndAgentFrames) {
    Running s;
    Client c(s.server.port());
    const auto world = c.wait_json("world");
    ASSERT_FALSE(world.empty());
    EXPECT_EQ(world["map"], "default");
    EXPECT_EQ(world["width"], 64);
    EXPECT_EQ(world["agents"], 300);
    EXPECT_TRUE(c.wait_frame(2));
    EXPECT_TRUE(c.wait_frame(1));
    EXPECT_FALSE(c.wait_json("stats").empty());
}

TEST(Server, EveryRefusedMessageGetsAnErrorReply) {
    Running s;
    Client c(s.server.port());
    ASSERT_FALSE(c.wait_json("world").empty());
    const std::pair<std::string, std::string> cases[] = {
        {"not json", "not valid JSON"},
        {R"({"type":"explode"})", "unknown message type"},
        {R"({"type":"spawn","count":1000000})", "outside 0..200000"},
        {R"({"type":"set_goals","goals":[[500,5]]})", "outside the 64x40 map"},
        {R"({"type":"set_goals","goals":[[14,3]]})", "on a wall"},
        {R"({"type":"paint","x":64,"y":0,"radius":0,"terrain":"wall"})", "outside the 64x40 map"},
        {R"({"type":"params","radius":2})", "'radius'"},
        {R"({"type":"ping","id":1,"pad":")" + std::string(100 * 1024, 'x') + "\"}", "65536-byte limit"},
    };
    for (const auto& [msg, expected] : cases) {
        c.send(msg);
        const auto e = c.wait_json("error");
        ASSERT_FALSE(e.empty()) << msg.substr(0, 60);
        EXPECT_NE(e["message"].get<std::string>().find(expected), std::string::npos)
            << msg.substr(0, 60) << " -> " << e["message"];
    }
    // A binary message is refused too.
    c.ws.binary(true);
    c.ws.write(net::buffer(std::string("\x01\x02", 2)));
    EXPECT_NE(c.wait_json("error")["message"].get<std::string>().find("binary"), std::string::npos);
    // Nothing changed, and the connection still works.
    const auto st = state(s.server.port());
    EXPECT_EQ(st["goals"], nlohmann::json::parse("[[54,18]]"));
    EXPECT_EQ(st["stats"]["agents"], 300);
    c.send(R"({"type":"ping","id":42})");
    EXPECT_EQ(c.wait_json("pong")["id"], 42);
}

TEST(Server, AGiantMessageClosesOnlyItsOwnConnection) {
    Running s;
    Client bad(s.server.port()), good(s.server.port());
    ASSERT_FALSE(good.wait_json("world").empty());
    // 2 MiB: over the hard message limit. The server fails the connection as soon as the limit
    // is passed and closes its socket with the rest of the message unread, so the write may
    // itself end on the reset (a broken pipe) before all of it is sent.
    const std::string giant(2 << 20, ' ');
    beast::error_code sent;
    bad.ws.text(true);
    bad.ws.write(net::buffer(giant), sent);
    EXPECT_TRUE(!sent || sent == net::error::broken_pipe || sent == net::error::connection_reset) << sent.message();
    if (sent) bad.ended = sent;  // the reset already ended the connection
    EXPECT_TRUE(bad.wait_closed(10000ms)) << bad.why_open();
    if (bad.close_code() != websocket::close_code::none) {  // a close frame came before the reset
        EXPECT_EQ(bad.close_code(), websocket::close_code::too_big);
    }
    good.send(R"({"type":"ping","id":7})");
    EXPECT_EQ(good.wait_json("pong")["id"], 7);
    Client again(s.server.port());
    EXPECT_FALSE(again.wait_json("world").empty());
}

TEST(Server, PaintFloodIsCutAndOthersAreUnaffected) {
    Running s;
    Client flood(s.server.port()), other(s.server.port());
    ASSERT_FALSE(flood.wait_json("world").empty());
    for (int i = 0; i < 500; ++i) flood.send(R"({"type":"paint","x":30,"y":30,"radius":0,"terrain":"plain"})");
    int refused = 0;
    for (auto e = flood.wait_json("error", 1000ms); !e.empty(); e = flood.wait_json("error", 1000ms)) {
        if (e["message"].get<std::string>().find("too many paint messages") != std::string::npos) ++refused;
    }
    EXPECT_GE(refused, 150);  // at most 300 of the 500 fit in one second
    other.send(R"({"type":"ping","id":3})");
    EXPECT_EQ(other.wait_json("pong")["id"], 3);
}

TEST(Server, FiftyClientsAtOnceAndHalfDropMidStream) {
    Running s;
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < 50; ++i) clients.push_back(std::make_unique<Client>(s.server.port()));
    for (auto& c : clients) ASSERT_TRUE(c->wait_frame(1, 5000ms));
    // Half vanish without a close handshake, some in the middle of reading a frame.
    for (int i = 0; i < 25; ++i) {
        beast::error_code ec;
        beast::get_lowest_layer(clients[i]->ws).socket().shutdown(tcp::socket::shutdown_both, ec);
        beast::get_lowest_layer(clients[i]->ws).socket().close(ec);
    }
    for (int i = 25; i < 50; ++i) {
        for (int k = 0; k < 3; ++k) ASSERT_TRUE(clients[i]->wait_frame(1, 5000ms)) << "client " << i;
    }
    std::size_t n = 0;
    for (int tries = 0; tries < 50; ++tries) {
        n = state(s.server.port())["stats"]["clients"];
        if (n == 25) break;
        for (int i = 25; i < 50; ++i) clients[i]->read(20ms);  // keep the others reading
    }
    EXPECT_EQ(n, 25u);
}

TEST(Server, HttpApiAndMapUpload) {
    Running s;
    const unsigned short port = s.server.port();
    EXPECT_EQ(state(port)["map"], "default");
    const HttpReply agents = http_request(port, http::verb::get, "/api/agents?limit=5");
    ASSERT_EQ(agents.status, 200);
    EXPECT_EQ(nlohmann::json::parse(agents.body)["x"].size(), 5u);
    EXPECT_EQ(http_request(port, http::verb::get, "/api/agents?limit=abc").status, 400);
    EXPECT_EQ(http_request(port, http::verb::get, "/nothing-here.js").status, 404);
    EXPECT_EQ(http_request(port, http::verb::get, "/../CMakeLists.txt").status, 404);
    const HttpReply page = http_request(port, http::verb::get, "/");
    EXPECT_EQ(page.status, 200);
    EXPECT_NE(page.body.find("<html"), std::string::npos);

    const HttpReply bad = http_request(port, http::verb::post, "/api/map?name=broken.map",
                                       "type octile\nheight 2\nwidth 3\nmap\n...\n..\n");
    EXPECT_EQ(bad.status, 400);
    EXPECT_NE(nlohmann::json::parse(bad.body)["error"].get<std::string>().find("broken.map:"), std::string::npos);
    EXPECT_EQ(state(port)["map"], "default");

    const HttpReply good = http_request(port, http::verb::post, "/api/map?name=tiny.map",
                                        "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n");
    EXPECT_EQ(good.status, 200);
    nlohmann::json st;
    for (int i = 0; i < 100; ++i) {
        st = state(port);
        if (st["map"] == "tiny.map") break;
    }
    EXPECT_EQ(st["map"], "tiny.map");
    EXPECT_EQ(st["width"], 4);
}

template <class T>
T read_at(const std::string& s, std::size_t offset) {
    T v{};
    std::memcpy(&v, s.data() + offset, sizeof v);
    return v;
}

TEST(Server, UploadedMapNamesReachTheStateCleaned) {
    Running s;
    const unsigned short port = s.server.port();
    const HttpReply r = http_request(port, http::verb::post, "/api/map?name=ev%01il%0A%1B%5B31m.map",
                                     "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n");
    EXPECT_EQ(r.status, 200) << r.body;
    nlohmann::json st;
    for (int i = 0; i < 100; ++i) {
        st = state(port);
        if (st["map"] != "default") break;
        std::this_thread::sleep_for(20ms);
    }
    EXPECT_EQ(st["map"], "ev_il__[31m.map");
}

// Reads terrain frames (type 6) of a width x height map until every row has come whole, checking
// each frame's size against the limit; the cost of cell `probe` is put in `probe_cost`. False
// when the rows did not all come within `timeout` or the connection ended.
bool read_whole_terrain(Client& c, int width, int height, Cell probe, int& probe_cost, std::chrono::seconds timeout) {
    std::vector<int> columns(static_cast<std::size_t>(height), 0);
    int rows_done = 0;
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (rows_done < height && std::chrono::steady_clock::now() < end) {
        const std::string f = c.frame(6, 5000ms);
        if (f.empty()) {
            if (c.ended) return false;
            continue;
        }
        EXPECT_LE(f.size(), 28 + kMaxTerrainFrameBytes);
        if (read_at<std::uint32_t>(f, 4) != static_cast<std::uint32_t>(width)) continue;  // the previous map
        const auto x0 = read_at<std::uint32_t>(f, 12), y0 = read_at<std::uint32_t>(f, 16);
        const auto w = read_at<std::uint32_t>(f, 20), h = read_at<std::uint32_t>(f, 24);
        EXPECT_EQ(f.size(), 28 + static_cast<std::size_t>(w) * h);
        for (std::uint32_t y = y0; y < y0 + h && y < static_cast<std::uint32_t>(height); ++y) {
            int& seen = columns[y];
            if (seen < width) {
                seen += static_cast<int>(w);  // bands of a fresh map cover whole rows once
                if (seen >= width) ++rows_done;
            }
            if (static_cast<int>(y) == probe.y && probe.x >= static_cast<int>(x0) &&
                probe.x < static_cast<int>(x0 + w)) {
                probe_cost = static_cast<unsigned char>(f[28 + (y - y0) * w + (probe.x - x0)]);
            }
        }
    }
    return rows_done == height;
}

TEST(Server, ALargeUploadedMapReachesEveryClientInBoundedFrames) {
    // A valid 4100 x 4100 map (16.8 MB, under the upload limit). Its fields frames are sampled and
    // its terrain goes in bands of at most kMaxTerrainFrameBytes, so no client is dropped as "too
    // slow", even with a per-client queue limit (6 MiB) far below the whole terrain.
    ServerOptions o;
    o.max_queued_bytes = 6u << 20;
    Running s(o);
    const unsigned short port = s.server.port();
    Client before(port);
    before.ws.read_message_max(std::size_t{128} << 20);
    ASSERT_FALSE(before.wait_json("world").empty());
    constexpr int kSide = 4100;
    std::string text = "type octile\nheight 4100\nwidth 4100\nmap\n";
    text.reserve(text.size() + static_cast<std::size_t>(kSide) * (kSide + 1));
    for (int y = 0; y < kSide; ++y) {
        std::string row(kSide, '.');
        if (y == 2000) std::fill(row.begin() + 100, row.begin() + 200, '@');
        text += row;
        text += '\n';
    }
    const HttpReply up = http_request(port, http::verb::post, "/api/map?name=big.map", text);
    ASSERT_EQ(up.status, 200) << up.body;
    // The world message of the new map (wait_json gives null on a timeout: the load takes seconds).
    auto width_of = [](const nlohmann::json& j) { return j.is_object() ? j.value("width", 0) : 0; };
    nlohmann::json world;
    for (int i = 0; i < 20 && width_of(world) != kSide; ++i) world = before.wait_json("world", 10000ms);
    ASSERT_EQ(width_of(world), kSide) << before.why_open();
    EXPECT_GT(world.value("field_stride", 1), 1);
    int probe = -1;
    EXPECT_TRUE(read_whole_terrain(before, kSide, kSide, {150, 2000}, probe, std::chrono::seconds(120)))
        << before.why_open();
    EXPECT_EQ(probe, 255) << "the wall at (150, 2000)";
    // A client that comes afterwards gets the world and the whole terrain too.
    Client after(port);
    after.ws.read_message_max(std::size_t{128} << 20);
    ASSERT_EQ(width_of(after.wait_json("world")), kSide);
    probe = -1;
    EXPECT_TRUE(read_whole_terrain(after, kSide, kSide, {150, 2000}, probe, std::chrono::seconds(120)))
        << after.why_open();
    EXPECT_EQ(probe, 255);
    // Both stay connected and keep getting frames.
    EXPECT_TRUE(before.wait_frame(1, 10000ms)) << before.why_open();
    EXPECT_TRUE(after.wait_frame(1, 10000ms)) << after.why_open();
    EXPECT_EQ(state(port)["stats"]["clients"], 2);
}

TEST(Server, OrderApiMovesOnlyTheSelectedUnits) {
    Running s;
    const unsigned short port = s.server.port();
    const auto before = nlohmann::json::parse(http_request(port, http::verb::get, "/api/agents?limit=300").body);
    ASSERT_EQ(before["group"].size(), 300u);
    const HttpReply good =
        http_request(port, http::verb::post, "/api/order", R"({"select":[0,0,13,39],"goals":[[5,5]]})");
    ASSERT_EQ(good.status, 200) << good.body;
    const auto reply = nlohmann::json::parse(good.body);
    const int group = reply["group"];
    const int units = reply["units"];
    EXPECT_GT(units, 10);
    const auto after = nlohmann::json::parse(http_request(port, http::verb::get, "/api/agents?limit=300").body);
    int moved = 0;
    for (std::size_t i = 0; i < 300; ++i) {
        if (after["group"][i] == group) {
            ++moved;
            EXPECT_LT(after["x"][i].get<double>(), 14.5) << "a unit outside the box changed group";
        } else {
            EXPECT_EQ(after["group"][i], before["group"][i]);
        }
    }
    EXPECT_EQ(moved, units);
    const auto st = state(port);
    ASSERT_EQ(st["groups"].size(), 2u);
    EXPECT_TRUE(st["service"].contains("hits"));
    EXPECT_GE(st["service"]["builds"].get<int>(), 1);

    const std::pair<std::string, std::string> bad[] = {
        {"{", "not valid JSON"},
        {R"({"select":[0,0,63,39],"goals":[[14,3]]})", "on a wall"},
        {R"({"select":[0,0,63,39],"goals":[[70,3]]})", "outside the 64x40 map"},
        {R"({"select":[0,0,0,0],"goals":[[5,5]]})", "no units"},
        {R"({"select":[0,0,63,39]})", "'goals'"},
        {R"({"goals":[[5,5]]})", "missing 'select'"},
        {R"({"select":[9,0,3,39],"goals":[[5,5]]})", "x0 <= x1"},
    };
    for (const auto& [body, words] : bad) {
        const HttpReply r = http_request(port, http::verb::post, "/api/order", body);
        EXPECT_EQ(r.status, 400) << body;
        const auto j = nlohmann::json::parse(r.body, nullptr, false);
        ASSERT_TRUE(j.is_object()) << r.body;
        EXPECT_NE(j.value("error", "").find(words), std::string::npos) << body << " -> " << r.body;
    }
    EXPECT_EQ(http_request(port, http::verb::get, "/api/order").status, 405);
    EXPECT_EQ(state(port)["groups"].size(), 2u) << "a refused order changed the groups";
}

TEST(Server, SelectOrderAndViewOverTheWebSocket) {
    Running s;
    Client c(s.server.port());
    ASSERT_FALSE(c.wait_json("world").empty());
    ASSERT_FALSE(c.frame(2).empty());
    // Ordering with nothing selected is refused.
    c.send(R"({"type":"order","goals":[[5,5]]})");
    const auto err = c.wait_json("error");
    EXPECT_NE(err.value("message", "").find("nothing is selected"), std::string::npos) << err.dump();
    c.send(R"({"type":"pause","paused":true})");
    c.send(R"({"type":"select","box":[0,0,14,40]})");
    const std::string sel = c.frame(3);
    ASSERT_GE(sel.size(), 16u);
    const std::uint32_t count = read_at<std::uint32_t>(sel, 4);
    EXPECT_GT(count, 10u);
    EXPECT_EQ(read_at<std::uint32_t>(sel, 8), 300u);
    c.send(R"({"type":"order","goals":[[5,5]]})");
    const auto ordered = c.wait_json("ordered");
    ASSERT_FALSE(ordered.empty());
    EXPECT_EQ(ordered["units"], count);
    const int group = ordered["group"];
    // The client looks at its selection's group: the next fields frame shows the new group.
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < deadline) {
        const std::string f = c.frame(2, 1000ms);
        if (f.size() >= 28 && read_at<std::uint32_t>(f, 24) == static_cast<std::uint32_t>(group)) seen = true;
    }
    EXPECT_TRUE(seen) << "no fields frame of group " << group;
    c.send(R"({"type":"view","group":12345})");
    EXPECT_NE(c.wait_json("error").value("message", "").find("no group 12345"), std::string::npos);
    c.send(R"({"type":"select","box":null})");
    EXPECT_EQ(read_at<std::uint32_t>(c.frame(3), 4), 0u);
}

// The number of units of each size, from /api/agents.
std::array<int, 4> unit_sizes(unsigned short port) {
    const auto a = nlohmann::json::parse(http_request(port, http::verb::get, "/api/agents?limit=200000").body);
    std::array<int, 4> n{};
    for (const auto& s : a["size"]) ++n[std::clamp(s.get<int>(), 0, 3)];
    return n;
}

TEST(Server, UnitSizesAndTowersOverTheWebSocket) {
    Running s;
    const unsigned short port = s.server.port();
    Client a(port), b(port);
    ASSERT_FALSE(a.wait_json("world").empty());
    ASSERT_FALSE(b.wait_json("world").empty());
    a.send(R"({"type":"pause","paused":true})");
    // Units of size 1 behind the left wall, away from its gap (x 14..15, y 18..21).
    a.send(R"({"type":"spawn","count":30,"area":[0,0,9,39]})");
    std::array<int, 4> sizes{};
    for (int i = 0; i < 100 && sizes[1] != 30; ++i) sizes = unit_sizes(port);
    EXPECT_EQ(sizes, (std::array<int, 4>{0, 30, 0, 0}));

    // A 3x3 tower leaving one row of the gap open: free for units of size 1. Only the asker hears.
    const std::string gap = R"("x0":13,"y0":18,"x1":15,"y1":20)";
    a.send(R"({"type":"tower_check",)" + gap + "}");
    auto t = a.wait_json("tower");
    ASSERT_FALSE(t.empty());
    EXPECT_EQ(t["x0"], 13);
    EXPECT_EQ(t["y1"], 20);
    EXPECT_EQ(t["blocks"], false);
    EXPECT_EQ(t["units_cut_off"], 0);
    EXPECT_TRUE(b.wait_json("tower", 500ms).empty()) << "another client got the answer";

    // Twenty units of size 2 added behind the wall: the same tower would cut them all off.
    a.send(R"({"type":"spawn","count":20,"size":2,"add":true,"area":[0,0,9,39]})");
    for (int i = 0; i < 100 && sizes[2] != 20; ++i) sizes = unit_sizes(port);
    EXPECT_EQ(sizes, (std::array<int, 4>{0, 30, 20, 0}));
    const auto st = state(port);
    ASSERT_EQ(st["groups"].size(), 2u);
    EXPECT_EQ(st["groups"][1]["size"], 2);
    EXPECT_EQ(st["groups"][1]["members"], 20);
    a.send(R"({"type":"tower_check",)" + gap + "}");
    t = a.wait_json("tower");
    EXPECT_EQ(t["blocks"], true);
    EXPECT_EQ(t["covers_goal"], false);
    EXPECT_EQ(t["units_cut_off"], 20);

    // Placing it is refused with the reason; the terrain stays.
    const auto version = state(port)["terrain_version"];
    a.send(R"({"type":"place_tower",)" + gap + "}");
    auto e = a.wait_json("error");
    EXPECT_EQ(e["request"], "place_tower");
    EXPECT_NE(e.value("message", "").find("would cut 20 units off"), std::string::npos) << e.dump();
    a.send(R"({"type":"place_tower","x0":53,"y0":17,"x1":55,"y1":19})");
    e = a.wait_json("error");
    EXPECT_NE(e.value("message", "").find("cover a goal"), std::string::npos) << e.dump();
    EXPECT_EQ(state(port)["terrain_version"], version);

    // On open ground it stands: the terrain changes and the fields are repaired.
    a.send(R"({"type":"place_tower","x0":30,"y0":1,"x1":31,"y1":2})");
    const auto placed = a.wait_json("tower_placed");
    EXPECT_EQ(placed["x0"], 30);
    EXPECT_EQ(placed["y1"], 2);
    nlohmann::json after;
    for (int i = 0; i < 100; ++i) {
        after = state(port);
        if (after["stats"]["repairs"].get<int>() > 0) break;
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_GT(after["terrain_version"].get<int>(), version.get<int>());
    EXPECT_GT(after["stats"]["repairs"].get<int>(), 0);
    EXPECT_GE(after["stats"]["repair_ms"].get<double>(), 0.0);
    EXPECT_GT(after["service"]["repairs"].get<int>() + after["service"]["repair_rebuilds"].get<int>(), 0);
    const auto stats = a.wait_json("stats");
    EXPECT_TRUE(stats.contains("repair_ms") && stats.contains("repairs")) << stats.dump();

    // Refused: checked against the map and the server's unit cap.
    const std::pair<std::string, std::string> cases[] = {
        {R"({"type":"tower_check","x0":62,"y0":0,"x1":64,"y1":2})", "not on the 64x40 map"},
        {R"({"type":"tower_check","x0":0,"y0":0,"x1":8,"y1":0})", "at most 8 a side"},
        {R"({"type":"place_tower","x0":0,"y0":0,"x1":1})", "missing 'y1'"},
        {R"({"type":"spawn","count":5,"size":5})", "'size' = 5 is outside 1..3"},
        {R"({"type":"spawn","count":5,"add":"yes"})", "'add' must be true or false"},
        {R"({"type":"spawn","count":199990,"add":true})", "server's limit of 200000"},
        {R"({"type":"spawn","count":5,"area":[100,100,110,110]})", "off the map"},
    };
    for (const auto& [msg, expected] : cases) {
        a.send(msg);
        const auto err = a.wait_json("error");
        ASSERT_FALSE(err.empty()) << msg;
        EXPECT_NE(err.value("message", "").find(expected), std::string::npos) << msg << " -> " << err.dump();
    }
    EXPECT_EQ(unit_sizes(port), (std::array<int, 4>{0, 30, 20, 0}));
}

TEST(Server, ALateClientGetsTodaysWorldAndFieldVersionsFollowTheContents) {
    Running s;
    const unsigned short port = s.server.port();
    Client first(port);
    ASSERT_FALSE(first.wait_json("world").empty());
    first.send(R"({"type":"spawn","count":120})");
    ASSERT_FALSE(first.wait_json("groups").empty());
    ASSERT_EQ(http_request(port, http::verb::post, "/api/order", R"({"select":[0,0,30,39],"goals":[[5,5]]})").status,
              200);
    std::this_thread::sleep_for(200ms);
    Client late(port);
    const auto world = late.wait_json("world");
    EXPECT_EQ(world["agents"], 120);
    EXPECT_EQ(world["groups"].size(), 2u);
    // Looking at another group brings a frame with a new version.
    const std::string a = late.frame(2);
    ASSERT_GE(a.size(), 28u);
    const std::uint32_t shown = read_at<std::uint32_t>(a, 24);
    const std::uint32_t other = world["groups"][0]["id"] == shown ? world["groups"][1]["id"] : world["groups"][0]["id"];
    late.send(R"({"type":"view","group":)" + std::to_string(other) + "}");
    std::string b;
    for (int k = 0; k < 5 && (b.size() < 28 || read_at<std::uint32_t>(b, 24) != other); ++k) b = late.frame(2);
    ASSERT_GE(b.size(), 28u);
    EXPECT_EQ(read_at<std::uint32_t>(b, 24), other);
    EXPECT_NE(read_at<std::uint32_t>(b, 12), read_at<std::uint32_t>(a, 12));
}

// A paused world stops sending agents frames that would repeat the last one (each costs the page
// a full compose at 100,000 units); a change to the units, a client connecting and resuming each
// bring frames again.
TEST(Server, APausedWorldSendsAgentsFramesOnlyWhenTheyChange) {
    Running s;
    const unsigned short port = s.server.port();
    Client a(port);
    ASSERT_FALSE(a.wait_json("world").empty());
    ASSERT_TRUE(a.wait_frame(1));
    a.send(R"({"type":"pause","paused":true})");
    const auto paused = a.wait_json("paused");
    ASSERT_TRUE(paused.value("paused", false)) << paused.dump();
    // Frames encoded before the pause took effect may still be on their way (bounded: with
    // frames that never stop, the check below fails instead of waiting forever).
    const auto drain = [](Client& c) {
        for (int k = 0; k < 10 && !c.frame(1, 300ms).empty(); ++k) {
        }
    };
    drain(a);
    EXPECT_TRUE(a.frame(1, 1000ms).empty()) << "a repeated agents frame while paused";

    // A client connecting gets the units at once, still paused.
    Client b(port);
    ASSERT_FALSE(b.wait_json("world").empty());
    const std::string first = b.frame(1);
    ASSERT_GE(first.size(), 20u);
    EXPECT_EQ(read_at<std::uint32_t>(first, 4), 300u);
    drain(a);

    // Units added while paused come in the next frame.
    a.send(R"({"type":"spawn","count":10,"add":true})");
    const std::string added = a.frame(1);
    ASSERT_GE(added.size(), 20u);
    EXPECT_EQ(read_at<std::uint32_t>(added, 4), 310u);
    EXPECT_EQ(read_at<std::uint32_t>(added, 8), read_at<std::uint32_t>(first, 8)) << "the world stepped while paused";

    // Resumed, frames flow again with the tick moving on.
    a.send(R"({"type":"pause","paused":false})");
    std::uint32_t ticks[2] = {0, 0};
    for (auto& t : ticks) {
        const std::string f = a.frame(1);
        ASSERT_GE(f.size(), 20u);
        t = read_at<std::uint32_t>(f, 8);
    }
    EXPECT_GT(ticks[1], read_at<std::uint32_t>(added, 8));
}

// A map forced to plan hierarchically: the world and stats messages say so, the sectors frame
// (portals) and sector fields frame (sectors with a field) arrive, a paint changes the graph (a new
// sectors frame), towers are refused, and the units move.
TEST(Server, HierarchicalMapSendsTheSectorOverlayAndItsUnitsMove) {
    ServerOptions o;
    o.map_path = "@random256";
    o.hierarchy_cells = 0;
    o.sector_size = 32;
    Running s(o);
    Client c(s.server.port());
    const auto world = c.wait_json("world");
    ASSERT_FALSE(world.empty());
    EXPECT_EQ(world["map"], "random256");
    EXPECT_EQ(world["planner"], "hierarchical");
    EXPECT_EQ(world["sector_size"], 32);
    EXPECT_EQ(world["field_stride"], 1);
    const std::string sectors = c.frame(4);
    ASSERT_GE(sectors.size(), 32u);
    auto u32 = [](const std::string& f, std::size_t o) {
        std::uint32_t v;
        std::memcpy(&v, f.data() + o, 4);
        return v;
    };
    EXPECT_EQ(u32(sectors, 4), 256u);
    EXPECT_EQ(u32(sectors, 12), 32u);
    const std::uint32_t portals = u32(sectors, 24), version = u32(sectors, 20);
    EXPECT_GT(portals, 0u);
    EXPECT_EQ(sectors.size(), 32u + 12u * portals);
    const std::string built = c.frame(5);
    ASSERT_GE(built.size(), 24u + 8u);
    EXPECT_EQ(u32(built, 12), 64u) << "8 x 8 sectors";
    EXPECT_GT(u32(built, 16), 0u);
    const auto before = nlohmann::json::parse(http_request(s.server.port(), http::verb::get, "/api/agents").body);
    // A wall across the border of the first two sectors: a new graph version comes.
    c.send(R"({"type":"paint","x":32,"y":10,"radius":3,"terrain":"wall"})");
    std::string next;
    for (int k = 0; k < 5 && next.empty(); ++k) {
        std::string f = c.frame(4);
        if (!f.empty() && u32(f, 20) != version) next = f;
    }
    ASSERT_FALSE(next.empty()) << "no sectors frame with a new graph version after a paint";
    c.send(R"({"type":"tower_check","x0":100,"y0":100,"x1":101,"y1":101})");
    const auto e = c.wait_json("tower");  // towers are checked on hierarchical maps too
    EXPECT_EQ(e.value("x0", -1), 100) << e;
    EXPECT_TRUE(e.contains("blocks")) << e;
    std::this_thread::sleep_for(500ms);
    const auto after = nlohmann::json::parse(http_request(s.server.port(), http::verb::get, "/api/agents").body);
    double moved = 0.0;
    for (std::size_t i = 0; i < after["x"].size(); ++i) {
        moved += std::hypot(after["x"][i].get<double>() - before["x"][i].get<double>(),
                            after["y"][i].get<double>() - before["y"][i].get<double>());
    }
    EXPECT_GT(moved / static_cast<double>(after["x"].size()), 0.3) << "units move (cells, mean over 0.5 s and more)";
    const auto st = state(s.server.port());
    EXPECT_EQ(st["stats"]["planner"], "hierarchical");
    EXPECT_GT(st["stats"]["sector_fields"].get<int>(), 0);
    EXPECT_GT(st["stats"]["graph_ms"].get<double>(), 0.0);
}

// The demo's first-five-minutes messages: goals snapped off walls, uploads reselectable, the
// current map as a .tmap, scenario presets, the A* comparison and unit inspection.
TEST(Server, GoalsOnWallsSnapToTheNearestOpenCell) {
    Running s;
    Client c(s.server.port());
    const auto world = c.wait_json("world");
    ASSERT_FALSE(world.empty());
    EXPECT_GT(world["max_units"].get<int>(), 1000);
    EXPECT_EQ(world["max_units"].get<int>(), 10 * world["free_cells"].get<int>());
    // (14, 0): the top of the default map's left wall (columns 14 and 15).
    c.send(R"({"type":"set_goals","goals":[[14,0]]})");
    EXPECT_NE(c.wait_json("error").value("message", "").find("wall"), std::string::npos);
    c.send(R"({"type":"set_goals","goals":[[14,0]],"snap":true})");
    const auto snapped = c.wait_json("snapped");
    ASSERT_FALSE(snapped.empty());
    ASSERT_EQ(snapped["moves"].size(), 1u);
    EXPECT_EQ(snapped["moves"][0]["from"], nlohmann::json::parse("[14,0]"));
    const auto to = snapped["moves"][0]["to"];
    EXPECT_EQ(to, nlohmann::json::parse("[13,0]"));  // the nearest open cell, left of the wall
    nlohmann::json st;
    for (int i = 0; i < 100; ++i) {
        st = state(s.server.port());
        if (st["goals"] == nlohmann::json::array({to})) break;
    }
    EXPECT_EQ(st["goals"], nlohmann::json::array({to}));
}

TEST(Server, UploadedMapsStaySelectableAndTheMapDownloadsAsTmap) {
    Running s;
    const unsigned short port = s.server.port();
    Client c(port);
    ASSERT_FALSE(c.wait_json("world").empty());
    ASSERT_EQ(http_request(port, http::verb::post, "/api/map?name=tiny.map",
                           "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n")
                  .status,
              200);
    auto w = c.wait_json("world");
    for (int i = 0; i < 20 && w.value("map", "") != "tiny.map"; ++i) w = c.wait_json("world");
    ASSERT_EQ(w["map"], "tiny.map");
    EXPECT_EQ(w["uploads"], nlohmann::json::parse(R"(["tiny.map"])"));
    const HttpReply tiny = http_request(port, http::verb::get, "/api/map.tmap");
    ASSERT_EQ(tiny.status, 200);
    c.send(R"({"type":"load_map","name":"default"})");
    for (int i = 0; i < 20 && w.value("map", "") != "default"; ++i) w = c.wait_json("world");
    ASSERT_EQ(w["map"], "default");
    EXPECT_EQ(w["uploads"], nlohmann::json::parse(R"(["tiny.map"])"));
    c.send(R"({"type":"load_map","name":"nothing.map","uploaded":true})");
    EXPECT_NE(c.wait_json("error").value("message", "").find("no uploaded map 'nothing.map'"), std::string::npos);
    c.send(R"({"type":"load_map","name":"tiny.map","uploaded":true})");
    for (int i = 0; i < 20 && w.value("map", "") != "tiny.map"; ++i) w = c.wait_json("world");
    ASSERT_EQ(w["map"], "tiny.map");
    EXPECT_EQ(w["width"], 4);
    EXPECT_EQ(http_request(port, http::verb::get, "/api/map.tmap").body, tiny.body);

    // A painted map downloads with its edits and loads back identical.
    c.send(R"({"type":"paint","x":0,"y":0,"radius":0,"terrain":"swamp"})");
    std::string painted;
    for (int i = 0; i < 100 && (painted.empty() || painted == tiny.body); ++i)
        painted = http_request(port, http::verb::get, "/api/map.tmap").body;
    ASSERT_NE(painted, tiny.body);
    ASSERT_EQ(http_request(port, http::verb::post, "/api/map?name=again.tmap", painted).status, 200);
    for (int i = 0; i < 20 && w.value("map", "") != "again.tmap"; ++i) w = c.wait_json("world");
    ASSERT_EQ(w["map"], "again.tmap");
    EXPECT_EQ(http_request(port, http::verb::get, "/api/map.tmap").body, painted);
    EXPECT_EQ(w["uploads"].size(), 2u);
}

TEST(Server, ScenarioPresetsLoadTheirMapAndGroups) {
    Running s;
    const unsigned short port = s.server.port();
    Client c(port);
    ASSERT_FALSE(c.wait_json("world").empty());
    c.send(R"({"type":"scenario","name":"atlantis"})");
    EXPECT_NE(c.wait_json("error").value("message", "").find("no scenario"), std::string::npos);
    const std::pair<const char*, std::size_t> expected[] = {
        {"door", 1},       {"counter_flow", 2}, {"gap_swap", 2},           {"goal_beside_gap", 1},
        {"evacuation", 1}, {"exit_flow", 1},    {"counter_flow_alone", 1}, {"maze", 1}};
    for (const auto& [name, groups] : expected) {
        c.send(std::string(R"({"type":"scenario","name":")") + name + "\"}");
        nlohmann::json w = nlohmann::json::object();
        for (int i = 0; i < 40 && w.value("map", "") != std::string("scenario:") + name; ++i) w = c.wait_json("world");
        ASSERT_EQ(w.value("map", ""), std::string("scenario:") + name);
        EXPECT_EQ(w["groups"].size(), groups) << name;
        EXPECT_GT(w["agents"].get<int>(), 0) << name;
        // The evacuation's units leave by its exits.
        EXPECT_EQ(w["groups"][0]["exit"], std::string(name) == "evacuation" || std::string(name) == "exit_flow")
            << name;
        EXPECT_EQ(w["scenarios"], nlohmann::json(tide::scenario_names()));
    }
    const auto st = state(port);
    EXPECT_EQ(st["map"], "scenario:maze");
    EXPECT_EQ(st["groups"][0]["members"], 400);

    // An exit moved (the page drags its marker with `exit`) stays an exit; without it the group
    // gathers at the cells instead.
    c.send(R"({"type":"scenario","name":"evacuation"})");
    nlohmann::json w = nlohmann::json::object();
    for (int i = 0; i < 40 && w.value("map", "") != "scenario:evacuation"; ++i) w = c.wait_json("world");
    ASSERT_EQ(w.value("map", ""), "scenario:evacuation");
    const auto id = w["groups"][0]["id"].get<int>();
    auto goals_of = [&](bool exit) {
        for (int i = 0; i < 100; ++i) {
            const auto g = c.wait_json("groups");
            if (!g.empty() && g["groups"].size() == 1 && g["groups"][0]["goals"].size() == 2 &&
                g["groups"][0]["exit"] == exit)
                return true;
        }
        return false;
    };
    c.send(nlohmann::json{{"type", "set_goals"}, {"group", id}, {"goals", {{0, 10}, {35, 0}}}, {"exit", true}}.dump());
    EXPECT_TRUE(goals_of(true));
    c.send(nlohmann::json{{"type", "set_goals"}, {"group", id}, {"goals", {{0, 10}, {35, 0}}}}.dump());
    EXPECT_TRUE(goals_of(false));
}

TEST(Server, AstarComparisonAndInspection) {
    Running s;
    Client c(s.server.port());
    ASSERT_FALSE(c.wait_json("world").empty());
    ASSERT_TRUE(c.wait_frame(2));
    c.send(R"({"type":"astar_compare","samples":20})");
    const auto a = c.wait_json("astar", 10000ms);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a["units"], 300);
    EXPECT_EQ(a["sampled"], 20);
    EXPECT_GT(a["astar_ms_all"].get<double>(), 0.0);
    EXPECT_GT(a["field_ms"].get<double>(), 0.0);
    EXPECT_NEAR(a["astar_ms_all"].get<double>(), a["astar_ms_per_unit"].get<double>() * 300,
                0.05 * a["astar_ms_all"].get<double>() + 0.01);
    ASSERT_EQ(a["paths"].size(), static_cast<std::size_t>(kAstarPathsShown));
    const auto& p0 = a["paths"][0];
    EXPECT_EQ(p0["cells"][0], p0["start"]);
    c.send(R"({"type":"astar_compare","group":999})");
    EXPECT_NE(c.wait_json("error").value("message", "").find("no group 999"), std::string::npos);

    // Inspect the first unit at its position; far from every unit: null.
    const auto agents =
        nlohmann::json::parse(http_request(s.server.port(), http::verb::get, "/api/agents?limit=1").body);
    const double x = agents["x"][0], y = agents["y"][0];
    c.send(nlohmann::json{{"type", "inspect"}, {"x", x}, {"y", y}}.dump());
    const auto u = c.wait_json("inspected");
    ASSERT_FALSE(u.empty());
    ASSERT_TRUE(u["unit"].is_number());
    EXPECT_NEAR(u["x"].get<double>(), x, 2.0);
    EXPECT_TRUE(u.contains("speed") && u.contains("dvx") && u.contains("neighbours") && u.contains("cost_to_go"));
    EXPECT_TRUE(u["state"].is_string());
    c.send(R"({"type":"inspect","x":0.1,"y":0.1})");
    // The wall corner: no unit within 2 cells unless one hugs it; either answer is well-formed.
    EXPECT_TRUE(c.wait_json("inspected").contains("unit"));
}

// Issue 43: --web-root (development) serves regular files inside the folder and nothing else. A
// FIFO there blocked the server for good on GET, a symlink led out of the folder, a subdirectory
// answered 200 with an empty body.
TEST(Server, TheWebRootServesRegularFilesOnly) {
    const std::filesystem::path root =
        std::filesystem::temp_directory_path() / ("tide_webroot_" + std::to_string(::getpid()));
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "sub");
    std::filesystem::create_directories(root.string() + "_outside");
    { std::ofstream(root / "index.html") << "<html>ok</html>"; }
    { std::ofstream(root.string() + "_outside/secret.txt") << "secret"; }
    std::filesystem::create_symlink(root.string() + "_outside/secret.txt", root / "secret.txt");
    ASSERT_EQ(::mkfifo((root / "pipe.js").c_str(), 0600), 0);
    ServerOptions o;
    o.web_root = root.string();
    {
        Running s(o);
        const unsigned short port = s.server.port();
        const auto t0 = std::chrono::steady_clock::now();
        EXPECT_EQ(http_request(port, http::verb::get, "/pipe.js").status, 404);
        EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << "a FIFO must not block the server";
        EXPECT_EQ(http_request(port, http::verb::get, "/secret.txt").status, 404) << "a symlink out of the root";
        EXPECT_EQ(http_request(port, http::verb::get, "/sub").status, 404) << "a directory";
        const HttpReply page = http_request(port, http::verb::get, "/");
        EXPECT_EQ(page.status, 200);
        EXPECT_EQ(page.body, "<html>ok</html>");
        EXPECT_EQ(state(port)["map"], "default") << "the server still answers";
    }
    std::filesystem::remove_all(root);
    std::filesystem::remove_all(root.string() + "_outside");
}

// Issue 43: a client's commands wait at most 32 at a time and are refused once it owes more than
// 100 ms of simulation time; a second client is served meanwhile, and uploads go one at a time.
TEST(Server, OneClientsBudgetDoesNotHoldUpAnother) {
    ServerOptions o;
    o.map_path = "@random256";
    o.agents = 1000;
    Running s(o);
    const unsigned short port = s.server.port();
    Client flood(port), other(port);
    ASSERT_FALSE(flood.wait_json("world").empty());
    ASSERT_FALSE(other.wait_json("world").empty());
    for (int i = 0; i < 100; ++i) flood.send(R"({"type":"astar_compare","samples":256})");
    int answers = 0, busy = 0;
    const auto end = std::chrono::steady_clock::now() + 8s;
    while (std::chrono::steady_clock::now() < end && answers + busy < 100) {
        auto m = flood.read(500ms);
        if (!m || m->binary) continue;
        const auto j = nlohmann::json::parse(m->data, nullptr, false);
        if (!j.is_object()) continue;
        if (j.value("type", "") == "astar") ++answers;
        if (j.value("type", "") == "error" && j.value("message", "").rfind("busy", 0) == 0) ++busy;
    }
    EXPECT_EQ(answers + busy, 100) << answers << " answers, " << busy << " refused: every message gets a reply";
    EXPECT_GT(busy, 50) << "the excess is refused, not queued";
    const auto t0 = std::chrono::steady_clock::now();
    other.send(R"({"type":"ping","id":7})");
    EXPECT_FALSE(other.wait_json("pong", 2000ms).empty());
    other.send(R"({"type":"tower_check","x0":100,"y0":100,"x1":101,"y1":101})");
    EXPECT_FALSE(other.wait_json("tower", 2000ms).empty()) << "another client's command is answered";
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
    // Uploads: while one is being read or loaded, the next is refused (HTTP 429).
    std::string text = "type octile\nheight 900\nwidth 900\nmap\n";
    for (int y = 0; y < 900; ++y) text += std::string(900, '.') + "\n";
    std::vector<std::thread> up;
    std::atomic<int> ok{0}, refused{0};
    for (int i = 0; i < 4; ++i) {
        up.emplace_back([&] {
            const HttpReply r = http_request(port, http::verb::post, "/api/map?name=wide.map", text);
            (r.status == 200 ? ok : refused)++;
            if (r.status != 200) {
                EXPECT_EQ(r.status, 429) << r.body;
            }
        });
    }
    for (auto& t : up) t.join();
    EXPECT_GE(ok.load(), 1);
    EXPECT_GE(refused.load(), 1);
}

TEST(Server, StopsCleanlyWithClientsConnected) {
    auto s = std::make_unique<Running>();
    Client c(s->server.port());
    ASSERT_TRUE(c.wait_frame(1));
    const auto t0 = std::chrono::steady_clock::now();
    s.reset();  // stop() + join
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_TRUE(c.wait_closed(5000ms)) << c.why_open();
}

TEST(Server, RefusesBadStartOptions) {
    ServerOptions o;
    o.port = 0;
    o.log = false;
    o.agents = 300000;
    EXPECT_FALSE(Server(o).start().ok());
    o.agents = 10;
    o.map_path = "/nonexistent/x.map";
    auto r = Server(o).start();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("/nonexistent/x.map"), std::string::npos);
    o.map_path.clear();
    o.host = "not-an-address";
    EXPECT_FALSE(Server(o).start().ok());
}

// --record: a demo session (an order, paints, a refused and a placed tower, a goal change, line
// of sight off, units added) streamed to a file while the server runs on real threads; the
// replay on a serial job system gives the recorded state hash at every tick.
TEST(Record, ADemoSessionReplaysToTheSameHashAtEveryTick) {
    const std::string path = testing::TempDir() + "tide_record_test.rec";
    {
        ServerOptions o;
        o.record_path = path;
        o.threads = 2;
        Running r(o);
        Client c(r.server.port());
        ASSERT_TRUE(c.wait_json("world").size() > 0);
        c.send(R"({"type":"order","goals":[[12,19]],"select":[16,0,63,39]})");
        EXPECT_FALSE(c.wait_json("ordered").empty());
        c.send(R"({"type":"paint","x":40,"y":30,"radius":2,"terrain":"wall"})");
        c.send(R"({"type":"place_tower","x0":11,"y0":18,"x1":13,"y1":20})");  // covers the order's goal
        EXPECT_FALSE(c.wait_json("error").empty());
        // The first 2x2 tower along row 3 that cuts nobody off (a unit under it counts as cut off).
        bool placed = false;
        for (int x = 18; x < 60; x += 3) {
            const std::string rect =
                R"("x0":)" + std::to_string(x) + R"(,"y0":3,"x1":)" + std::to_string(x + 1) + R"(,"y1":4)";
            c.send(R"({"type":"tower_check",)" + rect + "}");
            if (c.wait_json("tower").value("blocks", true)) continue;
            c.send(R"({"type":"place_tower",)" + rect + "}");
            std::string answer;  // tower_placed, or error when a unit walked under it since the check
            while (auto m = c.read()) {
                const auto j = m->binary ? nlohmann::json{} : nlohmann::json::parse(m->data, nullptr, false);
                answer = j.is_object() ? j.value("type", "") : "";
                if (answer == "tower_placed" || answer == "error") break;
            }
            ASSERT_TRUE(answer == "tower_placed" || answer == "error") << "no answer to place_tower";
            if (answer == "tower_placed") {
                placed = true;
                break;
            }
        }
        EXPECT_TRUE(placed);
        c.send(R"({"type":"line_of_sight","on":false})");
        c.send(R"({"type":"spawn","count":20,"add":true})");
        c.send(R"({"type":"paint","x":30,"y":8,"radius":3,"terrain":"swamp"})");
        std::this_thread::sleep_for(1500ms);
    }
    auto rec = load_recording(path);
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    std::map<std::string, int> kinds;
    std::uint64_t ticks = 0, last = 0;
    for (const RecordedEvent& e : rec->events) {
        if (const auto* t = std::get_if<RecordedTick>(&e)) {
            ++ticks;
            last = t->hash;
        }
        if (const auto* c = std::get_if<RecordedCommand>(&e)) {
            const std::string text = recorded_event_text(e);
            ++kinds[text.substr(10, text.find(' ', 10) - 10) + (c->refused ? " refused" : "")];
        }
    }
    EXPECT_EQ(kinds["order"], 1);
    EXPECT_EQ(kinds["paint"], 2);
    EXPECT_EQ(kinds["tower"], 1);
    EXPECT_GE(kinds["tower refused"], 1);
    EXPECT_EQ(kinds["spawn"], 1);
    EXPECT_GT(ticks, 60u);
    SerialJobSystem jobs;
    auto replayed = replay(*rec, jobs);
    ASSERT_TRUE(replayed.ok()) << replayed.error().message;
    EXPECT_EQ(replayed->ticks, ticks);
    EXPECT_EQ(replayed->first_mismatch, -1)
        << "recorded " << replayed->mismatch_recorded << ", replayed " << replayed->mismatch_replayed;
    EXPECT_EQ(replayed->final_hash, last);
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace tide::serve
