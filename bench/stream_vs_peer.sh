#!/usr/bin/env bash
# yardstick's mem.stream against McCalpin's STREAM on this machine, in one go: the same array
# size (yardstick's, 4 x the last-level cache unless ARRAY_BYTES is set), the same thread count
# and placement (one thread per physical core, pinned: OMP_PLACES=cores OMP_PROC_BIND=close),
# the same iteration count, and the same compiler flags for the kernels (-O3, which
# CMakeLists.txt gives src/bench/mem/stream_kernels.cc; no -march=native, which the shipped
# binary cannot assume). Prints, per kernel, the median over RUNS of each tool's best rate
# (STREAM's "Best Rate" column) and the ratio yardstick / STREAM.
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

first=$(ys_run)
read -r _ _ _ _ threads elements <<<"$first"
"$cc" $cflags -fopenmp -DSTREAM_ARRAY_SIZE="$elements" -DNTIMES=$((iters + 1)) \
  -o "$work/stream" "$src" ${elements:+-mcmodel=medium}
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "array: $elements doubles ($((elements * 8)) bytes) x 3, threads: $threads, timed iterations: $iters"
echo "kernels: yardstick $(c++ --version | head -1) -O3 (+ -O2 -g from RelWithDebInfo, -O3 wins);" \
     "STREAM $("$cc" --version | head -1) $cflags -fopenmp"
echo "runs: $runs each, alternating; figures: median over runs of the best rate, MB/s (1e6 B/s)"

ys_rows=("$(cut -d' ' -f1-4 <<<"$first")")
st_rows=()
for ((i = 0; i < runs; i++)); do
  st_rows+=("$(stream_run)")
  [ "$i" -gt 0 ] && ys_rows+=("$(ys_run | cut -d' ' -f1-4)")
done
python3 - "${#ys_rows[@]}" "${ys_rows[@]}" "${st_rows[@]}" <<'PY'
import statistics, sys
n = int(sys.argv[1]); rows = sys.argv[2:]
ys = [list(map(float, r.split())) for r in rows[:n]]
st = [list(map(float, r.split())) for r in rows[n:]]
print("%-7s %14s %14s %8s   %s" % ("kernel", "yardstick", "STREAM", "ratio", "yardstick runs / STREAM runs"))
for i, k in enumerate(("copy", "scale", "add", "triad")):
    a = statistics.median(r[i] for r in ys); b = statistics.median(r[i] for r in st)
    print("%-7s %14.1f %14.1f %8.3f   %s / %s" % (k, a, b, a / b, " ".join("%.0f" % r[i] for r in ys),
                                                 " ".join("%.0f" % r[i] for r in st)))
PY
