// `tide serve` networking and simulation loop; see server.hpp and docs/protocol.md.

#include "server.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <variant>

#include "protocol.hpp"
#include "sim_core.hpp"
#include "tide/generate.hpp"
#include "tide/map_io.hpp"
#include "tide/recording.hpp"
#include "tide/scenarios.hpp"
#include "tide/tbb_jobs.hpp"
#include "tide/viewer.hpp"
#include "tide/world.hpp"
#include "web_assets.hpp"

namespace tide::serve {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Size limits (tide/limits.hpp): kMaxClientFrameBytes (larger frames fail the connection with
// 1009), kMaxUploadBytes (POST /api/map body), kMaxQueuedBytes (a client this far behind is
// dropped), kMaxTerrainFrameBytes (whole-map terrain goes in row bands of at most this).

// Budgets that keep one client from delaying the others (docs/reliability.md,
// "Budgets"). Messages per second are counted on the io thread (ServerOptions::paint_per_second,
// other_per_second); these bound what gets past that:
// - a WebSocket client has at most kMaxPendingPerClient commands waiting for the simulation
//   thread; more are refused at once with an error reply ("busy");
// - the simulation thread (SimCore, sim_core.hpp) runs at most CoreOptions::command_ms (8 ms) of
//   commands per tick and leaves the rest, in order, for the next tick (queries and connections
//   are still served at once);
// - it measures what each client's commands take and refuses a client's commands while it owes
//   more than CoreOptions::client_burst_ms (100 ms; the debt falls by client_share_ms, 200 ms,
//   every second): one client
//   gets at most about a fifth of the simulation thread for its A* comparisons, spawns, towers,
//   loads and orders, however many it sends;
// - one map upload at a time, read off the io thread; after a load the next upload waits
//   kUploadPace x that load's time (HTTP 429 meanwhile);
// - GET /api/state waits at most kStateWaitMs for the simulation thread; past that it is answered
//   from the state the simulation thread published last (header X-Tide-State-Age-Ms: its age).
constexpr int kMaxPendingPerClient = 32;
constexpr double kUploadPace = 3.0;
constexpr int kStateWaitMs = 50;

struct Outgoing {
    std::shared_ptr<const std::string> data;
    bool binary = false;
    bool agents = false;   // latest-wins: a newer agents frame replaces one not yet sent
    bool terrain = false;  // a band of the terrain stream (at most one is queued at a time)
};

std::string_view mime_of(std::string_view path) {
    auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
    if (ends(".html")) return "text/html; charset=utf-8";
    if (ends(".js") || ends(".mjs")) return "text/javascript; charset=utf-8";
    if (ends(".css")) return "text/css; charset=utf-8";
    if (ends(".svg")) return "image/svg+xml";
    if (ends(".png")) return "image/png";
    if (ends(".json")) return "application/json";
    return "application/octet-stream";
}

}  // namespace

struct Server::Impl final : Outbox {
    class WsSession;
    class HttpSession;

    ServerOptions opt;
    net::io_context ioc{1};
    tcp::acceptor acceptor{ioc};
    std::unique_ptr<TbbJobSystem> jobs;
    std::unique_ptr<World> world;   // simulation thread only (after start())
    std::unique_ptr<SimCore> core;  // the simulation loop (simulation thread only, after start())
    Recording recording;            // --record: events not yet appended to record_file
    std::ofstream record_file;
    std::thread sim;
    std::atomic<bool> stopping{false};
    std::atomic<bool> stopped{false};
    std::atomic<std::size_t> client_count{0};
    unsigned short bound_port = 0;

    std::mutex in_mutex;
    std::vector<Inbound> inbox;

    // Io thread only.
    std::unordered_map<std::uint64_t, std::weak_ptr<WsSession>> sessions;
    std::uint64_t next_session = 1;
    // Last world messages, sent to every new client (io thread only). Fields frames go to each
    // client from the simulation thread (each sees the field of the group it looks at).
    std::array<std::shared_ptr<const std::string>, 5> last{};  // by Slot

    explicit Impl(ServerOptions o) : opt(std::move(o)) {}

    // --record: appends the events since the last call to the file (simulation thread); a write
    // error ends the recording with a log line.
    void flush_recording() {
        if (!record_file.is_open()) return;
        for (const RecordedEvent& e : recording.events) record_file << recorded_event_text(e);
        recording.events.clear();
        record_file.flush();
        if (!record_file) {
            log("--record: writing '" + opt.record_path + "' failed; recording stopped");
            world->stop_recording();
            record_file.close();
        }
    }

