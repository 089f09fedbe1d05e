#pragma once
/// \file map_io.hpp
/// Map and scenario files. All parsers accept LF and CRLF line endings and a missing final
/// newline; every malformed input yields an Error naming the source, the line and the fault.
///
/// Formats (details in docs/formats.md):
/// - Moving AI `.map`: `type octile`, `height H`, `width W`, `map`, H rows of W characters.
///   `.` `G` `S` cost 1; `@` `O` `T` `W` wall (water is impassable for Tide's default land unit).
///   Every Moving AI map has one unit class, `water` (size 1), for which `W` costs 1.
/// - Tide text map: `tide-map 1`, `width W`, `height H`, `legend C V` lines (V = 1..254 or `wall`),
///   `class NAME size S` and `class NAME cost C V` lines (S = 1..8; C a legend character), `map`,
///   H rows. Default legend: `.` 1, `F` 3, `~` 6, `#` wall, `@` wall.
/// - Moving AI `.scen`: `version 1` (or `1.0`), then rows
///   `bucket map width height start_x start_y goal_x goal_y optimal_length`.

#include <string>
#include <string_view>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/export.h"
#include "tide/limits.hpp"
#include "tide/result.hpp"
#include "tide/unit_class.hpp"

namespace tide {

/// Which text format a map was read from.
enum class MapFormat { moving_ai, tide };

/// A parsed map.
struct Map {
    CostField cost;                      ///< The terrain: the costs of the "default" class (size 1).
    MapFormat format = MapFormat::tide;  ///< Source format.
    /// Unit classes besides "default": a Tide map's, in order of declaration (at most
    /// kMaxUnitClasses); a Moving AI map's built-in `water`.
    std::vector<UnitClass> classes{};
};

/// Parses a map held in memory, detecting the format from the first line. `source` names the
/// input in error messages (a file path, "<default map>").
TIDE_API Result<Map> parse_map(std::string_view text, std::string_view source,
                               std::pmr::memory_resource* memory = std::pmr::get_default_resource());

/// Reads and parses a map file (error when it cannot be read, is over 1 GiB, or is malformed).
TIDE_API Result<Map> load_map(const std::string& path,
                              std::pmr::memory_resource* memory = std::pmr::get_default_resource());

/// The class named `name`, or nullptr for an unknown name and for "default" (the map's own costs
/// at size 1, which has no UnitClass; class_cost_field() knows it). Points into `map.classes`.
TIDE_API const UnitClass* find_class(const Map& map, std::string_view name);

/// The cost field units of class `name` see, at `size` (0 = the class's own size): the class's
/// costs (or the map's) passed through sized_cost_field(). "default" is the map's costs at size 1.
/// Errors: an unknown class (the message lists the known names), `size` outside 1..kMaxUnitSize.
TIDE_API Result<CostField> class_cost_field(const Map& map, std::string_view name, int size = 0);

/// Writes `cost` as a Tide text map, with legend lines for costs outside the default legend.
/// Error when the map uses more distinct passable costs than single-character symbols can name (92).
TIDE_API Result<std::string> format_tide_map(const CostField& cost);

/// One row of a Moving AI scenario file.
struct ScenarioRow {
    int bucket = 0;
    std::string map;  ///< The map column as written (a bare name or a path).
    int map_width = 0;
    int map_height = 0;
    Cell start;
    Cell goal;
    double optimal = 0.0;  ///< Published optimal length.
    int line = 0;          ///< 1-based line in the source, for messages.
};

/// Parses a scenario file held in memory. `source` names it in error messages.
TIDE_API Result<std::vector<ScenarioRow>> parse_scenarios(std::string_view text, std::string_view source);

/// Reads and parses a scenario file.
TIDE_API Result<std::vector<ScenarioRow>> load_scenarios(const std::string& path);

/// Checks every row against `cost`: matching width/height, start and goal on the map and passable.
/// `source` names the scenario file in messages.
TIDE_API Result<void> check_scenarios(const std::vector<ScenarioRow>& rows, const CostField& cost,
                                      std::string_view source);

/// Reads a whole file into a string (error names the path); refuses files over `max_bytes` and
/// anything but a regular file (a directory, a FIFO, a device), without opening it.
TIDE_API Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes = kMaxTextFileBytes);

}  // namespace tide
