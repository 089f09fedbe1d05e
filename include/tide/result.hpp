#pragma once
/// \file result.hpp
/// Recoverable errors: every fallible library call returns `Result<T>`, holding either
/// a value or an `Error` whose message names the file, line, cell or value at fault.
/// No exception crosses the library API.

#include <string>
#include <utility>
#include <variant>

namespace tide {

/// A recoverable failure with a human-readable message ("maps/a.map:7: row has 12 characters, expected 16").
struct Error {
    std::string message;  ///< One line, no trailing newline.
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
