#pragma once
// The apps' default job system: oneTBB (Debian's libtbb-dev) behind tide::JobSystem.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "tide/jobs.hpp"

namespace tide::cli {

/// Runs ranges on a oneTBB arena of `threads` threads (0 = all cores).
class TbbJobSystem final : public JobSystem {
public:
    explicit TbbJobSystem(int threads = 0) : arena_(threads > 0 ? threads : tbb::task_arena::automatic) {}
    void parallel_for(std::size_t count, std::size_t grain, RangeTask task, void* context) override {
        arena_.execute([&] {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain > 0 ? grain : 1),
                              [&](const tbb::blocked_range<std::size_t>& r) { task(context, r.begin(), r.end()); });
        });
    }
    int max_concurrency() const override { return arena_.max_concurrency(); }

private:
    tbb::task_arena arena_;
};

}  // namespace tide::cli
