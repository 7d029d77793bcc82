#!/usr/bin/env bash
# `yardstick cost` the way an operator runs it: hand-computed figures from the example price
# model (console and JSON), a validation document's workload and score, a run document's proxy
# measurement, a comparison, and bad input (exit 2 naming the file, the key and the line; exit 64
# without a throughput).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
prices=$src/examples/prices.toml

# Blended 0.25×4 + 0.5×2 + 0.25×1 = 2.25 $/GPU-h; 2.25 ÷ (1000 × 3600) × 1e6 = 0.625 $/M tokens.
# 15T tokens on 1024 GPUs at 1000 tokens/s/GPU: 169.54 days, 244141 billed minutes,
# compute 244141/60 × 1024 × 2.25 = 9375014.40 $.
expect_rc 0 "cost direct" -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --gpus 1024 --tokens 15T --reference-tokens-per-s 1111.1111111
expect_in "$tmp/out" "0.6250 USD" "cost per million tokens"
expect_in "$tmp/out" "169.54 days (244141 billed minutes)" "days and billed minutes"
expect_in "$tmp/out" "9375014.40 USD" "compute cost"
expect_in "$tmp/out" "costs 11.1% more" "at 90% of reference a model costs 11.1% more"

expect_rc 0 "cost json" -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --gpus 1024 --tokens 15T --json
python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: cost JSON figures"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(j["prices"]["blended_per_gpu_hour"] - 2.25) < 1e-12, j
assert abs(j["cost_per_million_tokens"] - 0.625) < 1e-12, j
assert j["training"]["billed_minutes"] == 244141, j
assert abs(j["training"]["compute_cost"] - 9375014.4) < 0.01, j
assert j["gap"] is None and j["compare"] is None, j
PY

# A validation document: the workload's tokens/s/GPU, GPUs and score (the gap from the score).
val=$src/tests/fixtures/runs/report-3node/validation.json
expect_rc 0 "cost validation" -- "$bin" cost --prices "$prices" --validation "$val" --workload gpt_oss_120b_bf16 --json
python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: cost from validation"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
assert j["training"]["gpus"] == 512, j
assert abs(j["throughput"]["tokens_per_s_per_gpu"] - 7647.533829041399) < 1e-9, j
assert abs(j["gap"]["score"] - 1.011953939292099) < 1e-12, j
assert abs(j["gap"]["extra_fraction"] - (1 / 1.011953939292099 - 1)) < 1e-12, j
PY
expect_rc 2 "validation, several workloads" -- "$bin" cost --prices "$prices" --validation "$val"
expect_in "$tmp/err" "choose one with --workload" "several workloads named"

# A run document's proxy measurement.
expect_rc 0 "cost run" -- "$bin" cost --prices "$prices" --run "$src/tests/fixtures/runs/report-3node/run.json"
expect_in "$tmp/out" "proxy.llama3.1_8b" "the proxy measurement used"
# A 1/16-scale CPU proxy on 2 ranks priced at 512 GPUs is an estimate, and says why.
expect_rc 0 "cost run at 512 GPUs" -- "$bin" cost --prices "$prices" --run "$src/tests/fixtures/runs/report-3node/run.json" --gpus 512
expect_in "$tmp/out" "Cost (estimate):" "the heading marks the estimate"
expect_in "$tmp/out" "shapes scaled down 1/16" "the scale-down named"
expect_in "$tmp/out" "measured on CPUs" "the CPU backend named"
expect_in "$tmp/out" "2 ranks measured, 512 GPUs priced" "the extrapolation named"
# Its money to two significant figures, never to the cent.
if grep -E '^  total .*[0-9]\.[0-9]{2} ' "$tmp/out" >/dev/null || ! grep -E '^  total +~[0-9]+ ' "$tmp/out" >/dev/null; then
  echo "FAIL: an estimated total is not given to the cent"; grep total "$tmp/out"; fails=$((fails + 1))
else passes=$((passes + 1)); fi
expect_rc 0 "cost run, JSON" -- "$bin" cost --prices "$prices" --run "$src/tests/fixtures/runs/report-3node/run.json" --gpus 512 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["estimate"] is True and "2 ranks measured, 512 GPUs priced" in j["estimate_reasons"], j' "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: cost JSON estimate"; fails=$((fails + 1)); }
expect_rc 0 "cost of a given throughput" -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["estimate"] is False and j["estimate_reasons"] == [], j' "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: a given throughput is no estimate"; fails=$((fails + 1)); }

# Two profiles: the same prices at 1500 tokens/s/GPU are cheaper.
expect_rc 0 "cost compare" -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --compare "$prices" --compare-tokens-per-s 1500 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["compare"]["cheaper"]=="example-cloud (b)", j' "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: compare"; fails=$((fails + 1)); }

# Bad input.
printf '[gpu_hour]\non_demand = 4.0\nreserved = -2.0\nspot = 1.0\n[shares]\non_demand = 0.25\nreserved = 0.5\nspot = 0.25\n' >"$tmp/neg.toml"
expect_rc 2 "negative price" -- "$bin" cost --prices "$tmp/neg.toml" --tokens-per-s-per-gpu 1000
expect_in "$tmp/err" "neg.toml:3: [gpu_hour] reserved: -2 is out of range (expected a number from 0 to 1e+06)" "negative price named"
printf '[gpu_hour]\non_demand = 4.0\nreserved = 2.0\nspot = 1.0\nspto = 1\n[shares]\non_demand = 1\nreserved = 0\nspot = 0\n' >"$tmp/typo.toml"
expect_rc 2 "unknown key" -- "$bin" cost --prices "$tmp/typo.toml" --tokens-per-s-per-gpu 1000
expect_in "$tmp/err" "typo.toml:5: [gpu_hour] spto: unknown key" "unknown key named"
expect_rc 2 "missing prices" -- "$bin" cost --prices "$tmp/none.toml" --tokens-per-s-per-gpu 1000
expect_rc 2 "bad token budget" -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --tokens 15X
expect_rc 64 "no throughput" -- "$bin" cost --prices "$prices"
finish
