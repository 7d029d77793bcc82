#!/usr/bin/env bash
# Wall time of `yardstick preflight` on this machine: N runs each of the live node and of a
# recorded 16-CPU, 8-GPU tree; prints min / median / p90 / max in milliseconds.
#
#   bench/preflight_wall.sh [RUNS] [BINARY]
set -euo pipefail
runs=${1:-30}
bin=${2:-build/yardstick}
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "no binary at $bin: run make build first" >&2; exit 2; }

stats() {  # reads one number per line (ms), prints min median p90 max
  sort -n | awk '{a[NR]=$1} END {p90=a[int(NR*0.9+0.5)]; if (p90=="") p90=a[NR];
    med=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
    printf "min %.1f  median %.1f  p90 %.1f  max %.1f  (n=%d)\n", a[1], med, p90, a[NR], NR}'
}
time_ms() {  # runs the command once, prints its wall time in ms
  local t0 t1
  t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 )) | awk '{printf "%.3f\n", $1/1000}'
}
series() { for _ in $(seq "$runs"); do time_ms "$@"; done | stats; }

echo "machine: $(nproc) CPUs, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "yardstick: $("$bin" version | head -1)"
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} (preflight itself calls no BLAS)"
"$bin" preflight --json > /tmp/ys-bench-doc.json 2>/dev/null || true
echo "checks: $(python3 -c "import json; d=json.load(open('/tmp/ys-bench-doc.json')); print(len(d['checks']), 'units;', ', '.join('%s %.0f ms' % (c['id'], c['duration_ms']) for c in sorted(d['checks'], key=lambda c: -c['duration_ms'])[:3]), '(slowest)')")"
echo
echo "yardstick preflight (this node):          $(series "$bin" preflight)"
echo "yardstick preflight --root h100 tree:     $(series "$bin" preflight --root "$src/tests/fixtures/hosts/h100-misconfigured")"
echo "yardstick preflight --filter 'mem.*':     $(series "$bin" preflight --filter 'mem.*')"
