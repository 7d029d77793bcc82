#!/usr/bin/env bash
# `yardstick burnin` the way an operator runs it (ctest: run alone — it loads every core for a
# while): a 40-second mixed burn-in against a recorded GPU timeline that plants a temperature
# swing on gpu2 (13-18 s) and a bit flip on cpu1 (27 s); stopped cleanly with SIGTERM, resumed,
# killed with SIGKILL, resumed again to the end. The faults must be found at their times, both
# stops recorded, the load time complete, the document schema-valid and the report drawn.
# burnin_faults_test.sh holds the rest (recorded GPU errors, the network profile, bad input).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
schema=$src/schemas/run.schema.json
# The timeline of tests/fixtures/nvml/burnin-timeline.json at about a third of its times (a
# 40-second run takes its warm-up and its temperature reference from its first 4 and next 4
# seconds, and judges in 5-second windows as a longer one does).
timeline=$tmp/burnin-timeline.json
cat >"$timeline" <<EOF
{"kind": "yardstick-nvml-timeline", "base": "$src/tests/fixtures/nvml/healthy-h100x8.json",
 "steps": [{"at_s": 13, "gpu": 2, "set": {"temperature_c": 39}},
           {"at_s": 18, "gpu": 2, "set": {"temperature_c": 33}}],
 "plant": [{"at_s": 27, "entity": "cpu1", "fault": "bit_flip"}]}
EOF
out=$tmp/burn
cmd=("$bin" burnin --duration 40s --profile mixed --cycle 1 --checkpoint-interval 5
     --nvml-state "$timeline" --out "$out" --gemm-n 256 --stream-bytes 4M)


# 1. Start, stop cleanly at about 8 s.
"${cmd[@]}" >"$tmp/a.out" 2>"$tmp/a.err" &
pid=$!
wait_load 8 "$out"
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: SIGTERM stop exit $rc, expected 2"; cat "$tmp/a.err"; fails=$((fails + 1)); }
expect_in "$tmp/a.out" "run the same command to resume" "a stopped burn-in says how to resume"
expect_in "$out/run.json" '"incomplete": true' "the stopped document is marked incomplete"
expect_in "$out/run.json" "stopped by signal 15" "and says why"

# 2. Resume, kill -9 at about 22 s (after the temperature swing and a checkpoint): no clean stop.
"${cmd[@]}" >"$tmp/b.out" 2>"$tmp/b.err" &
pid=$!
wait_load 22 "$out"
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
assert b["complete"] and b["elapsed_s"] >= 40, (b["complete"], b["elapsed_s"])
hows = [i["how"] for i in b["interruptions"]]
assert hows == ["signal 15", "killed"], hows
assert b["interruptions"][1]["redone_s"] >= 0, b["interruptions"]
assert b["planted"], "the planted faults are listed"
assert any("planted" in w for w in d["warnings"]), d["warnings"]
temp = [f for f in b["faults"] if f["kind"] == "temperature"]
assert len(temp) == 1 and temp[0]["entity"] == "gpu2", temp
assert 13 <= temp[0]["at_s"] <= 17, temp
assert temp[0]["cleared_at_s"] is not None and 18 <= temp[0]["cleared_at_s"] <= 25, temp
mis = [f for f in b["faults"] if f["kind"] == "miscompare"]
assert len(mis) == 1 and mis[0]["entity"] == "cpu1" and 26 <= mis[0]["at_s"] <= 28, mis
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
expect_in "$tmp/err" "duration_s was 40.0, now 180.0" "names the setting that differs"

[ -n "${YS_KEEP:-}" ] && cp -r "$out" "$YS_KEEP"
finish
