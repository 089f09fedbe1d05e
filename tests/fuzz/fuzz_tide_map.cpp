// libFuzzer target: the Tide text map parser (tide::parse_map on "tide-map 1" input: legend and
// class lines, rows), plus the round trip: a parsed map written by format_tide_map and parsed
// again gives the same costs; and on small maps, the wall-safe sampling guarantee of the field
// toward the first open cell (check_sample_safety: any map shape, edges, 1-cell corridors).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_checks.hpp"
#include "tide/field_builder.hpp"
#include "tide/map_io.hpp"
#include "tide/sample_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text = "tide-map 1\n";
    text.append(reinterpret_cast<const char*>(data), size);
    auto map = tide::parse_map(text, "fuzz.tmap");
    tide::fuzz::check_map(map, "fuzz.tmap");
    if (!map) return 0;
    auto written = tide::format_tide_map(map->cost);
    if (!written) return 0;  // more distinct costs than the format can name: refused, not lost
    auto again = tide::parse_map(*written, "round-trip");
    TIDE_FUZZ_CHECK(again.ok());
    TIDE_FUZZ_CHECK(again->cost.width() == map->cost.width() && again->cost.height() == map->cost.height());
    const auto a = map->cost.cells(), b = again->cost.cells();
    for (std::size_t i = 0; i < a.size(); ++i) TIDE_FUZZ_CHECK(a[i] == b[i]);
    if (a.size() > 4096) return 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == tide::kCostWall) continue;
        const int w = map->cost.width();
        const tide::Cell goal{static_cast<int>(i % static_cast<std::size_t>(w)),
                              static_cast<int>(i / static_cast<std::size_t>(w))};
        auto field = std::make_shared<tide::FlowField>();
        tide::FieldBuilder builder;
        TIDE_FUZZ_CHECK(builder.build(map->cost, {&goal, 1}, {}, *field).ok());
        const tide::SampleCheck check =
            tide::check_sample_safety(tide::FieldView(std::shared_ptr<const tide::FlowField>(field)), 4);
        TIDE_FUZZ_CHECK(check.faults == 0);
        break;
    }
    return 0;
}
