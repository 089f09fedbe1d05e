// libFuzzer target: POST /api/map as tide serve handles it before the world sees it
// (parse_map_upload). The input's first line is the ?name= value, the rest the body. An accepted
// upload has a printable name, a goal on a passable cell, and a map within the limits.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_checks.hpp"
#include "protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t newline = input.find('\n');
    const std::string_view name = newline == std::string_view::npos ? std::string_view() : input.substr(0, newline);
    const std::string_view body = newline == std::string_view::npos ? input : input.substr(newline + 1);
    auto upload = tide::serve::parse_map_upload(body, name);
    const std::string cleaned = tide::serve::clean_map_name(name);
    TIDE_FUZZ_CHECK(!cleaned.empty() && cleaned.size() <= tide::kMaxMapNameChars);
    for (const char ch : cleaned) TIDE_FUZZ_CHECK(ch >= 0x20 && ch < 0x7f);
    if (!upload) {
        tide::fuzz::check_error(upload.error(), cleaned);
        return 0;
    }
    TIDE_FUZZ_CHECK(upload->name == cleaned);
    TIDE_FUZZ_CHECK(upload->cost.contains(upload->goal) && upload->cost.passable(upload->goal.x, upload->goal.y));
    TIDE_FUZZ_CHECK(upload->cost.width() <= tide::kMaxDimension && upload->cost.height() <= tide::kMaxDimension);
    return 0;
}
