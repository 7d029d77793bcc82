#!/usr/bin/env bash
# Burn-in drift the way it reaches an operator (ctest: run alone — it judges what else runs on the
# cores): a CPU burn-in whose cpu0 loses 10% of its rate from 15 s on (a sustained drop planted
# by a recorded timeline) ends WARN with a perf_drift fault naming cpu0; one that shares cpu0 with
# a busy process from 15 s on says the drop was "disturbed by other processes" and does not call
# it drift; a 15 s burn-in says its baseline is too short to judge drift and is INCONCLUSIVE.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
base=$src/tests/fixtures/nvml/healthy-h100x8.json
run=("$bin" burnin --duration 40s --profile compute --backend cpu --cycle 0.5 --gemm-n 128)

# 1. A planted 10% sustained drop on cpu0. Where other processes took enough of cpu0 to explain
# the drop (a busy machine), the burn-in rightly does not call it drift; the test then says so
# and which processes they were, and checks only that the disturbance is named.
cat >"$tmp/slow.json" <<EOF
{"kind": "yardstick-nvml-timeline", "base": "$base",
 "plant": [{"at_s": 15, "entity": "cpu0", "fault": "slowdown", "drop_pct": 10}]}
EOF
# The planted 10% falls on top of the machine's own drift: on a shared 2-core VM cpu0's real rate
# has been seen to rise by 5% after 15 s, so that the run saw a 5-7% drop, inside the 4 standard
# errors its baseline allowed, and rightly called nothing; it has also been seen to fall 10% at
# 10 s, before the plant, which the run rightly called from there. When the un-planted rate of the
# windows after 15 s (their figures / 0.9) moved more than 3% from the baseline, or a drift was
# found before 15 s, or the baseline's own windows spread more than 3%, the run could not show the
# planted drop as planted; it is run once more, and a quiet run must find it.
check_planted() {  # check_planted DIR RC: 0 found (or explained by foreign load), 1 not, 3 noisy
  python3 - "$1/run.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["burnin"]
cpu0 = [e for e in b["entities"] if e["entity"] == "cpu0"][0]
assert any("slowdown of cpu0" in p for p in b["planted"]), b["planted"]
drift = [f for f in b["faults"] if f["kind"] == "perf_drift" and f["entity"] == "cpu0"]
if drift and drift[0]["at_s"] < 15:
    print(f"NOISY: cpu0's own rate dropped before the plant (from {drift[0]['at_s']} s): "
          + drift[0]["message"])
    sys.exit(3)
if not drift and "not judged as drift" in cpu0["note"]:
    print("NOT JUDGED: the planted drop coincided with other processes on cpu0:", cpu0["note"])
    sys.exit(0)
if not drift:
    # A baseline whose own windows spread widely (seen: 103, 110, 110 GFLOPS, the first window
    # slow) allows a wide band, inside which the planted 10% can rightly stay.
    before = [w["perf"] for w in cpu0["windows"] if w["start_s"] < 15]
    spread = (max(before) - min(before)) / sorted(before)[len(before) // 2]
    if spread > 0.03:
        print(f"NOISY: cpu0's baseline windows spread {100 * spread:.1f}% before the plant")
        sys.exit(3)
    after = [w["perf"] / 0.9 for w in cpu0["windows"] if w["start_s"] >= 15]
    moved = sorted(after)[len(after) // 2] / cpu0["perf_baseline"] - 1
    if abs(moved) > 0.03:
        print(f"NOISY: cpu0's own rate moved {100 * moved:+.1f}% after 15 s; the planted drop "
              "showed as less than planted")
        sys.exit(3)
assert drift, (cpu0, b["faults"])
f = drift[0]
assert f["severity"] == "warn", f
assert 15 <= f["at_s"] <= 25, f
assert float(f["evidence"]["largest_drop_pct"]) >= 5, f["evidence"]  # beyond the 5% floor
assert d["checks"][0]["outcome"] == "warn", d["checks"][0]
assert sys.argv[2] == "1", "exit " + sys.argv[2]
PY
}
for attempt in 1 2; do
  rm -rf "$tmp/slow"
  "${run[@]}" --nvml-state "$tmp/slow.json" --out "$tmp/slow" >"$tmp/slow.out" 2>"$tmp/slow.err"
  rc=$?
  check_planted "$tmp/slow" "$rc"
  verdict=$?
  ((verdict == 3 && attempt < 2)) || break
done
# Two noisy runs in a row (a shared VM whose neighbours took cpu0, seen in CI with baseline
# windows spreading 7-47%) cannot show a planted 10% drop either way: the end-to-end case is then
# skipped with that reason; the drift judge itself is held to recorded windows in
# tests/unit/burnin/analyser_drift_test.cc, which noise cannot reach.
if ((verdict == 3)); then
  echo "SKIP: planted drop: this machine's own cpu0 rate was too unsteady in two runs to show a 10% drop"
elif ((verdict == 0)); then passes=$((passes + 1)); else
  echo "FAIL: planted drop (exit $rc)"; failed+="planted drop (exit $rc); "; cat "$tmp/slow.err"
  fails=$((fails + 1))
fi
expect_in "$tmp/slow.out" "cpu0" "the console names cpu0"

# 2. A busy process on cpu0 from 15 s to the end: a disturbance, not unstable hardware.
if command -v taskset >/dev/null; then
  ( sleep 15; exec timeout 30 taskset -c 0 sh -c 'while :; do :; done' ) &
  hog=$!
  "${run[@]}" --out "$tmp/busy" >"$tmp/busy.out" 2>"$tmp/busy.err"
  rc=$?
  kill "$hog" 2>/dev/null; pkill -f "while :; do :; done" 2>/dev/null; wait "$hog" 2>/dev/null
  python3 - "$tmp/busy/run.json" "$rc" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: disturbed burn-in (exit $rc)"; failed+="disturbed burn-in (python); "; cat "$tmp/busy.err"; fails=$((fails + 1)); }
import json, sys
b = json.load(open(sys.argv[1]))["burnin"]
cpu0 = [e for e in b["entities"] if e["entity"] == "cpu0"][0]
assert "disturbed by other processes" in cpu0["note"], cpu0
assert not any(f["kind"] == "perf_drift" and f["entity"] == "cpu0" for f in b["faults"]), b["faults"]
# A non-zero exit must come from another entity (the VM's other core can drift on its own).
assert sys.argv[2] == "0" or any(f["entity"] != "cpu0" for f in b["faults"]), (sys.argv[2], b["faults"])
PY
  expect_in "$tmp/busy.out" "disturbed by other processes" "the console names the disturbance"
else
  echo "SKIP: taskset not found (util-linux): the disturbed burn-in is not tried"
fi

# 3. A 15 s burn-in: too short to judge drift, so too little evidence to pass: INCONCLUSIVE (exit
# 2), the same on the run's verdict and the burn-in verdict line, and it says why.
"$bin" burnin --duration 15s --profile compute --backend cpu --out "$tmp/short" >"$tmp/short.out" 2>&1
rc=$?
if ((rc == 2)); then passes=$((passes + 1)); else
  echo "FAIL: a 15 s burn-in is inconclusive: exit $rc"; failed+="short burn-in exit $rc; "
  fails=$((fails + 1)); tail -20 "$tmp/short.out"
fi
expect_in "$tmp/short/run.json" "baseline too short to judge drift" "and says its baseline is too short"
expect_in "$tmp/short.out" "INCONCLUSIVE: 1 unit could not evaluate: burnin.compute" "the run's verdict"
expect_in "$tmp/short.out" "burn-in verdict: INCONCLUSIVE: no fault" "the burn-in verdict line agrees"
expect_in "$tmp/short.out" "drift not judged on cpu0" "and names what it could not judge"
finish
