#pragma once

#include "tide/export.h"
/// \file assert.hpp
/// Programmer-misuse checks (an index off the map in a hot accessor). They stay on in
/// release builds where they are cheap; the host may route them to its own handler.

namespace tide {

/// Called on a failed check with the expression text and its location. Must not return
/// normally if the caller should not continue (the default prints to stderr and aborts).
using AssertHandler = void (*)(const char* expression, const char* file, int line);

/// Installs `handler` (nullptr restores the default). Not thread-safe: call at start-up.
TIDE_API void set_assert_handler(AssertHandler handler) noexcept;

/// Reports a failed check through the current handler.
TIDE_API void report_assert_failure(const char* expression, const char* file, int line);

}  // namespace tide

#define TIDE_ASSERT(expr) ((expr) ? static_cast<void>(0) : ::tide::report_assert_failure(#expr, __FILE__, __LINE__))
