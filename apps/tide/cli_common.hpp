#pragma once
// Shared helpers of the tide CLI subcommands.

#include <CLI/CLI.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "tide/flow_field.hpp"
#include "tide/map_io.hpp"

namespace tide::cli {

/// Thrown by subcommands to end with one clear line on stderr and exit status `code`.
struct Failure {
    std::string message;
    int code = 1;
};

/// Name accepted by --map for the embedded default map.
inline constexpr const char* kDefaultMapName = "@default";

/// Loads a map file, or the embedded default map for "@default"; throws Failure on error.
Map load_map_or_fail(const std::string& path);

/// Parses "X,Y" into a cell; throws Failure naming the option and the value.
Cell parse_cell(const std::string& text, const std::string& option);

/// Parses every --goal value.
std::vector<Cell> parse_goals(const std::vector<std::string>& texts);

/// Builds FieldParams from --diagonal and --connectivity values; throws Failure on bad values.
FieldParams make_params(double diagonal, int connectivity);

/// Adds the shared field options (--diagonal, --connectivity) to a subcommand.
void add_field_options(CLI::App& cmd, double& diagonal, int& connectivity);

/// Throws Failure when `result` holds an error.
template <class T>
void check(const Result<T>& result) {
    if (!result.ok()) throw Failure{result.error().message};
}

/// Milliseconds since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Median of `values` (which it sorts).
double median(std::vector<double>& values);

/// A string describing a cell, "(x, y)".
std::string cell_text(Cell c);

// Subcommand registration, one per file.
void add_field_command(CLI::App& app);
void add_scen_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_render_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_sim_command(CLI::App& app);
/// Registers `tide serve`.
void add_serve_command(CLI::App& app);
void add_bench_crowd_command(CLI::App& bench);
void add_bench_service_command(CLI::App& bench);
void add_bench_repair_command(CLI::App& bench);

}  // namespace tide::cli
