#!/usr/bin/env bash
# `yardstick predict --serve` the way an operator runs it: a serving prediction on the console and
# as JSON (the breakdown adding up to TTFT and TPOT, the expected error stated), an alias of a
# model file (deepseek-r1), a disaggregated layout, and bad flags (exit 2 naming the flag).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

expect_rc 0 "serve console" -- "$bin" predict --serve --model llama3.1_70b --chip h100 --dtype fp8 --gpus 4 --tp 4 --isl 1024 --osl 1024 --max-throughput
expect_in "$tmp/out" "# serving prediction: llama3.1_70b fp8 on 4 × h100 (TP 4)" "the headline"
expect_in "$tmp/out" "TPOT (total)" "the decode total"
expect_in "$tmp/out" "expected error:" "the expected error"

expect_rc 0 "serve json" -- "$bin" predict --serve --model llama3.1_8b --chip h200 --dtype fp8 --gpus 1 --tp 1 --isl 1024 --osl 1024 --concurrency 64 --json
cp "$tmp/out" "$tmp/8b.json"
python3 - "$tmp/8b.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: serve JSON adds up"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(sum(t["seconds"] for t in j["breakdown"]["decode"]) - j["tpot_s"]) < 1e-9 * j["tpot_s"]
assert abs(sum(t["seconds"] for t in j["breakdown"]["prefill"]) - j["ttft_s"]) < 1e-9 * j["ttft_s"]
assert j["batch_per_instance"] == 64 and j["instances"] == 1, j
assert abs(j["tokens_per_s_per_user"] * j["tpot_s"] - 1) < 1e-9
assert abs(j["output_tokens_per_s"] - 64 / j["tpot_s"]) < 1e-6 * j["output_tokens_per_s"]
assert j["expected_error"]["situation"] in ("calibrated_chip", "uncalibrated", "no_serving_calibration")
if j["expected_error"]["situation"] == "no_serving_calibration":
    assert j["expected_error"]["p90"] is None
assert j["inputs"]["isl"] == 1024 and j["notes"], j["inputs"]
PY

expect_rc 0 "serve deepseek-r1 alias, EP" -- "$bin" predict --serve --model deepseek-r1 --chip h200 --dtype fp8 --gpus 8 --tp 8 --ep 8 --isl 1024 --osl 1024 --max-throughput --json
expect_in "$tmp/out" '"ep_alltoall"' "the EP term"
expect_in "$tmp/out" '"model": "deepseek-v3_671b"' "the alias's model file"

expect_rc 0 "serve disaggregated" -- "$bin" predict --serve --model llama3.1_70b --chip h100 --dtype fp8 --gpus 16 --tp 4 --prefill-gpus 8 --decode-gpus 8 --isl 8192 --osl 1024 --concurrency 128
expect_in "$tmp/out" "kv_transfer" "the KV transfer term"

expect_rc 2 "both loads" -- "$bin" predict --serve --model llama3.1_8b --chip h100 --dtype fp8 --gpus 1 --isl 128 --osl 128 --concurrency 4 --max-throughput
expect_in "$tmp/err" "--max-throughput" "names the flag"
expect_rc 2 "no isl" -- "$bin" predict --serve --model llama3.1_8b --chip h100 --dtype fp8 --gpus 1 --osl 128 --concurrency 4
expect_in "$tmp/err" "--isl" "names --isl"
expect_rc 2 "tp does not divide" -- "$bin" predict --serve --model llama3.1_8b --chip h100 --dtype fp8 --gpus 6 --tp 4 --isl 128 --osl 128 --concurrency 4
expect_in "$tmp/err" "--tp 4" "names --tp"
expect_rc 2 "weights do not fit" -- "$bin" predict --serve --model llama3.1_405b --chip h100 --dtype bf16 --gpus 1 --isl 128 --osl 128 --concurrency 1
expect_in "$tmp/err" "GB per GPU" "states the bytes"
finish
