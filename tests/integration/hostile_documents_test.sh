#!/usr/bin/env bash
# Documents nobody here wrote, through the binary: nesting 100,000 deep, /dev/zero, a FIFO, a
# number out of double range, wrong field types, non-UTF-8 bytes in paths, and merge --keep-going
# over broken inputs. Every case ends in time with exit 2 (or the verdict) and a message naming
# the file and the field, never "internal error".
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
runs=$src/tests/fixtures/runs
ref=$runs/golden-reference.toml
root=$src/tests/fixtures/hosts/healthy-8gpu
nvml=$src/tests/fixtures/nvml
good_run=$runs/report-3node/run.json
good_val=$runs/report-3node/validation.json
db=$tmp/history.db
t() { timeout 30 "$bin" "$@"; }  # a hang or an endless read shows as exit 124
no_internal() { expect_not_in "$tmp/err" "internal error" "$1: no internal error"; expect_not_in "$tmp/out" "internal error" "$1: no internal error (stdout)"; }

# --- A validation.json nested 100,000 levels deep (history --add and compare used to die of SIGSEGV).
python3 -c 'import sys; n = 100000; sys.stdout.write("{\"kind\": \"yardstick-validation\", \"verdict\": {\"pass\": true}, \"workloads\": [], \"x\": " + "[" * n + "]" * n + "}")' > "$tmp/deep.json"
deep_cases=(
  "history --db $db --add $tmp/deep.json"
  "compare $tmp/deep.json $good_val --db $db"
  "diagnose $tmp/deep.json"
  "report $tmp/deep.json -o $tmp/deep.html"
  "merge $tmp/deep.json"
)
for c in "${deep_cases[@]}"; do
  # shellcheck disable=SC2086
  expect_rc 2 "${c%% *} on a 100,000-deep document" -- t $c
  expect_in "$tmp/err" "deep.json: arrays and objects nested deeper than 128 levels, at byte" "${c%% *}: depth named"
  no_internal "${c%% *} deep"
done
# 10,000 levels used to write a 200 MB history row; nothing is stored now.
python3 -c 'import sys; n = 10000; sys.stdout.write("{\"kind\": \"yardstick-validation\", \"verdict\": {\"pass\": true}, \"workloads\": [], \"x\": " + "[" * n + "]" * n + "}")' > "$tmp/deep10k.json"
expect_rc 2 "history --add 10,000 deep" -- t history --db "$db" --add "$tmp/deep10k.json"
[ ! -f "$db" ] || [ "$(stat -c %s "$db")" -lt 1000000 ] || { echo "FAIL: history database grew to $(stat -c %s "$db") bytes"; fails=$((fails + 1)); }

# --- /dev/zero never ends: each reader refuses it instead of reading until memory runs out.
zero_cases=(
  "diagnose /dev/zero"
  "report /dev/zero -o $tmp/zero.html"
  "merge /dev/zero"
  "history --db $db --add /dev/zero"
  "cost --prices /dev/zero --tokens-per-s-per-gpu 1000"
  "preflight --expect /dev/zero --root $root"
  "ingest /dev/zero"
)
for c in "${zero_cases[@]}"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$c" -- t $c
  expect_in "$tmp/err" "/dev/zero: is a character device, expected a regular file" "$c: refused and named"
  no_internal "$c"
done

# The kernel log override: gpu.xid reads it and errors, naming the file (in the check's summary).
expect_rc 2 "preflight --kernel-log /dev/zero" -- t preflight --root "$root" --nvml-state "$nvml/xid.json" --kernel-log /dev/zero --filter gpu.xid
cat "$tmp/err" >> "$tmp/out"
expect_in "$tmp/out" "/dev/zero: is a character device, expected a regular file (a kernel log)" "kernel log refused and named"
no_internal "--kernel-log /dev/zero"

# --- A FIFO with no writer: refused at once, not waited on nor read as "an empty file".
mkfifo "$tmp/fifo.json"
for c in "diagnose $tmp/fifo.json" "history --db $db --add $tmp/fifo.json" "cost --prices $tmp/fifo.json --tokens-per-s-per-gpu 1000" \
  "ingest $tmp/fifo.json" "preflight --expect $tmp/fifo.json --root $root"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$c" -- t $c
  expect_in "$tmp/err" "fifo.json: is a FIFO, expected a regular file" "$c: FIFO named"
  expect_not_in "$tmp/err" "empty" "$c: not called empty"
  no_internal "$c"
done