    void log(const std::string& s) override {
        if (opt.log) std::fprintf(stderr, "tide serve: %s\n", s.c_str());
    }

    // Queues `in` for the simulation thread; false when refused: a WebSocket client with
    // kMaxPendingPerClient commands waiting, or the inbox full (never near, given the budgets).
    bool push(Inbound in) {
        std::lock_guard lock(in_mutex);
        if (inbox.size() >= 100000) return false;
        // Commands of a WebSocket client, and POST /api/order of every HTTP client together
        // (session 0), wait at most kMaxPendingPerClient at a time.
        if (std::holds_alternative<Command>(in.what) || std::holds_alternative<ApiOrder>(in.what)) {
            int& n = pending[in.session];
            if (n >= kMaxPendingPerClient) return false;
            ++n;
        }
        inbox.push_back(std::move(in));
        return true;
    }
    std::unordered_map<std::uint64_t, int> pending;  // commands waiting, by session (in_mutex)

    // The last state the simulation thread published (GET /api/state when it is busy).
    std::mutex state_mutex;
    std::shared_ptr<const std::string> state_snapshot;
    Clock::time_point state_at;
    std::pair<std::shared_ptr<const std::string>, Clock::time_point> last_state() {
        std::lock_guard lock(state_mutex);
        return {state_snapshot, state_at};
    }

    // Map uploads: one at a time (read on upload_worker, loaded by the simulation thread), paced.
    std::atomic<bool> upload_busy{false};
    std::atomic<std::int64_t> upload_ready_at{0};  // Clock ticks: no upload before
    std::thread upload_worker;                     // io thread starts and joins it; ~Server joins it last

    // --- io thread ------------------------------------------------------------------------
    void broadcast_now(std::shared_ptr<const std::string> data, bool binary, bool agents);
    void send_now(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary = false);
    void accept();
    void close_all();

    // --- simulation thread ----------------------------------------------------------------
    void sim_loop();

    // Outbox (sim_core.hpp): what the core sends is posted to the io thread.
    void broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents, Slot keep) override {
        net::post(ioc, [this, data = std::move(data), binary, agents, keep] {
            if (keep != Slot::none) last[static_cast<std::size_t>(keep)] = data;
            broadcast_now(data, binary, agents);
        });
    }
    void send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) override {
        if (session == 0) return;
        net::post(ioc, [this, session, data = std::move(data), binary] { send_now(session, data, binary); });
    }
    void store(Slot keep, std::shared_ptr<const std::string> data) override {
        net::post(ioc, [this, data = std::move(data), keep] { last[static_cast<std::size_t>(keep)] = data; });
    }
    void terrain(std::uint64_t session, std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0, int x1,
                 int y1) override;
    std::size_t clients() const override { return client_count.load(); }
    // The simulation thread took a command of `session` (applied or refused): its slot frees.
    void taken(std::uint64_t session) override {
        std::lock_guard lock(in_mutex);
        const auto it = pending.find(session);
        if (it != pending.end() && --it->second <= 0) pending.erase(it);
    }
    // The next upload waits kUploadPace x this load's time.
    void upload_done(Clock::duration took) override {
        upload_ready_at = (Clock::now() + took * kUploadPace).time_since_epoch().count();
        upload_busy = false;
    }
    void state(std::string json) override {
        auto data = std::make_shared<const std::string>(std::move(json));
        std::lock_guard lock(state_mutex);
        state_snapshot = std::move(data);
        state_at = Clock::now();
    }
};

// =================================================================================================
// WebSocket session

class Server::Impl::WsSession : public std::enable_shared_from_this<WsSession> {
public:
    WsSession(Impl& server, tcp::socket socket, std::uint64_t id) : server_(server), ws_(std::move(socket)), id_(id) {}

