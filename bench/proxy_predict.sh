#!/usr/bin/env bash
# Every proxy workload on this machine, predicted against measured: runs `yardstick bench
# --filter 'proxy.*'` with 1 rank, then with NP MPI ranks (mpirun --allow-run-as-root
# --oversubscribe), REPEATS times each, and prints per model and rank count the medians over the
# repeats of: the measured step time (each run's median of its timed steps), the roofline
# prediction (sum of the ops' calibrated times, no overlap), the gap measured/predicted - 1,
# tokens/s per GPU (per rank), model TFLOPS per GPU with its % of the CPU's fp32 peak, and the
# foreign CPU share (other processes' time on the job's cores). There is no peer: the prediction
# is the reference. Also prints the BLAS kernel in use (openblas_get_corename(), as the units
# report it) and the load average, which the figures depend on.
#
#   bench/proxy_predict.sh [build/yardstick]        environment: NP (2), REPEATS (3), ITERS (steps, 20)
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
np=${NP:-2} repeats=${REPEATS:-3} iters=${ITERS:-20}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

extract() {  # "<ranks> <model> <step> <predicted> <tokens/s> <tflops> <pct_peak> <foreign> <blas>"
  python3 -c '
import json, sys
ranks = sys.argv[1]
d = json.load(sys.stdin)
units = list(d.get("benchmarks", []))
for n in d.get("nodes", []):
    units += n.get("benchmarks", [])
for b in units:
    if not b["id"].startswith("proxy.") or b.get("outcome") != "pass":
        if b["id"].startswith("proxy."):
            print("#", ranks, b["id"], b.get("outcome"), b.get("summary"), file=sys.stderr)
        continue
    model = b["id"][len("proxy."):]
    m = {x["name"].split(".")[-1]: x for x in b["measurements"] if "rank" not in x["params"]}
    ev = b.get("evidence", [])
    ev = dict(ev) if isinstance(ev, list) and ev and isinstance(ev[0], list) else \
         {e.get("key"): e.get("value") for e in ev} if isinstance(ev, list) else ev
    blas = ev.get("backend", "?").split("(")[1].split(" kernel")[0] if "(" in ev.get("backend", "") else "?"
    tf = m["model_tflops_per_gpu"]
    print(ranks, model, m["step_time"]["value"], m["predicted_step_time"]["value"],
          m["tokens_per_s_per_gpu"]["value"], tf["value"], tf["params"].get("pct_of_peak", "-"),
          m["foreign_cpu_share"]["value"], blas)' "$1"
}

for ((i = 0; i < repeats; i++)); do
  "$bin" bench --filter 'proxy.*' --iters "$iters" --data "$src" --json 2>>"$work/log" \
    | extract 1 >> "$work/all.txt" || true
  mpirun --allow-run-as-root --oversubscribe -np "$np" "$bin" bench --filter 'proxy.*' \
    --iters "$iters" --data "$src" --json </dev/null 2>>"$work/log" | extract "$np" >> "$work/all.txt" || true
done

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; each figure: median over $repeats runs of the run's median of $iters timed steps"
python3 - "$work/all.txt" <<'PY'
import statistics, sys
rows = {}
blas = set()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 9: continue
    rows.setdefault((int(f[0]), f[1]), []).append([float(x) if x != "-" else float("nan") for x in f[2:8]])
    blas.add(f[8])
print("BLAS kernel in use (openblas_get_corename):", ", ".join(sorted(blas)) or "?")
print("%-18s %5s %10s %10s %8s %10s %9s %7s %8s" % ("model", "ranks", "step s", "predict s", "gap",
      "tokens/s", "TFLOPS", "% peak", "foreign"))
for (ranks, model), v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    med = [statistics.median(c) for c in zip(*v)]
    step, pred, tok, tf, pct, foreign = med
    print("%-18s %5d %10.4f %10.4f %+7.1f%% %10.0f %9.4f %7.1f %7.1f%%" % (model, ranks, step, pred,
          (step / pred - 1) * 100, tok, tf, pct, foreign * 100))
PY
if [ -s "$work/log" ]; then grep -h "^#" "$work/log" | sort -u || true; fi
