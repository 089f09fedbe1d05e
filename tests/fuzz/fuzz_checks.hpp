#pragma once
// Checks shared by the fuzz targets: a failed check aborts, which libFuzzer reports as a crash
// with the input that caused it.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tide/map_io.hpp"

/// Aborts with the failed condition when `cond` is false.
#define TIDE_FUZZ_CHECK(cond)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                      \
        }                                                                                      \
    } while (0)

namespace tide::fuzz {

/// An error message is one non-empty line that starts with the source's name.
inline void check_error(const Error& error, std::string_view source) {
    TIDE_FUZZ_CHECK(!error.message.empty());
    TIDE_FUZZ_CHECK(error.message.find('\n') == std::string::npos);
    TIDE_FUZZ_CHECK(error.message.find(source) != std::string::npos);
}

/// A parsed map has a size within the limits, costs 1..255 and classes of matching sizes; an
/// error is a single line naming the source.
inline void check_map(const Result<Map>& map, std::string_view source) {
    if (!map) {
        check_error(map.error(), source);
        return;
    }
    const CostField& cost = map->cost;
    TIDE_FUZZ_CHECK(cost.width() >= 1 && cost.width() <= kMaxDimension);
    TIDE_FUZZ_CHECK(cost.height() >= 1 && cost.height() <= kMaxDimension);
    TIDE_FUZZ_CHECK(cost.cells().size() == static_cast<std::size_t>(cost.width()) * cost.height());
    for (const Cost c : cost.cells()) TIDE_FUZZ_CHECK(c >= 1);
    TIDE_FUZZ_CHECK(map->classes.size() <= static_cast<std::size_t>(kMaxUnitClasses) + 1);
    for (const UnitClass& c : map->classes) {
        TIDE_FUZZ_CHECK(c.size >= 1 && c.size <= kMaxUnitSize);
        if (c.costs) TIDE_FUZZ_CHECK(c.costs->width() == cost.width() && c.costs->height() == cost.height());
    }
}

}  // namespace tide::fuzz
