#!/bin/bash
# yardstick merge on a generated fleet (tests/fixtures/fleet/make_fleet.py): 256 nodes x 8 GPUs x
# 8 NICs with planted slow nodes, GPUs and NICs: every fault found, nothing else; a healthy fleet
# passes; malformed documents stop the merge (exit 2) naming the file and field, or are skipped
# and listed with --keep-going (the verdict is then "incomplete", exit 1: a skipped node never
# passes); the ranked list names exactly the planted nodes, GPUs and NICs; --format slurm prints
# drain lines; --html writes the heat map; the fleet document matches schemas/fleet.schema.json.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
gen="$src/tests/fixtures/fleet/make_fleet.py"
validate() { /usr/bin/python3 "$src/tests/integration/validate_json.py" "$@"; }

python3 "$gen" --nodes 256 --seed 11 --slow-nodes 3 --slow-gpus 10 --slow-nics 6 --out "$tmp/fleet"
expect_rc 0 "generated node documents match the run schema" -- \
  validate "$src/schemas/run.schema.json" "$tmp"/fleet/nodes/node0000[0-4].run.json

expect_rc 1 "merge flags the planted faults" -- "$bin" merge "$tmp/fleet/nodes" -o "$tmp/fleet.json" \
  --html "$tmp/fleet.html"
cp "$tmp/out" "$tmp/summary.txt"
expect_in "$tmp/summary.txt" "fleet: 256 documents" "summary counts the documents"
expect_in "$tmp/summary.txt" "ranked (" "summary prints the ranked list"
expect_in "$tmp/summary.txt" "next: " "each ranked row says what to do next"
expect_in "$tmp/summary.txt" "verdict: fail" "summary verdict"
expect_rc 0 "every planted fault found, no false positive" -- \
  python3 "$src/tests/fixtures/fleet/check_fleet.py" "$tmp/fleet.json" "$tmp/fleet/truth.json"
expect_rc 0 "the ranked list names exactly the planted nodes, GPUs and NICs" -- python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
want = {(n, 'node') for n in t['slow_nodes']} | {tuple(x) for x in t['slow_gpus'] + t['slow_nics']}
got = {(r['node'], r['entity']) for r in d['ranked']}
assert got == want, (sorted(got - want), sorted(want - got))" "$tmp/fleet.json" "$tmp/fleet/truth.json"
expect_in "$tmp/fleet.html" "Fleet heat map" "--html writes the heat map"
expect_rc 1 "--format slurm" -- "$bin" merge "$tmp/fleet/nodes" --format slurm
expect_in "$tmp/out" "scontrol update nodename=" "drain lines"
expect_in "$tmp/out" "state=drain reason=\"yardstick merge: " "drain reasons"
expect_rc 0 "fleet document matches its schema" -- validate "$src/schemas/fleet.schema.json" "$tmp/fleet.json"

# The same documents named by a list and printed as JSON.
ls "$tmp"/fleet/nodes/*.run.json > "$tmp/list.txt"
expect_rc 1 "@list input, --json" -- "$bin" merge "@$tmp/list.txt" --json
cp "$tmp/out" "$tmp/fleet-stdout.json"
expect_rc 0 "--json prints the fleet document" -- python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert d['kind'] == 'fleet' and d['inputs']['documents'] == 256
assert len(d['slow']['nodes']) == 3, d['slow']['nodes']" "$tmp/fleet-stdout.json"

# A healthy fleet passes.
python3 "$gen" --nodes 128 --seed 12 --slow-nodes 0 --slow-gpus 0 --slow-nics 0 --out "$tmp/healthy"
expect_rc 0 "healthy fleet passes" -- "$bin" merge "$tmp/healthy/nodes"
expect_in "$tmp/out" "verdict: pass" "healthy verdict"

# Malformed documents: exit 2 naming the file and the field; --keep-going skips and lists them.
mkdir -p "$tmp/bad"
cp "$tmp"/healthy/nodes/node0000*.run.json "$tmp/bad/"
python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); del d['benchmarks'][1]['measurements'][2]['value']
json.dump(d, open(sys.argv[2], 'w'))" "$tmp/healthy/nodes/node00010.run.json" "$tmp/bad/broken.run.json"
printf '{"schema_version": 1, "command": ' > "$tmp/bad/truncated.run.json"
expect_rc 2 "malformed document stops the merge" -- "$bin" merge "$tmp/bad"
expect_in "$tmp/err" "broken.run.json: run.benchmarks[1].measurements[2].value: missing" "error names file and field"
expect_rc 1 "--keep-going skips malformed documents, never passes" -- "$bin" merge "$tmp/bad" --keep-going -o "$tmp/bad.json"
expect_in "$tmp/out" "skipped: $tmp/bad/broken.run.json: " "skipped documents listed"
expect_in "$tmp/out" "truncated.run.json: not JSON" "truncated document listed"
expect_in "$tmp/out" "verdict: incomplete" "a skipped document makes the verdict incomplete"
expect_rc 0 "fleet document with skipped documents matches its schema" -- \
  validate "$src/schemas/fleet.schema.json" "$tmp/bad.json"
expect_rc 2 "a missing input is an error" -- "$bin" merge "$tmp/nope"
expect_in "$tmp/err" "$tmp/nope: no such file" "missing input named"
expect_rc 64 "no input is a usage error" -- "$bin" merge
finish