# --- A number out of the range of a double.
sed '0,/"value": [0-9.e+-]*/s//"value": 1e309/' "$good_run" > "$tmp/huge.run.json"
grep -q 1e309 "$tmp/huge.run.json" || { echo "FAIL: fixture edit found no value"; fails=$((fails + 1)); }
for c in "diagnose" "history --db $db --add" "merge"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$c on 1e309" -- t $c "$tmp/huge.run.json"
  expect_in "$tmp/err" "huge.run.json: not JSON: number overflow parsing '1e309', at byte" "$c: 1e309 named with file and byte"
  no_internal "$c 1e309"
done

# --- Wrong types where strings are expected.
python3 - "$good_val" "$tmp" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
a = dict(v); a["created_at"] = 5
json.dump(a, open(sys.argv[2] + "/created.json", "w"))
b = json.loads(json.dumps(v)); b["workloads"][0]["id"] = 7
json.dump(b, open(sys.argv[2] + "/wid.json", "w"))
c = json.loads(json.dumps(v)); c["workloads"][0]["score"] = [1] * 100000
json.dump(c, open(sys.argv[2] + "/score.json", "w"))
PY
expect_rc 2 "history --add: created_at a number" -- t history --db "$db" --add "$tmp/created.json"
expect_in "$tmp/err" "created.json: created_at: expected a string, found a number" "created_at named"
no_internal "created_at"
expect_rc 2 "compare: workload id a number" -- t compare "$tmp/wid.json" "$good_val" --db "$db"
expect_in "$tmp/err" "wid.json: workloads[0].id" "workload id named"
no_internal "workload id"
expect_rc 2 "history --add: score an array" -- t history --db "$db" --add "$tmp/score.json"
expect_in "$tmp/err" "score.json: workloads[0].score: expected a number or null, found an array" "score named"
no_internal "score"

# --- Non-UTF-8 bytes in a runs path and in a log path.
bad=$(printf 'runs-\xff')
cp -r "$runs/h100-pass" "$tmp/$bad"
expect_rc 0 "validate with a non-UTF-8 runs path" -- t validate --suite h100 --runs "$tmp/$bad" --reference "$ref" --db "$tmp/v.db"
expect_in "$tmp/out" "verdict: PASS" "validate prints its verdict"
no_internal "validate non-UTF-8"
expect_rc 0 "validate --json with a non-UTF-8 runs path" -- t validate --suite h100 --runs "$tmp/$bad" --reference "$ref" --db "$tmp/v.db" --json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" || { echo "FAIL: validate --json: not JSON"; fails=$((fails + 1)); }
log=$(printf 'nemo2-\xfe.log')
cp "$src/tests/fixtures/logs/nemo2.log" "$tmp/$log"
expect_rc 0 "ingest --json on a non-UTF-8 log path" -- t ingest "$tmp/$log" --seq 8192 --gpus 8 --json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" || { echo "FAIL: ingest --json: not JSON"; fails=$((fails + 1)); }
no_internal "ingest non-UTF-8"
expect_rc 0 "ingest on a non-UTF-8 log path" -- t ingest "$tmp/$log" --seq 8192 --gpus 8
expect_in "$tmp/out" 'nemo2-\xfe.log' "console shows the byte escaped"

# --- merge --keep-going names every input it skipped, on stderr, in the summary and the document;
# a skipped input never vanishes from the verdict: it is ranked as corrupt and the verdict is
# incomplete (exit 1), not pass.
mkdir -p "$tmp/fleet/a" "$tmp/fleet/empty"
cp "$good_run" "$tmp/fleet/a/run.json"
head -c 100 "$good_run" > "$tmp/fleet/cut.run.json"
expect_rc 1 "merge --keep-going" -- t merge --keep-going "$tmp/fleet/a" "$tmp/fleet/cut.run.json" "$tmp/fleet/empty" /dev/zero -o "$tmp/fleet.json"
for p in cut.run.json fleet/empty /dev/zero; do
  expect_in "$tmp/err" "$p" "merge: $p named on stderr"
  expect_in "$tmp/out" "skipped: " "merge: skipped listed"
  expect_in "$tmp/fleet.json" "$p" "merge: $p in the fleet document"
done
expect_in "$tmp/out" "3 inputs skipped" "merge: verdict counts the skipped inputs"
expect_rc 2 "merge --keep-going with nothing readable" -- t merge --keep-going "$tmp/fleet/cut.run.json" /dev/zero
expect_in "$tmp/err" "(2 skipped)" "merge: count of skipped"
expect_in "$tmp/err" "cut.run.json" "merge: skipped named when nothing was read"

finish
