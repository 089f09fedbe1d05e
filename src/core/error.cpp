#include "tide/result.hpp"

namespace tide {

const char* error_code_name(ErrorCode code) noexcept {
    switch (code) {
        case ErrorCode::invalid_argument:
            return "invalid_argument";
        case ErrorCode::off_map:
            return "off_map";
        case ErrorCode::on_wall:
            return "on_wall";
        case ErrorCode::not_found:
            return "not_found";
        case ErrorCode::parse_error:
            return "parse_error";
        case ErrorCode::io:
            return "io";
        case ErrorCode::too_large:
            return "too_large";
        case ErrorCode::unsupported:
            return "unsupported";
        case ErrorCode::internal:
            return "internal";
    }
    return "unknown";
}

}  // namespace tide
