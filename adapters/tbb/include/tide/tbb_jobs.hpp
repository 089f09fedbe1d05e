#pragma once
/// \file tbb_jobs.hpp
/// oneTBB behind tide::JobSystem: the job system of the CLI, the demo server and the benchmarks.
/// Optional adapter target `tide::tbb` (header-only), made only when oneTBB is found; the core
/// library `tide::tide` does not depend on it.

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "tide/jobs.hpp"

namespace tide {

/// Ranges run on a oneTBB arena of `threads` threads (0 = all cores), the calling thread included;
/// background tasks (field builds) on a second arena of `background` worker threads (0 = all
/// cores), so a long build never holds up a crowd step's parallel-for and the other way round.
/// oneTBB keeps cores - 1 workers by default, too few for both arenas; a global_control raises
/// the limit while the job system lives (background tasks then share the cores with the step).
class TbbJobSystem final : public JobSystem {
public:
    /// `threads` run ranges (0 = all cores), `background` run background tasks (0 = all cores).
    explicit TbbJobSystem(int threads = 0, int background = 0)
        : threads_(threads > 0 ? threads : hardware()),
          background_(background > 0 ? background : hardware()),
          workers_(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads_ + background_)),
          arena_(threads_),
          background_arena_(background_, 0) {}
    /// Runs the ranges on the range arena; returns when all finished.
    void parallel_for(std::size_t count, std::size_t grain, RangeTask task, void* context) override {
        arena_.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain > 0 ? grain : 1),
                              [&](const tbb::blocked_range<std::size_t>& r) { task(context, r.begin(), r.end()); });
        });
    }
    /// The range threads.
    int max_concurrency() const override { return threads_; }
    /// Starts `task` on the background arena (any thread may call it).
    void enqueue(Task task, void* context) override {
        background_arena_.enqueue([task, context] { task(context); });
    }
    /// The background threads.
    int background_concurrency() const override { return background_; }

private:
    static int hardware() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }
    int threads_;
    int background_;
    tbb::global_control workers_;
    tbb::task_arena arena_;
    tbb::task_arena background_arena_;
};

/// A TbbJobSystem of `threads` and `background` threads (0 = all cores), e.g. for the benchmark
/// harness's JobSystemFactory (bench/harness/harness.hpp).
inline std::unique_ptr<JobSystem> make_tbb_jobs(int threads, int background) {
    return std::make_unique<TbbJobSystem>(threads, background);
}

}  // namespace tide
