#!/usr/bin/env bash
# yardstick's MPI collectives side by side with the Intel MPI Benchmarks (IMB-MPI1) on this
# machine: same collectives, message sizes, rank count and iteration count; for each collective
# and size the two tools run alternately, REPEATS times each (yardstick, IMB, IMB, yardstick, ...:
# the order flips each round), so load from other processes falls on both alike. Each round gives
# one ratio yardstick / IMB of the time per op (1.00: the harness adds nothing; above 1: yardstick
# measured more time). Printed per collective and size: each tool's median time, the median ratio,
# the spread of the per-round ratios (min-max and IQR), the 95% confidence interval of the median
# ratio and the verdict (bench/peer_ratio.py): "differs" only when 1.00 lies outside that
# interval (a sign test: at most 3.1% of keys called different by chance at 6 rounds) and the
# median ratio is further from 1.00 than the spread (the IQR's width); "within spread" when the
# difference is consistent but smaller than the spread; else "same"; below 6 rounds "too few
# rounds".
#
#   bench/coll_vs_imb.sh [build/yardstick]
#
# The peer: IMB_MPI1=/path/to/IMB-MPI1, else IMB-MPI1 on PATH, else IMB_SRC=/path/to/a checkout of
# github.com/intel/mpi-benchmarks, built here into a temporary folder with mpicc/mpicxx and -O2
# (instead of IMB's -O0 -Werror) and removed at exit. Nothing is downloaded or kept; without a
# peer the script says how to get one and exits 2 (Debian 12 packages Open MPI, not IMB).
# Environment: NP (ranks; default the number of CPUs, at most 4), SIZES (yardstick --sizes,
# 1K:1M:x32), ITERS (timed iterations, 200: a 1 us operation needs many to outlast a context
# switch), REPEATS (rounds, 6), COLLS (collectives, default all seven).
#
# What is compared: yardstick's time_us (nccl-tests' method: one wall-clock timer around ITERS
# back-to-back calls, divided by ITERS, averaged over the ranks) and IMB's t_avg (per-call
# MPI_Wtime summed, averaged over the ranks) run with -sync off (no barrier between calls, as
# nccl-tests), -iter_policy off (exactly ITERS calls) and -root_shift off (root 0 every call, as
# nccl-tests' -r 0; -root_shift on, or IMB before 4.1, moves the root each call; IMB 2017 made
# off the default: README.md of the IMB sources, src_c/IMB_init.c and src_c/IMB_bcast.c). Both
# run cache-hot: yardstick one size per invocation, so its per-iteration buffer rotation
# (nccl-tests') has a single position, and IMB without -off_cache (its default). Both call the library collective
# (MPI_Bcast etc.) on separate send and receive buffers (yardstick's out-of-place row). Both get a
# fresh process per collective and size (Open MPI's state after one collective changes the next
# one's speed) and initialise MPI plainly (thread level single, IMB's and nccl-tests' default;
# IMB_THREAD_LEVEL=funneled shows what MPI_THREAD_FUNNELED costs). Before its timed calls
# yardstick makes WARMUP calls (default 20, as IMB's warm-up: 10% of ITERS, at least 10, in
# src_c/IMB_warm_up.c), so neither measures a cold start.
# Buffers: IMB takes its buffers from MPI_Alloc_mem, which Open MPI serves from malloc (any 16-byte
# offset in a page), yardstick from mmap (page-aligned, as cudaMalloc'd buffers are for
# nccl-tests). With Open MPI's shared-memory transport a message then spans one page more for IMB:
# a plain MPI_Bcast program on 2 ranks takes 4.2-4.3 us at 32 KiB with malloc'd buffers against
# 3.9-4.0 us with page-aligned ones, so yardstick reads 0.86-0.94 of IMB's time at 32 KiB in most
# runs: one page more to copy, not a harness that skips work. IMB_BUFFERS=aligned runs IMB with a
# preloaded MPI_Alloc_mem (compiled here into the temporary folder) that returns page-aligned
# blocks; that brings the 32 KiB ratios to 0.94-1.04, but IMB's Reduce_scatter_block at 1 MiB then
# takes 4x longer (780-820 us against 180-195 us, reproducible; a plain MPI_Reduce_scatter_block
# program with page-aligned buffers shows no such slowdown, and the cause is not known), so the
# default is IMB as it runs elsewhere (IMB_BUFFERS=malloc). A preloaded malloc that page-aligns
# every large block, Open MPI's scratch buffers too, made IMB's 1 MiB all-reduce 3x slower.
# Ranks: more ranks than CPUs (--oversubscribe) makes Open MPI yield the CPU while it polls, and
# the time then depends on which ranks the kernel puts on the same CPU (a 1 MiB broadcast on 4
# ranks and 2 CPUs was seen at 0.25 ms in one process and 7 ms in the next); NP above the CPU
# count is allowed but warned about.
# Sizes: yardstick's size is nccl-tests' (the whole array for all_gather, reduce_scatter and
# alltoall); IMB's message is the per-rank chunk there, so IMB runs those at size / NP.
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
[ -x "$bin" ] || { echo "no yardstick binary at $bin: build it first (make build)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "mpirun not found: apt-get install openmpi-bin libopenmpi-dev" >&2; exit 2; }
cpus=$(nproc)
np=${NP:-$((cpus < 4 ? cpus : 4))} sizes=${SIZES:-1K:1M:x32} iters=${ITERS:-200}
repeats=${REPEATS:-6} warmup=${WARMUP:-20}
colls=${COLLS:-all_reduce broadcast reduce sendrecv all_gather reduce_scatter alltoall}
work=$(mktemp -d "${TMPDIR:-/tmp}/ys-coll-peer.XXXXXX"); trap 'rm -rf "$work"' EXIT
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$np" "$@" </dev/null; }  # mpirun reads stdin

if [ -n "${IMB_MPI1:-}" ]; then imb=$IMB_MPI1 imb_from=$IMB_MPI1
elif command -v IMB-MPI1 >/dev/null; then imb=$(command -v IMB-MPI1) imb_from=$imb
elif [ -n "${IMB_SRC:-}" ]; then
  command -v mpicc >/dev/null || { echo "mpicc not found: apt-get install libopenmpi-dev" >&2; exit 2; }
  cp -r "$IMB_SRC" "$work/imb"
  sed -i 's/-g -O0 -Wall -Werror/-g -O2 -Wall/; s/-g -O0 -Wall -Wextra -Werror/-g -O2 -Wall -Wextra/' "$work/imb/src_cpp/Makefile"
  make -s -C "$work/imb" IMB-MPI1 CC=mpicc CXX=mpicxx >"$work/imb-build.log" 2>&1 \
    || { tail -20 "$work/imb-build.log"; echo "IMB-MPI1 did not build from $IMB_SRC" >&2; exit 2; }
  imb=$work/imb/IMB-MPI1 imb_from="built from $IMB_SRC ($(git -C "$IMB_SRC" describe --always --tags 2>/dev/null || echo 'not a git checkout'))"
else
  echo "no IMB-MPI1: Debian 12 does not package the Intel MPI Benchmarks. Install Open MPI" \
       "(apt-get install openmpi-bin libopenmpi-dev), clone github.com/intel/mpi-benchmarks" \
       "yourself and set IMB_SRC to the checkout (built in a temporary folder), or set IMB_MPI1" \
       "to an IMB-MPI1 binary" >&2
  exit 2
fi
[ -x "$imb" ] || { echo "IMB-MPI1 at $imb is not executable" >&2; exit 2; }
imb_env=() imb_buffers=${IMB_BUFFERS:-malloc}
case $imb_buffers in
  malloc) ;;
  aligned)
    command -v mpicc >/dev/null || { echo "mpicc not found (for the page-aligning MPI_Alloc_mem; IMB_BUFFERS=malloc runs without it)" >&2; exit 2; }
    printf '%s\n' '#include <mpi.h>' '#include <stdlib.h>' \
      'int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *base) {' \
      '  (void)info;' \
      '  return posix_memalign((void **)base, 4096, size > 0 ? (size_t)size : 1) ? MPI_ERR_NO_MEM : MPI_SUCCESS;' \
      '}' 'int MPI_Free_mem(void *base) { free(base); return MPI_SUCCESS; }' >"$work/align.c"
    mpicc -O2 -shared -fPIC -o "$work/align.so" "$work/align.c" || { echo "the page-aligning MPI_Alloc_mem did not build" >&2; exit 2; }
    imb_env=(-x "LD_PRELOAD=$work/align.so") ;;
  *) echo "IMB_BUFFERS=$imb_buffers: expected aligned or malloc" >&2; exit 2 ;;
