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
using Clock = std::chrono::steady_clock;

// Size limits (tide/limits.hpp): kMaxClientFrameBytes (larger frames fail the connection with
// 1009), kMaxUploadBytes (POST /api/map body), kMaxQueuedBytes (a client this far behind is
// dropped), kMaxTerrainFrameBytes (whole-map terrain goes in row bands of at most this).

// Budgets that keep one client from delaying the others (docs/reliability.md,
// "Budgets"). Messages per second are counted on the io thread (ServerOptions::paint_per_second,
// other_per_second); these bound what gets past that:
// - a WebSocket client has at most kMaxPendingPerClient commands waiting for the simulation
//   thread; more are refused at once with an error reply ("busy");
// - the simulation thread runs at most kTickCommandMs of commands per tick and leaves the rest,
//   in order, for the next tick (queries and connections are still served at once);
// - it measures what each client's commands take and refuses a client's commands while it owes
//   more than kClientBurstMs (the debt falls by kClientShareMsPerSecond every second): one client
//   gets at most about a fifth of the simulation thread for its A* comparisons, spawns, towers,
//   loads and orders, however many it sends;
// - one map upload at a time, read off the io thread; after a load the next upload waits
//   kUploadPace x that load's time (HTTP 429 meanwhile);
// - GET /api/state waits at most kStateWaitMs for the simulation thread; past that it is answered
//   from the state the simulation thread published last (header X-Tide-State-Age-Ms: its age).
constexpr int kMaxPendingPerClient = 32;
constexpr double kTickCommandMs = 8.0;
constexpr double kClientShareMsPerSecond = 200.0;
constexpr double kClientBurstMs = 100.0;
constexpr double kClientMaxDebtMs = 1000.0;  // a load of seconds leaves its client at most this owed
constexpr double kUploadPace = 3.0;
constexpr int kStateWaitMs = 50;
constexpr auto kStatePublishPeriod = std::chrono::milliseconds(50);

// A query from an HTTP request, answered by the simulation thread.
struct ApiQuery {
    bool agents = false;
    bool tmap = false;  // GET /api/map.tmap: the current terrain as a .tmap
    std::size_t limit = 1000;
    std::function<void(std::string)> reply;  // called on the simulation thread
};
// A map parsed from an upload, to be swapped in.
struct LoadParsed {
    std::string name;
    std::shared_ptr<CostField> cost;
};
// POST /api/order, answered by the simulation thread.
struct ApiOrder {
    Order order;
    std::function<void(bool ok, std::string body)> reply;  // called on the simulation thread
};
// A WebSocket client came or went (the simulation thread keeps its selection and view).
struct SessionEvent {
    bool connected = false;
};
struct Inbound {
    using What = std::variant<Command, ApiQuery, LoadParsed, ApiOrder, SessionEvent>;
    Inbound(std::uint64_t s, What w, std::string t = {}) : session(s), what(std::move(w)), type(std::move(t)) {}
    std::uint64_t session = 0;  // 0: not from a WebSocket client
    What what;
    std::string type;  // a command's message type (for error replies)
};

// What the simulation thread keeps per WebSocket client.
struct Client {
    Viewer view;  // its selection and the group it is shown (tide::Viewer)
    // What its last fields frame showed: group, that group's field serial, terrain version, map load.
    std::array<std::uint64_t, 4> sent{~0ull, ~0ull, ~0ull, ~0ull};
    // Hierarchical maps: its last sectors frame (unit size, graph version, map load) and sector
    // fields frame (group, field serial, map load).
    std::array<std::uint64_t, 3> sectors_sent{~0ull, ~0ull, ~0ull};
    std::array<std::uint64_t, 3> built_sent{~0ull, ~0ull, ~0ull};
    // The fields frame its page holds (the last one sent, whole or as a patch): the base of the next patch.
    std::shared_ptr<const std::string> fields;
};

struct Outgoing {
    std::shared_ptr<const std::string> data;
    bool binary = false;
    bool agents = false;   // latest-wins: a newer agents frame replaces one not yet sent
    bool terrain = false;  // a band of the terrain stream (at most one is queued at a time)
};

// The full-resolution terrain of a map whose fields frames are sampled, as the simulation thread
// last sent it: immutable, shared by every session that still streams from it.
struct TerrainSnapshot {
    int width = 0, height = 0;
    std::vector<Cost> cells;
};

// " in N ms" after a map load, with the sector graph's share on hierarchical maps.
std::string load_note(Clock::time_point t0, const World& world) {
    char text[120];
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (world.hierarchical()) {
        std::snprintf(text, sizeof text, " in %.0f ms (hierarchical: sector graph %.0f ms, routes %.0f ms)", ms,
                      world.stats().graph_build_ms, world.stats().route_ms);
    } else {
        std::snprintf(text, sizeof text, " in %.0f ms", ms);
    }
    return text;
}

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

// The download name of the current map: its name without a folder or extension, plus ".tmap".
std::string tmap_file_name(std::string name) {
    if (const auto slash = name.find_last_of("/\\:"); slash != std::string::npos) name = name.substr(slash + 1);
    if (const auto dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
    for (char& ch : name)
        if (ch == '"' || static_cast<unsigned char>(ch) < 32) ch = '_';
    return (name.empty() ? std::string("map") : name) + ".tmap";
}

}  // namespace

