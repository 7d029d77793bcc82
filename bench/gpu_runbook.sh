#!/usr/bin/env bash
# One short GPU check for a machine with NVIDIA GPUs (written for one H200; any count works):
# builds yardstick (cmake preset), runs the GPU benchmark units, a short GPU burn-in (compute and
# memory), the GPU collectives from one process over every GPU (nccl-tests -g) and, when mpirun
# and NCCL are present, one rank per GPU, then the gpu-labelled tests. About 8 minutes in all;
# each step
# has its own time limit so that one hang cannot eat the budget.
#
#   bench/gpu_runbook.sh            # results under $OUT if set, else ./gpu-check-<time>
#   PROFILE=quick bench/gpu_runbook.sh
#   ONLY=coll bench/gpu_runbook.sh  # build, then only the collectives (one process over every GPU,
#                                 # and one rank per GPU under mpirun): about 3 minutes
#
# Writes: <step>.json (the run document of each step) and <step>.err (its log), summary.txt (each
# unit's outcome, findings, notes and tables, and one line per measurement with its % of peak),
# env.txt (GPUs, driver, libraries, tool version), log.txt (steps and their times).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$PWD/gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
profile=${PROFILE:-full}
only=${ONLY:-}
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }  # want GROUP: whether this run includes it
bin=$src/build/yardstick
log() { echo "[gpu_check $(date -u +%H:%M:%S)] $*" | tee -a "$out/log.txt" >&2; }

{
  echo "date: $(date -u)"; uname -a
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -20
  ls -l /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/local/cuda/lib64/libcublasLt.so* 2>&1
  command -v mpirun && mpirun --version 2>&1 | head -1
} >"$out/env.txt" 2>&1

log "build (cmake --preset default)"
if ! (cd "$src" && cmake --preset default -B build >"$out/build.txt" 2>&1 &&
      timeout 900 cmake --build build -j"$(nproc)" --target yardstick yardstick_tests >>"$out/build.txt" 2>&1); then
  log "build failed: see $out/build.txt"; tail -30 "$out/build.txt"; exit 2
fi
"$bin" version >>"$out/env.txt" 2>&1

quick=()
[ "$profile" = quick ] && quick=(--warmup 2 --iters 4)
run_unit() {  # run_unit NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2
  log "$name (limit ${secs}s)"
  local t0=$SECONDS
  timeout "$secs" "$bin" bench --data "$src" --backend gpu --json "$@" >"$out/$name.json" 2>"$out/$name.err"
  local rc=$?
  log "$name: exit $rc in $((SECONDS - t0)) s"
  [ $rc -eq 124 ] && log "$name: TIMED OUT"
  return 0
}
# The GPU units, one process each so that a failure in one leaves the others' results.
if want units; then
  run_unit gemm.gpu 120 --filter gemm.gpu "${quick[@]}"
  run_unit mem.gpu 45 --filter mem.gpu "${quick[@]}"
  run_unit copy 75 --filter 'copy.*' "${quick[@]}"
  run_unit launch_latency 20 --filter host.launch_latency
fi

# Burn-in on the GPUs: cuBLASLt GEMMs checked bit for bit across repeats and GPUs, then device
# copies checked element by element, with NVML telemetry every second.
burn() {  # burn PROFILE SECONDS LIMIT
  log "burnin --profile $1 --backend gpu --duration ${2}s (limit ${3}s)"
  timeout "$3" "$bin" burnin --profile "$1" --backend gpu --duration "${2}s" --out "$out/burnin-$1" \
    --checkpoint-interval 10 --json >"$out/burnin-$1.json" 2>"$out/burnin-$1.err"
  log "burnin $1: exit $?"
}
if want burnin; then
  burn compute 45 75
  burn memory 20 45
fi

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# GPU collectives from one process driving every visible GPU (nccl-tests -g N; no launcher): the
# default of `bench` and `run` on a GPU node. coll-one-process.json holds the figures (params
# ranks=N, gpus_per_process=N). With a single GPU every collective is skipped with the reason
# "one rank, one device: nothing to exchange": that outcome is the check there, not a failure.
if ! want coll; then
  :