esac
((np <= cpus)) || echo "# warning: $np ranks on $cpus CPUs (oversubscribed): times depend on the kernel's placement of the ranks" >&2

python3 - "$sizes" >"$work/sizes.txt" <<'EOF'
import sys
def parse(t):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(t[:-1]) * m[t[-1]] if t[-1] in m else int(t)
lo, hi, step = (sys.argv[1].split(":") + [None, None])[:3] if ":" in sys.argv[1] else (sys.argv[1],) * 2 + ("x2",)
s = parse(lo)
while s <= parse(hi):
    print(s)
    s = s * int(step[1:]) if step[0] == "x" else s + parse(step[1:])
EOF

imb_opts=(-thread_level "${IMB_THREAD_LEVEL:-single}" -npmin "$np" -iter "$iters" -iter_policy off -sync off
          -root_shift off -zero_size off -time 600 -mem 4)
declare -A imb_name=([all_reduce]=Allreduce [broadcast]=Bcast [reduce]=Reduce [sendrecv]=Sendrecv
                     [all_gather]=Allgather [reduce_scatter]=Reduce_scatter_block [alltoall]=Alltoall)
ys_run() {  # round collective size: appends "round collective size time_us" to ys.txt
  mpi "$bin" bench --no-history --filter "coll.$2" --backend cpu --sizes "$3" --iters "$iters" \
    --warmup "$warmup" --json >"$work/ys.json" 2>"$work/ys.err" || { cat "$work/ys.err" >&2; exit 2; }
  python3 - "$work/ys.json" "$1" "$2" "$3" >>"$work/ys.txt" <<'EOF'
import json, sys
path, rnd, coll, size = sys.argv[1:]
for b in json.load(open(path))["benchmarks"]:
    for m in b["measurements"]:
        p = m["params"]
        if m["name"] == f"coll.{coll}.time_us" and p.get("inplace") == "0" and p["size"] == size:
            print(rnd, coll, size, m["value"])
EOF
}
imb_run() {  # round collective size: appends "round collective size t_avg" to imb.txt
  local len=$3
  case $2 in all_gather|reduce_scatter|alltoall) len=$(($3 / np)) ;; esac
  echo "$len" >"$work/len.txt"
  mpi "${imb_env[@]}" "$imb" "${imb_name[$2]}" -msglen "$work/len.txt" "${imb_opts[@]}" >"$work/imb.out" 2>&1 \
    || { tail -20 "$work/imb.out" >&2; exit 2; }
  awk -v r="$1" -v c="$2" -v s="$3" -v len="$len" '$1 == len && NF >= 5 {print r, c, s, $5}' \
    "$work/imb.out" >>"$work/imb.txt"  # columns: #bytes #repetitions t_min t_max t_avg
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$work/ys.txt"; : >"$work/imb.txt"
for c in $colls; do
  [ -n "${imb_name[$c]:-}" ] || { echo "unknown collective $c" >&2; exit 2; }
  while read -r size; do
    for ((r = 1; r <= repeats; r++)); do
      if ((r % 2)); then ys_run "$r" "$c" "$size"; imb_run "$r" "$c" "$size"
      else imb_run "$r" "$c" "$size"; ys_run "$r" "$c" "$size"; fi
    done
  done <"$work/sizes.txt"
done

echo "# yardstick $("$bin" version 2>/dev/null | head -1) vs IMB-MPI1 ($imb_from), $(mpirun --version | head -1)"
echo "# $np ranks on $cpus CPUs, $iters timed iterations after $warmup warm-up, $repeats alternating rounds," \
     "one process per collective, size and round; IMB -thread_level ${IMB_THREAD_LEVEL:-single}," \
     "IMB buffers $imb_buffers"
echo "# time per op in us; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$(dirname "$0")/peer_ratio.py" "$work/ys.txt" "$work/imb.txt" --key-columns 2 \
  --labels collective,size --peer-name imb --digits 2
