// Parsers for Moving AI maps and scenarios and Tide text maps (with their unit classes).
// Every error names the source and the 1-based line ("maps/a.map:7: ..."); nothing is returned
// until the whole input has been checked, so a caller never sees a partial map.

#include "tide/map_io.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include "tide/detail/compat.hpp"

namespace tide {
namespace {

struct Line {
    std::string_view text;  // without '\n' and a trailing '\r'
    int number = 0;         // 1-based
};

// Splits into lines, accepting LF, CRLF and a missing final newline.
std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    std::size_t pos = 0;
    int number = 1;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        const std::size_t stop = end == std::string_view::npos ? text.size() : end;
        std::string_view line = text.substr(pos, stop - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back({line, number++});
        if (end == std::string_view::npos) break;
        pos = end + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_fields(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        const std::size_t b = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
        if (i > b) out.push_back(s.substr(b, i - b));
    }
    return out;
}

std::string describe_char(char ch) {
    const auto u = static_cast<unsigned char>(ch);
    if (u >= 0x21 && u < 0x7f) return std::string("'") + ch + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02X", u);
    return buf;
}

Error error_at(std::string_view source, int line, const std::string& what) {
    return Error{ErrorCode::parse_error, std::string(source) + ":" + std::to_string(line) + ": " + what};
}

// A line of a text file must hold printable ASCII or tabs; anything else is binary data.
std::optional<Error> check_text(std::string_view source, const Line& line) {
    for (std::size_t i = 0; i < line.text.size(); ++i) {
        const auto u = static_cast<unsigned char>(line.text[i]);
        if ((u < 0x20 && u != '\t') || u >= 0x7f) {
            return error_at(source, line.number,
                            "unexpected " + describe_char(line.text[i]) + " at column " + std::to_string(i + 1) +
                                " (not a text file?)");
        }
    }
    return std::nullopt;
}

template <class T>
std::optional<T> parse_number(std::string_view s) {
    T value{};
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (s.empty()) return std::nullopt;
    if constexpr (std::is_floating_point_v<T>) {
        if (*b == '+') ++b;  // from_chars does not take a leading '+'
    }
    std::from_chars_result r;
    if constexpr (std::is_floating_point_v<T>) {
        r = detail::from_chars_float(b, e, value, false);
    } else {
        r = std::from_chars(b, e, value);
    }
    const auto [ptr, ec] = r;
    if (ec != std::errc() || ptr != e) return std::nullopt;
    return value;
}

// Parses "key N" with N in [1, kMaxDimension].
Result<int> parse_dimension(std::string_view source, const Line& line, std::string_view value, std::string_view key) {
    const auto n = parse_number<long long>(value);
    if (!n) return error_at(source, line.number, std::string(key) + " '" + std::string(value) + "' is not a number");
    if (*n < 1 || *n > kMaxDimension) {
        return error_at(
            source, line.number,
            std::string(key) + " " + std::to_string(*n) + " is outside 1.." + std::to_string(kMaxDimension));
    }
    return static_cast<int>(*n);
}

using Legend = std::array<int, 256>;  // character -> cost, or -1 when not in the legend

// Reads `height` rows of `width` characters starting at lines[first].
Result<CostField> parse_rows(std::string_view source, const std::vector<Line>& lines, std::size_t first, int width,
                             int height, const Legend& legend, std::pmr::memory_resource* memory) {
    const std::size_t available = lines.size() > first ? lines.size() - first : 0;
    if (available < static_cast<std::size_t>(height)) {
        const int last = lines.empty() ? 1 : lines.back().number;
        return error_at(source, last,
                        "map has " + std::to_string(available) + " rows, the header says " + std::to_string(height));
    }
    for (std::size_t i = first + static_cast<std::size_t>(height); i < lines.size(); ++i) {
        if (!trim(lines[i].text).empty()) {
            return error_at(source, lines[i].number,
                            "unexpected content after the " + std::to_string(height) + " map rows");
        }
    }
    // Every row's length is checked before the grid is allocated: the header alone must not make
    // a few bytes of input cost width x height bytes of memory.
    for (int y = 0; y < height; ++y) {
        const Line& line = lines[first + static_cast<std::size_t>(y)];
        if (line.text.size() != static_cast<std::size_t>(width)) {
            return error_at(source, line.number,
                            "map row " + std::to_string(y) + " has " + std::to_string(line.text.size()) +
                                " characters, expected " + std::to_string(width));
        }
    }
    auto field = CostField::create(width, height, kCostPlain, memory);
    if (!field) return error_at(source, lines[first - 1].number, field.error().message);
    auto cells = field->cells();
    for (int y = 0; y < height; ++y) {
        const Line& line = lines[first + static_cast<std::size_t>(y)];
        for (int x = 0; x < width; ++x) {
            const char ch = line.text[static_cast<std::size_t>(x)];
            const int cost = legend[static_cast<unsigned char>(ch)];
            if (cost < 0) {
                return error_at(source, line.number,
                                "unknown terrain character " + describe_char(ch) + " at column " +
                                    std::to_string(x + 1) + " (cell " + std::to_string(x) + ", " + std::to_string(y) +
                                    ")");
            }
            cells[static_cast<std::size_t>(y) * width + x] = static_cast<Cost>(cost);
        }
    }
    return field;
}

Legend movingai_legend() {
    Legend l;
    l.fill(-1);
    for (char c : {'.', 'G', 'S'}) l[static_cast<unsigned char>(c)] = kCostPlain;
    for (char c : {'@', 'O', 'T', 'W'}) l[static_cast<unsigned char>(c)] = kCostWall;
    return l;
}

Legend tide_default_legend() {
    Legend l;
    l.fill(-1);
    l['.'] = kCostPlain;
    l['F'] = kCostForest;
    l['~'] = kCostSwamp;
    l['#'] = kCostWall;
    l['@'] = kCostWall;
    return l;
}

// A unit class as declared in a Tide map header. Its cost lines are kept as written and resolved
// against the legend once the whole header is read, since legend lines may follow them.
struct ClassDecl {
    struct CostOverride {
        char symbol = 0;
        int cost = 0;
        int line = 0;
    };
    std::string name;
    int size = 1;
    int size_line = 0;  // line of its size line, 0 while it has none
    std::vector<CostOverride> costs;
};

bool valid_class_name(std::string_view name) {
    if (name.empty() || name.size() > 32) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

// Reads one `class NAME size S` or `class NAME cost C V` line into `classes`; a class is declared
// by its first line.
std::optional<Error> parse_class_line(std::string_view source, const Line& line,
                                      const std::vector<std::string_view>& fields, std::vector<ClassDecl>& classes) {
    const bool size_line = fields.size() == 4 && fields[2] == "size";
    const bool cost_line = fields.size() == 5 && fields[2] == "cost" && fields[3].size() == 1;
    if (!size_line && !cost_line) {
        return error_at(source, line.number,
                        "expected 'class NAME size S' or 'class NAME cost C V' (C one character, V a cost 1..254 "
                        "or 'wall'), found '" +
                            std::string(trim(line.text)) + "'");
    }
    const std::string name(fields[1]);
    if (!valid_class_name(name)) {
        return error_at(source, line.number, "class name '" + name + "' is not 1..32 letters, digits, '_' or '-'");
    }
    if (name == "default") {
        return error_at(source, line.number, "class name 'default' is reserved (the map's own costs, size 1)");
    }
    auto it = std::find_if(classes.begin(), classes.end(), [&](const ClassDecl& c) { return c.name == name; });
    if (it == classes.end()) {
        if (classes.size() == static_cast<std::size_t>(kMaxUnitClasses)) {
            return error_at(source, line.number,
                            "class '" + name + "' would be class " + std::to_string(kMaxUnitClasses + 1) +
                                "; a map may declare at most " + std::to_string(kMaxUnitClasses));
        }
        classes.push_back(ClassDecl{name, 1, 0, {}});
        it = classes.end() - 1;
    }
    ClassDecl& decl = *it;
    if (size_line) {
        const auto n = parse_number<long long>(fields[3]);
        if (!n) {
            return error_at(source, line.number,
                            "class '" + name + "' size '" + std::string(fields[3]) + "' is not a number");
        }
        if (*n < 1 || *n > kMaxUnitSize) {
            return error_at(
                source, line.number,
                "class '" + name + "' size " + std::to_string(*n) + " is outside 1.." + std::to_string(kMaxUnitSize));
        }
        if (decl.size_line != 0) {
            return error_at(source, line.number,
                            "class '" + name + "' is given a second size (size " + std::to_string(decl.size) +
                                " on line " + std::to_string(decl.size_line) + ")");
        }
        decl.size = static_cast<int>(*n);
        decl.size_line = line.number;
        return std::nullopt;
    }
    const char ch = fields[3][0];
    int cost = kCostWall;
    if (fields[4] != "wall") {
        const auto v = parse_number<long long>(fields[4]);
        if (!v || *v < 1 || *v > kCostMax) {
            return error_at(source, line.number,
                            "class '" + name + "' cost '" + std::string(fields[4]) + "' for " + describe_char(ch) +
                                " is not 1..254 or 'wall'");
        }
        cost = static_cast<int>(*v);
    }
    decl.costs.push_back({ch, cost, line.number});
    return std::nullopt;
}

// The classes' cost fields, from the map rows with each class's cost lines applied over the
// legend. The rows were already read with `legend`, so they hold only legend characters.
Result<std::vector<UnitClass>> build_classes(std::string_view source, const std::vector<Line>& lines,
                                             std::size_t first_row, int width, int height, const Legend& legend,
                                             std::vector<ClassDecl>& decls, std::pmr::memory_resource* memory) {
    // Checked before any class field is allocated: the classes' fields together stay within
    // kMaxClassCostCells, whatever the header asks.
    std::size_t with_costs = 0;
    for (const ClassDecl& decl : decls) with_costs += decl.costs.empty() ? 0 : 1;
    const std::size_t cells = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    if (with_costs > 0 && with_costs * cells > kMaxClassCostCells) {
        return Error{std::string(source) + ": " + std::to_string(with_costs) +
                     " unit classes with costs of their own on a " + std::to_string(width) + "x" +
                     std::to_string(height) + " map would hold " + std::to_string(with_costs * cells) +
                     " cells; at most " + std::to_string(kMaxClassCostCells) + " together"};
    }
    std::vector<UnitClass> classes;
    classes.reserve(decls.size());
    for (ClassDecl& decl : decls) {
        UnitClass c{std::move(decl.name), decl.size, std::nullopt};
        if (!decl.costs.empty()) {
            Legend own = legend;
            for (const auto& o : decl.costs) own[static_cast<unsigned char>(o.symbol)] = o.cost;
            auto field = parse_rows(source, lines, first_row, width, height, own, memory);
            if (!field) return field.error();
            c.costs.emplace(std::move(field.value()));
        }
        classes.push_back(std::move(c));
    }
    return classes;
}

// Header lines before "map": the first non-text byte anywhere is reported first.
std::optional<Error> check_all_text(std::string_view source, const std::vector<Line>& lines) {
    for (const Line& l : lines) {
        if (auto e = check_text(source, l)) return e;
    }
    return std::nullopt;
}

// Reads the header after the first line (width, height and, in Tide maps, legend and class
// lines) up to "map", then the rows. Both formats share this; only Tide maps accept legend and
// class lines, and only Moving AI maps get the built-in water class.
Result<Map> parse_header_and_rows(std::string_view source, const std::vector<Line>& lines, MapFormat format,
                                  std::pmr::memory_resource* memory) {
    const bool tide = format == MapFormat::tide;
    Legend legend = tide ? tide_default_legend() : movingai_legend();
    std::vector<ClassDecl> decls;
    int width = 0;
    int height = 0;
    std::size_t i = 1;  // line 0 is "type octile" or "tide-map 1"
    for (; i < lines.size(); ++i) {
        const std::string_view text = lines[i].text;
        const auto fields = split_fields(text);
        if (fields.empty()) continue;
        if (fields.size() == 1 && fields[0] == "map") break;
        if (fields.size() == 2 && (fields[0] == "height" || fields[0] == "width")) {
            auto n = parse_dimension(source, lines[i], fields[1], fields[0]);
            if (!n) return n.error();
            (fields[0] == "height" ? height : width) = *n;
            continue;
        }
        if (tide) {
            if (fields[0] == "legend") {
                if (fields.size() != 3 || fields[1].size() != 1) {
                    return error_at(
                        source, lines[i].number,
                        "expected 'legend C V' with C one character and V a cost 1..254 or 'wall', found '" +
                            std::string(trim(text)) + "'");
                }
                const char ch = fields[1][0];
                int cost = 0;
                if (fields[2] == "wall") {
                    cost = kCostWall;
                } else {
                    const auto v = parse_number<long long>(fields[2]);
                    if (!v || *v < 1 || *v > kCostMax) {
                        return error_at(source, lines[i].number,
                                        "legend cost '" + std::string(fields[2]) + "' for " + describe_char(ch) +
                                            " is not 1..254 or 'wall'");
                    }
                    cost = static_cast<int>(*v);
                }
                legend[static_cast<unsigned char>(ch)] = cost;
                continue;
            }
            if (fields[0] == "class") {
                if (auto e = parse_class_line(source, lines[i], fields, decls)) return *e;
                continue;
            }
            return error_at(source, lines[i].number,
                            "expected 'width W', 'height H', 'legend C V', 'class NAME ...' or 'map', found '" +
                                std::string(trim(text)) + "'");
        }
        return error_at(source, lines[i].number,
                        "expected 'height H', 'width W' or 'map', found '" + std::string(trim(text)) + "'");
    }
    if (i >= lines.size()) return error_at(source, lines.back().number, "missing 'map' line");
    if (height == 0) return error_at(source, lines[i].number, "missing 'height' line before 'map'");
    if (width == 0) return error_at(source, lines[i].number, "missing 'width' line before 'map'");
    // The first class cost line whose character the final legend lacks.
    const ClassDecl::CostOverride* unknown = nullptr;
    const ClassDecl* unknown_in = nullptr;
    for (const ClassDecl& decl : decls) {
        for (const auto& o : decl.costs) {
            if (legend[static_cast<unsigned char>(o.symbol)] < 0 && (!unknown || o.line < unknown->line)) {
                unknown = &o;
                unknown_in = &decl;
            }
        }
    }
    if (unknown) {
        return error_at(source, unknown->line,
                        "class '" + unknown_in->name + "' cost line names " + describe_char(unknown->symbol) +
                            ", which is not in the legend");
    }
    auto field = parse_rows(source, lines, i + 1, width, height, legend, memory);
    if (!field) return field.error();
    if (!tide) {
        // Water: `W` costs 1. Without any `W` its costs are the map's, so it needs no field of its own.
        ClassDecl water{"water", 1, 0, {}};
        const bool has_water = std::any_of(lines.begin() + static_cast<std::ptrdiff_t>(i) + 1, lines.end(),
                                           [](const Line& l) { return l.text.find('W') != std::string_view::npos; });
        if (has_water) water.costs.push_back({'W', kCostPlain, 0});
        decls.push_back(std::move(water));
    }
    auto classes = build_classes(source, lines, i + 1, width, height, legend, decls, memory);
    if (!classes) return classes.error();
    return Map{std::move(field.value()), format, std::move(classes.value())};
}

Result<Map> parse_tide(std::string_view source, const std::vector<Line>& lines, std::pmr::memory_resource* memory) {
    const auto version = split_fields(lines[0].text);
    if (version.size() != 2 || version[1] != "1") {
        return error_at(
            source, lines[0].number,
            "unsupported tide-map version '" + std::string(trim(lines[0].text)) + "' (expected 'tide-map 1')");
    }
    return parse_header_and_rows(source, lines, MapFormat::tide, memory);
}

}  // namespace

Result<Map> parse_map(std::string_view text, std::string_view source, std::pmr::memory_resource* memory) {
    const auto lines = split_lines(text);
    std::size_t first = 0;
    while (first < lines.size() && trim(lines[first].text).empty()) ++first;
    if (first == lines.size()) return error_at(source, 1, "empty file (expected a map)");
    if (auto e = check_all_text(source, lines)) return *e;
    const std::vector<Line> body(lines.begin() + static_cast<std::ptrdiff_t>(first), lines.end());
    const auto head = split_fields(body[0].text);
    if (head.size() == 2 && head[0] == "type") {
        if (head[1] != "octile") {
            return error_at(source, body[0].number,
                            "unsupported map type '" + std::string(head[1]) + "' (expected 'octile')");
        }
        return parse_header_and_rows(source, body, MapFormat::moving_ai, memory);
    }
    if (!head.empty() && head[0] == "tide-map") return parse_tide(source, body, memory);
    return error_at(source, body[0].number,
                    "unknown map format: first line is '" + std::string(trim(body[0].text)).substr(0, 40) +
                        "', expected 'type octile' (Moving AI) or 'tide-map 1'");
}

namespace {

// What a path that is not a regular file is, for messages.
const char* file_kind(std::filesystem::file_type type) {
    switch (type) {
        case std::filesystem::file_type::directory:
            return "a directory";
        case std::filesystem::file_type::fifo:
            return "a FIFO";
        case std::filesystem::file_type::socket:
            return "a socket";
        case std::filesystem::file_type::character:
            return "a character device";
        case std::filesystem::file_type::block:
            return "a block device";
        default:
            return "not a regular file";
    }
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, std::size_t max_bytes) {
    // Only regular files are opened: opening a FIFO blocks until a writer comes, a directory or a
    // device has no size to check against the limit.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || status.type() == std::filesystem::file_type::not_found) {
        return Error{ErrorCode::io, path + ": cannot open file" + (ec ? ": " + ec.message() : std::string())};
    }
    if (status.type() != std::filesystem::file_type::regular) {
        return Error{ErrorCode::io, path + ": is " + file_kind(status.type()) + ", not a regular file"};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{ErrorCode::io, path + ": cannot open file"};
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return Error{ErrorCode::io, path + ": cannot read file"};
    if (static_cast<std::size_t>(size) > max_bytes) {
        return Error{ErrorCode::too_large, path + ": file is " + std::to_string(size) +
                                               " bytes, larger than the limit of " + std::to_string(max_bytes)};
    }
    in.seekg(0, std::ios::beg);
    std::string data(static_cast<std::size_t>(size), '\0');
    if (size > 0 && !in.read(data.data(), size)) return Error{ErrorCode::io, path + ": read error"};
    return data;
}

Result<Map> load_map(const std::string& path, std::pmr::memory_resource* memory) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_map(*text, path, memory);
}

const UnitClass* find_class(const Map& map, std::string_view name) {
    if (name == "default") return nullptr;  // reserved even in a map assembled by hand
    for (const UnitClass& c : map.classes) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

Result<CostField> class_cost_field(const Map& map, std::string_view name, int size) {
    const UnitClass* c = find_class(map, name);  // nullptr for "default"
    if (!c && name != "default") {
        std::string known = "default";
        for (const UnitClass& k : map.classes) known += ", " + k.name;
        return Error{ErrorCode::not_found,
                     "unknown unit class '" + std::string(name) + "' (the map has: " + known + ")"};
    }
    if (size == 0) size = c ? c->size : 1;
    const CostField& costs = c && c->costs ? *c->costs : map.cost;
    return sized_cost_field(costs, size);
}

Result<std::string> format_tide_map(const CostField& cost) {
    // Default legend first; other costs get characters from a fixed pool, in order of first use.
    std::array<char, 256> symbol{};
    symbol[kCostPlain] = '.';
    symbol[kCostForest] = 'F';
    symbol[kCostSwamp] = '~';
    symbol[kCostWall] = '#';
    static constexpr std::string_view pool =
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEGHIJKLMNOPQRSTUVWXYZ!$%&*+-/:;<=>?^_|()[]{},'\"`\\";
    std::size_t next = 0;
    std::size_t distinct_extra = 0;
    std::string legend_lines;
    for (Cost c : cost.cells()) {
        if (symbol[c] != 0) continue;
        ++distinct_extra;
        if (next == pool.size()) {
            // Count them all for the message, then refuse: writing a different map would lose data.
            std::array<bool, 256> used{};
            for (Cost u : cost.cells()) used[u] = true;
            std::size_t passable = 0;
            for (int u = 1; u < 255; ++u) passable += used[static_cast<std::size_t>(u)];
            return Error{ErrorCode::too_large, "the map uses " + std::to_string(passable) +
                                                   " distinct passable costs; the Tide text format can name at most " +
                                                   std::to_string(pool.size() + 3) +
                                                   " (legend symbols are single characters)"};
        }
        symbol[c] = pool[next++];
        legend_lines += "legend ";
        legend_lines += symbol[c];
        legend_lines += " " + std::to_string(c) + "\n";
    }
    std::string out = "tide-map 1\nwidth " + std::to_string(cost.width()) + "\nheight " +
                      std::to_string(cost.height()) + "\n" + legend_lines + "map\n";
    out.reserve(out.size() + cost.size() + static_cast<std::size_t>(cost.height()));
    const auto cells = cost.cells();
    for (int y = 0; y < cost.height(); ++y) {
        for (int x = 0; x < cost.width(); ++x) out += symbol[cells[static_cast<std::size_t>(y) * cost.width() + x]];
        out += '\n';
    }
    return out;
}

Result<std::vector<ScenarioRow>> parse_scenarios(std::string_view text, std::string_view source) {
    const auto lines = split_lines(text);
    std::size_t i = 0;
    while (i < lines.size() && trim(lines[i].text).empty()) ++i;
    if (i == lines.size()) return error_at(source, 1, "empty file (expected 'version 1')");
    if (auto e = check_all_text(source, lines)) return *e;
    const auto head = split_fields(lines[i].text);
    if (head.size() != 2 || head[0] != "version" || (head[1] != "1" && head[1] != "1.0")) {
        return error_at(
            source, lines[i].number,
            "expected 'version 1' or 'version 1.0', found '" + std::string(trim(lines[i].text)).substr(0, 40) + "'");
    }
    std::vector<ScenarioRow> rows;
    for (++i; i < lines.size(); ++i) {
        const Line& line = lines[i];
        const auto f = split_fields(line.text);
        if (f.empty()) continue;
        if (f.size() != 9) {
            return error_at(
                source, line.number,
                "expected 9 fields (bucket map width height start_x start_y goal_x goal_y optimal_length), found " +
                    std::to_string(f.size()));
        }
        static constexpr const char* kNames[9] = {"bucket",  "map",    "width",  "height",        "start_x",
                                                  "start_y", "goal_x", "goal_y", "optimal_length"};
        ScenarioRow row;
        row.line = line.number;
        row.map = std::string(f[1]);
        int ints[8] = {};
        for (int k : {0, 2, 3, 4, 5, 6, 7}) {
            const auto v = parse_number<long long>(f[static_cast<std::size_t>(k)]);
            if (!v || *v < 0 || *v > 1'000'000'000) {
                return error_at(source, line.number,
                                std::string(kNames[k]) + " '" + std::string(f[static_cast<std::size_t>(k)]) +
                                    "' is not a non-negative integer");
            }
            ints[k] = static_cast<int>(*v);
        }
        const auto opt = parse_number<double>(f[8]);
        if (!opt || !std::isfinite(*opt) || *opt < 0) {
            return error_at(source, line.number,
                            "optimal_length '" + std::string(f[8]) + "' is not a non-negative number");
        }
        row.bucket = ints[0];
        row.map_width = ints[2];
        row.map_height = ints[3];
        row.start = {ints[4], ints[5]};
        row.goal = {ints[6], ints[7]};
        row.optimal = *opt;
        if (row.map_width < 1 || row.map_width > kMaxDimension || row.map_height < 1 ||
            row.map_height > kMaxDimension) {
            return error_at(source, line.number,
                            "map size " + std::to_string(row.map_width) + "x" + std::to_string(row.map_height) +
                                " is outside 1..16384");
        }
        for (const auto& [name, c] : {std::pair{"start", row.start}, std::pair{"goal", row.goal}}) {
            if (c.x >= row.map_width || c.y >= row.map_height) {
                return error_at(source, line.number,
                                std::string(name) + " (" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                                    ") is outside the " + std::to_string(row.map_width) + "x" +
                                    std::to_string(row.map_height) + " map");
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

Result<std::vector<ScenarioRow>> load_scenarios(const std::string& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_scenarios(*text, path);
}

Result<void> check_scenarios(const std::vector<ScenarioRow>& rows, const CostField& cost, std::string_view source) {
    for (const ScenarioRow& row : rows) {
        if (row.map_width != cost.width() || row.map_height != cost.height()) {
            return error_at(source, row.line,
                            "scenario map size " + std::to_string(row.map_width) + "x" +
                                std::to_string(row.map_height) + " differs from the map's " +
                                std::to_string(cost.width()) + "x" + std::to_string(cost.height()));
        }
        for (const auto& [name, c] : {std::pair{"start", row.start}, std::pair{"goal", row.goal}}) {
            if (!cost.passable(c.x, c.y)) {
                return error_at(
                    source, row.line,
                    std::string(name) + " (" + std::to_string(c.x) + ", " + std::to_string(c.y) + ") is on a wall");
            }
        }
    }
    return {};
}

}  // namespace tide
