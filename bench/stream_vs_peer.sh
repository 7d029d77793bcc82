#!/usr/bin/env bash
# yardstick's mem.stream against McCalpin's STREAM on this machine, in one go: the same array
# size (yardstick's, 4 x the last-level cache unless ARRAY_BYTES is set), the same thread count
# and placement (one thread per physical core, pinned: OMP_PLACES=cores OMP_PROC_BIND=close),
# the same iteration count, and the same compiler flags for the kernels (-O3, which
# CMakeLists.txt gives src/bench/mem/internal/stream_kernels.cc; no -march=native, which the shipped
# binary cannot assume).
#
# The method, side by side (what was checked to be the same, and how):
#   bytes       copy, scale 2 arrays x 8 B x N; add, triad 3 x 8 B x N; 1 MB = 1e6 B (both)
#   sample      the best (shortest) of the timed iterations after one untimed (stream.c's
#               NTIMES = ITERS + 1, the first dropped; yardstick --warmup 1 --iters ITERS)
#   timed span  clock read by the first thread before the threads start, read again after the
#               last one ends (stream.c: mysecond() around the parallel loop; yardstick: thread 0
#               before a spinning barrier and after another; both ~1 us for an empty kernel)
#   placement   each thread first-touches the share it later streams (static schedule, the
#               same contiguous shares), threads pinned one per core
#   code        the same loops, vectorised the same (SSE2 at -O3 without -march; copy is a call
#               to glibc's memcpy in both): `objdump -d` of stream_kernels.cc.o and of stream
#   alignment   yardstick's arrays start on 2 MiB, stream.c's where the linker puts them; the
#               offsets between the three arrays are multiples of 4 KiB in both
#
# Runs alternate strictly (STREAM, yardstick, STREAM, yardstick, ...): each pair ran next to each
# other, so a pair's ratio sees the same neighbours. Printed per kernel: the median over runs of
# each tool's best rate, the ratio of the medians, the median of the per-pair ratios, and the best
# rate over all runs of each (the figure least moved by other load). The machine must be quiet:
# with the 1-minute load average above MAX_LOAD (default 0.5) the script waits up to WAIT_S
# seconds (default 600) for it to fall, then refuses (exit 3) unless FORCE=1; the load before
# each run is printed with the figures. On a machine other processes share, STREAM's figure is the
# slowest thread's: one neighbour on one core halves that core's share, so rates under load say
# more about the load than about either tool.
#
#   STREAM_SRC=/path/to/stream.c bench/stream_vs_peer.sh [RUNS] [BINARY]
#
# stream.c is the public https://github.com/jeffhammond/STREAM (or www.cs.virginia.edu/stream);
# bring it yourself: this script neither downloads nor ships it.
set -euo pipefail
runs=${1:-5}
bin=${2:-build/yardstick}
src=${STREAM_SRC:?set STREAM_SRC to stream.c (or the directory holding it)}
[ -d "$src" ] && src="$src/stream.c"
[ -f "$src" ] || { echo "no stream.c at $src" >&2; exit 2; }
[ -x "$bin" ] || { echo "no binary at $bin: build first" >&2; exit 2; }
cc=${CC:-gcc}
cflags=${PEER_CFLAGS:--O3}
iters=${ITERS:-20}
work=$(mktemp -d /tmp/ys-stream-peer.XXXXXX)
trap 'rm -rf "$work"' EXIT

sizes=()
[ -n "${ARRAY_BYTES:-}" ] && sizes=(--sizes "$ARRAY_BYTES")
ys_run() {  # prints "copy scale add triad" best rates in MB/s, then threads and elements
  "$bin" bench --filter mem.stream --warmup 1 --iters "$iters" "${sizes[@]}" --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
ms = [m for b in d["benchmarks"] for m in b["measurements"] if m["params"].get("numa_node") == "all"]
best = {m["name"].split(".")[-1]: m["stats"]["max"] * 1000 for m in ms}
p = ms[0]["params"]
print(" ".join("%.1f" % best[k] for k in ("copy", "scale", "add", "triad")), p["threads"], p["elements"])'
}
stream_run() {  # the same four numbers from stream.c
  OMP_NUM_THREADS=$threads OMP_PLACES=cores OMP_PROC_BIND=close "$work/stream" |
    awk '/^(Copy|Scale|Add|Triad):/ {printf "%s ", $2} /Solution Validates/ {ok=1}
         END {if (!ok) {print "STREAM did not validate" > "/dev/stderr"; exit 1}; print ""}'
}

max_load=${MAX_LOAD:-0.5}
load1() { cut -d' ' -f1 /proc/loadavg; }
quiet() { awk -v l="$(load1)" -v m="$max_load" 'BEGIN {exit !(l < m)}'; }
waited=0
until quiet; do
  if [ "$waited" -ge "${WAIT_S:-600}" ]; then
    if [ "${FORCE:-0}" = 1 ]; then echo "warning: load $(load1) >= $max_load: the figures measure the load too" >&2; break; fi
    echo "the 1-minute load is $(load1) (>= $max_load): other processes share the cores; run when it is quiet, or FORCE=1" >&2
    exit 3
  fi
  sleep 10; waited=$((waited + 10))
done

first=$(ys_run)
read -r _ _ _ _ threads elements <<<"$first"
"$cc" $cflags -fopenmp -DSTREAM_ARRAY_SIZE="$elements" -DNTIMES=$((iters + 1)) \
  -o "$work/stream" "$src" ${elements:+-mcmodel=medium}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "array: $elements doubles ($((elements * 8)) bytes) x 3, threads: $threads, timed iterations: $iters"
echo "kernels: yardstick $(c++ --version | head -1) -O3 (+ -O2 -g from RelWithDebInfo, -O3 wins);" \
     "STREAM $("$cc" --version | head -1) $cflags -fopenmp"
echo "runs: $runs pairs, alternating (the first yardstick run, which sized the arrays, is not counted);" \
     "figures: MB/s (1e6 B/s), each run's best rate"

ys_rows=() st_rows=() loads=()
for ((i = 0; i < runs; i++)); do
  loads+=("$(load1)")
  st_rows+=("$(stream_run)")
  ys_rows+=("$(ys_run | cut -d' ' -f1-4)")
done
echo "1-minute load before each pair: ${loads[*]}"
python3 - "$runs" "${ys_rows[@]}" "${st_rows[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1]); rows = sys.argv[2:]
ys = [list(map(float, r.split())) for r in rows[:n]]
st = [list(map(float, r.split())) for r in rows[n:]]
print("%-7s %11s %11s %7s %10s %11s %11s %7s   %s" % ("kernel", "yardstick", "STREAM", "ratio", "pair ratio",
      "ys best", "STREAM best", "ratio", "yardstick runs / STREAM runs"))
for i, k in enumerate(("copy", "scale", "add", "triad")):
    a = statistics.median(r[i] for r in ys); b = statistics.median(r[i] for r in st)
    pair = statistics.median(y[i] / s[i] for y, s in zip(ys, st))
    ba = max(r[i] for r in ys); bb = max(r[i] for r in st)
    print("%-7s %11.1f %11.1f %7.3f %10.3f %11.1f %11.1f %7.3f   %s / %s" % (
        k, a, b, a / b, pair, ba, bb, ba / bb, " ".join("%.0f" % r[i] for r in ys),
        " ".join("%.0f" % r[i] for r in st)))
PY
