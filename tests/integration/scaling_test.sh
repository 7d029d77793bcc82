#!/usr/bin/env bash
# `yardstick scaling` the way an operator runs it: the llama3.1_8b proxy and an all_reduce at 1, 2
# ranks through mpirun (each count a real job), the table and the JSON, and bad input.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
if ! command -v mpirun >/dev/null; then echo "SKIP: no mpirun"; exit 0; fi

# The figures depend on this machine; the test checks the shape and the arithmetic, and takes any
# verdict (0 linear, 1 below target).
"$bin" scaling --unit proxy.llama3.1_8b --ranks 1,2 --oversubscribe --iters 4 --json >"$tmp/p.json" 2>"$tmp/p.err"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && passes=$((passes + 1)) || { echo "FAIL: proxy scaling exit $rc"; cat "$tmp/p.err"; fails=$((fails + 1)); }
/usr/bin/python3 - "$tmp/p.json" <<'PY' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert d["unit"] == "proxy.llama3.1_8b" and d["base_ranks"] == 1, d
p = d["points"]
assert [x["ranks"] for x in p] == [1, 2], p
assert all(x["value"] > 0 for x in p), p
assert abs(p[1]["efficiency"] - p[1]["value"] / p[0]["value"]) < 1e-9, p
assert abs(p[1]["speedup"] - 2 * p[1]["efficiency"]) < 1e-9, p
assert d["linear"] == (p[1]["efficiency"] >= d["target"]), d
PY

"$bin" scaling --unit coll.all_reduce --ranks 1,2,3 --oversubscribe --size 64K --iters 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && passes=$((passes + 1)) || { echo "FAIL: collective scaling exit $rc"; cat "$tmp/err"; fails=$((fails + 1)); }
expect_in "$tmp/out" "# coll.all_reduce scaling over 2, 3 ranks: busbw GB/s" "one rank dropped for a collective"
expect_in "$tmp/out" "scaling: worst efficiency" "verdict line"

expect_rc 64 "not a proxy or collective" -- "$bin" scaling --unit mem.stream
expect_in "$tmp/err" "expected a proxy (proxy.*) or a collective (coll.*)" "says what is expected"
expect_rc 64 "bad --ranks" -- "$bin" scaling --unit proxy.llama3.1_8b --ranks 1,x
expect_rc 2 "a unit that does not exist" -- "$bin" scaling --unit proxy.nope --ranks 1,2 --oversubscribe
expect_in "$tmp/err" "1 ranks" "names the rank count that failed"
# The predicted weak-scaling curve of a recipe (no job is started): 8 to 2,048 GPUs, the counts
# the recipe's parallelism cannot hold skipped, the efficiency near 1 for Llama 3.1 70B.
expect_rc 0 "predicted curve" -- "$bin" scaling --model llama3.1_70b --chip h100 --dtype bf16 --json
python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: predicted curve"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
gpus = [p["gpus"] for p in j["predicted"]]
assert gpus == [32, 64, 128, 256, 512, 1024, 2048], gpus
assert all(0.9 < p["efficiency"] <= 1 for p in j["predicted"]), j["predicted"]
assert "distributed optimizer's shard shrinks" in j["gain"], j.get("gain")
assert j["expected_error"].startswith("expected |error| of the unanchored step time (calibrated_release): median"), j["expected_error"]
PY
expect_rc 0 "predicted curve, console" -- "$bin" scaling --model llama3.1_70b --chip h100 --dtype bf16
expect_in "$tmp/out" "predicted weak scaling" "the predicted table"
expect_in "$tmp/out" "# expected |error| of the unanchored step time (calibrated_release): median" "the answer's expected error"
expect_rc 64 "neither --unit nor --model" -- "$bin" scaling
expect_rc 64 "--model without --chip" -- "$bin" scaling --model llama3.1_70b --dtype bf16
expect_rc 2 "unknown model" -- "$bin" scaling --model nosuch --chip h100 --dtype bf16
finish
