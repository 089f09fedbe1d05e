#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds the embedding examples against that
# copy only: with CMake's find_package(tide), and with `pkg-config --cflags --libs tide`; runs each
# on examples/arena.map and checks that every agent arrived.
#   install_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
map=$src/examples/arena.map

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
[ -f "$prefix/include/tide/tide.h" ] || { echo "install: tide/tide.h not installed" >&2; exit 1; }

check() {  # check NAME EXE: runs EXE on the map, expects every agent to arrive
  local out
  out=$("$2" "$map") || { echo "$1: exit $?" >&2; exit 1; }
  echo "$1: $(tail -n 1 <<<"$out")"
  grep -q "^8 of 8 arrived" <<<"$out" || { echo "$1: not every agent arrived:" >&2; echo "$out" >&2; exit 1; }
}

# 1. find_package(tide), nothing from the build tree (no package registry, no source include dir).
cmake -S "$src/examples" -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_COMPILE_WARNING_AS_ERROR=ON >"$work/cmake.log"
cmake --build "$work/cmake" -j2 >>"$work/cmake.log"
grep -q -- "-I$src/include\|isystem $src/include" "$work/cmake/CMakeFiles/tide_example_cpp.dir/flags.make" &&
  { echo "find_package: the examples compiled against the source tree" >&2; exit 1; }
check "find_package C++" "$work/cmake/tide_example_cpp"
check "find_package C" "$work/cmake/tide_example_c"

# 2. pkg-config (the library directory is lib or lib/<multiarch>, as GNUInstallDirs chose).
pc=$(find "$prefix" -name tide.pc -print -quit)
[ -n "$pc" ] || { echo "pkg-config: tide.pc not installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
echo "pkg-config: $(pkg-config --modversion tide): $(pkg-config --cflags --libs tide)"
c++ -std=c++20 -O2 -Wall -Wextra -Werror "$src/examples/embed.cpp" $(pkg-config --cflags --libs tide) -pthread \
  -o "$work/pc_cpp"
cc -std=c99 -O2 -Wall -Wextra -pedantic -Werror -c "$src/examples/embed.c" $(pkg-config --cflags tide) -o "$work/embed.o"
cc "$work/embed.o" $(pkg-config --libs tide) -o "$work/pc_c"
check "pkg-config C++" "$work/pc_cpp"
check "pkg-config C" "$work/pc_c"
echo "install: ok"
