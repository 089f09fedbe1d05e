// tide: the command-line tool. One file per subcommand; see `tide --help`.

#include <csignal>
#include <cstdio>
#include <exception>

#include "cli_common.hpp"

int main(int argc, char** argv) {
    // Past the file-size limit (ulimit -f) a write fails with EFBIG and the writer removes its
    // temporary file and names the target; with the default action SIGXFSZ killed the process
    // and left `<target>.tmp.<pid>` behind.
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App app{"tide: flow-field pathfinding (cost, integration and flow fields) on grid maps"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "tide 0.1.0");
    tide::cli::add_run_command(app);
    tide::cli::add_field_command(app);
    tide::cli::add_scen_command(app);
    tide::cli::add_verify_command(app);
    tide::cli::add_gen_command(app);
    tide::cli::add_render_command(app);
    tide::cli::add_bench_command(app);
    tide::cli::add_sim_command(app);
    tide::cli::add_desync_command(app);
    tide::cli::add_serve_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const tide::cli::Failure& f) {
        std::fprintf(stderr, "tide: error: %s\n", f.message.c_str());
        return f.code;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tide: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