struct Server::Impl {
    class WsSession;
    class HttpSession;

    ServerOptions opt;
    net::io_context ioc{1};
    tcp::acceptor acceptor{ioc};
    std::unique_ptr<TbbJobSystem> jobs;
    std::unique_ptr<World> world;  // simulation thread only (after start())
    Recording recording;           // --record: events not yet appended to record_file
    std::ofstream record_file;
    std::thread sim;
    std::atomic<bool> stopping{false};
    std::atomic<bool> stopped{false};
    std::atomic<std::size_t> clients{0};
    std::atomic<double> tick_hz{0.0};
    unsigned short bound_port = 0;

    std::mutex in_mutex;
    std::vector<Inbound> inbox;

    // Io thread only.
    std::unordered_map<std::uint64_t, std::weak_ptr<WsSession>> sessions;
    std::uint64_t next_session = 1;
    // Last world messages, sent to every new client (io thread only). Fields frames go to each
    // client from the simulation thread (each sees the field of the group it looks at).
    std::shared_ptr<const std::string> last_world, last_groups, last_params, last_paused;

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

    void log(const std::string& s) const {
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
    // The simulation thread took a command of `session` (applied or refused): its slot frees.
    void taken(std::uint64_t session) {
        std::lock_guard lock(in_mutex);
        const auto it = pending.find(session);
        if (it != pending.end() && --it->second <= 0) pending.erase(it);
    }
    std::unordered_map<std::uint64_t, int> pending;  // commands waiting, by session (in_mutex)

    // The last state the simulation thread published (GET /api/state when it is busy).
    std::mutex state_mutex;
    std::shared_ptr<const std::string> state_snapshot;
    Clock::time_point state_at;
    void publish_state(std::string s) {
        auto data = std::make_shared<const std::string>(std::move(s));
        std::lock_guard lock(state_mutex);
        state_snapshot = std::move(data);
        state_at = Clock::now();
    }
    std::pair<std::shared_ptr<const std::string>, Clock::time_point> last_state() {
        std::lock_guard lock(state_mutex);
        return {state_snapshot, state_at};
    }

    // Map uploads: one at a time (read on upload_worker, loaded by the simulation thread), paced.
    std::atomic<bool> upload_busy{false};
    std::atomic<std::int64_t> upload_ready_at{0};  // Clock ticks: no upload before
    std::thread upload_worker;                     // io thread starts and joins it; ~Server joins it last

    // --- io thread ------------------------------------------------------------------------
    void broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents);
    void send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary = false);
    void accept();
    void close_all();

    // --- simulation thread ----------------------------------------------------------------
    // What the simulation thread keeps between ticks (sim_loop and its helpers only).
    struct SimState {
        std::unordered_map<std::uint64_t, Client> clients;  // by session
        std::vector<Inbound> batch;                         // this tick's inbound
        std::vector<Inbound> deferred;                      // commands past a tick's kTickCommandMs, in order
        std::unordered_map<std::uint64_t, double> debt;     // per session: ms of simulation time owed
        Clock::time_point debt_at = Clock::now();
        bool step_once = false;            // a step command: tick once while paused
        std::uint64_t loads = 0;           // +1 per map load: a fields frame of the old map is never current
        std::uint64_t roster = 0;          // the roster version the selections were last checked against
        std::uint64_t groups_sent = 0;     // the groups version last broadcast
        std::uint32_t fields_version = 0;  // +1 per distinct fields frame encoded
        std::unordered_map<UnitGroupId, float> field_scales;  // each group's quantisation scale (encode_fields)
        std::uint64_t terrain_seen = 0;                       // terrain version send_fields() last saw
        Clock::time_point terrain_changed_at = Clock::now() - std::chrono::seconds(1);
        // Maps whose fields frames are sampled get their terrain at full resolution in terrain
        // frames: the whole map after a load (and to each new client), then the cells edits changed
        // (found by comparing with the terrain last sent). Each session streams it in bands
        // (WsSession::update_terrain) from the newest snapshot.
        std::shared_ptr<const TerrainSnapshot> sent_snapshot;
        std::uint64_t terrain_sent = 0;                  // the terrain version last broadcast
        std::shared_ptr<const std::string> agents_sent;  // the last agents frame broadcast
        bool agents_due = true;                          // a client connected since: send one even if paused
        Clock::time_point last_agents, last_fields, last_whole_fields, last_sectors, last_stats, state_published;
        Clock::time_point rate_start = Clock::now();
        int rate_ticks = 0;
    };
    SimState sim_state;
    void sim_loop();
    std::vector<Inbound>& take_inbox();
    void run_commands(std::vector<Inbound>& batch);
    void handle(Inbound& in);
    void handle_query(ApiQuery& q);
    void handle_session_event(std::uint64_t session, const SessionEvent& ev);
    void handle_api_order(ApiOrder& order);
    void handle_upload(LoadParsed& upload);
    void handle_command(const Inbound& in);
    bool over_budget(const Inbound& in);
    Result<void> apply_world_command(std::uint64_t session, Client* client, const WorldCommand& command);
    Result<void> apply_order(std::uint64_t session, const Order& order);
    // Viewer commands, one each (apply_viewer_command picks).
    Result<void> apply_viewer_command(std::uint64_t session, Client* client, const ViewerCommand& command);
    Result<void> on(std::uint64_t session, Client* client, const SelectUnits& c);
    Result<void> on(std::uint64_t session, Client* client, const ShowGroup& c);
    Result<void> on(std::uint64_t session, Client* client, const OrderSelected& c);
    Result<void> on(std::uint64_t session, Client* client, const SnapGoals& c);
    Result<void> on(std::uint64_t session, Client* client, const CheckTower& c);
    Result<void> on(std::uint64_t session, Client* client, const ChangeSettings& c);
    Result<void> on(std::uint64_t session, Client* client, const LoadMap& c);
    Result<void> on(std::uint64_t session, Client* client, const StartScenario& c);
    Result<void> on(std::uint64_t session, Client* client, const CompareAstar& c);
    Result<void> on(std::uint64_t session, Client* client, const InspectUnit& c);
    Result<void> on(std::uint64_t session, Client* client, const StepOnce& c);
    Result<void> on(std::uint64_t session, Client* client, const Ping& c);
    Result<void> load(const std::string& name, CostField cost, std::vector<Cell> goals,
                      std::optional<CellRect> spawn_area);
    void after_load();
    void clear_selections();
    void publish_state_if_due();
    void show_edit_before_step();
    void after_tick();
    void send_frames(Clock::time_point now);
    void send_agents(Clock::time_point now);
    void send_fields(Clock::time_point now);
    void send_sectors(Clock::time_point now);
    void broadcast_terrain(bool whole);
    bool sampled() const { return field_stride(world->cost().width(), world->cost().height()) > 1; }
    // A broadcast; `keep` (when set) names the last-message slot it also fills, so that new
    // clients start up to date.
    using Slot = std::shared_ptr<const std::string> Impl::*;
    void post_broadcast(std::string s, bool binary, bool agents = false, Slot keep = nullptr) {
        post_broadcast(std::make_shared<const std::string>(std::move(s)), binary, agents, keep);
    }
    void post_broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents = false,
                        Slot keep = nullptr) {
        net::post(ioc, [this, data, binary, agents, keep] {
            if (keep) this->*keep = data;
            broadcast(data, binary, agents);
        });
    }
    void post_to(std::uint64_t session, std::string s, bool binary) {
        if (session == 0) return;
        auto data = std::make_shared<const std::string>(std::move(s));
        net::post(ioc, [this, session, data, binary] { send_to(session, data, binary); });
    }
    void post_error(std::uint64_t session, const std::string& message, const std::string& request) {
        post_to(session, error_json(message, request), false);
    }
    // Refreshes a last-message slot for clients yet to come, without sending it to anyone now.
    void post_store(std::string s, Slot keep) {
        auto data = std::make_shared<const std::string>(std::move(s));
        net::post(ioc, [this, data, keep] { this->*keep = data; });
    }
    // Terrain to stream: the cells [x0, x1] x [y0, y1] of `snapshot` changed (or are new) for
    // `session` (0: every session). A null snapshot stops the streams (a map without terrain frames).
    void post_terrain(std::uint64_t session, std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0, int x1,
                      int y1);
    // Maps uploaded with POST /api/map, newest last, that `load_map` with `uploaded` switches back
    // to (simulation thread only): at most kKeptUploads, and at most kKeptUploadCells cells in all.
    static constexpr std::size_t kKeptUploads = 8;
    static constexpr std::size_t kKeptUploadCells = std::size_t{64} << 20;
    std::vector<std::pair<std::string, std::shared_ptr<const CostField>>> uploads;
    void keep_upload(const std::string& name, const CostField& cost) {
        std::erase_if(uploads, [&](const auto& u) { return u.first == name; });
        uploads.emplace_back(name, std::make_shared<const CostField>(cost));
        auto cells = [&] {
            std::size_t n = 0;
            for (const auto& u : uploads) n += u.second->cells().size();
            return n;
        };
        while (uploads.size() > 1 && (uploads.size() > kKeptUploads || cells() > kKeptUploadCells))
            uploads.erase(uploads.begin());
    }
    std::vector<std::string> upload_names() const {
        std::vector<std::string> names;
        for (const auto& u : uploads) names.push_back(u.first);
        return names;
    }
    std::string world_message() const { return world_json(*world, builtin_map_names(), kMaxAgents, upload_names()); }

    void post_world_state() {
        post_broadcast(world_message(), false, false, &Impl::last_world);
        post_broadcast(groups_json(*world), false, false, &Impl::last_groups);
        post_broadcast(params_json(*world), false, false, &Impl::last_params);
        post_broadcast(paused_json(*world), false, false, &Impl::last_paused);
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
            server_.clients.fetch_sub(1);
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
        server_.clients.fetch_add(1);
        registered_ = true;
        // The new client gets the current world at once; its fields frame follows from the
        // simulation thread.
        for (const auto& m : {server_.last_world, server_.last_groups, server_.last_params, server_.last_paused}) {
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
            nlohmann::json j{{"type", "pong"}, {"id", ping->id}};
            return send(std::make_shared<const std::string>(j.dump()), false, false);
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

void Server::Impl::broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents) {
    std::vector<std::shared_ptr<WsSession>> live;
    for (auto& [id, weak] : sessions) {
        if (auto s = weak.lock()) live.push_back(std::move(s));
    }
    for (auto& s : live) s->send(data, binary, agents);
}

void Server::Impl::send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) {
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

void Server::Impl::post_terrain(std::uint64_t session, std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0,
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
// Simulation thread: drain the commands, tick, send the frames.

void Server::Impl::sim_loop() {
    using namespace std::chrono;
    const auto period = duration_cast<Clock::duration>(duration<double>(1.0 / opt.tick_hz));
    const float dt = static_cast<float>(1.0 / opt.tick_hz);
    SimState& st = sim_state;
    const auto now = Clock::now();
    st.last_agents = now - seconds(10);
    st.last_fields = st.last_whole_fields = st.last_sectors = st.state_published = now - seconds(1);
    st.last_stats = now;
    st.roster = world->roster_version();
    st.groups_sent = world->groups_version();
    st.terrain_seen = st.terrain_sent = world->terrain_version();
    broadcast_terrain(true);
    auto next = Clock::now();
    while (!stopping) {
        std::this_thread::sleep_until(next);
        next += period;
        if (Clock::now() - next > milliseconds(250)) next = Clock::now();  // fell far behind: do not race to catch up
        const std::uint64_t terrain_before = world->terrain_version();
        st.step_once = false;
        run_commands(take_inbox());
        publish_state_if_due();
        if (world->terrain_version() != terrain_before) show_edit_before_step();
        if (auto r = world->tick(dt, st.step_once); !r) log("step failed: " + r.error().message);
        flush_recording();
        after_tick();
        send_frames(Clock::now());
    }
    flush_recording();  // what came after the last tick
}

// This tick's inbound: the commands left from the last tick first, then what came since. Debts
// fall by what the time since the last tick earned.
std::vector<Inbound>& Server::Impl::take_inbox() {
    SimState& st = sim_state;
    st.batch.clear();
    st.batch.swap(st.deferred);
    {
        std::lock_guard lock(in_mutex);
        for (Inbound& in : inbox) st.batch.push_back(std::move(in));
        inbox.clear();
    }
    const double paid = kClientShareMsPerSecond * std::chrono::duration<double>(Clock::now() - st.debt_at).count();
    st.debt_at = Clock::now();
    for (auto it = st.debt.begin(); it != st.debt.end();) {
        it->second -= paid;
        it = it->second <= 0.0 ? st.debt.erase(it) : std::next(it);
    }
    return st.batch;
}

// Runs the batch in order; once this tick's commands took kTickCommandMs, the rest of the work
// waits for the next tick (queries and connections are still answered). What a command takes is
// charged to the tick and to its client.
void Server::Impl::run_commands(std::vector<Inbound>& batch) {
    double command_ms = 0.0;
    for (Inbound& in : batch) {
        const bool work = !std::holds_alternative<ApiQuery>(in.what) && !std::holds_alternative<SessionEvent>(in.what);
        if (!work) {
            handle(in);
            continue;
        }
        if (command_ms >= kTickCommandMs) {
            sim_state.deferred.push_back(std::move(in));  // next tick, before anything newer
            continue;
        }
        const auto t0 = Clock::now();
        handle(in);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        command_ms += ms;
        if (in.session != 0) {
            double& owed = sim_state.debt[in.session];
            owed = std::min(owed + ms, kClientMaxDebtMs);
        }
    }
}

void Server::Impl::handle(Inbound& in) {
    if (auto* q = std::get_if<ApiQuery>(&in.what)) return handle_query(*q);
    if (auto* ev = std::get_if<SessionEvent>(&in.what)) return handle_session_event(in.session, *ev);
    if (auto* ao = std::get_if<ApiOrder>(&in.what)) return handle_api_order(*ao);
    if (auto* lp = std::get_if<LoadParsed>(&in.what)) return handle_upload(*lp);
    handle_command(in);
}

void Server::Impl::handle_query(ApiQuery& q) {
    if (q.tmap) {
        auto text = format_tide_map(world->cost());
        q.reply(text ? tmap_file_name(world->name()) + "\n" + *text : "!\n" + text.error().message);
        return;
    }
    q.reply(q.agents ? agents_json(*world, q.limit) : state_json(*world, tick_hz.load(), clients.load()));
}

void Server::Impl::handle_session_event(std::uint64_t session, const SessionEvent& ev) {
    SimState& st = sim_state;
    if (!ev.connected) {
        st.clients.erase(session);
        return;
    }
    st.clients[session] = Client{};
    st.agents_due = true;
    // Sampled fields frames: the terrain at full resolution comes apart, streamed.
    if (sampled() && st.sent_snapshot) {
        post_terrain(session, st.sent_snapshot, 0, 0, st.sent_snapshot->width - 1, st.sent_snapshot->height - 1);
    }
}

void Server::Impl::handle_api_order(ApiOrder& order) {
    taken(0);
    auto r = world->apply(order.order);
    order.reply(r.ok(), r ? nlohmann::json{{"group", r->group}, {"units", r->units}}.dump()
                          : nlohmann::json{{"error", r.error().message}}.dump(
                                -1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void Server::Impl::handle_upload(LoadParsed& upload) {
    const auto goal = central_goal(*upload.cost);
    const auto t0 = Clock::now();
    keep_upload(upload.name, *upload.cost);
    auto r = load(upload.name, std::move(*upload.cost), {*goal}, std::nullopt);
    // The next upload waits kUploadPace x this load's time.
    upload_ready_at = (Clock::now() + (Clock::now() - t0) * kUploadPace).time_since_epoch().count();
    upload_busy = false;
    if (!r) log("map " + upload.name + " refused: " + r.error().message);
}

// A client command: refused while its client is over budget, else applied; errors go back to the
// client as an error reply naming the message type.
void Server::Impl::handle_command(const Inbound& in) {
    const Command& cmd = std::get<Command>(in.what);
    if (in.session != 0) {
        taken(in.session);
        if (over_budget(in)) return;
    }
    Client* client = nullptr;
    if (auto it = sim_state.clients.find(in.session); it != sim_state.clients.end()) client = &it->second;
    const auto* world_command = std::get_if<WorldCommand>(&cmd);
    Result<void> r = world_command ? apply_world_command(in.session, client, *world_command)
                                   : apply_viewer_command(in.session, client, std::get<ViewerCommand>(cmd));
    if (!r) post_error(in.session, r.error().message, in.type);
}

// A client that owes more than kClientBurstMs of simulation time: its commands are refused (not
// queued) until it has paid it back, except the cheap ones of an interactive page (selecting,
// viewing, painting, pausing, settings other than congestion, inspecting). True when refused.
bool Server::Impl::over_budget(const Inbound& in) {
    const Command& cmd = std::get<Command>(in.what);
    bool cheap = false;
    if (const auto* w = std::get_if<WorldCommand>(&cmd)) {
        cheap = std::holds_alternative<Paint>(*w) || std::holds_alternative<SetPaused>(*w);
    } else {
        const auto& v = std::get<ViewerCommand>(cmd);
        const auto* settings = std::get_if<ChangeSettings>(&v);
        cheap = std::holds_alternative<SelectUnits>(v) || std::holds_alternative<ShowGroup>(v) ||
                std::holds_alternative<InspectUnit>(v) || std::holds_alternative<Ping>(v) ||
                (settings && !settings->congestion);
    }
    const auto owed = sim_state.debt.find(in.session);
    if (cheap || owed == sim_state.debt.end() || owed->second <= kClientBurstMs) return false;
    char text[200];
    std::snprintf(text, sizeof text,
                  "busy: your requests took %.0f ms of simulation time lately, more than the %.0f ms a "
                  "client may be ahead (it earns %.0f ms a second); message dropped",
                  owed->second, kClientBurstMs, kClientShareMsPerSecond);
    post_error(in.session, text, in.type);
    return true;
}

// A WorldCommand from a client, applied as it is; then what it changed goes out.
Result<void> Server::Impl::apply_world_command(std::uint64_t session, Client*, const WorldCommand& command) {
    if (const auto* order = std::get_if<Order>(&command)) return apply_order(session, *order);
    const auto* spawn = std::get_if<Spawn>(&command);
    if (spawn && spawn->add) {
        const std::size_t units = world->agents().size();
        if (units + static_cast<std::size_t>(spawn->count) > static_cast<std::size_t>(kMaxAgents)) {
            return Error{"adding " + std::to_string(spawn->count) + " units to " + std::to_string(units) +
                         " would pass the server's limit of " + std::to_string(kMaxAgents)};
        }
    }
    auto out = world->apply(command);
    if (std::holds_alternative<SetPaused>(command))
        post_broadcast(paused_json(*world), false, false, &Impl::last_paused);
    if (!out) return out.error();
    if (spawn && !spawn->add) clear_selections();  // a new crowd, whose handles may equal old ones
    if (const auto* tower = std::get_if<PlaceTower>(&command)) post_to(session, tower_placed_json(*tower), false);
    if (std::holds_alternative<SetWallMargin>(command))
        post_broadcast(params_json(*world), false, false, &Impl::last_params);
    return {};
}

Result<void> Server::Impl::apply_order(std::uint64_t session, const Order& order) {
    auto out = world->apply(order);
    if (!out) return out.error();
    post_to(session, ordered_json(*out), false);
    return {};
}

Result<void> Server::Impl::apply_viewer_command(std::uint64_t session, Client* client, const ViewerCommand& command) {
    return std::visit([&](const auto& c) { return on(session, client, c); }, command);
}

Result<void> Server::Impl::on(std::uint64_t session, Client* client, const SelectUnits& c) {
    if (!client) return {};
    client->view.select(*world, c.box);
    post_to(session, encode_selection(*world, client->view.selection()), true);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t, Client* client, const ShowGroup& c) {
    if (!client) return {};
    if (auto r = client->view.show(*world, c.group); !r) return r;
    // A view message also asks for a whole fields frame (a page that could not apply a patch sends
    // one for the group it shows).
    client->sent = {~0ull, ~0ull, ~0ull, ~0ull};
    client->fields.reset();
    return {};
}

Result<void> Server::Impl::on(std::uint64_t session, Client* client, const OrderSelected& c) {
    if (!client) return Viewer{}.order(c.goals, c.flee).error();  // an HTTP client selects nothing
    auto order = client->view.order(c.goals, c.flee);
    if (!order) return order.error();
    order->formation = c.formation;
    if (auto r = apply_order(session, *order); !r) return r;
    post_to(session, encode_selection(*world, client->view.selection()), true);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t session, Client*, const SnapGoals& c) {
    SetGoals goals = c.command;
    const auto moves = snap_goals(world->cost(), goals.goals);
    if (auto out = world->apply(std::move(goals)); !out) return out.error();
    if (!moves.empty()) post_to(session, snapped_json(moves, "set_goals"), false);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t session, Client*, const CheckTower& c) {
    const PlaceTower& t = c.tower;
    auto check = world->check_tower(t.x0, t.y0, t.x1, t.y1);
    if (!check) return check.error();
    post_to(session, tower_json(t, *check), false);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t, Client*, const ChangeSettings& c) {
    if (c.speed || c.separation || c.radius) {
        UnitParams p = world->params();
        if (c.speed) p.speed = *c.speed;
        if (c.separation) p.separation = *c.separation;
        if (c.radius) p.radius = *c.radius;
        if (auto out = world->apply(SetUnitParams{p}); !out) return out.error();
    }
    if (c.line_of_sight) world->set_line_of_sight(*c.line_of_sight);
    if (c.congestion) {
        CongestionParams p = world->congestion();
        p.enabled = *c.congestion;
        if (auto out = world->apply(SetCongestion{p}); !out) return out.error();
    }
    post_broadcast(params_json(*world), false, false, &Impl::last_params);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t, Client*, const LoadMap& c) {
    if (c.uploaded) {
        auto it = std::find_if(uploads.begin(), uploads.end(), [&](const auto& u) { return u.first == c.name; });
        if (it == uploads.end()) {
            return Error{"load_map: no uploaded map '" + c.name.substr(0, 40) + "' (the server keeps the last " +
                         std::to_string(kKeptUploads) + ")"};
        }
        CostField cost = *it->second;
        const auto goal = central_goal(cost);
        return load(c.name, std::move(cost), {*goal}, std::nullopt);
    }
    auto m = make_builtin_map(c.name);
    if (!m) return m.error();
    return load(c.name, std::move(m->cost), std::move(m->goals), m->spawn_area);
}

Result<void> Server::Impl::on(std::uint64_t, Client*, const StartScenario& c) {
    const auto t0 = Clock::now();
    auto r = load_scenario(*world, c.name);
    if (r) log("loaded scenario " + c.name + load_note(t0, *world));
    after_load();  // also after a failure half-way: the map may have changed
    return r;
}

Result<void> Server::Impl::on(std::uint64_t session, Client* client, const CompareAstar& c) {
    const UnitGroupId g = c.group != 0 ? c.group : client ? client->view.shown_group(*world) : 0;
    AstarCompareParams params;
    params.samples = c.samples;
    params.paths_kept = kAstarPathsShown;
    params.search_budget_ms = kCompareSearchMs;
    auto answer = compare_astar(*world, g, params);
    if (!answer) return Error{answer.error().code, "astar_compare: " + answer.error().message};
    post_to(session, astar_json(*answer), false);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t session, Client*, const InspectUnit& c) {
    post_to(session, inspected_json(inspect_unit(*world, c.at)), false);
    return {};
}

Result<void> Server::Impl::on(std::uint64_t, Client*, const StepOnce&) {
    sim_state.step_once = true;
    return {};
}

Result<void> Server::Impl::on(std::uint64_t, Client*, const Ping&) {
    return {};  // answered on the io thread
}

// Loads a map with as many units as there are (at most what it has room for), then tells everyone.
Result<void> Server::Impl::load(const std::string& name, CostField cost, std::vector<Cell> goals,
                                std::optional<CellRect> spawn_area) {
    const int count = std::min(static_cast<int>(world->agents().size()), max_units(cost, spawn_area));
    const auto t0 = Clock::now();
    auto r = world->load(name, std::move(cost), std::move(goals), count, spawn_area);
    if (!r) return r;
    log("loaded map " + name + load_note(t0, *world));
    after_load();
    return {};
}

void Server::Impl::after_load() {
    SimState& st = sim_state;
    ++st.loads;
    if (opt.congestion == ServerOptions::Congestion::automatic) {
        CongestionParams p = world->congestion();
        p.enabled = static_cast<std::int64_t>(world->cost().size()) <= kCongestionAutoCells;
        if (p.enabled != world->congestion().enabled) (void)world->apply(SetCongestion{p});
        post_broadcast(params_json(*world), false, false, &Impl::last_params);
    }
    post_world_state();
    broadcast_terrain(true);
    for (auto& [id, c] : st.clients) {
        c.view.reset();
        c.fields.reset();  // the next fields frame is a whole one
        post_to(id, encode_selection(*world, c.view.selection()), true);
    }
    st.roster = world->roster_version();
    st.last_fields = st.last_whole_fields = Clock::now() - std::chrono::seconds(1);
    st.field_scales.clear();
}

void Server::Impl::clear_selections() {
    for (auto& [id, c] : sim_state.clients) {
        if (c.view.selection().empty()) continue;
        c.view.clear_selection();
        post_to(id, encode_selection(*world, c.view.selection()), true);
    }
}

// The state GET /api/state falls back on while this thread is busy (kStateWaitMs).
void Server::Impl::publish_state_if_due() {
    if (Clock::now() - sim_state.state_published < kStatePublishPeriod) return;
    sim_state.state_published = Clock::now();
    publish_state(state_json(*world, tick_hz.load(), clients.load()));
}

// An edit on a flat map: its repair (a few milliseconds on a worker) is waited for here, this
// thread lending a hand, so that the repaired field goes out before the step (25-40 ms at 100,000
// units) rather than after it. Hierarchical plans catch up inside tick().
void Server::Impl::show_edit_before_step() {
    constexpr double kEditWaitMs = 20.0;  // longest wait for an edit's repairs before the step
    if (world->hierarchical() || clients.load() == 0) return;
    world->finish_builds_for(kEditWaitMs);
    broadcast_terrain(false);
    send_fields(Clock::now());
}

// What the tick changed: terrain, roster and groups go out.
void Server::Impl::after_tick() {
    SimState& st = sim_state;
    if (world->terrain_version() != st.terrain_sent) broadcast_terrain(false);
    // The roster changed (a respawn, units that left by an exit or were walled in with nowhere to
    // go): each selection keeps the units still there, sent again against the new roster.
    if (world->roster_version() != st.roster) {
        st.roster = world->roster_version();
        post_store(world_message(), &Impl::last_world);
        for (auto& [id, c] : st.clients) {
            if (c.view.selection().empty()) continue;
            c.view.drop_departed(*world);
            post_to(id, encode_selection(*world, c.view.selection()), true);
        }
    }
    if (world->groups_version() != st.groups_sent) {
        st.groups_sent = world->groups_version();
        post_broadcast(groups_json(*world), false, false, &Impl::last_groups);
        // A client connecting later starts from a world message with today's units and groups.
        post_store(world_message(), &Impl::last_world);
    }
}

void Server::Impl::send_frames(Clock::time_point now) {
    SimState& st = sim_state;
    ++st.rate_ticks;
    if (now - st.rate_start >= std::chrono::seconds(1)) {
        tick_hz = st.rate_ticks / std::chrono::duration<double>(now - st.rate_start).count();
        st.rate_ticks = 0;
        st.rate_start = now;
    }
    send_agents(now);
    send_fields(now);
    send_sectors(now);
    if (now - st.last_stats >= std::chrono::milliseconds(250)) {
        st.last_stats = now;
        post_broadcast(stats_json(*world, tick_hz.load(), clients.load()), false);
    }
}

// Agents frames at opt.agent_fps. A paused world sends a frame only when it differs from the last
// one sent (an order, a spawn, a single step) or a client connected since: every page already
// holds the units, and each frame costs it a full compose (about 5 ms at 100,000 units).
void Server::Impl::send_agents(Clock::time_point now) {
    SimState& st = sim_state;
    const auto agent_period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / opt.agent_fps));
    if (clients.load() == 0 || now - st.last_agents < agent_period - std::chrono::milliseconds(2)) return;
    st.last_agents = now;
    auto frame = std::make_shared<const std::string>(encode_agents(*world));
    // (agents_due holds until the first frame goes, so agents_sent is set when compared.)
    if (st.agents_due || !world->paused() || *frame != *st.agents_sent) {
        st.agents_due = false;
        st.agents_sent = frame;
        post_broadcast(std::move(frame), true, true);
    }
}

// Fields frames and patches to the clients whose view is out of date, at most 20 per second;
// called after each tick and, after an edit, before the step. A client whose page holds a frame of
// the same group gets a patch (the rectangle of samples that changed: a paint on a big map is a
// few KiB); whole frames go at most every field_period (a 1024x1024 frame is 4 MiB; bigger maps
// are sampled down to that). Each client gets the field of the group it looks at, when that field
// or the terrain changed; clients in the same state share one encoding.
void Server::Impl::send_fields(Clock::time_point now) {
    using std::chrono::milliseconds;
    constexpr auto kHoldForField = milliseconds(150);
    SimState& st = sim_state;
    const int stride = field_stride(world->cost().width(), world->cost().height());
    const double cells = static_cast<double>(world->cost().size()) / (static_cast<double>(stride) * stride);
    const auto field_period = milliseconds(static_cast<int>(std::max(100.0, cells / 4096.0)));
    if (world->terrain_version() != st.terrain_seen) {
        st.terrain_seen = world->terrain_version();
        st.terrain_changed_at = now;
    }
    if (now - st.last_fields < milliseconds(50)) return;
    using Frame = std::shared_ptr<const std::string>;
    std::vector<std::pair<std::array<std::uint64_t, 4>, Frame>> encoded;
    std::vector<std::pair<std::pair<const std::string*, const std::string*>, Frame>> patches;
    bool sent = false, sent_whole = false;
    for (auto& [id, c] : st.clients) {
        const UnitGroupId g = c.view.shown_group(*world);
        const UnitGroup* info = world->group(g);
        const std::uint64_t serial = info ? info->field_serial : 0;
        const std::array<std::uint64_t, 4> key{g, serial, world->terrain_version(), st.loads};
        if (key == c.sent) continue;
        // A paint changes the terrain at once and the field a tick or two later (its repair runs on
        // a worker). A frame of the new terrain with the old field would hold the next one back by
        // 50 ms, so while only the terrain moved on and the group's field is catching up, the
        // frame waits (at most kHoldForField).
        if (c.sent[0] == g && c.sent[1] == serial && c.sent[3] == st.loads &&
            now - st.terrain_changed_at < kHoldForField && !world->field_up_to_date(g)) {
            continue;
        }
        auto it = std::find_if(encoded.begin(), encoded.end(), [&](const auto& e) { return e.first == key; });
        if (it == encoded.end()) {
            encoded.emplace_back(key, std::make_shared<const std::string>(
                                          encode_fields(*world, g, ++st.fields_version, &st.field_scales[g])));
            it = std::prev(encoded.end());
        }
        Frame data;
        if (c.fields) {
            const auto pair = std::make_pair(c.fields.get(), it->second.get());
            auto p = std::find_if(patches.begin(), patches.end(), [&](const auto& e) { return e.first == pair; });
            if (p == patches.end()) {
                patches.emplace_back(pair,
                                     std::make_shared<const std::string>(encode_fields_patch(*c.fields, *it->second)));
                p = std::prev(patches.end());
            }
            if (!p->second->empty()) data = p->second;
        }
        if (!data) {  // a whole frame: at most every field_period
            if (now - st.last_whole_fields < field_period) continue;
            data = it->second;
            sent_whole = true;
        }
        c.sent = key;
        c.fields = it->second;
        net::post(ioc, [this, session = id, data] { send_to(session, data, true); });
        sent = true;
    }
    if (sent) st.last_fields = now;
    if (sent_whole) st.last_whole_fields = now;
}

// Hierarchical maps, every 100 ms: the sector overlay of the group each client looks at. The
// portals when the graph changes (a load, a paint), the sectors with a field when the plan changes.
void Server::Impl::send_sectors(Clock::time_point now) {
    SimState& st = sim_state;
    if (!world->hierarchical() || now - st.last_sectors < std::chrono::milliseconds(100)) return;
    st.last_sectors = now;
    std::vector<std::pair<std::array<std::uint64_t, 3>, std::shared_ptr<const std::string>>> encoded;
    auto send_once = [&](std::uint64_t session, const std::array<std::uint64_t, 3>& key, auto&& encode) {
        auto it = std::find_if(encoded.begin(), encoded.end(), [&](const auto& e) { return e.first == key; });
        if (it == encoded.end()) {
            encoded.emplace_back(key, std::make_shared<const std::string>(encode()));
            it = std::prev(encoded.end());
        }
        if (it->second->empty()) return;
        auto data = it->second;
        net::post(ioc, [this, session, data] { send_to(session, data, true); });
    };
    for (auto& [id, c] : st.clients) {
        const UnitGroupId g = c.view.shown_group(*world);
        const UnitGroup* info = world->group(g);
        const int size = info ? info->size : 1;
        const SectorGraph* graph = world->sector_graph(size);
        const std::array<std::uint64_t, 3> skey{static_cast<std::uint64_t>(size), graph ? graph->version() : ~0ull,
                                                st.loads};
        if (graph && skey != c.sectors_sent) {
            c.sectors_sent = skey;
            // Keys of the two frame kinds never collide: a sectors key's first word is a size
            // (1..3) with the top bit set here.
            std::array<std::uint64_t, 3> k = skey;
            k[0] |= 1ull << 63;
            send_once(id, k, [&] { return encode_sectors(*world, size); });
        }
        const std::array<std::uint64_t, 3> bkey{g, info ? info->field_serial : 0, st.loads};
        if (info && bkey != c.built_sent) {
            c.built_sent = bkey;
            send_once(id, bkey, [&] { return encode_sector_fields(*world, g); });
        }
    }
}

// Terrain frames for maps whose fields frames are sampled (see SimState::sent_snapshot): the whole
// map, or the bounding box of the cells that differ from the terrain last sent.
void Server::Impl::broadcast_terrain(bool whole) {
    SimState& st = sim_state;
    st.terrain_sent = world->terrain_version();
    const CostField& cost = world->cost();
    if (!sampled()) {
        if (st.sent_snapshot) post_terrain(0, nullptr, 0, 0, -1, -1);
        st.sent_snapshot.reset();
        return;
    }
    const auto cells = cost.cells();
    const int w = cost.width(), h = cost.height();
    int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
    if (!whole && st.sent_snapshot && st.sent_snapshot->cells.size() == cells.size()) {
        const std::vector<Cost>& sent_terrain = st.sent_snapshot->cells;
        x0 = w, y0 = h, x1 = -1, y1 = -1;
        for (int y = 0; y < h; ++y) {
            const std::size_t row = static_cast<std::size_t>(y) * w;
            if (std::memcmp(sent_terrain.data() + row, cells.data() + row, static_cast<std::size_t>(w)) == 0) continue;
            y0 = std::min(y0, y);
            y1 = y;
            for (int x = 0; x < w; ++x) {
                if (sent_terrain[row + x] == cells[row + x]) continue;
                x0 = std::min(x0, x);
                x1 = std::max(x1, x);
            }
        }
        if (x1 < x0) return;
    }
    auto snapshot = std::make_shared<TerrainSnapshot>();
    snapshot->width = w;
    snapshot->height = h;
    snapshot->cells.assign(cells.begin(), cells.end());
    st.sent_snapshot = std::move(snapshot);
    post_terrain(0, st.sent_snapshot, x0, y0, x1, y1);
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
    s.post_world_state();
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
