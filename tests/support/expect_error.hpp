#pragma once
/// \file expect_error.hpp
/// Checks that a Result failed with a message naming "source:LINE:" and containing key words.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

#include "tide/result.hpp"

namespace tide::test {

/// Lower-cases ASCII letters, for case-insensitive key-word checks.
inline std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

/// Succeeds when `result` failed with ErrorCode::parse_error, its message contains "source:line:"
/// and every key word (case-insensitive), and is a single line.
template <class T>
::testing::AssertionResult failed_at(const Result<T>& result, std::string_view source, int line,
                                     std::initializer_list<std::string_view> keywords) {
    if (result.ok()) return ::testing::AssertionFailure() << "succeeded, expected an error";
    const std::string& message = result.error().message;
    if (result.error().code != ErrorCode::parse_error) {
        return ::testing::AssertionFailure()
               << "code " << error_code_name(result.error().code) << ", expected parse_error: " << message;
    }
    const std::string where = std::string(source) + ":" + std::to_string(line) + ":";
    if (message.find(where) == std::string::npos) {
        return ::testing::AssertionFailure() << "message does not name '" << where << "': " << message;
    }
    const std::string lowered = lower(message);
    for (std::string_view k : keywords) {
        if (lowered.find(lower(k)) == std::string::npos) {
            return ::testing::AssertionFailure() << "message lacks '" << k << "': " << message;
        }
    }
    if (message.find('\n') != std::string::npos) {
        return ::testing::AssertionFailure() << "message spans several lines: " << message;
    }
    return ::testing::AssertionSuccess() << message;
}

}  // namespace tide::test
