#!/usr/bin/env bash
# bench/gpu_runbook.sh cannot run its GPU steps here; what is checked is that it parses (by bash -n,
# and by ShellCheck where installed), that it always writes its file of figures with one line per step,
# whatever fails, and that its budget holds: with no budget left every step is skipped and said
# so. The CUDA driver is forced absent, so this holds on a GPU node too.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

expect_rc 0 "bash -n" -- bash -n "$src/bench/gpu_runbook.sh"
if command -v shellcheck >/dev/null; then
  expect_rc 0 "shellcheck" -- shellcheck "$src/bench/gpu_runbook.sh"
fi
expect_rc 0 "the comparison script parses" -- python3 -c \
  'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$src/bench/gpu_runbook_compare.py"

export YARDSTICK_LIBCUDA=/nonexistent/libcuda.so.1 YARDSTICK_BIN=$bin

# No budget: every step is skipped, and the file of figures says so for each.
OUT=$tmp/none BUDGET_S=1 expect_rc 0 "runbook with no budget" -- bash "$src/bench/gpu_runbook.sh"
for s in capture-live preflight-live gemm.gpu mem.gpu copy launch_latency proxy burnin; do
  expect_in "$tmp/none/figures.txt" "step $s: SKIPPED (budget of 1s spent)" "no budget: $s"
done

# A short run: the steps fail or skip (no GPU), each is noted with its exit, the script ends 0.
OUT=$tmp/short BUDGET_S=120 BURN_S=2 ONLY=units expect_rc 0 "runbook, units only" -- \
  bash "$src/bench/gpu_runbook.sh"
for s in gemm.gpu mem.gpu copy launch_latency; do
  expect_in "$tmp/short/figures.txt" "step $s: " "units: $s noted"
done
expect_in "$tmp/short/figures.txt" "gemm.gpu: skip: CUDA driver not found" "the skip reason reaches the figures"
expect_not_in "$tmp/short/figures.txt" "step burnin" "ONLY=units runs nothing else"

# A comparison of two NVML state documents that differ in one counter and one identity.
python3 - "$src/tests/fixtures/nvml/healthy-h100x8.json" "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
json.dump(doc, open(sys.argv[2], "w"))
doc["devices"][0]["temperature_c"] = {"value": 77}
doc["devices"][0]["serial"] = "other"
doc["devices"][2]["ecc_enabled"] = {"error": "not reported"}
json.dump(doc, open(sys.argv[3], "w"))
PY
expect_rc 0 "compare nvml" -- python3 "$src/bench/gpu_runbook_compare.py" nvml "$tmp/a.json" "$tmp/b.json"
expect_in "$tmp/out" "temperature_c: live 31 | nvidia-smi 77  [moving]" "a moving counter"
expect_in "$tmp/out" 'serial: live "1652823012041" | nvidia-smi "other"  [DIFFERENT]' "a difference"
expect_in "$tmp/out" "ecc_enabled: live true | nvidia-smi (not reported)  [not reported by nvidia-smi]" "a gap"
expect_in "$tmp/out" "DIFFERENT 1, not reported by nvidia-smi 1" "the tally"
finish
