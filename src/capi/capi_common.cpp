// The C API's shared state and helpers (capi_internal.hpp): the last error, the live-handle
// registry, the conversions; tide_last_error() and tide_status_name().
#include <mutex>
#include <string>
#include <unordered_map>

#include "capi_internal.hpp"

namespace tide::capi {

static_assert(static_cast<int>(tide::ErrorCode::invalid_argument) == TIDE_ERROR_INVALID_ARGUMENT &&
                  static_cast<int>(tide::ErrorCode::off_map) == TIDE_ERROR_OFF_MAP &&
                  static_cast<int>(tide::ErrorCode::on_wall) == TIDE_ERROR_ON_WALL &&
                  static_cast<int>(tide::ErrorCode::not_found) == TIDE_ERROR_NOT_FOUND &&
                  static_cast<int>(tide::ErrorCode::parse_error) == TIDE_ERROR_PARSE &&
                  static_cast<int>(tide::ErrorCode::io) == TIDE_ERROR_IO &&
                  static_cast<int>(tide::ErrorCode::too_large) == TIDE_ERROR_TOO_LARGE &&
                  static_cast<int>(tide::ErrorCode::unsupported) == TIDE_ERROR_UNSUPPORTED &&
                  static_cast<int>(tide::ErrorCode::internal) == TIDE_ERROR_INTERNAL,
              "tide.h's status codes are tide::ErrorCode's values");
static_assert(static_cast<int>(tide::Direction::goal) == TIDE_DIRECTION_GOAL &&
                  static_cast<int>(tide::Direction::unreachable) == TIDE_DIRECTION_UNREACHABLE &&
                  static_cast<int>(tide::Direction::wall) == TIDE_DIRECTION_WALL && tide::kCostWall == TIDE_COST_WALL,
              "tide.h's direction codes are tide::Direction's values");
static_assert(static_cast<int>(tide::AgentState::moving) == TIDE_AGENT_MOVING &&
                  static_cast<int>(tide::AgentState::arrived) == TIDE_AGENT_ARRIVED &&
                  static_cast<int>(tide::AgentState::no_path) == TIDE_AGENT_NO_PATH &&
                  static_cast<int>(tide::AgentState::queued) == TIDE_AGENT_QUEUED,
              "tide.h's agent states are tide::AgentState's values");
static_assert(sizeof(tide_vec2) == sizeof(tide::Vec2) && sizeof(tide_agent) == sizeof(tide::AgentId) &&
                  sizeof(tide_group) == sizeof(tide::GroupId) && sizeof(tide_cell) == sizeof(tide::Cell),
              "plain values share their layout with the C++ types");

namespace {

thread_local std::string g_last_error;
std::mutex g_handles_mutex;
std::unordered_map<const void*, Kind> g_handles;

}  // namespace

std::mutex& handles_mutex() {
    return g_handles_mutex;
}

void register_handle(const void* handle, Kind kind) {
    std::lock_guard lock(g_handles_mutex);
    g_handles[handle] = kind;
}
bool live(const void* handle, Kind kind) {
    if (!handle) return false;
    std::lock_guard lock(g_handles_mutex);
    const auto it = g_handles.find(handle);
    return it != g_handles.end() && it->second == kind;
}
// Removes `handle` from the live ones; false when it was not live (already destroyed, or never made).
bool unregister(const void* handle, Kind kind) {
    std::lock_guard lock(g_handles_mutex);
    const auto it = g_handles.find(handle);
    if (it == g_handles.end() || it->second != kind) return false;
    g_handles.erase(it);
    return true;
}

tide_status fail(tide_status status, std::string message) {
    g_last_error = std::move(message);
    return status;
}

tide_status fail(const tide::Error& e) {
    return fail(static_cast<tide_status>(e.code), e.message);
}

tide_status fail_null(const char* what) {
    return fail(TIDE_ERROR_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

tide_status check_batch(const float* xs, const float* ys, std::size_t count, const float* out_x, const float* out_y) {
    if (count > 0 && (!xs || !ys || !out_x || !out_y)) return fail_null("a position or output array");
    return TIDE_OK;
}

tide_status fail_dead(const char* what) {
    return fail(TIDE_ERROR_INVALID_ARGUMENT,
                std::string(what) + " is not a live tide_" + what + " handle (destroyed, or never made by tide)");
}

tide::AgentId agent_id(tide_agent a) {
    return {a.index, a.generation};
}

tide_status stale(tide_agent a) {
    return fail(TIDE_ERROR_NOT_FOUND, "agent " + std::to_string(a.index) + " (generation " +
                                          std::to_string(a.generation) + ") is not a live agent");
}

tide::GroupId group_id(tide_group g) {
    return {g.index, g.generation};
}

tide_group to_c(tide::GroupId g) {
    return {g.index, g.generation};
}

tide_status stale(tide_group g) {
    return fail(TIDE_ERROR_NOT_FOUND, "group " + std::to_string(g.index) + " (generation " +
                                          std::to_string(g.generation) + ") is not a live group");
}

tide::AgentParams to_cpp(const tide_agent_params& p) {
    tide::AgentParams out;
    out.radius = p.radius;
    out.max_speed = p.max_speed;
    out.movement_class = p.movement_class;
    out.user_tag = p.user_tag;
    return out;
}

tide_agent_params to_c(const tide::AgentParams& p) {
    tide_agent_params out;
    out.radius = p.radius;
    out.max_speed = p.max_speed;
    out.movement_class = p.movement_class;
    out.user_tag = p.user_tag;
    return out;
}

}  // namespace tide::capi

using tide::capi::g_last_error;

extern "C" {

const char* tide_version(void) {
    return TIDE_VERSION_STRING;  // the CMake project's version (CMakeLists.txt)
}

const char* tide_last_error(void) {
    return g_last_error.c_str();
}

const char* tide_status_name(tide_status status) {
    switch (status) {
        case TIDE_OK:
            return "TIDE_OK";
        case TIDE_ERROR_INVALID_ARGUMENT:
            return "TIDE_ERROR_INVALID_ARGUMENT";
        case TIDE_ERROR_OFF_MAP:
            return "TIDE_ERROR_OFF_MAP";
        case TIDE_ERROR_ON_WALL:
            return "TIDE_ERROR_ON_WALL";
        case TIDE_ERROR_NOT_FOUND:
            return "TIDE_ERROR_NOT_FOUND";
        case TIDE_ERROR_PARSE:
            return "TIDE_ERROR_PARSE";
        case TIDE_ERROR_IO:
            return "TIDE_ERROR_IO";
        case TIDE_ERROR_TOO_LARGE:
            return "TIDE_ERROR_TOO_LARGE";
        case TIDE_ERROR_UNSUPPORTED:
            return "TIDE_ERROR_UNSUPPORTED";
        case TIDE_ERROR_INTERNAL:
            return "TIDE_ERROR_INTERNAL";
        case TIDE_ERROR_OUT_OF_MEMORY:
            return "TIDE_ERROR_OUT_OF_MEMORY";
    }
    return "TIDE_ERROR_UNKNOWN";
}

}  // extern "C"