    void run(http::request<http::string_body> req) {
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
        ws_.read_message_max(kMaxClientFrameBytes);
        ws_.auto_fragment(false);
        ws_.async_accept(req, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
    }

    void send(std::shared_ptr<const std::string> data, bool binary, bool agents) {
        if (closed_) return;
        if (agents) {
            // Latest wins: replace an agents frame still waiting (not the one being written).
            for (std::size_t k = writing_ ? 1 : 0; k < queue_.size(); ++k) {
                if (queue_[k].agents) {
                    queued_bytes_ -= queue_[k].data->size();
                    queue_[k].data = data;
                    queued_bytes_ += data->size();
                    return;
                }
            }
        }
        queued_bytes_ += data->size();
        queue_.push_back({std::move(data), binary, agents, false});
        if (queued_bytes_ > server_.opt.max_queued_bytes) {
            server_.log("client " + std::to_string(id_) + " is too slow to keep up; disconnecting it");
            close();
            return;
        }
        if (!writing_) write_next();
    }

    // The cells [x0, x1] x [y0, y1] of `snapshot` are to be sent (a new map: all of them). They go
    // in terrain frames of at most kMaxTerrainFrameBytes, one queued at a time, each encoded from
    // the newest snapshot when its turn comes: however big the map, the client's queue holds at
    // most one band, and a row changed again before it went out is sent once.
    void update_terrain(std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0, int x1, int y1) {
        if (closed_) return;
        if (!snapshot) {
            terrain_.reset();
            dirty_.clear();
            dirty_rows_ = 0;
            return;
        }
        if (!terrain_ || terrain_->width != snapshot->width || terrain_->height != snapshot->height) {
            dirty_.assign(static_cast<std::size_t>(snapshot->height), DirtyRow{});
            dirty_rows_ = 0;
            cursor_ = 0;
        }
        terrain_ = std::move(snapshot);
        y0 = std::max(y0, 0);
        y1 = std::min(y1, terrain_->height - 1);
        for (int y = y0; y <= y1; ++y) {
            DirtyRow& row = dirty_[static_cast<std::size_t>(y)];
            if (row.x1 < row.x0) ++dirty_rows_;
            row.x0 = std::min(row.x0, std::max(x0, 0));
            row.x1 = std::max(row.x1, std::min(x1, terrain_->width - 1));
        }
        pump_terrain();
        if (!writing_) write_next();
    }

    void close() {
        if (closed_) return;
        unregister();
        beast::error_code ec;
        beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
        beast::get_lowest_layer(ws_).socket().close(ec);
    }

private:
    // Marks the session closed and, once, takes it off the server's list and client count.
    void unregister() {
        if (registered_ && !closed_) {
            server_.sessions.erase(id_);
            server_.client_count.fetch_sub(1);
            server_.push({id_, SessionEvent{false}});
        }
        closed_ = true;
    }

    void on_accept(beast::error_code ec) {
        if (ec) {
            server_.log("WebSocket handshake failed: " + ec.message());
            return;
        }
        server_.sessions[id_] = weak_from_this();
        server_.client_count.fetch_add(1);
        registered_ = true;
        // The new client gets the current world at once; its fields frame follows from the
        // simulation thread.
        for (const auto& m : server_.last) {
            if (m) send(m, false, false);
        }
        server_.push({id_, SessionEvent{true}});
        read();
    }

    void read() {
        ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec) {
            if (ec == websocket::error::message_too_big) {
                server_.log("client " + std::to_string(id_) + " sent a message over 1 MiB; connection closed");
            }
            unregister();
            return;  // closed by the peer, or failed: the session ends when its handlers are gone
        }
        const bool text = ws_.got_text();
        std::string msg = beast::buffers_to_string(buffer_.data());
        buffer_.consume(buffer_.size());
        handle(text, msg);
        if (!closed_) read();
    }

    bool flood(bool paint) {
        auto& times = paint ? paint_times_ : other_times_;
        const int limit = paint ? server_.opt.paint_per_second : server_.opt.other_per_second;
        const auto now = Clock::now();
        while (!times.empty() && now - times.front() >= std::chrono::seconds(1)) times.pop_front();
        if (static_cast<int>(times.size()) >= limit) return true;
        times.push_back(now);
        return false;
    }

    void reply_error(const std::string& message, const std::string& request) {
        send(std::make_shared<const std::string>(error_json(message, request)), false, false);
    }

    void handle(bool text, const std::string& msg) {
        if (!text) return reply_error("binary messages are not accepted; send JSON text", "");
        ParsedMessage parsed = parse_client_message(msg);
        if (flood(parsed.type == "paint")) {
            return reply_error(std::string(parsed.type == "paint" ? "too many paint" : "too many") +
                                   " messages: at most " +
                                   std::to_string(parsed.type == "paint" ? server_.opt.paint_per_second
                                                                         : server_.opt.other_per_second) +
                                   " per second; message dropped",
                               parsed.type);
        }
        if (!parsed.command) return reply_error(parsed.command.error().message, parsed.type);
        const auto* viewer_command = std::get_if<ViewerCommand>(&*parsed.command);
        if (const auto* ping = viewer_command ? std::get_if<Ping>(viewer_command) : nullptr) {
            return send(std::make_shared<const std::string>(pong_json(ping->id)), false, false);
        }
        if (!server_.push({id_, std::move(*parsed.command), parsed.type})) {
            return reply_error("busy: " + std::to_string(kMaxPendingPerClient) +
                                   " of your messages are still waiting to be applied; message dropped",
                               parsed.type);
        }
    }

