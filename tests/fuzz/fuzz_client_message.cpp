// libFuzzer target: what tide serve does with a WebSocket text message and a POST /api/order body
// (parse_client_message, parse_order_body, error_json): never crash, every refusal has a message,
// and the error reply is valid JSON whatever bytes the message held.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "fuzz_checks.hpp"
#include "protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const tide::serve::ParsedMessage parsed = tide::serve::parse_client_message(text);
    if (!parsed.command) {
        TIDE_FUZZ_CHECK(!parsed.command.error().message.empty());
        const std::string reply = tide::serve::error_json(parsed.command.error().message, parsed.type);
        TIDE_FUZZ_CHECK(nlohmann::json::accept(reply));
    }
    auto order = tide::serve::parse_order_body(text);
    if (order) {
        TIDE_FUZZ_CHECK(!order->goals.empty() && order->goals.size() <= static_cast<std::size_t>(tide::kMaxOrderGoals));
    } else {
        TIDE_FUZZ_CHECK(!order.error().message.empty());
    }
    return 0;
}
