#pragma once
// What the C API's translation units share (tide_c.cpp, tide_c_steering.cpp, capi_common.cpp, and
// tide_c_world.cpp in the world library): the handle types behind tide.h's opaque pointers, the
// live-handle registry, the last-error slot and the conversions. Internal: never installed (the
// functions the world library calls are exported from a shared libtide, hence TIDE_API).

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

#include "tide/crowd.hpp"
#include "tide/export.h"
#include "tide/flow_field.hpp"
#include "tide/jobs.hpp"
#include "tide/map_io.hpp"
#include "tide/result.hpp"
#include "tide/steering.hpp"
#include "tide/tide.h"

struct tide_map {
    tide::Map map;
    int crowds = 0;      // crowds made on it (they read its costs): it is freed after the last one
    bool freed = false;  // tide_map_destroy was called while crowds remained (the handle is dead)
};

struct tide_field {
    std::shared_ptr<const tide::FlowField> field;
};

struct tide_steering {
    tide_map* map;  // kept alive while the steering lives, as by a crowd
    tide::Steering steering;
};

struct tide_crowd {
    explicit tide_crowd(tide_map* m) : map(m), crowd(m->map.cost) {}
    tide_map* map;  // kept alive while the crowd lives (tide_map_destroy may come first)
    tide::Crowd crowd;
};

namespace tide::capi {

// Live handles: every call checks that the handle it is given was made by this library and not yet
// destroyed (one hash lookup under a mutex), so a destroyed or made-up handle gets
// TIDE_ERROR_INVALID_ARGUMENT instead of a use after free, and a second destroy does nothing.
// Freed memory reused for a new handle of the same kind would pass: the check catches the common
// mistakes, not every one. The C API's own state, not the library's (which has no globals).
enum class Kind : std::uint8_t { map, field, crowd, steering, world, service };

/// Records `handle` as a live handle of `kind`.
TIDE_API void register_handle(const void* handle, Kind kind);
/// `handle`, recorded as a live handle of `kind`.
template <class T>
T* registered(T* handle, Kind kind) {
    register_handle(handle, kind);
    return handle;
}
/// The registry's mutex; it also guards tide_map::crowds and tide_map::freed.
TIDE_API std::mutex& handles_mutex();
/// True when `handle` is a live handle of `kind`.
TIDE_API bool live(const void* handle, Kind kind);
/// Removes `handle` from the live ones; false when it was not live (already destroyed, or never made).
TIDE_API bool unregister(const void* handle, Kind kind);

/// Sets the calling thread's last error to `message`; returns `status`.
TIDE_API tide_status fail(tide_status status, std::string message);
/// fail() with a library error's code and message.
TIDE_API tide_status fail(const tide::Error& e);
/// TIDE_ERROR_INVALID_ARGUMENT: "`what` is NULL".
TIDE_API tide_status fail_null(const char* what);
/// TIDE_ERROR_INVALID_ARGUMENT: `what` is not a live handle.
TIDE_API tide_status fail_dead(const char* what);
/// TIDE_OK, or TIDE_ERROR_INVALID_ARGUMENT when `count` > 0 and an array is NULL.
tide_status check_batch(const float* xs, const float* ys, std::size_t count, const float* out_x, const float* out_y);

// Runs `fn` (returning tide_status) with every exception turned into a status.
template <class Fn>
tide_status guarded(Fn&& fn) noexcept {
    try {
        return fn();
    } catch (const std::bad_alloc&) {
        return fail(TIDE_ERROR_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(TIDE_ERROR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return fail(TIDE_ERROR_INTERNAL, "internal error");
    }
}

TIDE_API tide::AgentId agent_id(tide_agent a);         ///< The C++ handle of a C one.
tide_status stale(tide_agent a);                       ///< TIDE_ERROR_NOT_FOUND naming the agent.
tide::GroupId group_id(tide_group g);                  ///< The C++ id of a C one.
tide_group to_c(tide::GroupId g);                      ///< The C id of a C++ one.
tide_status stale(tide_group g);                       ///< TIDE_ERROR_NOT_FOUND naming the group.
tide::AgentParams to_cpp(const tide_agent_params& p);  ///< C agent parameters as C++ ones.
tide_agent_params to_c(const tide::AgentParams& p);    ///< C++ agent parameters as C ones.

// A host's parallel-for and background queue, each optional: without the first, ranges run on the
// caller; without the second, background tasks run at once inside the call that enqueues them.
class CHostJobs final : public tide::JobSystem {
public:
    CHostJobs(const tide_jobs* jobs, const tide_background* background) {
        if (jobs) jobs_ = *jobs;
        if (background) background_ = *background;
    }
    void parallel_for(std::size_t count, std::size_t grain, tide::RangeTask task, void* context) override {
        if (jobs_.parallel_for) {
            jobs_.parallel_for(jobs_.host, count, grain, task, context);
        } else if (count > 0) {
            task(context, 0, count);
        }
    }
    int max_concurrency() const override { return jobs_.parallel_for ? jobs_.max_concurrency : 1; }
    void enqueue(tide::Task task, void* context) override {
        if (background_.enqueue) {
            background_.enqueue(background_.host, task, context);
        } else {
            task(context);
        }
    }
    int background_concurrency() const override { return background_.enqueue ? background_.concurrency : 1; }

private:
    tide_jobs jobs_{};
    tide_background background_{};
};

/// TIDE_OK, or TIDE_ERROR_INVALID_ARGUMENT naming what is wrong with a host's job callbacks.
TIDE_API tide_status check_host_jobs(const tide_jobs* jobs, const tide_background* background);

// Runs `fn(*handle)` (returning tide_status) guarded, once `handle` is a live handle of `kind`
// (else TIDE_ERROR_INVALID_ARGUMENT naming `what`). Read-only calls pass const handles.
template <class H, class Fn>
tide_status with_live(H* handle, Kind kind, const char* what, Fn&& fn) noexcept {
    return guarded([&]() -> tide_status {
        if (!live(handle, kind)) return fail_dead(what);
        return fn(*const_cast<std::remove_const_t<H>*>(handle));
    });
}

}  // namespace tide::capi
