#pragma once
// Test harness for tide serve over loopback: a server running on its own thread, a WebSocket
// client with timeouts, an HTTP request helper. Shared by the server tests and the load test.

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "server.hpp"

namespace tide::serve::test {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

struct Running {
    Server server;
    std::thread thread;
    explicit Running(ServerOptions o = {}) : server(with_defaults(std::move(o))) {
        auto r = server.start();
        EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
        thread = std::thread([this] { server.run(); });
    }
    ~Running() {
        server.stop();
        thread.join();
    }
    static ServerOptions with_defaults(ServerOptions o) {
        o.port = 0;
        o.log = false;
        o.threads = 1;
        if (o.agents == ServerOptions{}.agents) o.agents = 300;
        return o;
    }
};

struct Message {
    std::string data;
    bool binary = false;
};

// A WebSocket client with timeouts. A read that times out stays pending, so the next read
// picks it up and a slow message is never lost (cancelling a WebSocket read would leave the
// stream unusable).
struct Client {
    net::io_context ioc;
    websocket::stream<beast::tcp_stream> ws{ioc};
    beast::flat_buffer buffer;
    bool reading = false;     // an async_read is in flight
    beast::error_code ended;  // set once the connection has ended: why it did

    explicit Client(unsigned short port) {
        beast::get_lowest_layer(ws).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        ws.handshake("127.0.0.1", "/ws");
    }
    ~Client() {
        beast::error_code ec;
        beast::get_lowest_layer(ws).socket().close(ec);
        ioc.restart();
        ioc.run_for(500ms);  // lets a pending read finish (aborted) before its buffer goes
    }
    // Next message within `timeout`; nullopt when none came in time or the connection has ended
    // (`ended` then says how).
    std::optional<Message> read(std::chrono::milliseconds timeout = 3000ms) {
        if (ended) return std::nullopt;
        if (!reading) {
            reading = true;
            ws.async_read(buffer, [this](beast::error_code ec, std::size_t) {
                reading = false;
                ended = ec;
            });
        }
        ioc.restart();
        ioc.run_for(timeout);
        if (reading || ended) return std::nullopt;
        Message m{beast::buffers_to_string(buffer.data()), ws.got_binary()};
        buffer.consume(buffer.size());
        return m;
    }
    // True when the peer has closed the connection: a WebSocket close frame, end of stream
    // (read returned 0), or a reset. Beast answers a close frame and shuts its side down; when
    // the peer has reset the connection meanwhile, that ends in a broken pipe or "not
    // connected" instead, which count too. Any other error (an aborted read) is not a close.
    bool closed_by_peer() const {
        return ended == websocket::error::closed || ended == net::error::eof || ended == net::error::connection_reset ||
               ended == net::error::broken_pipe || ended == net::error::not_connected;
    }
    // Reads (skipping messages) until the peer closes the connection; false when `timeout`
    // passes first or the connection fails another way. A timeout is never taken for a close.
    bool wait_closed(std::chrono::milliseconds timeout = 5000ms) {
        const auto end = std::chrono::steady_clock::now() + timeout;
        while (!ended && std::chrono::steady_clock::now() < end) {
            read(std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()));
        }
        return closed_by_peer();
    }
    // Why the connection is not (yet) taken as closed, for failure messages.
    std::string why_open() const { return ended ? "ended by " + ended.message() : "no close in time"; }
    // The close code from the peer's close frame; none when it closed without one.
    std::uint16_t close_code() const { return ws.reason().code; }
    void send(const std::string& text) {
        ws.text(true);
        ws.write(net::buffer(text));
    }
    // Reads until a JSON message of `type` (other messages skipped); empty object on timeout.
    nlohmann::json wait_json(const std::string& type, std::chrono::milliseconds timeout = 3000ms) {
        const auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end) {
            auto m =
                read(std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()));
            if (!m) return {};
            if (m->binary) continue;
            auto j = nlohmann::json::parse(m->data, nullptr, false);
            if (j.is_object() && j.value("type", "") == type) return j;
        }
        return {};
    }
    // Reads until a binary frame of `type`; false on timeout.
    bool wait_frame(int type, std::chrono::milliseconds timeout = 3000ms) { return !frame(type, timeout).empty(); }
    // The next binary frame of `type` (other messages skipped); empty on timeout.
    std::string frame(int type, std::chrono::milliseconds timeout = 3000ms) {
        const auto end = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < end) {
            auto m =
                read(std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now()));
            if (!m) return {};
            if (m->binary && !m->data.empty() && m->data[0] == type) return m->data;
        }
        return {};
    }
};

struct HttpReply {
    int status = 0;
    std::string body;
};

inline HttpReply http_request(unsigned short port, http::verb verb, const std::string& target,
                              const std::string& body = "") {
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.body() = body;
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return {static_cast<int>(res.result_int()), res.body()};
}

inline nlohmann::json state(unsigned short port) {
    const HttpReply r = http_request(port, http::verb::get, "/api/state");
    EXPECT_EQ(r.status, 200);
    return nlohmann::json::parse(r.body);
}

}  // namespace tide::serve::test
