#!/usr/bin/env bash
# The shared-library build: configures the libraries and the examples alone with
# -DBUILD_SHARED_LIBS=ON (Debug: compiles fastest), builds them, checks that the examples load
# libtide.so and that it exports the C API but not the library's internals, and runs them.
#   shared_build.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
mkdir -p "$work"
cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Debug -DBUILD_SHARED_LIBS=ON -DTIDE_BUILD_APPS=OFF \
  -DTIDE_BUILD_TESTS=OFF -DTIDE_BUILD_BENCH=OFF -DTIDE_BUILD_PYTHON=OFF -DTIDE_BUILD_EXAMPLES=ON \
  -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >"$work/configure.log"
cmake --build "$work" -j2 --target tide tide_world tide_example_cpp tide_example_c tide_example_world >"$work/build.log" ||
  { tail -n 40 "$work/build.log" >&2; exit 1; }
lib=$(find "$work" -maxdepth 1 -name 'libtide.so.*' -type f -print -quit)
[ -n "$lib" ] || { echo "shared: no libtide.so built" >&2; exit 1; }
exports=$(nm -D --defined-only -C "$lib")
grep -q " tide_crowd_step$" <<<"$exports" || { echo "shared: tide_crowd_step is not exported" >&2; exit 1; }
grep -q "tide::Crowd::step(" <<<"$exports" || { echo "shared: tide::Crowd::step is not exported" >&2; exit 1; }
# Internal helpers (tide::detail, inline in src/ headers) would be exported by default visibility.
if grep -Eq " [TWV] tide::detail::" <<<"$exports"; then
  echo "shared: internals are exported (visibility is not hidden):" >&2
  grep -E " [TWV] tide::detail::" <<<"$exports" | head >&2
  exit 1
fi
for exe in tide_example_cpp tide_example_c; do
  libs=$(ldd "$work/bin/$exe")
  grep -q "libtide.so" <<<"$libs" || { echo "shared: $exe does not load libtide.so" >&2; exit 1; }
  out=$("$work/bin/$exe" "$src/examples/arena.map")
  echo "$exe: $(tail -n 1 <<<"$out")"
  grep -q "^8 of 8 arrived" <<<"$out" || { echo "$out" >&2; exit 1; }
done
# The World's C API from libtide_world.so: the order loop ends with every unit arrived.
libs=$(ldd "$work/bin/tide_example_world")
grep -q "libtide_world.so" <<<"$libs" || { echo "shared: tide_example_world does not load libtide_world.so" >&2; exit 1; }
out=$("$work/bin/tide_example_world") || { echo "$out" >&2; exit 1; }
echo "tide_example_world: $(grep "state hash" <<<"$out")"
echo "shared: ok ($(basename "$lib"), $(grep -c . <<<"$exports") exported symbols)"
