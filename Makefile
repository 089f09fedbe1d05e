# Quick start (fresh Debian 12):  make run   |   make test
# Both install missing Debian packages (scripts/install-deps.sh), configure CMake in Release mode
# and build; the CLI ends up at build/bin/tide. `make run` starts the interactive demo
# (tide serve) on the embedded default map and prints the URL to open.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PORT ?= 8080

.PHONY: all deps test-deps e2e-deps configure build run field test wasm web sanitize tsan tsan-lib tsan-hier tsan-configure tsan-run asan fuzz fuzz-smoke mutants determinism unity-package clean

all: build

deps:
	@bash scripts/install-deps.sh

# The end-to-end tests' extra needs: Debian's chromium and Node.js, and playwright-core from npm
# (tests/e2e/package-lock.json pins it).
test-deps:
	@bash scripts/install-deps.sh --test

e2e-deps: test-deps
	@cd tests/e2e && { [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error; }

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTIDE_BUILD_APPS=ON -DTIDE_BUILD_TESTS=ON -DTIDE_BUILD_BENCH=ON

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/bin/tide serve --port $(PORT)

# The one-shot field job of earlier versions: summary and a PNG of the three layers.
field: build
	$(BUILD)/bin/tide run --png $(BUILD)/tide_default.png

test: e2e-deps build wasm tsan-lib fuzz-smoke
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The WebAssembly build (Debian's emscripten): the library, the World and the JavaScript package
# (bindings/js) in build-wasm/package, tested by `make test` (ctest js.wasm_package) against the
# native CLI. NODE_PATH: emscripten's tools load Debian's acorn even when another Node.js runs them.
WASM_BUILD ?= build-wasm
wasm:
	@bash scripts/install-deps.sh --wasm
	NODE_PATH=/usr/share/nodejs emcmake cmake -S . -B $(WASM_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	NODE_PATH=/usr/share/nodejs cmake --build $(WASM_BUILD) -j$(JOBS)

# The static demo: the page with the whole World in a Web Worker on the WebAssembly build, in
# build-wasm/web (part of `make wasm`); any static file server serves it, e.g.
# `python3 -m http.server -d build-wasm/web 8000`, then open http://localhost:8000/ (docs/web.md).
web: wasm
	@echo "static demo: $(WASM_BUILD)/web (serve it with any static file server: docs/web.md)"

# The threaded code under ThreadSanitizer. `make test` runs the library's threaded suites: the
# field service (its concurrency stress test hammers requests, edits, reads and publishes from
# several threads) and the world. `make tsan` (opt-in: it adds the server build under TSan, about
# 25 minutes once on 2 shared cores, docs/reliability.md) also runs tide serve's tests (network thread, simulation thread, oneTBB
# workers; tests/tsan.supp silences oneTBB's uninstrumented task pool), all but the 4100x4100
# upload test, which takes minutes under TSan and runs in the plain build.
TSAN_LIB_TESTS = tide_tests_service tide_tests_world
TSAN_TESTS = $(TSAN_LIB_TESTS) tide_tests_server
# Also left out: the crowds-that-meet scenario runs (minutes of simulated crowd each under TSan);
# CrowdsMeet.RunsAreTheSameForAnyThreadCount runs their threaded step under TSan.
TSAN_SKIP = Server.ALargeUploadedMapReachesEveryClientInBoundedFrames:CrowdsMeet.TwoGroups*:CrowdsMeet.CounterFlow*:CrowdsMeet.AGoalBeside*:CrowdsMeet.TheDoor*:CrowdsMeet.AnEvacuation*:CrowdsMeet.AGapSwapOrdered*
tsan-configure: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-fsanitize=thread \
	  -DTIDE_BUILD_APPS=ON -DTIDE_BUILD_BENCH=OFF -DTIDE_BUILD_TESTS=ON
tsan-lib: tsan-configure
	$(MAKE) --no-print-directory tsan-run TSAN_RUN="$(TSAN_LIB_TESTS)"
	$(MAKE) --no-print-directory tsan-hier
# Route fields built on a job system (threads waiting for the sectors they read): the hierarchy
# test that builds them on real threads (the whole hierarchy suite takes 70 s under TSan).
tsan-hier:
	cmake --build build-tsan -j$(JOBS) --target tide_tests_hier
	TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  build-tsan/bin/tide_tests_hier --gtest_brief=1 --gtest_filter=HierRoute.FieldsDoNotDependOnTheJobSystem
tsan: tsan-configure
	$(MAKE) --no-print-directory tsan-run TSAN_RUN="$(TSAN_TESTS)"
	$(MAKE) --no-print-directory tsan-hier
tsan-run:
	cmake --build build-tsan -j$(JOBS) --target $(TSAN_RUN)
	for t in $(TSAN_RUN); do TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  build-tsan/bin/$$t --gtest_brief=1 --gtest_filter=-$(TSAN_SKIP) || exit 1; done

# AddressSanitizer + UndefinedBehaviorSanitizer (with float-cast-overflow, which GCC's "undefined"
# leaves out) over every library test suite, the server tests and the CLI contract tests (ctest
# label cli) run against an instrumented tide binary (opt-in; docs/reliability.md has the time).
ASAN_TESTS = tide_tests_grid tide_tests_gen tide_tests_fields tide_tests_astar tide_tests_crowd tide_tests_io \
  tide_tests_service tide_tests_world tide_tests_hier tide_tests_server tide_tests_capi
asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
	  "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  -DTIDE_BUILD_APPS=ON -DTIDE_BUILD_BENCH=OFF -DTIDE_BUILD_TESTS=ON
	cmake --build build-asan -j$(JOBS) --target $(ASAN_TESTS) tide_cli
	for t in $(ASAN_TESTS); do build-asan/bin/$$t --gtest_brief=1 || exit 1; done
	ctest --test-dir build-asan -L cli --output-on-failure -j$(JOBS)

# libFuzzer targets for every parser (clang; scripts/fuzz.sh): each runs FUZZ_SECONDS (default 60)
# from its seed corpus in tests/fuzz/corpus/; any crash, leak, sanitizer report, timeout or
# allocation over the limit fails. `make fuzz-smoke` (part of `make test`) runs each for 5 s and
# skips, saying so, when clang is not installed.
FUZZ_SECONDS ?= 60
fuzz:
	JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh
fuzz-smoke:
	JOBS=$(JOBS) FUZZ_SECONDS=5 bash scripts/fuzz.sh --skip-without-clang

# Lockstep check (opt-in; docs/determinism.md): the library and tests/determinism/trail.cpp built
# with g++ -O0/-O2/-O3 and -march=native, clang++ -O2/-O3 and -march=native, and for aarch64 (run
# under qemu-aarch64); every hash trail must equal g++ -O2's. About 15 minutes on 2 cores from
# nothing (build-determinism/ keeps the objects). `make test` runs the clang -O2 part
# (ctest determinism.clang).
# The Unity package (bindings/unity) with the C# binding and this machine's libtide_c, in
# build/unity/com.tide.flowfield (docs/unity.md).
unity-package: build
	bash scripts/unity-package.sh $(BUILD)

determinism:
	@bash scripts/install-deps.sh --determinism
	JOBS=$(JOBS) bash scripts/determinism.sh --out build-determinism

sanitize: tsan asan

# Mutation check (opt-in, not part of `make test`; about 14 minutes on 2 cores from nothing, less
# with build-mutants/ kept): applies each deliberate bug in tests/mutants/*.patch to a scratch copy
# of the tree (build-mutants/), rebuilds what it touched and runs the tests named in its header;
# prints killed / SURVIVED / error per mutant (skipped: listed in tests/mutants/SKIP) and fails on
# any survivor or error. `make test` only checks that every patch still applies (ctest mutants.apply).
# `make mutants MUTANTS_ARGS=--record` also writes docs/mutants.md; MUTANTS_ARGS=03 runs one mutant;
# MUTANTS_ARGS="--rev HEAD" mutates the last commit instead of the working tree.
MUTANTS_ARGS ?=
mutants: deps
	JOBS=$(JOBS) bash scripts/mutants.sh $(MUTANTS_ARGS)

clean:
	rm -rf $(BUILD) build-tsan build-asan build-mutants build-fuzz build-determinism $(WASM_BUILD)
