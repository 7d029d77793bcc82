#!/usr/bin/env bash
# `yardstick burnin` the way an operator runs it (ctest: run alone — it loads every core for two
# minutes): a two-minute mixed burn-in against a recorded GPU timeline that plants a temperature
# swing on gpu2 (40-55 s) and a bit flip on cpu1 (70 s); stopped cleanly with SIGTERM, resumed,
# killed with SIGKILL, resumed again to the end. The faults must be found at their times, both
# stops recorded, the load time complete, the document schema-valid and the report drawn. Then
# new ECC, XID and throttle faults from a recorded GPU timeline, a network burn-in over two MPI
# ranks and one whose rank hangs, and bad input.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
schema=$src/schemas/run.schema.json
timeline=$src/tests/fixtures/nvml/burnin-timeline.json
out=$tmp/burn
cmd=("$bin" burnin --duration 2m --profile mixed --cycle 1 --checkpoint-interval 5
     --nvml-state "$timeline" --out "$out" --gemm-n 256 --stream-bytes 4M)

# Waits until the burn-in's heartbeat (in $2, default $out) says at least $1 s of load are done
# (at most 150 s).
wait_load() {
  local want=$1 dir=${2:-$out} i
  for i in $(seq 1 300); do
    if [ -f "$dir/burnin.heartbeat" ] && awk -v w="$want" '{exit !($1 >= w)}' "$dir/burnin.heartbeat"; then return 0; fi
    sleep 0.5
  done
  echo "FAIL: the heartbeat never reached $want s"; fails=$((fails + 1)); return 1
}

# 1. Start, stop cleanly at about 25 s.
"${cmd[@]}" >"$tmp/a.out" 2>"$tmp/a.err" &
pid=$!
wait_load 25
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: SIGTERM stop exit $rc, expected 2"; cat "$tmp/a.err"; fails=$((fails + 1)); }
expect_in "$tmp/a.out" "run the same command to resume" "a stopped burn-in says how to resume"
expect_in "$out/run.json" '"incomplete": true' "the stopped document is marked incomplete"
expect_in "$out/run.json" "stopped by signal 15" "and says why"

# 2. Resume, kill -9 at about 62 s: no clean stop.
"${cmd[@]}" >"$tmp/b.out" 2>"$tmp/b.err" &
pid=$!
wait_load 62
kill -KILL "$pid"; wait "$pid" 2>/dev/null
expect_in "$out/run.json" "burn-in in progress" "a killed burn-in leaves its last checkpointed document"

# 3. Resume to the end: the planted faults make it exit 1.
expect_rc 1 "resumed burn-in runs to the end and reports its faults" -- "${cmd[@]}"
cp "$tmp/out" "$tmp/c.out"
expect_in "$tmp/c.out" "temperature" "console lists the temperature fault"
expect_in "$tmp/c.out" "miscompare" "console lists the miscompare"
expect_in "$tmp/c.out" "report: $out/report.html" "the report is written beside the document"
python3 -c "import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))" \
  "$out/run.json" "$schema" && passes=$((passes + 1)) || { echo "FAIL: run.json does not match the schema"; fails=$((fails + 1)); }
python3 - "$out/run.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: burn-in document"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
b = d["burnin"]
assert d["command"] == "burnin" and not d["incomplete"], d.get("incomplete_reason")
assert b["complete"] and b["elapsed_s"] >= 120, (b["complete"], b["elapsed_s"])
hows = [i["how"] for i in b["interruptions"]]
assert hows == ["signal 15", "killed"], hows
assert b["interruptions"][1]["redone_s"] >= 0, b["interruptions"]
assert b["planted"], "the planted faults are listed"
assert any("planted" in w for w in d["warnings"]), d["warnings"]
temp = [f for f in b["faults"] if f["kind"] == "temperature"]
assert len(temp) == 1 and temp[0]["entity"] == "gpu2", temp
assert 40 <= temp[0]["at_s"] <= 47, temp
assert temp[0]["cleared_at_s"] is not None and 55 <= temp[0]["cleared_at_s"] <= 62, temp
mis = [f for f in b["faults"] if f["kind"] == "miscompare"]
assert len(mis) == 1 and mis[0]["entity"] == "cpu1" and 69 <= mis[0]["at_s"] <= 71, mis
assert mis[0]["severity"] == "fail" and mis[0]["cleared_at_s"] is None, mis
kinds = {f["kind"] for f in b["faults"]}
assert kinds <= {"temperature", "miscompare", "perf_drift"}, kinds  # drift: this machine's noise
gpus = sorted(e["entity"] for e in b["entities"] if e["kind"] == "gpu")
assert gpus == ["gpu%d" % i for i in range(8)], gpus
cpu = [e for e in b["entities"] if e["kind"] == "cpu" and e["metric"]]
assert {e["metric"] for e in cpu} == {"sgemm", "triad"}, cpu
for e in cpu:
    assert e["iterations"] > 0 and e["perf_median"] > 0, e
assert [e["entity"] for e in cpu if e["miscompares"]] == ["cpu1"], cpu
assert sum(e["miscompares"] for e in cpu) == 1, cpu
assert b["mtbf_h"] is not None and b["mtbf_h"] > 0, b["mtbf_h"]
assert 0 < b["availability"] < 1, b["availability"]
assert d["checks"][0]["id"] == "burnin.mixed" and d["checks"][0]["outcome"] == "fail", d["checks"][0]
PY
expect_in "$out/report.html" 'id="burnin"' "the HTML report has the burn-in section"
expect_in "$out/report.html" 'id="burnin-planted"' "and says the faults were planted"

# A finished burn-in is not run again by accident.
expect_rc 2 "a finished burn-in in --out" -- "${cmd[@]}"
expect_in "$tmp/err" "already finished" "says so"
# Other settings do not resume someone else's checkpoint.
rm -f "$out/burnin.checkpoint.json.tmp"
python3 - "$out/burnin.checkpoint.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); d["finished"] = False; json.dump(d, open(p, "w"))
PY
expect_rc 2 "a checkpoint with another duration" -- "$bin" burnin --duration 3m --profile mixed --cycle 1 \
  --checkpoint-interval 5 --nvml-state "$timeline" --out "$out" --gemm-n 256 --stream-bytes 4M
expect_in "$tmp/err" "duration_s was 120.0, now 180.0" "names the setting that differs"

# 4. New errors from the recorded GPU state: an uncorrectable ECC error on gpu4 at 20 s, an XID 79
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

# 5. The network profile across two MPI ranks: the all_reduce checked every cycle.
if command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" burnin --duration 8s --profile network \
    --out "$tmp/net" --allreduce-bytes 1M >"$tmp/n.out" 2>"$tmp/n.err"
  rc=$?
  { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && passes=$((passes + 1)) || { echo "FAIL: network burn-in exit $rc"; cat "$tmp/n.err"; fails=$((fails + 1)); }
  python3 - "$tmp/net/run.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: network burn-in document"; fails=$((fails + 1)); }
import json, sys
b = json.load(open(sys.argv[1]))["burnin"]
net = [e for e in b["entities"] if e["entity"] == "net"]
assert len(net) == 1 and net[0]["iterations"] > 0 and net[0]["miscompares"] == 0, net
assert net[0]["perf_median"] > 0 and net[0]["unit"] == "GB/s", net
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

# 6. Bad input.
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
[ -n "${YS_KEEP:-}" ] && cp -r "$out" "$YS_KEEP"
finish
