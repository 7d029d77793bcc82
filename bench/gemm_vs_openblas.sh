#!/usr/bin/env bash
# yardstick's gemm.cpu against a direct OpenBLAS call on this machine: the same routines (sgemm,
# then dgemm, as yardstick orders them), shapes (read back from yardstick's own output), layout
# (row-major, no transposes, alpha 1, beta 0, leading dimensions k, n, n), inputs in [-1, 1)
# written before the timed calls, warm-up and timed-call counts, the same OpenBLAS library and
# thread count (the environment's: OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS apply to both and
# are left as they are). The direct caller is a small C program compiled into a temporary folder
# and removed at exit; nothing is downloaded.
#
#   bench/gemm_vs_openblas.sh [RUNS] [BINARY]      SIZES=256:1024:x2 for squares only (quicker)
#
# RUNS (default 6) rounds alternate the two tools, the order flipping each round (yardstick
# first, then the direct call first, ...), so that load from other processes falls on both alike.
# Each run of a tool gives, per shape, the median GFLOPS of ITERS timed calls (default 10) after
# WARMUP (default 1); each round gives one ratio yardstick / direct per shape. Printed per shape:
# the median of the per-round ratios, their spread (min-max and the interquartile range), the 95%
# confidence interval of the median ratio and a verdict (bench/peer_ratio.py): "differs" only when
# 1.00 lies outside that interval (a sign test: at most 3.1% of shapes called different by chance
# at 6 rounds) and the median ratio is further from 1.00 than the spread (the IQR's width); "within
# spread" when the difference is consistent but smaller than the spread; otherwise "same"; below 6
# rounds "too few rounds". The load average is printed before and after.
# Exit 2 when the binary, a C compiler or OpenBLAS's development files are missing.
#
# The method, side by side (checked to be the same):
#   threads     OpenBLAS's own count (openblas_get_num_threads(), printed for both)
#   kernel      openblas_get_corename() (printed for both; OPENBLAS_CORETYPE may force it)
#   warm-up     WARMUP calls and at least 0.2 s of calls per shape (src/bench/gemm/cpu.cc kMinWarmupS: an
#               idle core gives a 2-thread call one core's throughput for tens of milliseconds)
#   memory      A, B, C allocated and written before the first call, never inside a timed call
#   call        cblas_?gemm(RowMajor, NoTrans, NoTrans, m, n, k, 1, A, k, B, n, 0, C, n)
#   sample      each call timed alone with the monotonic clock (a 256^3 sgemm lasts ~0.2 ms)
#   figure      the median of the timed calls (never the mean: one call stalled by a descheduled
#               BLAS thread lasts milliseconds and would move a mean, not a median)
# With two BLAS threads on a loaded machine a call stalls whenever one of them waits for a CPU;
# such rounds show as spread, which is why a single run's ratio says nothing.
set -euo pipefail
runs=${1:-6}
bin=${2:-build/yardstick}
warmup=${WARMUP:-1}
iters=${ITERS:-10}
[ -x "$bin" ] || { echo "no yardstick binary at $bin: build it first (make build)" >&2; exit 2; }
if ! { command -v cc && command -v pkg-config && pkg-config --exists openblas; } >/dev/null; then
  echo "the direct caller needs a C compiler and OpenBLAS's headers: apt-get install gcc pkg-config libopenblas-dev" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ys-gemm-peer.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/direct.c" <<'C'
