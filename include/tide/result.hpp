#pragma once
/// \file result.hpp
/// Recoverable errors: every fallible library call returns `Result<T>`, holding either
/// a value or an `Error`: a code a program can branch on and a message naming the file, line,
/// cell or value at fault. No exception crosses the library API.

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "tide/export.h"

namespace tide {

/// What kind of failure an Error is. The values are stable: the C API (tide.h) uses the same numbers.
enum class ErrorCode : std::uint8_t {
    invalid_argument = 1,  ///< A value out of range or inconsistent (a size, a factor, a setting).
    off_map = 2,           ///< A cell or position outside the map.
    on_wall = 3,           ///< A cell or position on a wall (a goal, an agent, a start).
    not_found = 4,         ///< An unknown or stale handle, group, unit class or name.
    parse_error = 5,       ///< Malformed text (a map, a scenario file); the message names source and line.
    io = 6,                ///< A file could not be opened, read or written.
    too_large = 7,         ///< Over a size limit (a file, a map, a count; see limits.hpp).
    unsupported = 8,       ///< Not available in this configuration (e.g. on a hierarchical map).
    internal = 9,          ///< A bug in Tide (an invariant did not hold).
};

/// Lower-case name of a code ("off_map"); "unknown" for a value outside the enum.
TIDE_API const char* error_code_name(ErrorCode code) noexcept;

/// A recoverable failure: a code and a human-readable message
/// ("maps/a.map:7: row has 12 characters, expected 16").
struct Error {
    Error() = default;
    /// An error of code invalid_argument.
    Error(std::string text) : message(std::move(text)) {}
    /// An error of the given code.
    Error(ErrorCode error_code, std::string text) : code(error_code), message(std::move(text)) {}

    ErrorCode code = ErrorCode::invalid_argument;  ///< What kind of failure.
    std::string message;                           ///< One line, no trailing newline.
};

/// Either a `T` or an `Error` (a small C++20 stand-in for `std::expected<T, Error>`).
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}      ///< Success.
    Result(Error error) : data_(std::in_place_index<1>, std::move(error)) {}  ///< Failure.

    /// True when the call succeeded.
    bool ok() const noexcept { return data_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    /// The value; only valid when ok().
    T& value() & { return std::get<0>(data_); }
    const T& value() const& { return std::get<0>(data_); }
    T&& value() && { return std::get<0>(std::move(data_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    /// The error; only valid when !ok().
    const Error& error() const { return std::get<1>(data_); }

private:
    std::variant<T, Error> data_;
};

/// `Result<void>`: success carries no value.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;                                            ///< Success.
    Result(Error error) : error_(std::move(error)), ok_(false) {}  ///< Failure.
    bool ok() const noexcept { return ok_; }
    explicit operator bool() const noexcept { return ok_; }
    const Error& error() const { return error_; }

private:
    Error error_;
    bool ok_ = true;
};

}  // namespace tide
