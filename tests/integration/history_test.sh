#!/usr/bin/env bash
# The run history the way an operator uses it: bench runs record themselves (--db, the XDG
# default, --no-history), `history` lists them, `compare` judges two runs (ids or files) and
# refuses bad inputs with exit 2, and a planted regression (a run document edited to be 30% worse,
# recorded with `history --add`) is reported by --add, `history --regressions` and `compare`.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

db=$tmp/h.db
bench() { "$bin" bench --filter mem.stream --sizes 2M --iters 3 "$@"; }
for i in 1 2 3; do
  expect_rc 0 "bench run $i records itself" -- bench --db "$db" --out "$tmp/b$i.json"
done
expect_rc 0 "history lists the runs" -- "$bin" history --db "$db"
for i in 1 2 3; do expect_in "$tmp/out" "$tmp/b$i.json" "run $i listed with its document"; done
expect_in "$tmp/out" "bench" "command column"
expect_rc 0 "history --json" -- "$bin" history --db "$db" --json --limit 2
python3 - "$tmp/out" <<'PY' || { echo "FAIL: history --json shape"; fails=$((fails + 1)); }
import json, sys
runs = json.load(open(sys.argv[1]))
assert [r["id"] for r in runs] == [3, 2], runs
assert all(r["command"] == "bench" and r["measurements"] >= 4 for r in runs), runs
PY
expect_rc 0 "history --command filters" -- "$bin" history --db "$db" --command run
expect_not_in "$tmp/out" "$tmp/b1.json" "no run commands recorded"

expect_rc 0 "compare two recorded runs" -- "$bin" compare 1 2 --db "$db"
expect_in "$tmp/out" "Welch's t-test" "the rule is stated"
expect_in "$tmp/out" "mem.stream.triad" "per-measurement rows"
expect_in "$tmp/out" "JUDGEMENT" "judgement column"
expect_rc 0 "compare a recorded run with a file" -- "$bin" compare 1 "$tmp/b3.json" --db "$db" --json
python3 - "$tmp/out" <<'PY' || { echo "FAIL: compare --json shape"; fails=$((fails + 1)); }
import json, sys
c = json.load(open(sys.argv[1]))
assert c["measurements"], c
assert all(m["judgement"] in ("better", "worse", "within noise") for m in c["measurements"]), c
assert "regressions" in c
PY

expect_rc 2 "an unknown id" -- "$bin" compare 1 99 --db "$db"
expect_in "$tmp/err" "no run 99" "names the id"
echo '{"hello": 1}' >"$tmp/other.json"
expect_rc 2 "a file that is not a run document" -- "$bin" compare "$tmp/other.json" 1 --db "$db"
expect_in "$tmp/err" "other.json: not a run document" "names the file"
expect_rc 2 "history --add of a missing file" -- "$bin" history --db "$db" --add "$tmp/missing.json"
expect_in "$tmp/err" "missing.json" "names the file"
expect_rc 2 "no database" -- "$bin" history --db "$tmp/none.db"
expect_rc 2 "--regressions of an unknown run" -- "$bin" history --db "$db" --regressions 42
expect_in "$tmp/err" "no run 42" "names the run"

# The same document three times is a history with no spread; a copy 30% worse is a regression.
python3 - "$tmp/b1.json" "$tmp/worse.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc["benchmarks"]:
    for m in b.get("measurements", []):
        if m["name"].startswith("mem.stream"):
            m["value"] *= 0.7
            m["samples"] = [s * 0.7 for s in m.get("samples", [])]
            for k in ("min", "median", "max", "mean", "stdev"):
                if k in m.get("stats", {}): m["stats"][k] *= 0.7
json.dump(doc, open(sys.argv[2], "w"))
PY
pdb=$tmp/planted.db
for i in 1 2 3; do expect_rc 0 "add run $i" -- "$bin" history --db "$pdb" --add "$tmp/b1.json"; done
expect_not_in "$tmp/out" "regression:" "an unchanged run is no regression"
expect_rc 0 "add the planted regression" -- "$bin" history --db "$pdb" --add "$tmp/worse.json"
expect_in "$tmp/out" "recorded run 4" "recorded"
expect_in "$tmp/out" "regression: mem.stream.triad" "reported on recording"
expect_in "$tmp/out" "-30.0% vs median" "by how much"
expect_in "$tmp/out" "of 3 runs" "against how many runs"
expect_rc 1 "history --regressions exits 1" -- "$bin" history --db "$pdb" --regressions 4
expect_in "$tmp/out" "regression: mem.stream.triad" "listed again"
expect_in "$tmp/out" "MAD" "the rule is stated"
expect_rc 0 "history --regressions of a clean run" -- "$bin" history --db "$pdb" --regressions 3
expect_in "$tmp/out" "no regression" "clean"
expect_rc 0 "compare shows the regression" -- "$bin" compare 3 4 --db "$pdb"
expect_in "$tmp/out" "regression: mem.stream.triad" "in compare"
expect_in "$tmp/out" "worse" "judged worse"

# The default database is under $XDG_DATA_HOME; --no-history records nothing.
expect_rc 0 "bench with the default database" -- bench
[ -f "$XDG_DATA_HOME/yardstick/history.db" ] && passes=$((passes + 1)) || { echo "FAIL: no $XDG_DATA_HOME/yardstick/history.db"; fails=$((fails + 1)); }
expect_rc 0 "bench --no-history" -- bench --db "$tmp/skip.db" --no-history
[ ! -e "$tmp/skip.db" ] && passes=$((passes + 1)) || { echo "FAIL: --no-history wrote $tmp/skip.db"; fails=$((fails + 1)); }
# A replay of recorded state (a --root tree, --nvml-state) is not this machine's run: it stays out
# of the default history, and goes into a database given with --db marked as recorded.
rows() { "$bin" history --db "$1" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
before=$(rows "$XDG_DATA_HOME/yardstick/history.db")
fixture=$src/tests/fixtures/hosts/healthy-8gpu
"$bin" preflight --root "$fixture" >/dev/null 2>&1
"$bin" preflight --root "$fixture" --nvml-state "$src/tests/fixtures/nvml/healthy-h100x8.json" >/dev/null 2>&1
"$bin" run --no-bench --root "$fixture" --out "$tmp/replay-run" >/dev/null 2>&1
[ "$(rows "$XDG_DATA_HOME/yardstick/history.db")" = "$before" ] && passes=$((passes + 1)) ||
  { echo "FAIL: a replay of a recorded tree was written to the default history"; fails=$((fails + 1)); }
"$bin" preflight --nvml-state "$src/tests/fixtures/nvml/healthy-h100x8.json" --db "$tmp/replay.db" >/dev/null 2>&1
"$bin" preflight --root "$fixture" --db "$tmp/replay.db" >/dev/null 2>&1
expect_rc 0 "replays listed" -- "$bin" history --db "$tmp/replay.db"
expect_in "$tmp/out" "(recorded: root=$fixture)" "a --root replay is marked"
expect_in "$tmp/out" "(recorded: nvml-state=$src/tests/fixtures/nvml/healthy-h100x8.json)" "an --nvml-state replay is marked"
expect_rc 0 "replays as JSON" -- "$bin" history --db "$tmp/replay.db" --json
expect_in "$tmp/out" "\"recorded\": \"root=$fixture\"" "the mark in --json"
# A database that cannot be written is a warning, never a failed run.
expect_rc 0 "unwritable database" -- bench --db /proc/ys-no-such/history.db
expect_in "$tmp/err" "not recorded in the run history" "warned"
finish
