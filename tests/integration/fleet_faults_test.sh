#!/bin/bash
# yardstick merge judged by an independent test fleet (tests/fleet/gen_fleet.py): 1,000 nodes of
# 8x H100, about 490 figures each, one-process and 8-rank documents mixed, realistic noise and
# one-off dips, 1% of nodes with planted faults of 17 kinds, plus a few A100/H200 documents, a
# host name twice, one file twice and two truncated documents. The scorer
# (tests/fleet/score_fleet.py) fails when a planted fault is missed or placed on the wrong
# entity, or when healthy nodes are reported beyond the stated false-alarm rate. Then a bimodal
# fleet (30% of the nodes 12% slow in GEMM) must have its slow mode reported, nothing else.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
validate() { /usr/bin/python3 "$src/tests/integration/validate_json.py" "$@"; }
max_rate=0.002  # healthy nodes with a drained row: at most 2 in 1,000
# (rows to watch, below the throughput loss or the evidence that drains, are the stated false
# alarms of `merge`: not counted by the scorer, but checked against the count the document states)

python3 "$src/tests/fleet/gen_fleet.py" --nodes 1000 --seed 15 --mixed --duplicates --corrupt 2 \
  --out "$tmp/fleet" >/dev/null || { echo "FAIL: gen_fleet.py"; exit 1; }
# Every faulty node's document (all fault kinds, both document shapes, the other GPU models) and
# two healthy ones follow the run schema; the truncated ones are not JSON.
docs=$(python3 -c "
import json, sys; t = json.load(open(sys.argv[1]))
bad = {f['node'] for f in t['faults'] if f['kind'] == 'corrupt'}
print(' '.join('%s/%s.run.json' % (sys.argv[2], n) for n in t['faulty_nodes'] + t['node_names'][:2] if n not in bad))" \
  "$tmp/fleet/truth.json" "$tmp/fleet/nodes")
expect_rc 0 "generated documents match the run schema" -- validate "$src/schemas/run.schema.json" $docs

# The fleet has faults: exit 1, and the document on stdout.
expect_rc 1 "merge --json reports the planted faults" -- "$bin" merge "$tmp/fleet/nodes" --keep-going --json
cp "$tmp/out" "$tmp/fleet.json"
expect_rc 0 "the fleet document is JSON with a ranked list" -- python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); assert isinstance(d.get('ranked'), list), 'no ranked list'" \
  "$tmp/fleet.json"
before=$fails
expect_rc 0 "every planted fault found on its entity, false alarms within $max_rate" -- \
  python3 "$src/tests/fleet/score_fleet.py" "$tmp/fleet.json" "$tmp/fleet/truth.json" --max-false-alarm-rate "$max_rate" \
  --allow-watch
[ "$fails" -eq "$before" ] || sed 's/^/  score: /' "$tmp/out" | head -60
# The watched rows on healthy nodes: within the 99.9% Poisson bound of the count the document states.
expect_rc 0 "healthy rows within the stated false-alarm count" -- python3 -c "
import json, math, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
healthy = set(t['node_names']) - {f['node'] for f in t['faults']}
rows = [r for r in d['ranked'] if r['node'] in healthy]
assert not [r for r in rows if r['drain']], 'a healthy node drained'
mean = d['false_alarms']['expected']; k, term = 0, math.exp(-mean); total = term
while 1 - total > 1e-3:
    k += 1; term *= mean / k; total += term
assert len(rows) <= k, '%d healthy rows, %.1f expected, at most %d' % (len(rows), mean, k)" \
  "$tmp/fleet.json" "$tmp/fleet/truth.json"

# A fleet the median cannot describe: 30% of 300 nodes 12% slow in GEMM and nothing else planted.
# The slow mode must be reported (each node, or a group row listing them), and nothing else.
python3 "$src/tests/fleet/gen_fleet.py" --nodes 300 --seed 16 --fault-rate 0 --bimodal 0.3 \
  --out "$tmp/bimodal" >/dev/null || { echo "FAIL: gen_fleet.py --bimodal"; exit 1; }
expect_rc 1 "merge --json reports the slow mode" -- "$bin" merge "$tmp/bimodal/nodes" --json
cp "$tmp/out" "$tmp/bimodal.json"
before=$fails
expect_rc 0 "every node of the slow mode found, false alarms within $max_rate" -- \
  python3 "$src/tests/fleet/score_fleet.py" "$tmp/bimodal.json" "$tmp/bimodal/truth.json" --max-false-alarm-rate "$max_rate" \
  --allow-watch
[ "$fails" -eq "$before" ] || sed 's/^/  score: /' "$tmp/out" | head -30

# The scorer itself can fail: a ranked list missing one planted fault and blaming a healthy GPU.
python3 - "$tmp/fleet/truth.json" "$tmp/wrong.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
rows = [{"node": f["node"], "entity": f["entity"], "kind": f["kind"], "deficit": f["size"]} for f in t["faults"]][1:]
healthy = sorted(set(t["node_names"]) - set(t["faulty_nodes"]))
rows += [{"node": n, "entity": "gpu0", "kind": "gemm", "deficit": 0.05} for n in healthy[:3]]
json.dump({"ranked": rows}, open(sys.argv[2], "w"))
EOF
expect_rc 1 "the scorer fails a list with a miss and false alarms" -- \
  python3 "$src/tests/fleet/score_fleet.py" "$tmp/wrong.json" "$tmp/fleet/truth.json"
expect_in "$tmp/out" "missed: " "the scorer names the missed fault"
expect_in "$tmp/out" "false alarm: " "the scorer names the false alarms"
finish
