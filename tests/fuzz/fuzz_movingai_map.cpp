// libFuzzer target: the Moving AI map parser (tide::parse_map on "type octile" input). The input
// follows a fixed first line so the fuzzer spends its time on the header and the rows. Checks
// that a parsed map is consistent and that errors are single lines naming the source.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.hpp"
#include "tide/map_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text = "type octile\n";
    text.append(reinterpret_cast<const char*>(data), size);
    tide::fuzz::check_map(tide::parse_map(text, "fuzz.map"), "fuzz.map");
    return 0;
}