    // Queues the next band of changed rows (from the cursor on, wrapping) unless one is queued.
    void pump_terrain() {
        if (closed_ || terrain_band_queued_ || dirty_rows_ == 0 || !terrain_) return;
        const int h = terrain_->height, w = terrain_->width;
        int y = cursor_ % h;
        while (dirty_[static_cast<std::size_t>(y)].x1 < dirty_[static_cast<std::size_t>(y)].x0) y = (y + 1) % h;
        int x0 = dirty_[static_cast<std::size_t>(y)].x0, x1 = dirty_[static_cast<std::size_t>(y)].x1;
        int rows = 0;
        while (y + rows < h) {
            const DirtyRow& next = dirty_[static_cast<std::size_t>(y + rows)];
            if (next.x1 < next.x0) break;
            const int nx0 = std::min(x0, next.x0), nx1 = std::max(x1, next.x1);
            const std::size_t bytes = static_cast<std::size_t>(rows + 1) * static_cast<std::size_t>(nx1 - nx0 + 1);
            if (rows > 0 && bytes > kMaxTerrainFrameBytes) break;
            x0 = nx0;
            x1 = nx1;
            ++rows;
        }
        for (int k = 0; k < rows; ++k) dirty_[static_cast<std::size_t>(y + k)] = DirtyRow{};
        dirty_rows_ -= static_cast<std::size_t>(rows);
        cursor_ = y + rows;
        auto data =
            std::make_shared<const std::string>(encode_terrain(terrain_->cells, w, h, x0, y, x1 - x0 + 1, rows));
        queued_bytes_ += data->size();
        queue_.push_back({std::move(data), true, false, true});
        terrain_band_queued_ = true;
        if (dirty_rows_ == 0) terrain_.reset();  // everything sent: the snapshot may go
    }

    void write_next() {
        if (queue_.empty() || closed_) {
            writing_ = false;
            return;
        }
        writing_ = true;
        const Outgoing& o = queue_.front();
        ws_.binary(o.binary);
        ws_.async_write(net::buffer(*o.data),
                        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_write(ec); });
    }

    void on_write(beast::error_code ec) {
        if (!queue_.empty()) {
            queued_bytes_ -= queue_.front().data->size();
            if (queue_.front().terrain) terrain_band_queued_ = false;
            queue_.pop_front();
        }
        if (ec) {
            writing_ = false;
            if (!closed_) close();
            return;
        }
        pump_terrain();
        write_next();
    }

    Impl& server_;
    websocket::stream<beast::tcp_stream> ws_;
    beast::flat_buffer buffer_;
    std::uint64_t id_;
    std::deque<Outgoing> queue_;
    std::size_t queued_bytes_ = 0;
    // Terrain still to send: the newest snapshot, per row the changed columns (x1 < x0: none).
    struct DirtyRow {
        int x0 = std::numeric_limits<int>::max();
        int x1 = -1;
    };
    std::shared_ptr<const TerrainSnapshot> terrain_;
    std::vector<DirtyRow> dirty_;
    std::size_t dirty_rows_ = 0;
    int cursor_ = 0;  // the row the next band starts looking from
    bool terrain_band_queued_ = false;
    bool writing_ = false;
    bool closed_ = false;
    bool registered_ = false;
    std::deque<Clock::time_point> paint_times_, other_times_;
};

void Server::Impl::broadcast_now(std::shared_ptr<const std::string> data, bool binary, bool agents) {
    std::vector<std::shared_ptr<WsSession>> live;
    for (auto& [id, weak] : sessions) {
        if (auto s = weak.lock()) live.push_back(std::move(s));
    }
    for (auto& s : live) s->send(data, binary, agents);
}

void Server::Impl::send_now(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) {
    const auto it = sessions.find(session);
    if (it == sessions.end()) return;
    if (auto s = it->second.lock()) s->send(std::move(data), binary, false);
}

