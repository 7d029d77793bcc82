#!/usr/bin/env bash
# Every GPU path of yardstick once, on a machine with NVIDIA GPUs, in under 8 minutes after the
# build, with the figures of each in one file (figures.txt):
#   1. NVML as yardstick reads it vs `nvidia-smi -q` of the same moment, field by field (the
#      recorded text read back through `--nvml-state`), and the gpu.* verdicts of both;
#   2. the GPU benchmark units (cuBLASLt GEMM, device memory, host/device and peer copies, launch
#      latency), next to nvbandwidth's copy figures where nvbandwidth is installed;
#   3. the collectives from one process over every GPU (nccl-tests -g), next to nccl-tests'
#      all_reduce_perf where installed, and one rank per GPU under mpirun where present;
#   4. one proxy training step (proxy.llama3.1_8b) on the GPUs;
#   5. a 60 s GPU burn-in (compute);
#   6. optionally (ONLY=tests) the gpu-labelled ctest tests.
# Each step has its own time limit, and all of them together a budget (BUDGET_S, 470 s): a step
# that fails, hangs or finds no tool is noted in figures.txt and the next one runs.
#
#   bench/gpu_runbook.sh                 # results under $OUT if set, else ./gpu-runbook-<time>
#   ONLY=nvml|units|coll|proxy|burnin|tests bench/gpu_runbook.sh    # one group (after the build)
#   YARDSTICK_BIN=/path/to/yardstick bench/gpu_runbook.sh           # no build: use this binary
#   BURN_S=20 BUDGET_S=300 bench/gpu_runbook.sh                     # shorter
#
# Writes, under the output directory: figures.txt (everything below, summarised), log.txt (each
# step, its limit, exit code and seconds), env.txt (GPUs, driver, libraries), and per step
# <step>.json / <step>.err, smi-q.txt (nvidia-smi -q), live/ and smi/ (yardstick capture trees
# with .yardstick/nvml.json), nvml-vs-smi.txt (the field-by-field comparison).
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$PWD/gpu-runbook-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" || exit 2
only=${ONLY:-}
budget=${BUDGET_S:-470}
burn_s=${BURN_S:-60}
bin=${YARDSTICK_BIN:-$src/build/yardstick}
figures=$out/figures.txt
: >"$figures"
: >"$out/log.txt"

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
log() { echo "[gpu_runbook $(date -u +%H:%M:%S)] $*" | tee -a "$out/log.txt" >&2; }
note() { echo "$*" >>"$figures"; }
have() { command -v "$1" >/dev/null 2>&1; }

t_start=$SECONDS
# step NAME LIMIT_S COMMAND...: runs COMMAND (stdout to NAME.json unless redirected by the caller,
# stderr to NAME.err) for at most min(LIMIT_S, what is left of the budget); never fails the script.
step() {
  local name=$1 limit=$2; shift 2
  local left=$((budget - (SECONDS - t_start)))
  if [ "$left" -le 5 ]; then
    log "$name: skipped (budget of ${budget}s spent)"
    note "step $name: SKIPPED (budget of ${budget}s spent)"
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  log "$name (limit ${limit}s)"
  local t0=$SECONDS rc
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.json" 2>"$out/$name.err"
  rc=$?
  local took=$((SECONDS - t0))
  case $rc in
    0) log "$name: ok in ${took}s"; note "step $name: ok in ${took}s" ;;
    124 | 137) log "$name: TIMED OUT after ${took}s"; note "step $name: TIMED OUT after ${took}s (limit ${limit}s)" ;;
    *) log "$name: exit $rc in ${took}s"
       note "step $name: exit $rc in ${took}s: $(tail -n 3 "$out/$name.err" 2>/dev/null | tr '\n' ' ' | cut -c1-300)" ;;
  esac
  return 0
}

# ---- Environment and build ----
{
  echo "date: $(date -u)"; uname -a
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -20
  ls -l /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/local/cuda/lib64/libcublasLt.so* 2>&1
  ldconfig -p 2>/dev/null | grep -E 'libcuda\.so|libnvidia-ml|libcublasLt|libnccl' || true
  for t in mpirun nvbandwidth all_reduce_perf dcgmi; do printf '%s: %s\n' "$t" "$(command -v "$t" || echo absent)"; done
} >"$out/env.txt" 2>&1

if [ -z "${YARDSTICK_BIN:-}" ]; then
  log "build (cmake --preset default; not counted in the budget)"
  if ! (cd "$src" && cmake --preset default -B build >"$out/build.txt" 2>&1 &&
        timeout 900 cmake --build build -j"$(nproc)" --target yardstick yardstick_tests >>"$out/build.txt" 2>&1); then
    log "build failed: see $out/build.txt"; tail -30 "$out/build.txt"; exit 2
  fi
fi
if [ ! -x "$bin" ]; then
  log "no yardstick binary at $bin"; note "no yardstick binary at $bin"; exit 2
fi
"$bin" version >>"$out/env.txt" 2>&1
t_start=$SECONDS  # the budget starts after the build
note "# gpu_runbook $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), budget ${budget}s"
gpus=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';')
[ -n "$gpus" ] && note "# $gpus"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
note "# GPUs: ${ngpu:-0}"

