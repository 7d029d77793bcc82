#!/usr/bin/env bash
# One verdict, said four ways (docs/verdict.md): on each fixture run the exit code, the console's
# summary line, the JSON document's verdict and the HTML banner agree (expect_verdict, lib.sh),
# for each of PASS, WARN, FAIL and INCONCLUSIVE; GPUs that NVML cannot reach are never a pass;
# a node without GPUs says it has none to judge.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts
nvml=$src/tests/fixtures/nvml

# PASS: eight GPUs with their recorded NVML state, nothing planted.
expect_verdict pass "healthy tree with its GPUs' state" -- \
  "$bin" preflight --root "$hosts/healthy-8gpu" --nvml-state "$nvml/healthy-h100x8.json"

# FAIL: the same eight GPUs on the PCI bus, NVML absent (no recorded state): not a pass.
expect_verdict fail "eight GPUs on the bus, no NVML" -- "$bin" preflight --root "$hosts/healthy-8gpu"
expect_in "$tmp/verdict.txt" "YS-GPU-075" "the finding"
expect_in "$tmp/verdict.txt" "gpu.* checks skipped: no recorded NVML state" "the other gpu.* checks on one line"
expect_in "$tmp/verdict.txt" "modprobe nvidia" "the fix"

# WARN: the recorded development VM (a slow clocksource); no GPU on its bus, none to judge.
expect_verdict warn "the development VM" -- "$bin" preflight --root "$hosts/this-machine"
expect_in "$tmp/verdict.txt" "no GPU on this node" "no GPU to judge"

# FAIL: the site expects 8 GPUs on a node that has none (the check is not skipped).
printf '[devices]\ngpus = 8\n' > "$tmp/site.toml"
expect_verdict fail "the site expects GPUs that are not there" -- \
  "$bin" preflight --root "$hosts/this-machine" --expect "$tmp/site.toml"
expect_in "$tmp/verdict.txt" "YS-GPU-076" "the site's GPUs are missing"

# INCONCLUSIVE: a check that could not read its input.
cp -r "$hosts/healthy-8gpu" "$tmp/broken"
printf 'garbage\n' > "$tmp/broken/proc/meminfo"
expect_verdict inconclusive "a malformed host file" -- \
  "$bin" preflight --root "$tmp/broken" --nvml-state "$nvml/healthy-h100x8.json"
expect_in "$tmp/verdict.txt" "could not evaluate: mem.settings" "the reason names the unit"

# run: its own report page beside the document says the same.
expect_verdict fail "run on the GPU tree without NVML" -- \
  "$bin" run --root "$hosts/healthy-8gpu" --out "$tmp/run"
expect_in "$tmp/run/report.html" 'data-verdict="fail"' "run's own report banner"
expect_in "$tmp/run/report.html" '<div class="big">run: FAIL</div>' "run's own report verdict"

# This machine, live: with no NVIDIA device on its PCI bus and no NVML, there is no GPU to judge
# and that is not a failure.
if ! grep -qs 0x10de /sys/bus/pci/devices/*/vendor; then
  expect_rc 0 "live node without GPUs" -- "$bin" preflight --filter gpu.nvml
  expect_in "$tmp/out" "no GPU to judge" "live: no GPU to judge"
fi

# The habits of the tools operators use: --quiet prints the verdict line alone, --failures-only
# leaves out what passed or was skipped, NO_COLOR turns colour off on a terminal, --version says
# the version.
expect_rc 1 "--quiet" -- "$bin" preflight --root "$hosts/healthy-8gpu" --quiet
[ "$(wc -l < "$tmp/out")" -eq 1 ] && passes=$((passes + 1)) || { echo "FAIL: --quiet printed more than the verdict:"; cat "$tmp/out"; fails=$((fails + 1)); }
expect_in "$tmp/out" ": FAIL: 1 unit failed: gpu.nvml" "--quiet: the verdict line"
expect_rc 1 "--failures-only" -- "$bin" preflight --root "$hosts/healthy-8gpu" --failures-only
expect_in "$tmp/out" "YS-GPU-075" "--failures-only keeps the failure"
expect_not_in "$tmp/out" "PASS " "--failures-only leaves out the passes"
expect_not_in "$tmp/out" "SKIP " "--failures-only leaves out the skips"
if command -v script >/dev/null; then
  script -qec "$bin preflight --root $hosts/healthy-8gpu --filter 'gpu.nvml'" /dev/null >"$tmp/tty.txt" 2>&1
  # Colour is an SGR sequence (ESC [ ... m); the progress line's erase (ESC [ K) is not colour.
  grep -qE $'\033\\[[0-9;]*m' "$tmp/tty.txt" && passes=$((passes + 1)) || { echo "FAIL: no colour on a terminal"; fails=$((fails + 1)); }
  NO_COLOR=1 script -qec "$bin preflight --root $hosts/healthy-8gpu --filter 'gpu.nvml'" /dev/null >"$tmp/tty.txt" 2>&1
  grep -qE $'\033\\[[0-9;]*m' "$tmp/tty.txt" && { echo "FAIL: colour despite NO_COLOR"; fails=$((fails + 1)); } || passes=$((passes + 1))
fi
expect_rc 0 "--version" -- "$bin" --version
expect_not_in "$tmp/out" "see \`yardstick version\`" "--version prints the version itself"
grep -qE '^yardstick [0-9]+\.[0-9]+' "$tmp/out" && passes=$((passes + 1)) || { echo "FAIL: --version: $(cat "$tmp/out")"; fails=$((fails + 1)); }
# "Did you mean" for a mistyped command, flag, check filter and suite.
expect_rc 64 "a mistyped command" -- "$bin" preflgiht
expect_in "$tmp/err" "did you mean 'preflight'?" "command suggestion"
expect_rc 64 "a mistyped flag" -- "$bin" preflight --josn
expect_in "$tmp/err" "did you mean '--json'?" "flag suggestion"
expect_rc 2 "a mistyped check filter" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.cstate
expect_in "$tmp/err" "did you mean 'cpu.cstates'?" "filter suggestion"
expect_rc 2 "a mistyped suite" -- "$bin" validate --suite h1000 --runs "$tmp"
expect_in "$tmp/err" "did you mean 'h100'?" "suite suggestion"
# Chips and models: a chip's name in any case is that chip; a near miss gets a suggestion.
expect_rc 0 "--chip H100 is h100" -- "$bin" predict --model llama3.1_8b --chip H100 --dtype bf16 --gpus 8
expect_rc 2 "a mistyped chip" -- "$bin" predict --model llama3.1_8b --chip h1000 --dtype bf16 --gpus 8
expect_in "$tmp/err" "did you mean 'h100'?" "chip suggestion"
expect_rc 2 "a mistyped model" -- "$bin" predict --model llama3-70b --chip h100 --dtype bf16 --gpus 64
expect_in "$tmp/err" "did you mean 'llama3.1_70b'?" "model suggestion"
expect_rc 2 "a mistyped model (scaling)" -- "$bin" scaling --model llama3-70b --chip h100 --dtype bf16
expect_in "$tmp/err" "did you mean 'llama3.1_70b'?" "model suggestion in scaling"
expect_rc 2 "a suite in capitals that does not exist" -- "$bin" validate --suite H1000 --runs "$tmp"
expect_in "$tmp/err" "did you mean 'h100'?" "suite suggestion in any case"
finish
