#!/usr/bin/env bash
# yardstick's MPI collectives side by side with the Intel MPI Benchmarks (IMB-MPI1) on this
# machine, in one go: same collectives, same message sizes, same rank count, same iteration
# count, alternating runs; prints the median time per op of each and the ratio yardstick/IMB
# (time: 1.00 = the harness adds nothing, below 1 = yardstick measured less time).
#
#   IMB_SRC=/path/to/mpi-benchmarks bench/coll_vs_imb.sh [build/yardstick]
#
# IMB_SRC is a checkout of github.com/intel/mpi-benchmarks; it is copied to a scratch folder and
# IMB-MPI1 built there with mpicc/mpicxx and our release flags (-O2 -g instead of IMB's -O0
# -Werror). Nothing is downloaded. Environment: NP (ranks, 4), SIZES (yardstick --sizes,
# 1K:1M:x32), ITERS (timed iterations, 200: a 1 us operation needs many to outlast a context
# switch), REPEATS (alternating runs of each tool, 5).
#
# What is compared: yardstick's time_us (nccl-tests method: one wall-clock timer around ITERS
# back-to-back calls, divided by ITERS, averaged over the ranks) and IMB's t_avg (per-call
# MPI_Wtime summed, averaged over the ranks) run with -sync off (no barrier between calls, as
# nccl-tests), -iter_policy off (exactly ITERS calls) and -root_shift off (root 0). Both run
# cache-hot: yardstick is run one size per invocation, so its per-iteration buffer rotation
# (nccl-tests') has a single position, and IMB runs without -off_cache (its default). The ratio
# then isolates what each harness adds around the same MPI call. Each tool runs one collective
# per process: Open MPI's state after one collective changes the next one's speed (after an
# MPI_Allreduce, MPI_Reduce_scatter_block at 1 MiB takes 2-4x longer, in IMB as in yardstick),
# so both get a fresh process per collective and size. Both initialise MPI plainly (MPI_Init,
# thread level single: IMB's and nccl-tests' default, and yardstick's); with Open MPI 4.1 asking
# for MPI_THREAD_FUNNELED alone costs about 0.1 us per small collective, which
# IMB_THREAD_LEVEL=funneled shows.
# Sizes: yardstick's size is nccl-tests' (the whole array for all_gather, reduce_scatter and
# alltoall); IMB's message is the per-rank chunk there, so IMB runs those at size / NP.
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
: "${IMB_SRC:?set IMB_SRC to a checkout of github.com/intel/mpi-benchmarks}"
np=${NP:-4} sizes=${SIZES:-1K:1M:x32} iters=${ITERS:-200} repeats=${REPEATS:-5}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$np" "$@" </dev/null; }  # mpirun reads stdin

cp -r "$IMB_SRC" "$work/imb"
sed -i 's/-g -O0 -Wall -Werror/-g -O2 -Wall/; s/-g -O0 -Wall -Wextra -Werror/-g -O2 -Wall -Wextra/' "$work/imb/src_cpp/Makefile"
make -s -C "$work/imb" IMB-MPI1 CC=mpicc CXX=mpicxx >"$work/imb-build.log" 2>&1 \
  || { tail -20 "$work/imb-build.log"; echo "IMB-MPI1 did not build" >&2; exit 2; }
imb=$work/imb/IMB-MPI1

# The byte sizes of the sweep, and IMB's message lengths for both groups.
python3 - "$sizes" "$np" "$work" <<'EOF'
import sys
spec, np, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def parse(t):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(t[:-1]) * m[t[-1]] if t[-1] in m else int(t)
lo, hi, step = spec.split(":")
sizes, s = [], parse(lo)
while s <= parse(hi):
    sizes.append(s)
    s = s * int(step[1:]) if step[0] == "x" else s + parse(step[1:])
open(f"{work}/whole.txt", "w").write("".join(f"{s}\n" for s in sizes))
open(f"{work}/chunk.txt", "w").write("".join(f"{s // np}\n" for s in sizes))
EOF

imb_opts=(-thread_level "${IMB_THREAD_LEVEL:-single}" -npmin "$np" -iter "$iters" -iter_policy off -sync off
          -root_shift off -zero_size off -time 600 -mem 4)
declare -A imb_name=([all_reduce]=Allreduce [broadcast]=Bcast [reduce]=Reduce [sendrecv]=Sendrecv
                     [all_gather]=Allgather [reduce_scatter]=Reduce_scatter_block [alltoall]=Alltoall)
for r in $(seq "$repeats"); do
  for c in "${!imb_name[@]}"; do
    case $c in all_gather|reduce_scatter|alltoall) lens=$work/chunk.txt ;; *) lens=$work/whole.txt ;; esac
    paste "$work/whole.txt" "$lens" | while read -r size len; do
      mpi "$bin" bench --filter "coll.$c" --backend cpu --sizes "$size" --iters "$iters" --warmup 5 --json \
        >"$work/ys.$r.$c.$size.json" 2>"$work/ys.err" || { cat "$work/ys.err" >&2; exit 2; }
      echo "$len" >"$work/len.txt"
      mpi "$imb" "${imb_name[$c]}" -msglen "$work/len.txt" "${imb_opts[@]}" >>"$work/imb.$r.$c.txt" 2>&1
    done
  done
done

echo "# yardstick $("$bin" version 2>/dev/null | head -1) vs IMB-MPI1 ($IMB_SRC), $(mpirun --version | head -1)"
echo "# $np ranks on $(nproc) CPUs, $iters iterations, median of $repeats alternating runs, one process per"
echo "# collective and size; IMB -thread_level ${IMB_THREAD_LEVEL:-single}; time per op in us; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work" "$repeats" "$np" <<'EOF'
import json, statistics, sys
work, repeats, np = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
imb_name = {"all_reduce": "Allreduce", "broadcast": "Bcast", "reduce": "Reduce", "sendrecv": "Sendrecv",
            "all_gather": "Allgather", "reduce_scatter": "Reduce_scatter_block", "alltoall": "Alltoall"}
split = {"all_gather", "reduce_scatter", "alltoall"}
ys, imb = {}, {}
for r in range(1, repeats + 1):
    for coll in imb_name:
        for size in open(f"{work}/whole.txt").read().split():
            doc = json.load(open(f"{work}/ys.{r}.{coll}.{size}.json"))
            for b in doc["benchmarks"]:
                for m in b["measurements"]:
                    p = m["params"]
                    if m["name"].endswith(".time_us") and ".pair" not in m["name"] and p.get("inplace") == "0":
                        ys.setdefault((coll, int(p["size"])), []).append(m["value"])
        bench = None
        for line in open(f"{work}/imb.{r}.{coll}.txt"):
            if line.startswith("# Benchmarking "):
                bench = line.split()[2]
            elif bench and line.split() and line.split()[0].isdigit():
                f = line.split()
                imb.setdefault((bench, int(f[0])), []).append(float(f[4]))  # t_avg[usec]
print(f"{'collective':<15} {'size(B)':>10} {'yardstick_us':>13} {'imb_us':>10} {'ratio':>6}")
ratios = []
for (coll, size), times in sorted(ys.items()):
    key = (imb_name[coll], size // np if coll in split else size)
    if key not in imb:
        continue
    y, i = statistics.median(times), statistics.median(imb[key])
    ratios.append(y / i)
    print(f"{coll:<15} {size:>10} {y:>13.2f} {i:>10.2f} {y / i:>6.2f}")
if ratios:
    print(f"# median ratio over {len(ratios)} (collective, size) pairs: {statistics.median(ratios):.2f}")
EOF
