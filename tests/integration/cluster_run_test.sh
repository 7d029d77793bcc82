#!/usr/bin/env bash
# yardstick across ranks with the real launchers: srun --mpi=pmix on the local Slurm cluster
# and OpenMPI's mpirun. One gathered document per job; a rank that hangs or dies ends the run
# within the timeout, names the rank, and keeps what was measured.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
ensure_slurm
schema="$src/schemas/run.schema.json"
valid() { python3 -c "import json,jsonschema,sys; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))" "$1" "$schema"; }
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

# srun -n N yardstick run: one document, every rank listed, the node's checks once.
for n in 2 4; do
  expect_rc 0 "srun -n $n run" -- timeout 120 srun -n $n --mpi=pmix "$bin" run --no-bench --filter 'cpu.*,mem.*' --out "$tmp/run$n"
  expect_in "$tmp/out" "node $(hostname -s) (ranks 0-$((n - 1)))" "srun -n $n: the node and its ranks"
  valid "$tmp/run$n/run.json" && passes=$((passes + 1)) || { echo "FAIL: srun -n $n run.json against the schema"; fails=$((fails + 1)); }
  got=$(jq_py "$tmp/run$n/run.json" "(len(d['ranks']), len(d['nodes']), d['nodes'][0]['ranks'], d['incomplete'], len(d['nodes'][0]['checks']) > 0, [(c['id'], c['outcome']) for c in d['checks']])")
  [ "$got" = "($n, 1, $(python3 -c "print(list(range($n)))"), False, True, [])" ] && passes=$((passes + 1)) || { echo "FAIL: srun -n $n document: $got"; fails=$((fails + 1)); }
done

# mpirun -np 3 bench: node-local units once per node, the exit code from rank 0.
expect_rc 0 "mpirun -np 3 bench" -- timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" bench --filter host.busy_clock --iters 20 --out "$tmp/m3.json"
got=$(jq_py "$tmp/m3.json" "[b['id'] for n in d['nodes'] for b in n['benchmarks']], len(d['ranks'])")
[ "$got" = "(['host.busy_clock'], 3)" ] && passes=$((passes + 1)) || { echo "FAIL: mpirun -np 3 document: $got"; fails=$((fails + 1)); }

# A rank that hangs (SIGSTOP) inside a collective: the run ends within the timeout plus the
# liveness probe, names rank 2 and its host (rank 1, blocked in the same collective, still
# answers), keeps the unit measured before, exits 2.
pid_of_rank() {  # VAR=VALUE of the rank's environment, pattern of its command line
  for p in $(pgrep -f "$2"); do
    if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "$1"; then echo "$p"; return; fi
  done
}
start=$(date +%s)
cmd=(bench --filter 'coll.all_gather,coll.all_reduce' --iters 100 --sizes 256K:4M:x2 --timeout 15)
timeout 120 srun -n 3 --mpi=pmix "$bin" "${cmd[@]}" --out "$tmp/hang.json" >"$tmp/hang.out" 2>&1 &
job=$!
for _ in $(seq 1 50); do p=$(pid_of_rank SLURM_PROCID=2 "bench --filter coll.all_gather,coll.all_reduce"); [ -n "$p" ] && break; sleep 0.1; done
# Stopped once the collective runs (the job document says so).
for _ in $(seq 1 300); do grep -q 'during coll.all_reduce' "$tmp/hang.json" 2>/dev/null && break; sleep 0.1; done
sleep 0.5; kill -STOP "$p"
wait $job; rc=$?
took=$(( $(date +%s) - start ))
kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null
[ "$took" -lt 60 ] && passes=$((passes + 1)) || { echo "FAIL: the hung job took ${took}s to end"; fails=$((fails + 1)); }
[ "$rc" -ne 0 ] && passes=$((passes + 1)) || { echo "FAIL: the hung job exited 0"; fails=$((fails + 1)); }
expect_in "$tmp/hang.out" "rank 2 on $(hostname -s): lost" "the hung rank is named on the console"
# Incomplete, rank 2 lost, and what finished before the hang kept: the rank is stopped during
# coll.all_reduce, so coll.all_gather's result must be in the document. (On a machine loaded far
# beyond its cores all_gather itself can outlast --timeout; then there is nothing to keep.)
got=$(jq_py "$tmp/hang.json" "d['incomplete'], [r['rank'] for r in d['ranks'] if r['state'] == 'lost'], [b['id'] for b in d['benchmarks']] == (['coll.all_gather'] if 'all_reduce' in d.get('incomplete_reason', '') else [])")
[ "$got" = "(True, [2], True)" ] && passes=$((passes + 1)) || { echo "FAIL: hung-rank document: $got"; cat "$tmp/hang.out"; fails=$((fails + 1)); }
valid "$tmp/hang.json" && passes=$((passes + 1)) || { echo "FAIL: hung-rank document against the schema"; fails=$((fails + 1)); }

# A rank killed (SIGKILL) under mpirun: mpirun ends the job; the document on disk is marked
# incomplete and says where the job was, with what was measured before.
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" "${cmd[@]}" --out "$tmp/kill.json" >"$tmp/kill.out" 2>&1 &
job=$!
for _ in $(seq 1 50); do p=$(pid_of_rank OMPI_COMM_WORLD_RANK=2 "bench --filter coll.all_gather,coll.all_reduce"); [ -n "$p" ] && break; sleep 0.1; done
for _ in $(seq 1 300); do grep -q 'during coll.all_reduce' "$tmp/kill.json" 2>/dev/null && break; sleep 0.1; done
sleep 0.5; kill -9 "$p"
wait $job; rc=$?
[ "$rc" -ne 0 ] && passes=$((passes + 1)) || { echo "FAIL: the job with a killed rank exited 0"; fails=$((fails + 1)); }
got=$(jq_py "$tmp/kill.json" "d['incomplete'], 'coll.all_reduce' in d.get('incomplete_reason', '') or 'signal' in d.get('incomplete_reason', ''), [b['id'] for b in d['benchmarks']]")
[ "$got" = "(True, True, ['coll.all_gather'])" ] && passes=$((passes + 1)) || { echo "FAIL: killed-rank document: $got"; cat "$tmp/kill.out"; fails=$((fails + 1)); }
valid "$tmp/kill.json" && passes=$((passes + 1)) || { echo "FAIL: killed-rank document against the schema"; fails=$((fails + 1)); }

finish