// =================================================================================================
// HTTP session: static page files, the small JSON API, and the WebSocket upgrade.

// The whole of the regular file at `path` into `out`; false for anything else (missing, a
// symlink, a FIFO, a device, a directory) or on a read error. Opened without following a final
// symlink and without blocking, then checked on the open descriptor.
static bool read_regular_file(const std::string& path, std::string& out) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (ok) {
        out.clear();
        out.reserve(static_cast<std::size_t>(st.st_size));
        char chunk[1 << 16];
        for (;;) {
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n > 0) {
                out.append(chunk, static_cast<std::size_t>(n));
            } else if (n == 0) {
                break;
            } else if (errno != EINTR) {
                ok = false;
                break;
            }
        }
    }
    ::close(fd);
    return ok;
}

class Server::Impl::HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(Impl& server, tcp::socket socket) : server_(server), stream_(std::move(socket)) {}

    void run() { read(); }

private:
    void read() {
        parser_.emplace();
        parser_->body_limit(kMaxUploadBytes);
        stream_.expires_after(std::chrono::seconds(30));
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ec == http::error::end_of_stream) return close();
        if (ec == http::error::body_limit) {
            return respond_text(http::status::payload_too_large, "upload over 64 MiB refused\n", false);
        }
        if (ec) return;
        http::request<http::string_body> req = parser_->release();
        if (websocket::is_upgrade(req)) {
            if (req.target() != "/ws")
                return respond_text(http::status::not_found, "WebSocket endpoint is /ws\n", false);
            stream_.expires_never();
            auto ws = std::make_shared<WsSession>(server_, stream_.release_socket(), server_.next_session++);
            ws->run(std::move(req));
            return;
        }
        handle(std::move(req));
    }

    void handle(http::request<http::string_body> req) {
        const std::string target(req.target());
        const std::string path = target.substr(0, target.find('?'));
        const std::string query = target.find('?') == std::string::npos ? "" : target.substr(target.find('?') + 1);
        keep_alive_ = req.keep_alive();
        if (path == "/api/map.tmap") {
            if (req.method() != http::verb::get) return respond_text(http::status::method_not_allowed, "GET only\n");
            ApiQuery q;
            q.tmap = true;
            auto self = shared_from_this();
            q.reply = [self](std::string body) {
                net::post(self->stream_.get_executor(),
                          [self, body = std::move(body)]() mutable { self->respond_tmap(std::move(body)); });
            };
            server_.push({0, std::move(q)});
            return;
        }
        if (path == "/api/state" || path == "/api/agents") {
            if (req.method() != http::verb::get) return respond_text(http::status::method_not_allowed, "GET only\n");
            ApiQuery q;
            q.agents = path == "/api/agents";
            if (auto v = param(query, "limit"); !v.empty()) {
                char* end = nullptr;
                const long n = std::strtol(v.c_str(), &end, 10);
                if (*end != '\0' || n < 0 || n > kMaxAgents) {
                    return respond_json(http::status::bad_request,
                                        error_json("limit '" + v + "' is not an integer in 0..200000", "agents"));
                }
                q.limit = static_cast<std::size_t>(n);
            }
            auto self = shared_from_this();
            // Answered once: by the simulation thread, or (GET /api/state only) after kStateWaitMs
            // from the state it published last, whichever comes first.
            auto answered = std::make_shared<std::atomic<bool>>(false);
            q.reply = [self, answered](std::string body) {
                net::post(self->stream_.get_executor(), [self, answered, body = std::move(body)]() mutable {
                    if (!answered->exchange(true)) self->respond_json(http::status::ok, std::move(body));
                });
            };
            if (!q.agents) {
                auto timer = std::make_shared<net::steady_timer>(stream_.get_executor(),
                                                                 std::chrono::milliseconds(kStateWaitMs));
                timer->async_wait([self, answered, timer](beast::error_code ec) {
                    if (ec) return;
                    auto [snapshot, at] = self->server_.last_state();
                    if (!snapshot || answered->exchange(true)) return;
                    const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - at);
                    self->respond_json(http::status::ok, *snapshot, std::to_string(age.count()));
                });
            }
            server_.push({0, std::move(q)});
            return;
        }
        if (path == "/api/order") {
            if (req.method() != http::verb::post) return respond_text(http::status::method_not_allowed, "POST only\n");
            auto order = parse_order_body(req.body());
            if (!order) {
                return respond_json(http::status::bad_request,
                                    nlohmann::json{{"error", order.error().message}}.dump(
                                        -1, ' ', false, nlohmann::json::error_handler_t::replace));
            }
            auto self = shared_from_this();
            ApiOrder a{std::move(*order), [self](bool ok, std::string body) {
                           net::post(self->stream_.get_executor(), [self, ok, body = std::move(body)]() mutable {
                               self->respond_json(ok ? http::status::ok : http::status::bad_request, std::move(body));
                           });
                       }};
            if (!server_.push({0, std::move(a)})) {
                return respond_json(http::status::service_unavailable,
                                    R"({"error":"busy: too many orders are waiting to be applied; try again"})");
            }
            return;
        }
        if (path == "/api/map") {
            if (req.method() != http::verb::post) return respond_text(http::status::method_not_allowed, "POST only\n");
            auto refuse = [&](const std::string& why) {
                respond_json(http::status::too_many_requests,
                             nlohmann::json{{"ok", false}, {"error", why}}.dump(
                                 -1, ' ', false, nlohmann::json::error_handler_t::replace));
            };
            const std::int64_t wait = server_.upload_ready_at.load() - Clock::now().time_since_epoch().count();
            if (wait > 0) {
                return refuse(
                    "uploads are paced by the time the last load took: the next one in " +
                    std::to_string(
                        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::duration(wait)).count() + 1) +
                    " ms");
            }
            if (server_.upload_busy.exchange(true)) {
                return refuse("another upload is being read or loaded; one at a time: try again when it is on the map");
            }
            // Read on a worker (a big map with many class lines took the io thread seconds, and
            // every page request with it); answered, and loaded, from there.
            if (server_.upload_worker.joinable()) server_.upload_worker.join();  // done: busy was clear
            server_.upload_worker = std::thread([self = shared_from_this(), body = std::move(req.body()),
                                                 name = param(query, "name")]() mutable {
                auto map = parse_map_upload(body, name);
                body = std::string();
                net::post(self->stream_.get_executor(), [self, map = std::move(map)]() mutable {
                    if (!map) {
                        self->server_.upload_busy = false;
                        return self->respond_json(http::status::bad_request,
                                                  nlohmann::json{{"ok", false}, {"error", map.error().message}}.dump(
                                                      -1, ' ', false, nlohmann::json::error_handler_t::replace));
                    }
                    if (!self->server_.push(
                            {0, LoadParsed{map->name, std::make_shared<CostField>(std::move(map->cost))}})) {
                        self->server_.upload_busy = false;
                        return self->respond_json(http::status::service_unavailable,
                                                  R"({"ok":false,"error":"the server is too busy to load a map"})");
                    }
                    self->respond_json(http::status::ok, R"({"ok":true})");
                });
            });
            return;
        }
        if (req.method() != http::verb::get && req.method() != http::verb::head) {
            return respond_text(http::status::method_not_allowed, "GET only\n");
        }
        const std::string file = path == "/" ? "index.html" : path.substr(1);
        std::string body;
        bool found = false;
        if (!server_.opt.web_root.empty()) {
            // Development: regular files with plain names inside the folder, nothing else: not a
            // symlink (it may lead out of the folder), a FIFO (reading one blocked the server for
            // good), a device or a subdirectory (answered 200 with an empty body).
            if (file.find("..") == std::string::npos && file.find('/') == std::string::npos) {
                found = read_regular_file((std::filesystem::path(server_.opt.web_root) / file).string(), body);
            }
        } else {
            for (const WebAsset& a : web_assets()) {
                if (a.path == file) {
                    body.assign(a.data);
                    found = true;
                }
            }
        }
        if (!found) return respond_text(http::status::not_found, "not found: " + path + "\n");
        http::response<http::string_body> res{http::status::ok, 11};
        res.set(http::field::content_type, std::string(mime_of(file)));
        res.set(http::field::cache_control, "no-cache");
        res.keep_alive(keep_alive_);
        res.body() = std::move(body);
        res.prepare_payload();
        write(std::move(res));
    }

    static std::string param(const std::string& query, const std::string& key) {
        std::size_t pos = 0;
        while (pos <= query.size()) {
            const std::size_t amp = std::min(query.find('&', pos), query.size());
            const std::string part = query.substr(pos, amp - pos);
            if (part.rfind(key + "=", 0) == 0) return url_decode(part.substr(key.size() + 1));
            pos = amp + 1;
        }
        return {};
    }

    static std::string url_decode(const std::string& s) {
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
                out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
                i += 2;
            } else {
                out.push_back(s[i] == '+' ? ' ' : s[i]);
            }
        }
        return out;
    }

    void respond_text(http::status status, std::string text, bool keep = true) {
        http::response<http::string_body> res{status, 11};
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        res.keep_alive(keep && keep_alive_);
        res.body() = std::move(text);
        res.prepare_payload();
        write(std::move(res));
    }

    // The current map as a .tmap download; the first line of `body` is the file name ("name.tmap"),
    // or "!" and an error message.
    void respond_tmap(std::string body) {
        const std::size_t eol = body.find('\n');
        const std::string first = body.substr(0, eol);
        if (first == "!") return respond_text(http::status::internal_server_error, body.substr(eol + 1) + "\n");
        http::response<http::string_body> res{http::status::ok, 11};
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        res.set(http::field::content_disposition, "attachment; filename=\"" + first + "\"");
        res.set(http::field::cache_control, "no-store");
        res.keep_alive(keep_alive_);
        res.body() = body.substr(eol + 1);
        res.prepare_payload();
        write(std::move(res));
    }

    // `state_age_ms` (GET /api/state answered from the last published state): its age, as the
    // header X-Tide-State-Age-Ms.
    void respond_json(http::status status, std::string body, const std::string& state_age_ms = "") {
        http::response<http::string_body> res{status, 11};
        res.set(http::field::content_type, "application/json");
        res.set(http::field::cache_control, "no-store");
        if (!state_age_ms.empty()) res.set("X-Tide-State-Age-Ms", state_age_ms);
        res.keep_alive(keep_alive_);
        res.body() = std::move(body);
        res.prepare_payload();
        write(std::move(res));
    }

    void write(http::response<http::string_body> res) {
        auto sp = std::make_shared<http::response<http::string_body>>(std::move(res));
        const bool keep = sp->keep_alive();
        http::async_write(stream_, *sp, [self = shared_from_this(), sp, keep](beast::error_code ec, std::size_t) {
            if (ec) return;
            if (!keep) return self->close();
            self->read();
        });
    }

    void close() {
        beast::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    }

    Impl& server_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    bool keep_alive_ = true;
};

