#!/usr/bin/env bash
# `yardstick burnin` beside burnin_test.sh (whose one-minute run with its stops and resumes runs
# alone): new ECC, XID and throttle faults from a recorded GPU timeline, a network burn-in over
# two MPI ranks and one whose rank hangs, and bad input. What is judged here comes from recorded
# state and the ranks' exchanges, not from the cores' rates, so it runs beside other tests.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

# 1. New errors from the recorded GPU state: an uncorrectable ECC error on gpu4 at 20 s, an XID 79
# for gpu4 at 30 s, HW + thermal slowdown on gpu1 from 25 to 35 s.
expect_rc 1 "a burn-in that sees new GPU errors" -- "$bin" burnin --duration 40s --profile compute \
  --nvml-state "$src/tests/fixtures/nvml/burnin-errors-timeline.json" --out "$tmp/err-run" --gemm-n 128
python3 - "$tmp/err-run/run.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: GPU error faults"; fails=$((fails + 1)); }
import json, sys
b = json.load(open(sys.argv[1]))["burnin"]
got = {(f["kind"], f["entity"]): f for f in b["faults"] if f["kind"] != "perf_drift"}
assert set(got) == {("ecc", "gpu4"), ("xid", "gpu4"), ("throttle", "gpu1")}, sorted(got)
assert 20 <= got[("ecc", "gpu4")]["at_s"] <= 22 and got[("ecc", "gpu4")]["severity"] == "fail", got
assert 30 <= got[("xid", "gpu4")]["at_s"] <= 32, got
assert any("Xid" in v for v in got[("xid", "gpu4")]["evidence"].values()), got
t = got[("throttle", "gpu1")]
assert 25 <= t["at_s"] <= 27 and t["cleared_at_s"] is not None and 35 <= t["cleared_at_s"] <= 37, t
g4 = [e for e in b["entities"] if e["entity"] == "gpu4"][0]
assert 0.4 < g4["availability"] < 0.55, g4["availability"]  # unavailable from the ECC error on
PY

# 2. The network profile across two MPI ranks: the all_reduce checked every cycle.
if command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" burnin --duration 8s --profile network \
    --out "$tmp/net" --allreduce-bytes 1M >"$tmp/n.out" 2>"$tmp/n.err"
  rc=$?
  # 8 s are too short for a drift baseline: with no fault the burn-in is INCONCLUSIVE (exit 2) and
  # says so; a fault (a loaded VM's all_reduce) fails it (exit 1). What this case holds is the
  # all_reduce checked every cycle.
  { [ "$rc" -eq 2 ] || [ "$rc" -eq 1 ]; } && passes=$((passes + 1)) || { echo "FAIL: network burn-in exit $rc"; cat "$tmp/n.err"; fails=$((fails + 1)); }
  python3 - "$tmp/net/run.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: network burn-in document"; fails=$((fails + 1)); }
import json, sys
b = json.load(open(sys.argv[1]))["burnin"]
net = [e for e in b["entities"] if e["entity"] == "net"]
assert len(net) == 1 and net[0]["iterations"] > 0 and net[0]["miscompares"] == 0, net
assert net[0]["perf_median"] > 0 and net[0]["unit"] == "GB/s", net
assert net[0]["drift_judged"] is False, net  # its baseline was too short, and it says so
assert not [f for f in b["faults"] if f["kind"] == "miscompare"], b["faults"]
PY
  # A rank that hangs (SIGSTOP) inside the all_reduce: --timeout ends the job with the checkpoint kept.
  mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" burnin --duration 60s --profile network \
    --out "$tmp/hang" --allreduce-bytes 1M --checkpoint-interval 1 --timeout 5 >"$tmp/h.out" 2>"$tmp/h.err" &
  mpid=$!
  wait_load 3 "$tmp/hang"
  for p in $(pgrep -f "burnin --duration 60s --profile network"); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then kill -STOP "$p"; stopped=$p; fi
  done
  t0=$SECONDS
  wait "$mpid"; rc=$?
  [ -n "${stopped:-}" ] && kill -KILL "$stopped" 2>/dev/null
  { [ "$rc" -ne 0 ] && [ $((SECONDS - t0)) -le 40 ]; } && passes=$((passes + 1)) ||
    { echo "FAIL: hung rank: exit $rc after $((SECONDS - t0)) s"; fails=$((fails + 1)); }
  expect_in "$tmp/h.err" "made no progress for" "the timeout names the step that hung"
  expect_in "$tmp/h.err" "run the same command to resume" "and how to go on"
  [ -f "$tmp/hang/burnin.checkpoint.json" ] && passes=$((passes + 1)) || { echo "FAIL: no checkpoint kept"; fails=$((fails + 1)); }
fi

# 3. Bad input.
expect_rc 2 "a duration that is not one" -- "$bin" burnin --duration 5x --out "$tmp/bad"
expect_in "$tmp/err" '--duration "5x": expected a time' "names the flag and what is expected"
expect_rc 2 "an unknown profile" -- "$bin" burnin --duration 1m --profile heavy --out "$tmp/bad"
expect_in "$tmp/err" "--profile" "names the flag"
expect_rc 2 "network on one process" -- "$bin" burnin --duration 1m --profile network --out "$tmp/bad"
expect_in "$tmp/err" "nothing to exchange; run under mpirun/srun" "says it needs ranks or GPUs"
expect_rc 2 "a missing recorded state" -- "$bin" burnin --duration 1m --nvml-state "$tmp/nope.json" --out "$tmp/bad"
echo '{"kind": "yardstick-nvml-timeline", "base": "healthy-h100x8.json", "steps": [{"at_s": "soon"}]}' >"$tmp/bad-timeline.json"
cp "$src/tests/fixtures/nvml/healthy-h100x8.json" "$tmp/"
expect_rc 2 "a malformed timeline" -- "$bin" burnin --duration 1m --nvml-state "$tmp/bad-timeline.json" --out "$tmp/bad"
expect_in "$tmp/err" "bad-timeline.json" "names the file"
mkdir -p "$tmp/bad"; echo "garbage" >"$tmp/bad/burnin.checkpoint.json"
expect_rc 2 "a corrupt checkpoint" -- "$bin" burnin --duration 1m --out "$tmp/bad"
expect_in "$tmp/err" "burnin.checkpoint.json: not JSON" "names the checkpoint"
expect_rc 64 "no --duration" -- "$bin" burnin --out "$tmp/bad"
finish
