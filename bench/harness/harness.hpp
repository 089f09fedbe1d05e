#pragma once
// What every run of the benchmark harness shares: the error it throws, its check of library
// results, and how a host hands it job systems (the harness itself depends on no thread pool).

#include <functional>
#include <memory>
#include <stdexcept>

#include "tide/jobs.hpp"
#include "tide/result.hpp"

namespace tide::bench {

/// Thrown by the harness runs when a library call fails or a check does not hold; the message is
/// complete (the CLI prints it as its one error line).
struct BenchError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Throws BenchError with the error's message when `result` holds an error.
template <class T>
void require_ok(const Result<T>& result) {
    if (!result.ok()) throw BenchError(result.error().message);
}

/// Makes a job system with `threads` threads for parallel_for (the caller included) and
/// `background` threads for background builds; supplied by the host (the CLI: oneTBB).
using JobSystemFactory = std::function<std::unique_ptr<JobSystem>(int threads, int background)>;

}  // namespace tide::bench
