#pragma once
/// \file jobs.hpp
/// The job-system hook: Tide's parallel work (the crowd step) and its background work (field
/// builds of the FieldService) run through this small interface, so a host engine can hand in its
/// own scheduler (Jolt passes its JobSystem* the same way, Box2D takes enqueue callbacks).
/// Results never depend on how the work is split: every range writes only its own outputs.

#include <cstddef>

#include "tide/export.h"

namespace tide {

/// A range task: process items [begin, end). `context` is the caller's data.
using RangeTask = void (*)(void* context, std::size_t begin, std::size_t end);
/// A background task: run once. `context` is the caller's data.
using Task = void (*)(void* context);

/// Parallel-for over index ranges. Implementations must call `task` on disjoint ranges covering
/// [0, count) exactly once and return only when all calls finished. Thread-safe to call from one
/// thread at a time.
class TIDE_API JobSystem {
public:
    virtual ~JobSystem() = default;
    /// Runs `task(context, b, e)` over [0, count) in ranges of about `grain` items.
    virtual void parallel_for(std::size_t count, std::size_t grain, RangeTask task, void* context) = 0;
    /// Number of threads that may run ranges at once (1 for the serial system).
    virtual int max_concurrency() const = 0;
    /// Starts `task(context)` in the background and returns without waiting (fire and forget).
    /// May be called from any thread, including from inside a task. Every task given must run
    /// exactly once, eventually. The default runs it at once on the calling thread.
    virtual void enqueue(Task task, void* context) { task(context); }
    /// Number of background tasks that may run at once (the FieldService builds this many fields
    /// in parallel). The default: max_concurrency().
    virtual int background_concurrency() const { return max_concurrency(); }
};

/// The default: runs every range on the calling thread, in order, and every background task at once
/// on the thread that enqueues it.
class TIDE_API SerialJobSystem final : public JobSystem {
public:
    /// Calls `task` once over the whole range.
    void parallel_for(std::size_t count, std::size_t, RangeTask task, void* context) override {
        if (count > 0) task(context, 0, count);
    }
    /// Always 1.
    int max_concurrency() const override { return 1; }
};

/// Calls `fn(begin, end)` over [0, count) through `jobs` (a lambda-friendly wrapper; no allocation).
template <class Fn>
void parallel_for(JobSystem& jobs, std::size_t count, std::size_t grain, Fn& fn) {
    jobs.parallel_for(
        count, grain, [](void* ctx, std::size_t b, std::size_t e) { (*static_cast<Fn*>(ctx))(b, e); }, &fn);
}

}  // namespace tide
