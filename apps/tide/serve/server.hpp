#pragma once
// `tide serve`: one world simulated at a fixed tick on its own thread, served over HTTP and
// WebSocket with Boost.Beast (docs/protocol.md). The Asio event loop runs on the thread that calls
// run(); every session lives on it, so sessions need no locks. The simulation thread talks to it
// through a command queue (in) and posted broadcasts (out).

#include <cstdint>
#include <memory>
#include <string>

#include "tide/limits.hpp"
#include "tide/result.hpp"
#include "tide/world.hpp"

namespace tide::serve {

/// Server settings.
/// Largest map (cells) on which ServerOptions::Congestion::automatic turns congestion on: 512 x 512.
inline constexpr std::int64_t kCongestionAutoCells = 512 * 512;

struct ServerOptions {
    std::string host = "127.0.0.1";  ///< Address to listen on (loopback unless asked).
    unsigned short port = 8080;      ///< TCP port; 0 picks a free one (see Server::port()).
    std::string map_path;     ///< Map file to start with; empty = the embedded default map; "@NAME" = a built-in map.
    int agents = 1000;        ///< Units spawned at start (0..kMaxAgents).
    int threads = 0;          ///< Simulation threads (0 = all cores).
    double tick_hz = 60.0;    ///< Simulation rate.
    double agent_fps = 30.0;  ///< Agent frames sent per second (at most the tick rate).
    std::string web_root;     ///< Development only: serve page files from this folder.
    int paint_per_second = 300;  ///< Flood limit for paint messages, per client.
    int other_per_second = 120;  ///< Flood limit for other messages, per client.
    bool log = true;             ///< Print connections and errors to stderr.
    /// Maps of at least this many cells plan hierarchically (WorldConfig::hierarchy_cells).
    std::int64_t hierarchy_cells = tide::WorldConfig{}.hierarchy_cells;
    int sector_size = 64;  ///< Sector side of hierarchical maps, 16..256 (portals span at most 32 cells).
    /// Congestion-aware group fields (WorldConfig::congestion; the page can toggle it): on, off, or
    /// automatic: on for maps of at most kCongestionAutoCells cells, decided again at every map load
    /// (on the 1024x1024 map with 100,000 units it triples the step: 112 ms against 38 ms).
    enum class Congestion { off, on, automatic } congestion = Congestion::automatic;
    /// A client with more than this many bytes of frames queued is disconnected (kMaxQueuedBytes;
    /// tests lower it). Terrain is streamed a band at a time, so it never adds more than one band.
    std::size_t max_queued_bytes = kMaxQueuedBytes;
    /// Record the session into this file (empty: no recording): the world runs in lockstep
    /// (WorldConfig::lockstep) and every load, command and tick is appended as it happens, so
    /// `tide sim --replay FILE` reproduces the session (docs/determinism.md).
    std::string record_path;
};

/// The demo server.
class Server {
public:
    /// A server with `options`; nothing runs until start().
    explicit Server(ServerOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Loads the map, binds and listens, starts the simulation thread. Error names the map file
    /// or the address that failed.
    Result<void> start();
    /// The port actually bound (after start()).
    unsigned short port() const;
    /// Runs the network loop on the calling thread until stop().
    void run();
    /// Stops everything (any thread, idempotent): closes the listener and every connection, ends
    /// the simulation thread; run() then returns.
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tide::serve
