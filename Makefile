# yardstick: `make run` and `make test` are the two commands (README.md).
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build program run test format clean fixtures sanitize-configure sanitize fuzz

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset default -B $(BUILD_DIR) >/dev/null

# Everything: the program, the tests, the fuzz replays.
build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The program alone: what `make run` needs.
program: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target yardstick

# The main job on this machine: preflight, the micro-benchmarks and a proxy (`yardstick run`).
run: program
	@$(BUILD_DIR)/yardstick run

test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 600

# Rewrites every C++ source under src/ and tests/ with clang-format 14 (.clang-format); the
# ctest test style.format fails when one differs.
format: deps
	@bash tests/style/format_check.sh $(CURDIR) --fix

# Rewrites the synthetic host trees under tests/fixtures/hosts/ from tests/fixtures/gen/, and the
# training-log fixtures under tests/fixtures/logs/.
fixtures:
	@python3 tests/fixtures/make_hosts.py
	@python3 tests/fixtures/logs/make_logs.py

# clang-14 with ASan + UBSan (CMakePresets.json "sanitize") in build-sanitize/, what CI runs after
# `make test` (.ci/run): the preset built whole (the program, the unit tests and every libFuzzer
# target, so a change clang 14 refuses fails here), then `ctest -L $(SANITIZE_LABEL)` under the
# sanitizers (unit: the unit suite and the corpus replays; fuzz: the replays alone). A sanitizer
# report of any process, a test's child included, fails it (tests/sanitizers/run.sh).
SANITIZE_DIR ?= build-sanitize
SANITIZE_LABEL ?= unit
export ASAN_OPTIONS ?= detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
# Leaks kept until exit by OpenMPI, hwloc and dlopened vendor libraries (the file says which);
# full stacks so that the suppressions can see the library frames.
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:fast_unwind_on_malloc=0

sanitize-configure: deps
	@test -f $(SANITIZE_DIR)/build.ninja || cmake --preset sanitize -B $(SANITIZE_DIR) >/dev/null

sanitize: sanitize-configure
	@cmake --build $(SANITIZE_DIR) -j $(JOBS)
	@bash tests/sanitizers/run.sh $(SANITIZE_DIR) $(JOBS) $(SANITIZE_LABEL)

# Each libFuzzer target for FUZZ_SECONDS from its committed corpus (scripts/fuzz.sh); FUZZ_TARGETS
# picks some ("training_log toml"). New inputs land in $(SANITIZE_DIR)/fuzz-new/, findings in
# $(SANITIZE_DIR)/fuzz-artifacts/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: sanitize-configure
	@cmake --build $(SANITIZE_DIR) -j $(JOBS) --target fuzz_targets
	@bash scripts/fuzz.sh $(SANITIZE_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	@rm -rf $(BUILD_DIR)
