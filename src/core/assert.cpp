#include "tide/assert.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace tide {
namespace {

void default_handler(const char* expression, const char* file, int line) {
    std::fprintf(stderr, "tide: check failed: %s (%s:%d)\n", expression, file, line);
    std::abort();
}

// The one process-wide hook, like Box2D's b2SetAssertFcn: explicit, set by the host at start-up.
std::atomic<AssertHandler> g_handler{&default_handler};

}  // namespace

void set_assert_handler(AssertHandler handler) noexcept {
    g_handler.store(handler ? handler : &default_handler);
}

void report_assert_failure(const char* expression, const char* file, int line) {
    g_handler.load()(expression, file, line);
}

}  // namespace tide