elif ldconfig -p 2>/dev/null | grep -q libnccl.so.2 || [ -n "${YARDSTICK_LIBNCCL:-}" ]; then
  log "coll.* over NCCL from one process, $ngpu GPU(s) (limit 90s)"
  timeout 90 "$bin" bench --data "$src" --backend gpu --filter 'coll.*' --sizes 8:1G:x8 --json \
    >"$out/coll-one-process.json" 2>"$out/coll-one-process.err"
  log "coll-one-process: exit $?"
else
  log "coll.* one process: skipped (libnccl.so.2 missing)" | tee "$out/coll-one-process.skipped"
fi

# GPU collectives over NCCL, one rank per GPU, when the launcher and library are there.
if ! want coll; then
  :
elif command -v mpirun >/dev/null && ldconfig -p 2>/dev/null | grep -q libnccl.so.2 && [ "${ngpu:-0}" -ge 1 ]; then
  log "coll.* over NCCL with $ngpu ranks (limit 60s)"
  timeout 60 mpirun --allow-run-as-root --oversubscribe -np "$ngpu" "$bin" bench --data "$src" --backend gpu \
    --filter 'coll.*' --sizes 8:1G:x8 --json >"$out/coll.json" 2>"$out/coll.err"
  log "coll: exit $?"
else
  log "coll.*: skipped (mpirun, libnccl.so.2 or a GPU missing)" | tee "$out/coll.skipped"
fi

if want tests; then
  log "gpu-labelled tests (limit 120s)"
  (cd "$src/build" && timeout 120 ctest -L gpu --output-on-failure >"$out/ctest-gpu.txt" 2>&1)
  log "ctest -L gpu: exit $?"
fi

# Text summary from the JSON documents (a burn-in's entities and faults too): every measurement with its % of peak, and every unit's
# outcome, findings and notes.
python3 - "$out" >"$out/summary.txt" 2>&1 <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def walk(d):
    if isinstance(d, dict):
        if "id" in d and "outcome" in d:
            yield d
        for v in d.values():
            yield from walk(v)
    elif isinstance(d, list):
        for v in d:
            yield from walk(v)
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    try:
        doc = json.load(open(f))
    except Exception as e:
        print(f"{os.path.basename(f)}: unreadable ({e})"); continue
    b = doc.get("burnin") if isinstance(doc, dict) else None
    if b:
        print(f"== burnin {b['profile']}: {b['elapsed_s']:.0f} s of load, {len(b['faults'])} faults, "
              f"availability {b['availability']:.4f}")
        for e in b["entities"]:
            if e["metric"]:
                print(f"   {e['entity']:<6} {e['metric']:<10} median {e['perf_median']} {e['unit']} baseline "
                      f"{e['perf_baseline']} lowest window {e['perf_min_window']} iterations {e['iterations']} "
                      f"miscompares {e['miscompares']} temp steady {e['temp_steady_c']} max dev {e['temp_max_dev_c']}")
        for fl in b["faults"]:
            print(f"   FAULT {fl['at_s']:.0f} s {fl['entity']} {fl['kind']} {fl['severity']}: {fl['message']}")
    for u in walk(doc):
        print(f"== {os.path.basename(f)}: {u['id']}: {u['outcome']}: {u.get('summary', '')}")
        for fd in u.get("findings", []):
            print(f"   FINDING {fd.get('code')} {fd.get('entity')}: {fd.get('message')}")
        ev = u.get("evidence") or []
        for item in (ev.items() if isinstance(ev, dict) else ev):
            print(f"   note {item[0]}: {item[1]}")
        for t in u.get("tables", []):
            print(f"   # {t.get('title', '')}")
            print("   " + " | ".join(t.get("columns", [])))
            for row in t.get("rows", []):
                print("   " + " | ".join(row))
            for line in t.get("footer", []):
                print("   " + line)
        for m in u.get("measurements", []):
            p = m.get("params", {})
            keys = [k for k in ("device", "dtype", "shape", "method", "size", "inplace", "ranks", "gpus_per_process",
                                "host_numa_node", "peer") if k in p]
            what = " ".join(f"{k}={p[k]}" for k in keys)
            pct = p.get("pct_of_peak", "-")
            st = m.get("stats", {})
            print(f"   {m['name']:<28} {what:<60} {m['value']:>10.2f} {m['unit']:<7} "
                  f"(min {st.get('min', 0):.2f} max {st.get('max', 0):.2f}, n {st.get('n', 0)}) {pct}% of peak")
PY
log "summary: $out/summary.txt"
cat "$out/summary.txt"
