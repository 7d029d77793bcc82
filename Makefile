# yardstick: `make run` and `make test` are the two commands (README.md).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build run test clean fixtures

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset default -B $(BUILD_DIR) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job on this machine: the preflight for now (later: micro-benchmarks and proxies).
run: build
	@$(BUILD_DIR)/yardstick run

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Rewrites the synthetic host trees under tests/fixtures/hosts/ from tests/fixtures/gen/, and the
# training-log fixtures under tests/fixtures/logs/.
fixtures:
	@python3 tests/fixtures/make_hosts.py
	@python3 tests/fixtures/logs/make_logs.py

clean:
	@rm -rf $(BUILD_DIR)
