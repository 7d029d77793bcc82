#!/usr/bin/env bash
# Numbers from outside, range-checked where they are used, through the commands that read them:
# a token budget of 1e300 (negative billed minutes before), price and spec figures of nan / inf /
# 1e-320 (MFU of "-", 0.0% or inf% before), a model file with a huge dimension (std::bad_alloc
# before), out-of-range flags. Each exits 2 naming the file and key or the flag, the value and the
# range. Every command is bounded by `timeout`.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
prices=$src/examples/prices.toml
t() { timeout 120 "$@"; }

# cost: the token budget and the throughput flags.
expect_rc 2 "cost --tokens 1e300" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --tokens 1e300
expect_in "$tmp/err" "--tokens: 1e+300 is out of range (expected a number from 1 to 1e+18)" "token budget bound"
expect_not_in "$tmp/out" "billed minutes" "no figures printed"
expect_rc 2 "cost --tokens 2000000T" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --tokens 2000000T --json
expect_in "$tmp/err" "--tokens: 2e+18 is out of range" "suffixed budget past the bound"
expect_rc 2 "cost --tokens-per-s-per-gpu nan" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu nan
expect_in "$tmp/err" "--tokens-per-s-per-gpu: tokens/s/GPU: nan is out of range" "throughput flag named"
expect_rc 2 "cost --reference-tokens-per-s inf" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --reference-tokens-per-s inf
expect_in "$tmp/err" "--reference-tokens-per-s: inf is out of range" "reference flag named"
expect_rc 2 "cost --gpus 0" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --gpus 0
expect_in "$tmp/err" "--gpus: 0 is out of range (expected a whole number from 1 to 10000000)" "GPUs flag named"
# The largest budget at a crawl is refused rather than billed as a negative count.
expect_rc 2 "cost at 1e-6 tokens/s" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1e-6 --gpus 1 --tokens 1e18
expect_in "$tmp/err" "more than 2^53 billed minutes" "wall time past billing"
expect_rc 0 "cost at the bound" -- t "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --gpus 1024 --tokens 1e18 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["training"]; assert j["billed_minutes"] > 0 and j["total_cost"] > 0, j' "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: billed minutes positive at the bound"; fails=$((fails + 1)); }

# cost: a price file with a figure that is not finite.
sed 's/^on_demand = 4.*/on_demand = nan/' "$prices" >"$tmp/nan-prices.toml"
grep -q "on_demand = nan" "$tmp/nan-prices.toml" || { echo "FAIL: the price fixture was not edited"; fails=$((fails + 1)); }
expect_rc 2 "price nan" -- t "$bin" cost --prices "$tmp/nan-prices.toml" --tokens-per-s-per-gpu 1000
line=$(grep -n "^on_demand = nan" "$tmp/nan-prices.toml" | cut -d: -f1)
expect_in "$tmp/err" "$tmp/nan-prices.toml:$line: [gpu_hour] on_demand" "price file, line and key named"
expect_in "$tmp/err" "nan is out of range (expected a number from 0 to 1e+06)" "price value and range"

# validate: a spec peak of nan, inf or 1e-320 in the data directory's specs/.
mkdir -p "$tmp/data"
cp -r "$src/suites" "$src/baselines" "$src/specs" "$tmp/data/"
runs=$src/tests/fixtures/runs
for v in nan inf 1e-320; do
  sed -i "s/^bf16 = .*/bf16 = $v/" "$tmp/data/specs/h100.toml"
  expect_rc 2 "validate with spec bf16 = $v" -- t "$bin" validate --suite h100 --runs "$runs/h100-pass" \
    --reference "$runs/golden-reference.toml" --data "$tmp/data"
  line=$(grep -n "^bf16 = " "$tmp/data/specs/h100.toml" | cut -d: -f1)
  expect_in "$tmp/err" "$tmp/data/specs/h100.toml:$line: [peak_dense_tflops] bf16" "spec file, line and key named ($v)"
  expect_in "$tmp/err" "is out of range (expected a number from 0.001 to 1e+07)" "spec range stated ($v)"
  expect_not_in "$tmp/out" "inf%" "no inf% ($v)"
done

# ingest: --peak-tflops below any GPU.
log=$(find "$runs/h100-pass" -name 'log-*.out' | sort | head -1)
expect_rc 2 "ingest --peak-tflops 1e-320" -- t "$bin" ingest --peak-tflops 1e-320 "$log"
expect_in "$tmp/err" "--peak-tflops: 9.99989e-321 is out of range (expected a number from 0.001 to 1e+07)" "peak flag named"

# bench: a model file with a huge dimension is refused before the proxy allocates.
mkdir -p "$tmp/data/models"
sed 's/^hidden_size = 4096$/hidden_size = 4194304/' "$src/models/llama3.1_8b.toml" >"$tmp/data/models/llama3.1_8b.toml"
grep -q "hidden_size = 4194304" "$tmp/data/models/llama3.1_8b.toml" || { echo "FAIL: the model fixture was not edited"; fails=$((fails + 1)); }
expect_rc 2 "proxy of a huge model" -- t "$bin" bench --filter proxy.llama3.1_8b --data "$tmp/data" --no-history
expect_in "$tmp/out" "models/llama3.1_8b.toml: the proxy needs" "model file named with what it needs"
expect_in "$tmp/out" "more than the budget of" "budget stated"
expect_not_in "$tmp/out" "bad_alloc" "no allocation failure"
sed 's/^layers = 32$/layers = 0/' "$src/models/llama3.1_8b.toml" >"$tmp/data/models/llama3.1_8b.toml"
expect_rc 2 "proxy of a model with 0 layers" -- t "$bin" bench --filter proxy.llama3.1_8b --data "$tmp/data" --no-history
expect_in "$tmp/out" "llama3.1_8b.toml:15: [shape] layers: 0 is out of range (expected a whole number from 1 to 100000)" "layers named"

# Flags with a watchdog or a size: an infinite timeout, a sweep of 2^40 sizes.
expect_rc 2 "bench --timeout inf" -- t "$bin" bench --filter 'host.*' --timeout inf --no-history
expect_in "$tmp/err" "--timeout: inf is out of range (expected a number from 0 to 2.592e+06)" "timeout flag named"
expect_rc 2 "bench --timeout 1e300" -- t "$bin" bench --filter 'host.*' --timeout 1e300 --no-history
expect_in "$tmp/err" "--timeout: 1e+300 is out of range" "huge timeout named"
expect_rc 2 "bench --sizes 8:1T:+1" -- t "$bin" bench --filter 'coll.*' --sizes 8:1T:+1 --no-history
expect_in "$tmp/err" "sizes is out of range (expected at most 4096)" "sweep length bound"
expect_rc 2 "burnin --temp-threshold nan" -- t "$bin" burnin --duration 1m --temp-threshold nan --out "$tmp/burnin"
expect_in "$tmp/err" "--temp-threshold: nan is out of range (expected a number above 0 and at most 100)" "burn-in flag named"
expect_rc 2 "burnin --duration 1e300s" -- t "$bin" burnin --duration 1e300s --out "$tmp/burnin"
finish
