#!/usr/bin/env bash
# The GPU benchmark units as an operator runs them, with the CUDA driver forced absent
# (YARDSTICK_LIBCUDA names a file that does not exist), so this holds on a GPU node too: every GPU
# unit skips with the driver-not-found reason, --backend cpu skips them with that reason, and
# nothing is measured or invented.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

units='gemm.gpu,mem.gpu,copy.*,host.launch_latency'
export YARDSTICK_LIBCUDA=/nonexistent/libcuda.so.1

# Every unit skipped: nothing measured, INCONCLUSIVE (exit 2).
expect_rc 2 "GPU units without a driver" -- "$bin" bench --filter "$units" --data "$src" --json
cp "$tmp/out" "$tmp/nodriver.json"
python3 - "$tmp/nodriver.json" >"$tmp/check" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def units(d):
    if isinstance(d, dict):
        if "id" in d and "outcome" in d:
            yield d
        for v in d.values():
            yield from units(v)
    elif isinstance(d, list):
        for v in d:
            yield from units(v)
seen = {}
for u in units(doc):
    seen[u["id"]] = u
for uid in ["gemm.gpu", "mem.gpu", "copy.h2d", "copy.d2h", "copy.d2d", "host.launch_latency"]:
    u = seen.get(uid)
    if u is None:
        print("missing", uid); continue
    if u["outcome"] != "skip": print(uid, "outcome", u["outcome"])
    if not u.get("summary", "").startswith("CUDA driver not found: /nonexistent/libcuda.so.1"):
        print(uid, "summary", repr(u.get("summary")))
    if u.get("measurements"): print(uid, "has measurements")
print("checked", len(seen))
PY
expect_in "$tmp/check" "checked" "the JSON document lists the GPU units"
expect_not_in "$tmp/check" "outcome" "every GPU unit skips"
expect_not_in "$tmp/check" "summary" "every GPU unit gives the driver-not-found reason"
expect_not_in "$tmp/check" "missing" "every GPU unit is in the document"
expect_not_in "$tmp/check" "has measurements" "no figure without a driver"

expect_rc 2 "console output" -- "$bin" bench --filter "$units" --data "$src"
expect_in "$tmp/out" "CUDA driver not found" "the console shows the reason"

expect_rc 2 "--backend cpu" -- "$bin" bench --filter "$units" --backend cpu --data "$src" --json
expect_in "$tmp/out" '"--backend cpu"' "--backend cpu is the skip reason"
finish
