// tide serve: the interactive demo (what `make run` starts). One world simulated natively, the
// page compiled into the binary, state streamed over a WebSocket (docs/protocol.md).

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <thread>

#include "cli_common.hpp"
#include "serve/server.hpp"

namespace tide::cli {
namespace {

struct ServeOptions {
    serve::ServerOptions server;
    int port = 8080;
    std::string congestion = "auto";
};

void run_serve(ServeOptions o) {
    if (o.port < 0 || o.port > 65535) throw Failure{"--port " + std::to_string(o.port) + " is outside 0..65535"};
    check_threads(o.server.threads);
    o.server.port = static_cast<unsigned short>(o.port);
    if (o.server.map_path == kDefaultMapName) o.server.map_path.clear();
    if (o.congestion != "on" && o.congestion != "off" && o.congestion != "auto")
        throw Failure{"--congestion '" + o.congestion + "' is not on, off or auto"};
    o.server.congestion = o.congestion == "on"    ? serve::ServerOptions::Congestion::on
                          : o.congestion == "off" ? serve::ServerOptions::Congestion::off
                                                  : serve::ServerOptions::Congestion::automatic;
    // Ctrl-C and SIGTERM are taken by a waiting thread (blocked everywhere else, including the
    // threads started below, which inherit the mask), which stops the server cleanly.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    serve::Server server(o.server);
    check(server.start());
    std::printf("tide serve: listening on http://%s:%u/  (Ctrl-C stops)\n", o.server.host.c_str(),
                static_cast<unsigned>(server.port()));
    if (o.server.host != "127.0.0.1" && o.server.host != "::1") {
        std::printf("tide serve: warning: listening on %s, reachable from other machines\n", o.server.host.c_str());
    }
    std::fflush(stdout);
    std::thread waiter([&] {
        int sig = 0;
        sigwait(&signals, &sig);
        std::fprintf(stderr, "tide serve: signal %d, shutting down\n", sig);
        server.stop();
    });
    server.run();
    // run() also returns when stop() came from elsewhere; wake the waiter if it still waits.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    std::printf("tide serve: stopped\n");
}

}  // namespace

void add_serve_command(CLI::App& app) {
    auto opts = std::make_shared<ServeOptions>();
    auto* cmd = app.add_subcommand("serve", "Interactive demo: serve the page and simulate one world (open the URL)");
    cmd->add_option("--map", opts->server.map_path,
                    "Map file to start with (.map or .tmap), or @NAME for a built-in map (@default, @random256, @maze, "
                    "@large, @huge); default: the embedded map");
    cmd->add_option("--host", opts->server.host, "Address to listen on (default 127.0.0.1: this machine only)");
    cmd->add_option("--port", opts->port, "TCP port (default 8080; 0 picks a free one)");
    cmd->add_option("--agents", opts->server.agents, "Units spawned at start (0..200000, default 1000)");
    cmd->add_option("--threads", opts->server.threads, "Simulation threads (0 = all cores)");
    cmd->add_option("--tick", opts->server.tick_hz, "Simulation rate, Hz (default 60)");
    cmd->add_option(
        "--hierarchy-cells", opts->server.hierarchy_cells,
        "Maps of at least this many cells plan hierarchically (default 4194304 = 2048x2048; 0 = every map)");
    cmd->add_option("--sector-size", opts->server.sector_size,
                    "Sector side of hierarchical maps, 16..256 (default 64)");
    cmd->add_option("--congestion", opts->congestion,
                    "on: the groups' fields count the crowd's density and are refreshed a few times per second, so "
                    "crowds spread over parallel routes; off: plain fields; auto (default): on for maps of at most "
                    "512x512 cells, decided at every map load (the page can toggle it)");
    cmd->add_option("--record", opts->server.record_path,
                    "Record the session (lockstep: fields published at fixed points) into a command log that "
                    "`tide sim --replay FILE` reproduces exactly");
    cmd->add_option("--web-root", opts->server.web_root,
                    "Development: serve the page from this folder instead of the compiled-in copy");
    cmd->add_flag(
        "--quiet", [opts](std::int64_t) { opts->server.log = false; }, "No connection log on stderr");
    cmd->callback([opts] { run_serve(*opts); });
}

}  // namespace tide::cli
