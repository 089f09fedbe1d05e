#pragma once
// Timing and summary statistics of the benchmark harness, shared by `tide bench`, the other CLI
// commands that report times, and the Google Benchmark cases.

#include <chrono>
#include <vector>

namespace tide::bench {

/// Milliseconds since `start`.
inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Median of `values` (which it sorts); 0 when empty.
double median(std::vector<double>& values);

/// The p-quantile (0..1) of `values`, interpolated between the two nearest ranks; 0 when empty.
double percentile(std::vector<double> values, double p);

}  // namespace tide::bench
