#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, when it can (root, or sudo without a
# password). Prints what is missing otherwise. Called by `make build` and `make run`; `make test`
# calls it with --test, which adds what the browser end-to-end tests need (Chromium, Node.js) and
# emscripten (make wasm, also --wasm alone).
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  patch                                      # the mutants' dry run in make test, and make mutants
  googletest libgtest-dev libbenchmark-dev   # tests and micro benchmarks
  libpng-dev                                 # PNG pictures (tide render)
  libcli11-dev nlohmann-json3-dev            # CLI parsing, JSON reports
  libboost-graph-dev                         # third-party Dijkstra reference in tide bench
  libboost-dev                               # Boost.Beast/Asio: HTTP and WebSocket of tide serve
  libtbb-dev                                 # default job system of the apps
  libgif-dev                                 # tide sim --gif animations
  librecast-dev                              # Recast/Detour: tide bench navmesh and its test (optional in CMake)
  python3-dev python3-pybind11 pybind11-dev python3-numpy  # the Python module (python/)
  python3-pytest                                           # its tests
)
if [ "${1:-}" = "--test" ] || [ "${1:-}" = "--determinism" ]; then
  packages+=(clang)                          # the fuzz targets, and the clang build of the determinism check
fi
if [ "${1:-}" = "--determinism" ]; then
  packages+=(g++-aarch64-linux-gnu qemu-user)  # make determinism: an aarch64 build run under qemu
fi
if [ "${1:-}" = "--wasm" ] || [ "${1:-}" = "--test" ]; then
  packages+=(emscripten)                     # make wasm: the WebAssembly build and the JavaScript package
fi
if [ "${1:-}" = "--test" ]; then
  packages+=(chromium curl jq)               # headless browser of the end-to-end tests; curl and jq for the CLI tests
  packages+=(mono-mcs mono-runtime)          # the C# binding (bindings/csharp) and its tests
  # Node.js and npm run Playwright; a machine may already have them from elsewhere (nodesource).
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo_cmd=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo_cmd=(sudo -n)
else
  echo "install-deps: not root and no password-less sudo; install them with:"
  echo "  sudo apt-get install ${missing[*]}"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
