#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# in build-fuzz/ and runs each for SECONDS (default 60) from its seed corpus
# (tests/fuzz/corpus/<target>; new inputs go to build-fuzz/corpus/<target>, the repository's seeds
# stay as they are). Inputs up to 64 KiB; one allocation over 128 MiB, 1 GiB resident or 10 s on
# one input count as failures, like a crash, a leak or a sanitizer report. Exits 1 on the first
# failing target and prints where its reproducer is.
# Usage: scripts/fuzz.sh [--seconds N] [--skip-without-clang] [--build DIR] [TARGET...]
set -uo pipefail
seconds=${FUZZ_SECONDS:-60}
build=${BUILD_FUZZ:-build-fuzz}
jobs=${JOBS:-2}
skip_without_clang=0
targets=()
while [ $# -gt 0 ]; do
  case $1 in
  --seconds) seconds=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  --skip-without-clang) skip_without_clang=1; shift ;;
  *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_movingai_map fuzz_tide_map fuzz_scenarios fuzz_client_message fuzz_map_upload)
cd "$(dirname "$0")/.." || exit 1

if ! command -v clang++ >/dev/null 2>&1; then
  if [ $skip_without_clang -eq 1 ]; then
    echo "fuzz: SKIPPED: clang++ not found (apt-get install clang to run the fuzz targets)"
    exit 0
  fi
  echo "fuzz: clang++ not found: the fuzz targets need clang and its libFuzzer (apt-get install clang)" >&2
  exit 1
fi

mkdir -p "$build"
flags="-fsanitize=address,undefined,float-cast-overflow,fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS=$flags" \
  -DTIDE_BUILD_APPS=OFF -DTIDE_BUILD_TESTS=OFF -DTIDE_BUILD_BENCH=OFF -DTIDE_BUILD_FUZZ=ON >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; echo "fuzz: configure failed" >&2; exit 1; }
cmake --build "$build" -j"$jobs" --target fuzz_targets || { echo "fuzz: build failed" >&2; exit 1; }

start=$(date +%s)
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus" "$build/artifacts"
  log="$build/$t.log"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/bin/$t" "$corpus" "tests/fuzz/corpus/$t" -max_total_time="$seconds" -max_len=65536 \
    -rss_limit_mb=1024 -malloc_limit_mb=128 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t-" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz: FAILED: $t (exit $rc); reproducer: $(ls -t "$build/artifacts/$t-"* 2>/dev/null | head -1); log: $log" >&2
    exit 1
  fi
  echo "fuzz: ok: $t: ${runs:-?} inputs in ${seconds} s, corpus $(ls "$corpus" | wc -l) new + $(ls "tests/fuzz/corpus/$t" | wc -l) seeds"
done
echo "fuzz: all ${#targets[@]} targets clean ($(($(date +%s) - start)) s of fuzzing)"