/* Times cblas_sgemm then cblas_dgemm at the shapes given as m,n,k arguments, as yardstick does:
   matrices allocated and written before the timed calls, `warmup` untimed calls (and at least
   0.2 s of them), then `iters`
   calls each timed alone. Prints "<routine> m n k median_gflops" per routine and shape and the
   OpenBLAS core and thread count on stderr. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
static double fill(unsigned long long* s) { *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1; }
int main(int argc, char** argv) {
  int warmup = atoi(argv[1]), iters = atoi(argv[2]);
  fprintf(stderr, "%s, %d threads\n", openblas_get_corename(), openblas_get_num_threads());
  double* g = malloc(sizeof(double) * (iters > 0 ? iters : 1));
  for (int dp = 0; dp < 2; ++dp) for (int i = 3; i < argc; ++i) {
    long m, n, k; sscanf(argv[i], "%ld,%ld,%ld", &m, &n, &k);
    size_t es = dp ? 8 : 4; unsigned long long s = 1;
    char *a = malloc(m * k * es), *b = malloc(k * n * es), *c = calloc(m * n, es);
    for (long j = 0; j < m * k; ++j) if (dp) ((double*)a)[j] = fill(&s); else ((float*)a)[j] = fill(&s);
    for (long j = 0; j < k * n; ++j) if (dp) ((double*)b)[j] = fill(&s); else ((float*)b)[j] = fill(&s);
    double warm_from = now();
    for (int r = 0, timed = 0; timed < iters; ++r) {
      int warming = r < warmup || now() - warm_from < 0.2;  /* yardstick's kMinWarmupS */
      double t0 = now();
      if (dp) cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, (double*)a, k, (double*)b, n, 0.0, (double*)c, n);
      else cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, (float*)a, k, (float*)b, n, 0.0f, (float*)c, n);
      double t = now() - t0;
      if (!warming) g[timed++] = 2.0 * m * n * k / t / 1e9;
    }
    qsort(g, iters, sizeof(double), cmp);
    printf("%s %ld %ld %ld %.3f\n", dp ? "dgemm" : "sgemm", m, n, k, iters % 2 ? g[iters / 2] : (g[iters / 2 - 1] + g[iters / 2]) / 2);
    free(a); free(b); free(c);
  }
  free(g);
  return 0;
}
C
read -ra blas_flags <<<"$(pkg-config --cflags --libs openblas)"
cc -O2 -o "$work/direct" "$work/direct.c" "${blas_flags[@]}"

sizes=()
[ -n "${SIZES:-}" ] && sizes=(--sizes "$SIZES")
ys_run() {  # appends "<round> <routine> m n k median_gflops" per measurement; the core to ys.core
  "$bin" bench --no-history --filter gemm.cpu --warmup "$warmup" --iters "$iters" "${sizes[@]}" \
    --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for b in d["benchmarks"]:
    if b["id"] != "gemm.cpu": continue
    e = b.get("evidence", {})
    open(sys.argv[2], "w").write("%s, %s threads\n" % (e.get("blas_core", "?"), e.get("blas_threads", "?")))
    for m in b["measurements"]:
        p = m["params"]
        print(sys.argv[1], m["name"].split(".")[-1], p["m"], p["n"], p["k"], "%.3f" % m["value"])' \
    "$1" "$work/ys.core" >> "$work/ys.txt"
}
direct_run() {
  "$work/direct" "$warmup" "$iters" "${shapes[@]}" 2> "$work/direct.core" | sed "s/^/$1 /" >> "$work/direct.txt"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$work/ys.txt"; : > "$work/direct.txt"
ys_run 0  # round 0 finds the shapes; it is not counted
mapfile -t shapes < <(awk '$2 == "sgemm" {print $3 "," $4 "," $5}' "$work/ys.txt" | sort -u -t, -k1,1n -k2,2n -k3,3n)
((${#shapes[@]})) || { echo "yardstick measured no gemm.cpu shape" >&2; exit 2; }
: > "$work/ys.txt"
for ((i = 1; i <= runs; i++)); do
  if ((i % 2)); then ys_run "$i"; direct_run "$i"; else direct_run "$i"; ys_run "$i"; fi
done
echo "# yardstick gemm.cpu vs direct cblas_?gemm: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# OpenBLAS kernel: yardstick $(cat "$work/ys.core"), direct $(cat "$work/direct.core")" \
     "(OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset})"
echo "# $runs alternating rounds; each figure the median of $iters timed calls after $warmup warm-up;" \
     "GFLOPS = 2mnk/s/1e9; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$(dirname "$0")/peer_ratio.py" "$work/ys.txt" "$work/direct.txt" --key-columns 4 \
  --labels routine,m,n,k --peer-name direct
