#pragma once
// Reading the line-based texts of recordings and snapshots (recording_text.cpp, replay.cpp): a
// line reader that splits on spaces and names the source and line in errors, and exact parsers of
// the values they hold. Internal to the world library.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
#include "tide/detail/compat.hpp"

#include "tide/cost_field.hpp"
#include "tide/result.hpp"

namespace tide::world_detail {

/// Lines of a text, one at a time, split into space-separated tokens.
struct Reader {
    Reader(std::string_view t, std::string_view s) : text(t), source(s) {}
    std::string_view text;
    std::string_view source;
    std::size_t pos = 0;
    int line_no = 0;
    std::vector<std::string_view> tokens;
    std::string_view current;  ///< The current line (without its line break).

    /// The next line's tokens; false at the end.
    bool next() {
        tokens.clear();
        if (pos >= text.size()) return false;
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        current = l;
        std::size_t i = 0;
        while (i < l.size()) {
            while (i < l.size() && l[i] == ' ') ++i;
            const std::size_t s = i;
            while (i < l.size() && l[i] != ' ') ++i;
            if (i > s) tokens.push_back(l.substr(s, i - s));
        }
        return true;
    }
    /// A parse error at the current line: "SOURCE:LINE: what".
    Error error(const std::string& what) const {
        return Error{ErrorCode::parse_error, std::string(source) + ":" + std::to_string(line_no) + ": " + what};
    }
};

/// `t` as a bool (0 or 1), a hexadecimal float, or a decimal integer; false unless all of it is.
template <class T>
bool get(std::string_view t, T& v) {
    const char* end = t.data() + t.size();
    std::from_chars_result r;
    if constexpr (std::is_same_v<T, bool>) {
        if (t != "0" && t != "1") return false;
        v = t == "1";
        return true;
    } else if constexpr (std::is_floating_point_v<T>) {
        r = detail::from_chars_float(t.data(), end, v, true);
    } else {
        r = std::from_chars(t.data(), end, v);
    }
    return r.ec == std::errc{} && r.ptr == end;
}

/// `t` as hexadecimal digits (a hash, a float's bits).
template <class T>
bool get_hash(std::string_view t, T& v) {
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v, 16);
    return r.ec == std::errc{} && r.ptr == t.data() + t.size();
}

/// "X,Y" as a cell.
inline bool get_cell(std::string_view t, Cell& c) {
    const std::size_t comma = t.find(',');
    return comma != std::string_view::npos && get(t.substr(0, comma), c.x) && get(t.substr(comma + 1), c.y);
}

/// "X,Y;X,Y" (or "-": none) as cells.
inline bool get_goals(std::string_view t, std::vector<Cell>& goals) {
    goals.clear();
    if (t == "-") return true;
    while (!t.empty()) {
        const std::size_t semi = std::min(t.find(';'), t.size());
        Cell c;
        if (!get_cell(t.substr(0, semi), c)) return false;
        goals.push_back(c);
        t.remove_prefix(std::min(semi + 1, t.size()));
    }
    return true;
}

}  // namespace tide::world_detail