# ---- 1. NVML vs nvidia-smi -q of the same moment ----
if want nvml; then
  # nvidia-smi first, then NVML through yardstick at once after: the same moment but for the
  # counters that move by themselves (power, clocks, temperature, utilisation).
  if have nvidia-smi; then
    nvidia-smi -q >"$out/smi-q.txt" 2>"$out/smi-q.err" || note "nvidia-smi -q: exit $?"
  else
    note "nvidia-smi: absent, no reference for NVML"
  fi
  rm -rf "$out/live" "$out/smi"
  step capture-live 30 "$bin" capture "$out/live"
  step preflight-live 40 "$bin" preflight --filter 'gpu.*' --json
  if [ -s "$out/smi-q.txt" ]; then
    step capture-smi 30 "$bin" capture --nvml-state "$out/smi-q.txt" "$out/smi"
    step preflight-smi 40 "$bin" preflight --filter 'gpu.*' --nvml-state "$out/smi-q.txt" --json
    python3 "$src/bench/gpu_runbook_compare.py" nvml "$out/live/.yardstick/nvml.json" \
      "$out/smi/.yardstick/nvml.json" >"$out/nvml-vs-smi.txt" 2>&1 ||
      note "NVML vs nvidia-smi: comparison failed (see nvml-vs-smi.txt)"
    python3 "$src/bench/gpu_runbook_compare.py" verdicts "$out/preflight-live.json" \
      "$out/preflight-smi.json" >>"$out/nvml-vs-smi.txt" 2>&1 ||
      note "gpu.* verdicts live vs nvidia-smi: comparison failed"
    { echo "## NVML (live) vs nvidia-smi -q (read back through --nvml-state)"; cat "$out/nvml-vs-smi.txt"; } >>"$figures"
  fi
fi

# ---- 2. The GPU benchmark units, and nvbandwidth where installed ----
if want units; then
  bench() { step "$1" "$2" "$bin" bench --data "$src" --backend gpu --json --filter "$3" "${@:4}"; }
  bench gemm.gpu 90 gemm.gpu
  bench mem.gpu 30 mem.gpu
  bench copy 60 'copy.*'
  bench launch_latency 15 host.launch_latency
  if have nvbandwidth; then
    # The copy-engine transfers that copy.h2d, copy.d2h and copy.d2d measure.
    step nvbandwidth 45 nvbandwidth -t host_to_device_memcpy_ce device_to_host_memcpy_ce \
      device_to_device_memcpy_read_ce
  else
    note "nvbandwidth: not installed (no reference for the copies)"
  fi
fi

# ---- 3. Collectives ----
if want coll; then
  if ldconfig -p 2>/dev/null | grep -q libnccl.so.2 || [ -n "${YARDSTICK_LIBNCCL:-}" ]; then
    step coll-one-process 60 "$bin" bench --data "$src" --backend gpu --filter 'coll.*' --sizes 8:1G:x8 --json
    if have all_reduce_perf; then
      step nccl-tests-all_reduce 40 all_reduce_perf -b 8 -e 1G -f 8 -g "${ngpu:-1}"
    else
      note "all_reduce_perf (nccl-tests): not installed (no reference for coll.all_reduce)"
    fi
    if have mpirun && [ "${ngpu:-0}" -ge 2 ]; then
      step coll-mpi 45 mpirun --allow-run-as-root --oversubscribe -np "$ngpu" "$bin" bench --data "$src" \
        --backend gpu --filter 'coll.*' --sizes 8:1G:x8 --json
    else
      note "coll one rank per GPU: skipped (mpirun absent or fewer than 2 GPUs)"
    fi
  else
    note "coll: skipped (libnccl.so.2 not installed)"
  fi
fi

# ---- 4. The proxy ----
if want proxy; then
  step proxy 45 "$bin" bench --data "$src" --backend gpu --filter proxy.llama3.1_8b --json
fi

# ---- 5. Burn-in ----
if want burnin; then
  step burnin "$((burn_s + 30))" "$bin" burnin --profile compute --backend gpu --duration "${burn_s}s" \
    --out "$out/burnin-compute" --checkpoint-interval 10 --json
fi

# ---- 6. The gpu-labelled tests (only when asked: not part of the budget's plan) ----
if [ "$only" = tests ]; then
  step ctest-gpu 120 bash -c "cd '$src/build' && ctest -L gpu --output-on-failure"
fi

# ---- Figures ----
python3 "$src/bench/gpu_runbook_compare.py" figures "$out" >>"$figures" 2>&1 ||
  note "figures: summary failed"
if [ -s "$out/nvbandwidth.json" ]; then
  { echo "## nvbandwidth"; grep -E 'SUM|memcpy' "$out/nvbandwidth.json"; } >>"$figures"
fi
if [ -s "$out/nccl-tests-all_reduce.json" ]; then
  { echo "## nccl-tests all_reduce_perf"; grep -vE '^#\s*$' "$out/nccl-tests-all_reduce.json" | tail -20; } >>"$figures"
fi
log "done in $((SECONDS - t_start))s of ${budget}s: $figures"
cat "$figures"
exit 0
