#pragma once
// The demo's simulation loop without a transport: client commands in, messages and frames out
// (docs/protocol.md). `tide serve` (server.cpp) runs it on its simulation thread behind
// Boost.Beast; the static demo (`make web`, web/worker/) runs it in a Web Worker on the
// WebAssembly build. One implementation of the protocol, whatever carries it.
//
// Everything here runs on one thread (the one that calls SimCore::step()); the Outbox it sends
// through is the transport's: the server posts to its network thread, the worker queues messages
// for JavaScript.

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "protocol.hpp"
#include "tide/result.hpp"
#include "tide/viewer.hpp"
#include "tide/world.hpp"

namespace tide::serve {

using Clock = std::chrono::steady_clock;

/// A query from an HTTP request (GET /api/state, /api/agents, /api/map.tmap), answered on the
/// simulation thread.
struct ApiQuery {
    bool agents = false;
    bool tmap = false;  ///< the current terrain as a .tmap: first line its file name, or "!" and an error
    std::size_t limit = 1000;
    std::function<void(std::string)> reply;  ///< called on the simulation thread
};
/// A map parsed from an upload, to be swapped in.
struct LoadParsed {
    std::string name;
    std::shared_ptr<CostField> cost;
};
/// POST /api/order, answered on the simulation thread.
struct ApiOrder {
    Order order;
    std::function<void(bool ok, std::string body)> reply;  ///< called on the simulation thread
};
/// A client came or went (the core keeps its selection and view).
struct SessionEvent {
    bool connected = false;
};
/// One thing for the core to handle, from a client (`session`, 1 and up) or from HTTP (0).
struct Inbound {
    using What = std::variant<Command, ApiQuery, LoadParsed, ApiOrder, SessionEvent>;
    Inbound(std::uint64_t s, What w, std::string t = {}) : session(s), what(std::move(w)), type(std::move(t)) {}
    std::uint64_t session = 0;  ///< 0: not from a client
    What what;
    std::string type;  ///< a command's message type (for error replies)
};

/// The full-resolution terrain of a map whose fields frames are sampled, as last sent: immutable,
/// shared by every client that still streams from it.
struct TerrainSnapshot {
    int width = 0, height = 0;
    std::vector<Cost> cells;
};

/// The last message of each kind a new client gets at once (world, groups, params, paused).
enum class Slot { none, world, groups, params, paused };

/// What the core sends; the transport implements it. Called on the core's thread.
class Outbox {
public:
    virtual ~Outbox() = default;
    /// `data` to every client; `agents`: an agents frame (a newer one may replace it unsent);
    /// `keep`: also the new value of that last-message slot.
    virtual void broadcast(std::shared_ptr<const std::string> data, bool binary, bool agents, Slot keep) = 0;
    /// `data` to one client (session 0: nobody).
    virtual void send_to(std::uint64_t session, std::shared_ptr<const std::string> data, bool binary) = 0;
    /// A new value of a last-message slot, sent to nobody now.
    virtual void store(Slot keep, std::shared_ptr<const std::string> data) = 0;
    /// Terrain to stream: the cells [x0, x1] x [y0, y1] of `snapshot` changed (or are new) for
    /// `session` (0: every client); a null snapshot stops the streams (no terrain frames needed).
    virtual void terrain(std::uint64_t session, std::shared_ptr<const TerrainSnapshot> snapshot, int x0, int y0, int x1,
                         int y1) = 0;
    /// Clients connected now.
    virtual std::size_t clients() const = 0;
    /// A command of `session` was taken (applied or refused): its queue slot frees.
    virtual void taken(std::uint64_t /*session*/) {}
    /// An uploaded map was loaded (or refused) after `took`.
    virtual void upload_done(Clock::duration /*took*/) {}
    /// The world's state as GET /api/state answers it, every 50 ms (for when the core is busy).
    virtual void state(std::string /*json*/) {}
    /// A log line (map loads, failures).
    virtual void log(const std::string& /*line*/) {}
};

/// Settings of the loop (tide serve's command line; the worker's defaults).
struct CoreOptions {
    double agent_fps = 30.0;           ///< agents frames per second (at most the tick rate)
    bool congestion_automatic = true;  ///< congestion on for maps of at most congestion_cells, decided at each load
    std::int64_t congestion_cells = 512 * 512;  ///< the largest map (cells) congestion_automatic turns it on for
    double command_ms = 8.0;             ///< commands per tick, ms (the rest waits for the next tick; one always runs)
    double client_share_ms = 200.0;      ///< ms of simulation time a client earns per second
    double client_burst_ms = 100.0;      ///< a client owing more than this has its costly commands refused
    double client_max_debt_ms = 1000.0;  ///< a load of seconds leaves its client at most this owed
    double compare_search_ms = kCompareSearchMs;  ///< A* comparison budget (the worker allows more)
};

/// The simulation loop of the demo over a World it does not own.
class SimCore {
public:
    /// A core driving `world` and sending through `out` (both outlive it).
    SimCore(World& world, Outbox& out, CoreOptions options);

