# Quick start (fresh Debian 12):  make run   |   make test
# Both install missing Debian packages (scripts/install-deps.sh), configure CMake in Release mode
# and build; the CLI ends up at build/bin/tide.

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps configure build run test clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DTIDE_BUILD_APPS=ON -DTIDE_BUILD_TESTS=ON -DTIDE_BUILD_BENCH=ON

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/bin/tide run --png $(BUILD)/tide_default.png

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

clean:
	rm -rf $(BUILD)
