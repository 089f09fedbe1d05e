#!/usr/bin/env bash
# Lockstep check (docs/determinism.md): builds the library's sources and tests/determinism/trail.cpp
# with several compilers, optimisation levels and CPUs, runs each build's scripted World runs and
# compares their hash trails line by line with the reference build (g++ -O2). Prints a table;
# exits 1 on any difference or failed build/run.
#
#   scripts/determinism.sh [--quick] [--reference TRAIL] [--out DIR]
#
# Every configuration compiles with -ffp-contract=off, as the project's build files do and as a
# host compiling Tide into its game must (docs/determinism.md). The `control` configuration
# contracts (g++ -O2 -march=native -ffp-contract=fast): it is expected to differ, which shows the
# check can fail; it is reported, not counted.
# --quick (what `make test` runs, ctest determinism.clang): only clang++ -O2 against the reference,
# on the short `orders` run; --reference gives the reference binary (the CMake-built
# tide_determinism_trail) instead of building g++ -O2 here.
# aarch64: needs g++-aarch64-linux-gnu and qemu-user (scripts/install-deps.sh --determinism); the
# build is linked statically and run under qemu-aarch64.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0
reference=""
out="$ROOT/build-determinism"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --reference) reference=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "determinism: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
JOBS=${JOBS:-$(nproc)}
mkdir -p "$out"

# name | compiler | flags | runner (empty: run directly)
configs=()
if [ -z "$reference" ]; then configs+=("gcc-O2|g++|-O2 -DNDEBUG|"); fi
if [ $quick -eq 1 ]; then
  configs+=("clang-O2|clang++|-O2 -DNDEBUG|")
else
  configs+=(
    "gcc-O0|g++|-O0|"
    "gcc-O3|g++|-O3 -DNDEBUG|"
    "gcc-O2-native|g++|-O2 -DNDEBUG -march=native|"
    "clang-O2|clang++|-O2 -DNDEBUG|"
    "clang-O3|clang++|-O3 -DNDEBUG|"
    "clang-O2-native|clang++|-O2 -DNDEBUG -march=native|"
    "aarch64-gcc-O2|aarch64-linux-gnu-g++|-O2 -DNDEBUG -static|qemu-aarch64"
    "control|g++|-O2 -DNDEBUG -march=native -ffp-contract=fast|"
  )
fi

# The library's sources (the C API is not needed by the driver).
mapfile -t sources < <(cd "$ROOT" && find src -name '*.cpp' ! -path 'src/capi/*' | sort)
args=()
[ $quick -eq 1 ] && args=(--quick)

build() {  # name compiler flags: objects into $out/name, then the trail binary
  local name=$1 cxx=$2 flags=$3 dir="$out/$1"
  # An object is kept while it is newer than its source; a header newer than the last build
  # (or a first build) starts from nothing.
  if [ ! -f "$dir/stamp" ] || [ -n "$(cd "$ROOT" && find include src -name '*.h*' -newer "$dir/stamp" | head -1)" ]; then
    rm -rf "$dir/obj"
  fi
  mkdir -p "$dir/obj"
  # -ffp-contract=off first: the control's own -ffp-contract=fast comes later and wins.
  printf '%s\n' "${sources[@]}" | xargs -P "$JOBS" -I{} sh -c \
    'o="$0/obj/$(echo "$1" | tr / _).o"; [ "$o" -nt "$2/$1" ] || exec $3 -std=c++20 -ffp-contract=off $4 -I"$2/include" -c "$2/$1" -o "$o"' \
    "$dir" {} "$ROOT" "$cxx" "$flags" || return 1
  $cxx -std=c++20 -ffp-contract=off $flags -I"$ROOT/include" "$ROOT/tests/determinism/trail.cpp" "$dir"/obj/*.o \
    -lpthread -o "$dir/trail" && touch "$dir/stamp"
}

ref_trail="$out/reference.txt"
if [ -n "$reference" ]; then
  "$reference" "${args[@]}" > "$ref_trail"
fi
status=0
printf '%-18s %-8s %s\n' "configuration" "result" "detail"
for c in "${configs[@]}"; do
  IFS='|' read -r name cxx flags runner <<< "$c"
  if ! command -v "$cxx" >/dev/null 2>&1 || { [ -n "$runner" ] && ! command -v "$runner" >/dev/null 2>&1; }; then
    printf '%-18s %-8s %s\n' "$name" "MISSING" "$cxx${runner:+ or $runner} not installed (scripts/install-deps.sh --determinism)"
    status=1
    continue
  fi
  if ! build "$name" "$cxx" "$flags" > "$out/$name.build.log" 2>&1; then
    printf '%-18s %-8s %s\n' "$name" "BUILD" "failed: $out/$name.build.log"
    status=1
    continue
  fi
  trail="$out/$name.txt"
  if ! ${runner:+$runner} "$out/$name/trail" "${args[@]}" > "$trail" 2> "$out/$name.run.log"; then
    printf '%-18s %-8s %s\n' "$name" "RUN" "failed: $out/$name.run.log"
    status=1
    continue
  fi
  if [ "$name" = "gcc-O2" ] && [ -z "$reference" ]; then
    cp "$trail" "$ref_trail"
    printf '%-18s %-8s %s\n' "$name" "ref" "$(wc -l < "$trail") lines, last: $(tail -1 "$trail")"
    continue
  fi
  first=$(diff <(cat "$ref_trail") "$trail" | grep -m1 '^>' | cut -c3- || true)
  if [ -z "$first" ] && [ "$(wc -l < "$trail")" -eq "$(wc -l < "$ref_trail")" ]; then
    if [ "$name" = "control" ]; then
      printf '%-18s %-8s %s\n' "$name" "same" "contraction changed nothing here (no FMA on this CPU?)"
    else
      printf '%-18s %-8s %s\n' "$name" "same" "$(wc -l < "$trail") lines identical"
    fi
  elif [ "$name" = "control" ]; then
    printf '%-18s %-8s %s\n' "$name" "differs" "as expected with fused multiply-adds; first: $first"
  else
    printf '%-18s %-8s %s\n' "$name" "DIFFERS" "first differing line: ${first:-(fewer lines)}"
    status=1
  fi
done
[ $status -eq 0 ] && echo "determinism: every configuration printed the reference's hash trail" || echo "determinism: FAILED"
exit $status
