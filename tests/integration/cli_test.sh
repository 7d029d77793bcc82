#!/usr/bin/env bash
# The binary the way an operator runs it: subcommands, help, exit codes, bad input, outputs.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts

# Help on every subcommand.
for sub in list preflight capture version run; do
  expect_rc 0 "$sub --help" -- "$bin" "$sub" --help
  expect_in "$tmp/out" "Usage" "$sub --help prints usage"
done
expect_rc 0 "version" -- "$bin" version
expect_in "$tmp/out" "yardstick" "version names the tool"

# Usage errors are 64.
expect_rc 64 "no subcommand" -- "$bin"
expect_rc 64 "unknown subcommand" -- "$bin" frobnicate
expect_rc 64 "unknown option" -- "$bin" preflight --frobnicate
expect_rc 64 "negative pid" -- "$bin" preflight --pid -3

# Bad input is 2 with a message naming what is wrong.
expect_rc 2 "root is not a directory" -- "$bin" preflight --root /nonexistent/tree
expect_in "$tmp/err" "/nonexistent/tree" "root error names the path"
printf '[cpu]\nsmt = "maybe"\n' > "$tmp/bad.toml"
expect_rc 2 "invalid site file" -- "$bin" preflight --expect "$tmp/bad.toml"
expect_in "$tmp/err" "bad.toml:2: [cpu] smt: expected" "site error names file, line, key"
expect_rc 2 "missing site file" -- "$bin" preflight --expect "$tmp/none.toml"
expect_in "$tmp/err" "none.toml" "missing site file named"
expect_rc 2 "filter selects nothing" -- "$bin" preflight --filter 'nope.*'
expect_in "$tmp/err" "selects no check" "empty filter explained"
expect_rc 2 "pid of no process" -- "$bin" preflight --pid 999999999
expect_in "$tmp/err" "no such process" "bad pid explained"
expect_rc 2 "junit into a missing directory" -- "$bin" preflight --junit "$tmp/no/such/dir/x.xml"

# Outcomes: the healthy fixture with its GPUs' recorded state passes, a planted one fails with 1.
nvml=$src/tests/fixtures/nvml
expect_rc 0 "healthy fixture" -- "$bin" preflight --root "$hosts/healthy-8gpu" --nvml-state "$nvml/healthy-h100x8.json"
expect_in "$tmp/out" "preflight:" "summary line"
# Its eight GPUs without NVML are not a pass: gpu.nvml fails with the fix, the other gpu.* checks
# are one line.
expect_rc 1 "8 GPUs on the bus, no NVML state" -- "$bin" preflight --root "$hosts/healthy-8gpu"
expect_in "$tmp/out" "YS-GPU-075" "GPUs not judged"
expect_in "$tmp/out" "14 gpu.* checks skipped: no recorded NVML state" "grouped skips"
cp -r "$hosts/healthy-8gpu" "$tmp/memlock"
sed -i 's/^Max locked memory .*/Max locked memory         65536                65536                bytes/' "$tmp/memlock/proc/self/limits"
expect_rc 1 "memlock fault fails" -- "$bin" preflight --root "$tmp/memlock" --filter 'mem.*'
expect_in "$tmp/out" "YS-MEM-005" "finding code printed"
expect_in "$tmp/out" "fix:" "fix printed"

# A malformed file makes its check an error naming the path; every other check still runs.
cp -r "$hosts/healthy-8gpu" "$tmp/broken"
head -c 3000 /dev/urandom > "$tmp/broken/proc/meminfo"
expect_rc 2 "malformed meminfo" -- "$bin" preflight --root "$tmp/broken" --nvml-state "$nvml/healthy-h100x8.json" --json
/usr/bin/python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: malformed file did not stay contained"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
by = {c["id"]: c for c in d["checks"]}
assert by["mem.settings"]["outcome"] == "error", by["mem.settings"]
assert "/proc/meminfo" in by["mem.settings"]["summary"], by["mem.settings"]["summary"]
others = [c for c in d["checks"] if c["id"] != "mem.settings"]
assert len(others) >= 10 and all(c["outcome"] != "error" for c in others), [(c["id"], c["outcome"]) for c in others]
assert d["verdict"] == "inconclusive" and "mem.settings" in d["verdict_reason"], (d["verdict"], d["verdict_reason"])
PY

# JUnit and JSON.
expect_rc 1 "junit" -- "$bin" preflight --root "$tmp/memlock" --filter 'mem.*' --junit "$tmp/out.xml"
/usr/bin/python3 -c "import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert r.tag=='testsuites' and r.get('failures')=='1', r.attrib" "$tmp/out.xml" \
  && passes=$((passes + 1)) || { echo "FAIL: junit not well-formed"; fails=$((fails + 1)); }
expect_rc 1 "json" -- "$bin" preflight --root "$tmp/memlock" --filter 'mem.*' --json
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['verdict']=='fail' and d['checks'][0]['findings'][0]['code']=='YS-MEM-005'" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: json content"; fails=$((fails + 1)); }

# run keeps its run document.
expect_rc 0 "run" -- "$bin" run --root "$hosts/healthy-8gpu" --nvml-state "$nvml/healthy-h100x8.json" --out "$tmp/run1"
expect_in "$tmp/out" "run document: $tmp/run1/run.json" "run says where"
test -s "$tmp/run1/run.json" && passes=$((passes + 1)) || { echo "FAIL: run.json missing"; fails=$((fails + 1)); }

# list
expect_rc 0 "list" -- "$bin" list
expect_in "$tmp/out" "mem.settings" "list shows units"
expect_rc 0 "list json" -- "$bin" list --json --filter 'mem.*'
expect_in "$tmp/out" "\"needs\"" "list json has needs"

finish