void Server::Impl::accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (stopping) return;
        if (!ec) {
            std::make_shared<HttpSession>(*this, std::move(socket))->run();
        } else {
            log("accept failed: " + ec.message());
        }
        accept();
    });
}

void Server::Impl::terrain(std::uint64_t session, std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0,
                           int x1, int y1) {
    net::post(ioc, [this, session, snapshot = std::move(snapshot), x0, y0, x1, y1] {
        for (auto& [id, weak] : sessions) {
            if (session != 0 && id != session) continue;
            if (auto s = weak.lock()) s->update_terrain(snapshot, x0, y0, x1, y1);
        }
    });
}

void Server::Impl::close_all() {
    beast::error_code ec;
    acceptor.close(ec);
    std::vector<std::shared_ptr<WsSession>> live;
    for (auto& [id, weak] : sessions) {
        if (auto s = weak.lock()) live.push_back(std::move(s));
    }
    for (auto& s : live) s->close();
    sessions.clear();
}

// =================================================================================================
// Simulation thread: the core's ticks at opt.tick_hz, with what came in since the last.

void Server::Impl::sim_loop() {
    using namespace std::chrono;
    const auto period = duration_cast<Clock::duration>(duration<double>(1.0 / opt.tick_hz));
    const float dt = static_cast<float>(1.0 / opt.tick_hz);
    core->begin();
    std::vector<Inbound> incoming;
    auto next = Clock::now();
    while (!stopping) {
        std::this_thread::sleep_until(next);
        next += period;
        if (Clock::now() - next > milliseconds(250)) next = Clock::now();  // fell far behind: do not race to catch up
        {
            std::lock_guard lock(in_mutex);
            incoming.swap(inbox);
        }
        core->step(incoming, dt);
        flush_recording();
    }
    flush_recording();  // what came after the last tick
}

