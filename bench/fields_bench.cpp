// Google Benchmark entry point for the field cases in baselines_bench.cpp (the same rows as
// `tide bench fields`). Run: build/bin/tide_bench_fields

#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
