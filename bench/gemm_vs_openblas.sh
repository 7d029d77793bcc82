#!/usr/bin/env bash
# yardstick's gemm.cpu against a direct OpenBLAS call on this machine, in one go: the same
# routines (sgemm, dgemm), shapes (read back from yardstick's own output), layout (row-major,
# no transposes, alpha 1, beta 0), inputs in [-1, 1), warm-up and timed-call counts, and the same
# OpenBLAS library and thread count (the environment's: OPENBLAS_CORETYPE and
# OPENBLAS_NUM_THREADS apply to both). The direct caller is a small C program this script writes
# to /tmp. Prints per shape the median over RUNS of each tool's median GFLOPS and the ratio
# yardstick / direct, and the OpenBLAS core in use.
#
#   bench/gemm_vs_openblas.sh [RUNS] [BINARY]      SIZES=256:1024:x2 for squares only (quicker)
set -euo pipefail
runs=${1:-3}
bin=${2:-build/yardstick}
[ -x "$bin" ] || { echo "no binary at $bin: build first" >&2; exit 2; }
warmup=${WARMUP:-1}
iters=${ITERS:-5}
work=$(mktemp -d /tmp/ys-gemm-peer.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat > "$work/direct.c" <<'C'
/* Times cblas_sgemm / cblas_dgemm at the shapes given as m,n,k arguments; prints one line per
   routine and shape: "<routine> m n k median_gflops". */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }
static double fill(unsigned long long* s) { *s = *s * 6364136223846793005ULL + 1442695040888963407ULL; return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1; }
int main(int argc, char** argv) {
  int warmup = atoi(argv[1]), iters = atoi(argv[2]);
  fprintf(stderr, "core %s threads %d\n", openblas_get_corename(), openblas_get_num_threads());
  for (int dp = 0; dp < 2; ++dp) for (int i = 3; i < argc; ++i) {
    long m, n, k; sscanf(argv[i], "%ld,%ld,%ld", &m, &n, &k);
    size_t es = dp ? 8 : 4; unsigned long long s = 1;
    char *a = malloc(m * k * es), *b = malloc(k * n * es), *c = malloc(m * n * es);
    for (long j = 0; j < m * k; ++j) if (dp) ((double*)a)[j] = fill(&s); else ((float*)a)[j] = fill(&s);
    for (long j = 0; j < k * n; ++j) if (dp) ((double*)b)[j] = fill(&s); else ((float*)b)[j] = fill(&s);
    double g[1000];
    for (int r = 0; r < warmup + iters; ++r) {
      double t0 = now();
      if (dp) cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, (double*)a, k, (double*)b, n, 0.0, (double*)c, n);
      else cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, (float*)a, k, (float*)b, n, 0.0f, (float*)c, n);
      double t = now() - t0;
      if (r >= warmup) g[r - warmup] = 2.0 * m * n * k / t / 1e9;
    }
    qsort(g, iters, sizeof(double), cmp);
    printf("%s %ld %ld %ld %.3f\n", dp ? "dgemm" : "sgemm", m, n, k, iters % 2 ? g[iters / 2] : (g[iters / 2 - 1] + g[iters / 2]) / 2);
    free(a); free(b); free(c);
  }
  return 0;
}
C
cc -O2 -o "$work/direct" "$work/direct.c" $(pkg-config --cflags --libs openblas)

sizes=()
[ -n "${SIZES:-}" ] && sizes=(--sizes "$SIZES")
ys_run() {  # "<routine> m n k median_gflops" per measurement
  "$bin" bench --filter gemm.cpu --warmup "$warmup" --iters "$iters" "${sizes[@]}" --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
for b in d["benchmarks"]:
    if b["id"] != "gemm.cpu": continue
    for m in b["measurements"]:
        p = m["params"]
        print(m["name"].split(".")[-1], p["m"], p["n"], p["k"], "%.3f" % m["value"])'
}
: > "$work/ys.txt"; : > "$work/direct.txt"
for ((i = 0; i < runs; i++)); do
  ys_run >> "$work/ys.txt"
  shapes=$(awk '$1 == "sgemm" {print $2 "," $3 "," $4}' "$work/ys.txt" | sort -u -t, -k1,1n -k2,2n -k3,3n)
  "$work/direct" "$warmup" "$iters" $shapes >> "$work/direct.txt" 2> "$work/core.txt"
done
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "OpenBLAS: $(cat "$work/core.txt") (OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}, OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset})"
echo "each figure: median over $runs runs of the median of $iters timed calls after $warmup warm-up, GFLOPS = 2mnk/s/1e9"
python3 - "$work/ys.txt" "$work/direct.txt" <<'PY'
import collections, statistics, sys
def load(p):
    d = collections.defaultdict(list)
    for line in open(p):
        r, m, n, k, g = line.split(); d[(r, int(m), int(n), int(k))].append(float(g))
    return d
ys, dr = load(sys.argv[1]), load(sys.argv[2])
print("%-6s %6s %6s %6s %11s %11s %7s" % ("", "m", "n", "k", "yardstick", "direct", "ratio"))
ratios = []
for key in sorted(ys, key=lambda t: (t[0], t[1] * t[2] * t[3])):
    if key not in dr: continue
    a, b = statistics.median(ys[key]), statistics.median(dr[key])
    ratios.append(a / b)
    print("%-6s %6d %6d %6d %11.1f %11.1f %7.3f" % (*key, a, b, a / b))
print("median ratio over shapes: %.3f" % statistics.median(ratios))
PY