    /// Sends what the first clients need (terrain of sampled maps); call once before step().
    void begin();
    /// One tick: the deferred commands and `incoming` in order (moved from; within the command
    /// budget), then an edit's repair shown, the world stepped by `dt` seconds, the frames sent.
    void step(std::vector<Inbound>& incoming, float dt);
    /// The world messages a new client starts from (world, groups, params, paused), broadcast and
    /// stored in their slots; call once after construction (a load calls it itself).
    void post_world_state();
    /// Loads a map (as many units as there are, at most what it has room for) and tells everyone.
    Result<void> load(const std::string& name, CostField cost, std::vector<Cell> goals,
                      std::optional<CellRect> spawn_area);

private:
    // What the core keeps per client.
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

    void take(std::vector<Inbound>& incoming);
    void run_commands();
    void handle(Inbound& in);
    void handle_query(ApiQuery& q);
    void handle_session_event(std::uint64_t session, const SessionEvent& ev);
    void handle_api_order(ApiOrder& order);
    void handle_upload(LoadParsed& upload);
    void handle_command(const Inbound& in);
    bool over_budget(const Inbound& in);
    Result<void> apply_world_command(std::uint64_t session, const WorldCommand& command);
    Result<void> apply_order(std::uint64_t session, const Order& order);
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
    bool sampled() const;
    void keep_upload(const std::string& name, const CostField& cost);
    std::vector<std::string> upload_names() const;
    std::string world_message() const;
    void broadcast(std::string s, bool binary, Slot keep = Slot::none);
    void send_to(std::uint64_t session, std::string s, bool binary);
    void error_to(std::uint64_t session, const std::string& message, const std::string& request);

    World& world_;
    Outbox& out_;
    CoreOptions opt_;
    double tick_hz_ = 0.0;  // ticks per second over the last second

    std::unordered_map<std::uint64_t, Client> clients_;  // by session
    std::vector<Inbound> batch_;                         // this tick's inbound
    std::vector<Inbound> deferred_;                      // commands past a tick's command_ms, in order
    std::unordered_map<std::uint64_t, double> debt_;     // per session: ms of simulation time owed
    Clock::time_point debt_at_ = Clock::now();
    bool step_once_ = false;            // a step command: tick once while paused
    std::uint64_t loads_ = 0;           // +1 per map load: a fields frame of the old map is never current
    std::uint64_t roster_ = 0;          // the roster version the selections were last checked against
    std::uint64_t groups_sent_ = 0;     // the groups version last broadcast
    std::uint32_t fields_version_ = 0;  // +1 per distinct fields frame encoded
    std::unordered_map<UnitGroupId, float> field_scales_;  // each group's quantisation scale (encode_fields)
    std::uint64_t terrain_seen_ = 0;                       // terrain version send_fields() last saw
    Clock::time_point terrain_changed_at_ = Clock::now() - std::chrono::seconds(1);
    // Maps whose fields frames are sampled get their terrain at full resolution in terrain frames:
    // the whole map after a load (and to each new client), then the cells edits changed (found by
    // comparing with the terrain last sent).
    std::shared_ptr<const TerrainSnapshot> sent_snapshot_;
    std::uint64_t terrain_sent_ = 0;                  // the terrain version last broadcast
    std::shared_ptr<const std::string> agents_sent_;  // the last agents frame broadcast
    bool agents_due_ = true;                          // a client connected since: send one even if paused
    Clock::time_point last_agents_, last_fields_, last_whole_fields_, last_sectors_, last_stats_, state_published_;
    Clock::time_point rate_start_ = Clock::now();
    int rate_ticks_ = 0;

    // Maps uploaded (POST /api/map, or the worker's upload), newest last, that `load_map` with
    // `uploaded` switches back to: at most kKeptUploads, and at most kKeptUploadCells cells in all.
    static constexpr std::size_t kKeptUploads = 8;
    static constexpr std::size_t kKeptUploadCells = std::size_t{64} << 20;
    std::vector<std::pair<std::string, std::shared_ptr<const CostField>>> uploads_;
};

/// " in N ms" after a map load since `t0`, with the sector graph's share on hierarchical maps.
std::string load_note(Clock::time_point t0, const World& world);

}  // namespace tide::serve
