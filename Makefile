# Quick start (fresh Debian 12):  make run   |   make test
# Both install missing Debian packages (scripts/install-deps.sh), configure CMake in Release mode
# and build; the CLI ends up at build/bin/tide. `make run` starts the interactive demo
# (tide serve) on the embedded default map and prints the URL to open.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PORT ?= 8080

.PHONY: all deps test-deps e2e-deps configure build run field test clean

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

test: e2e-deps build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD)
