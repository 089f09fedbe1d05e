#pragma once
// Shared helpers of the tide CLI subcommands.

#include <CLI/CLI.hpp>
#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "tide/flow_field.hpp"
#include "tide/map_io.hpp"
#include "timing.hpp"

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

/// The unit class a subcommand plans for, as given by --class and --size.
struct ClassChoice {
    std::string name = "default";  ///< --class: a class of the map, or "default" (the map's own costs).
    int size = 0;                  ///< --size, 1..kMaxUnitSize; 0 when not given (the class's own size).
    bool size_given = false;       ///< True when --size was given (so --size 0 is refused, not defaulted).
};

/// Adds --class and --size to a subcommand.
void add_class_options(CLI::App& cmd, ClassChoice& choice);

/// The costs a subcommand plans on and the class they are for.
struct PlanningCost {
    CostField cost;    ///< class_cost_field() of the chosen class and size.
    std::string name;  ///< Class name ("default" for the map's own costs).
    int size = 1;      ///< Unit size in cells per side (the class's own when --size was not given).
    /// True for the map's own costs at size 1: what published scenario lengths are for.
    bool is_default() const { return name == "default" && size == 1; }
    /// "class 'water' size 2".
    std::string describe() const { return "class '" + name + "' size " + std::to_string(size); }
};

/// The cost field for `choice` on `map` (loaded from `map_path`); throws Failure with the
/// library's message prefixed by the map path (unknown class, size outside 1..kMaxUnitSize).
PlanningCost planning_cost(const Map& map, const std::string& map_path, const ClassChoice& choice);

/// For a class other than the default, throws Failure when `cell` lies on the map but is
/// impassable for the class ("goal (3, 4) is a wall for class 'water' size 2"); other faults are
/// left to the builder's own checks.
void require_open_for_class(const PlanningCost& planning, Cell cell, const std::string& what);

/// Parses a --wall-margin value "R,C" (radius in cells, extra cost); throws Failure naming the
/// value when it is not two integers or out of range (the library's message).
WallMargin parse_wall_margin(const std::string& text);

/// Adds --wall-margin R,C to a subcommand (the text is parsed by parse_wall_margin).
void add_wall_margin_option(CLI::App& cmd, std::string& text);

/// Parses every --flee value into danger cells.
std::vector<Cell> parse_dangers(const std::vector<std::string>& texts);

/// Throws Failure when `result` holds an error.
template <class T>
void check(const Result<T>& result) {
    if (!result.ok()) throw Failure{result.error().message};
}

// Timing helpers: the benchmark harness's (bench/harness/timing.hpp).
using bench::median;
using bench::ms_since;
using bench::percentile;

/// Writes `report` to `path` as indented JSON (atomically, atomic_file.hpp); throws Failure naming
/// the path when it cannot.
void write_json(const std::string& path, const nlohmann::json& report);

/// A number for messages: at most 6 significant digits ("1e+308", not 309 digits).
std::string number_text(double value);

/// Throws Failure unless `threads` (the value of `option`) is 0 (all cores) .. kMaxThreads.
void check_threads(int threads, const std::string& option = "--threads");

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
/// tide desync (cmd_desync.cpp).
void add_desync_command(CLI::App& app);
/// Registers `tide serve`.
void add_serve_command(CLI::App& app);
void add_bench_crowd_command(CLI::App& bench);
void add_bench_service_command(CLI::App& bench);
void add_bench_repair_command(CLI::App& bench);
/// `tide bench sample`: directions for hosts (cmd_bench_sample.cpp).
void add_bench_sample_command(CLI::App& bench);
/// Adds `tide bench navmesh` (Recast/Detour against Tide; a clear skip, exit 77, when built without them).
void add_bench_navmesh_command(CLI::App& bench);

}  // namespace tide::cli