// =================================================================================================

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Server::~Server() {
    stop();
    if (impl_->sim.joinable()) impl_->sim.join();
    if (impl_->upload_worker.joinable()) impl_->upload_worker.join();
}

Result<void> Server::start() {
    Impl& s = *impl_;
    if (!(s.opt.tick_hz >= 1.0 && s.opt.tick_hz <= 1000.0)) {
        return Error{"tick rate " + std::to_string(s.opt.tick_hz) + " Hz is outside 1..1000"};
    }
    s.opt.agent_fps = std::clamp(s.opt.agent_fps, 1.0, std::min(30.0, s.opt.tick_hz));
    if (s.opt.agents < 0 || s.opt.agents > kMaxAgents) {
        return Error{"--agents " + std::to_string(s.opt.agents) + " is outside 0.." + std::to_string(kMaxAgents)};
    }
    std::string name = "default";
    BuiltinMap map{CostField::create(1, 1).value(), {}, std::nullopt};
    if (s.opt.map_path.empty() || s.opt.map_path[0] == '@') {
        if (!s.opt.map_path.empty()) name = s.opt.map_path.substr(1);
        auto m = make_builtin_map(name);
        if (!m) return m.error();
        map = std::move(*m);
    } else {
        auto m = load_map(s.opt.map_path);
        if (!m) return m.error();
        auto goal = central_goal(m->cost);
        if (!goal) return Error{s.opt.map_path + ": the map has no passable cell"};
        name = std::filesystem::path(s.opt.map_path).filename().string();
        map = BuiltinMap{std::move(m->cost), {*goal}, std::nullopt};
    }
    if (s.opt.sector_size < 16 || s.opt.sector_size > 256) {
        return Error{"sector size " + std::to_string(s.opt.sector_size) + " is outside 16..256"};
    }
    s.jobs = std::make_unique<TbbJobSystem>(s.opt.threads);
    WorldConfig config;
    config.hierarchy_cells = s.opt.hierarchy_cells;
    config.sectors.sector_size = s.opt.sector_size;
    config.sectors.portal_limit = std::min(config.sectors.portal_limit, s.opt.sector_size);
    config.congestion.enabled = s.opt.congestion == ServerOptions::Congestion::on ||
                                (s.opt.congestion == ServerOptions::Congestion::automatic &&
                                 static_cast<std::int64_t>(map.cost.size()) <= kCongestionAutoCells);
    config.lockstep = !s.opt.record_path.empty();
    s.world = std::make_unique<World>(*s.jobs, config);
    if (config.lockstep) {
        s.record_file.open(s.opt.record_path, std::ios::binary | std::ios::trunc);
        if (!s.record_file) return Error{ErrorCode::io, "--record: cannot write '" + s.opt.record_path + "'"};
        if (auto r = s.world->start_recording(s.recording); !r) return r;
        s.record_file << recording_header_text(s.recording.config);
    }
    const auto t0 = Clock::now();
    if (auto r = s.world->load(name, std::move(map.cost), std::move(map.goals), s.opt.agents, map.spawn_area); !r) {
        return r;
    }
    s.log("loaded map " + name + load_note(t0, *s.world));

    beast::error_code ec;
    const auto address = net::ip::make_address(s.opt.host, ec);
    if (ec) return Error{"--host '" + s.opt.host + "' is not an IP address"};
    const tcp::endpoint endpoint{address, s.opt.port};
    s.acceptor.open(endpoint.protocol(), ec);
    if (!ec) s.acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) s.acceptor.bind(endpoint, ec);
    if (!ec) s.acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) return Error{"cannot listen on " + s.opt.host + ":" + std::to_string(s.opt.port) + ": " + ec.message()};
    s.bound_port = s.acceptor.local_endpoint().port();

    // The world's messages for the first clients: posted before the first accept, so the event
    // loop stores them before any session can start.
    CoreOptions core;
    core.agent_fps = s.opt.agent_fps;
    core.congestion_automatic = s.opt.congestion == ServerOptions::Congestion::automatic;
    core.congestion_cells = kCongestionAutoCells;
    s.core = std::make_unique<SimCore>(*s.world, s, core);
    s.core->post_world_state();
    s.accept();
    s.sim = std::thread([&s] { s.sim_loop(); });
    return {};
}

unsigned short Server::port() const {
    return impl_->bound_port;
}

void Server::run() {
    Impl& s = *impl_;
    if (s.stopped) return;
    auto guard = net::make_work_guard(s.ioc);
    s.ioc.run();
}

void Server::stop() {
    Impl& s = *impl_;
    if (s.stopping.exchange(true)) return;
    if (s.sim.joinable() && s.sim.get_id() != std::this_thread::get_id()) s.sim.join();
    // Close everything on the io thread, then let run() return.
    net::post(s.ioc, [&s] {
        s.close_all();
        s.stopped = true;
        s.ioc.stop();
    });
}

}  // namespace tide::serve
