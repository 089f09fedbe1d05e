// libFuzzer target: the Moving AI scenario parser (tide::parse_scenarios). Accepted rows must
// satisfy what the parser promises: sizes 1..kMaxDimension, start and goal on the map.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.hpp"
#include "tide/map_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto rows = tide::parse_scenarios(text, "fuzz.scen");
    if (!rows) {
        tide::fuzz::check_error(rows.error(), "fuzz.scen");
        return 0;
    }
    for (const tide::ScenarioRow& r : *rows) {
        TIDE_FUZZ_CHECK(r.map_width >= 1 && r.map_width <= tide::kMaxDimension);
        TIDE_FUZZ_CHECK(r.map_height >= 1 && r.map_height <= tide::kMaxDimension);
        TIDE_FUZZ_CHECK(r.start.x >= 0 && r.start.x < r.map_width && r.start.y >= 0 && r.start.y < r.map_height);
        TIDE_FUZZ_CHECK(r.goal.x >= 0 && r.goal.x < r.map_width && r.goal.y >= 0 && r.goal.y < r.map_height);
        TIDE_FUZZ_CHECK(r.optimal >= 0.0);
        TIDE_FUZZ_CHECK(r.line >= 1);
    }
    return 0;
}
