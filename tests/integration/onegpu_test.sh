#!/usr/bin/env bash
# Every local GPU from one process (nccl-tests -g), the way an operator gets it: `yardstick bench`,
# `yardstick run` and `yardstick burnin` on a node with several GPUs and no launcher drive all of
# them from one process; under mpirun each rank keeps one GPU. The GPUs here are the fake CUDA
# driver and fake NCCL (tests/fake_gpus/: 4 GPUs, collectives performed on host memory), reached
# through the same dlopen seam as the real libraries (YARDSTICK_LIBCUDA, YARDSTICK_LIBNCCL).
# Nothing here is a GPU figure: the fake's speed is the host's memcpy.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
fakes=$(dirname "$bin")
export YARDSTICK_LIBCUDA=$fakes/libys_fake_cuda.so YARDSTICK_LIBNCCL=$fakes/libys_fake_nccl.so YS_FAKE_GPUS=4
for f in "$YARDSTICK_LIBCUDA" "$YARDSTICK_LIBNCCL"; do
  [ -f "$f" ] || { echo "FAIL: $f is not built (targets ys_fake_cuda, ys_fake_nccl)"; exit 1; }
done

expect_rc 0 "bench, 4 fake GPUs, no launcher" -- "$bin" bench --filter 'coll.*' --sizes 1K:64K:x8 --iters 3 --no-history
for c in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv; do
  expect_in "$tmp/out" "# coll.$c: nccl (NCCL 9.99.99) on device buffers, 4 ranks (one process, 4 GPUs), float" "table title of $c"
done
[ "$(grep -c '^# Out of bounds values : 0 OK$' "$tmp/out")" -eq 7 ] && passes=$((passes + 1)) \
  || { echo "FAIL: 7 clean data checks"; grep -n 'Out of bounds' "$tmp/out"; fails=$((fails + 1)); }

expect_rc 0 "bench --json" -- "$bin" bench --filter 'coll.*' --sizes 1K:64K:x8 --iters 3 --json --no-history
/usr/bin/python3 - "$tmp/out" <<'EOF' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
factor = {"all_reduce": 1.5, "all_gather": 0.75, "reduce_scatter": 0.75, "alltoall": 0.75,
          "broadcast": 1.0, "reduce": 1.0, "sendrecv": 1.0}  # nccl-tests, n = 4
units = {b["id"]: b for b in doc["benchmarks"]}
assert set(units) == {"coll." + c for c in factor}, units.keys()
for c, f in factor.items():
    u = units["coll." + c]
    assert u["outcome"] == "pass", u
    by = {}
    for m in u["measurements"]:
        if m["name"].endswith((".busbw", ".algbw")):
            p = m["params"]
            assert p["ranks"] == "4" and p["gpus_per_process"] == "4" and p["backend"] == "nccl", p
            assert len(m["samples"]) == 4, m
            by.setdefault((p["size"], p["inplace"]), {})[m["name"].rsplit(".", 1)[1]] = m["value"]
    assert len(by) == 6, by  # 1K, 8K, 64K x out of place, in place
    for k, v in by.items():
        assert v["algbw"] > 0 and abs(v["busbw"] / v["algbw"] - f) < 1e-9, (c, k, v)
EOF

# A fault in the "library": one element of rank 2's output wrong after every call.
YS_FAKE_NCCL_CORRUPT_RANK=2 expect_rc 1 "a wrong element is caught" -- "$bin" bench --filter coll.all_reduce --sizes 4K --iters 2 --no-history
expect_in "$tmp/out" "YS-BENCH-001" "the data-check finding"
expect_in "$tmp/out" "rank2" "names the rank"
expect_in "$tmp/out" "# Out of bounds values : 2 FAILED" "both placements counted"

# One GPU, no launcher: one rank on one device, nothing to exchange.
# One GPU: the collective skips, nothing measured: INCONCLUSIVE (exit 2).
YS_FAKE_GPUS=1 expect_rc 2 "one fake GPU" -- "$bin" bench --filter coll.all_reduce --sizes 4K --iters 2 --no-history
expect_in "$tmp/out" "one rank, one device: nothing to exchange; run under mpirun/srun or on a node with several GPUs" "the reason"
expect_not_in "$tmp/out" "GB/s" "no figure"

# yardstick run: the quick profile's collectives in the one-process mode, in the run document.
# The units that need a GPU kernel (gemm.gpu, mem.gpu, copy.*, host.launch_latency) end in error
# against the fake driver, which loads no PTX: exit 2 here, by design of the fake.
expect_rc 2 "run, 4 fake GPUs" -- "$bin" run --filter 'cpu.smt' --out "$tmp/run" --no-history
expect_in "$tmp/out" "cuModuleLoadData" "kernel units: the fake driver's refusal, not a figure"
/usr/bin/python3 - "$tmp/run/run.json" <<'EOF' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
benches = [b for n in doc.get("nodes", [doc]) for b in n.get("benchmarks", [])] or doc["benchmarks"]
coll = [b for b in benches if b["id"].startswith("coll.")]
assert len(coll) == 7, [b["id"] for b in benches]
for b in coll:
    assert b["outcome"] == "pass", b
    m = next(m for m in b["measurements"] if m["name"].endswith(".busbw"))
    assert m["params"]["gpus_per_process"] == "4" and m["params"]["ranks"] == "4", m["params"]
EOF

# Burn-in: the network load's all_reduce spans the 4 GPUs of this one process.
# 3 s are too short for a drift baseline: no fault, drift not judged: INCONCLUSIVE (exit 2).
expect_rc 2 "burnin --profile network, 4 fake GPUs" -- "$bin" burnin --profile network --duration 3s --cycle 1 --out "$tmp/burnin" --json
/usr/bin/python3 - "$tmp/out" <<'EOF' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, sys
b = json.load(open(sys.argv[1]))["burnin"]
net = [e for e in b["entities"] if e["entity"] == "net"]
assert len(net) == 1 and net[0]["metric"] == "all_reduce.busbw", b["entities"]
assert net[0]["iterations"] > 0 and net[0]["miscompares"] == 0, net[0]
assert not b["faults"], b["faults"]
EOF

# Under mpirun each rank drives one GPU (ncclCommInitRank across processes), which the fake
# refuses to simulate (ranks in other processes): the error proves the per-rank layout was
# chosen, not the one-process one.
if command -v mpirun >/dev/null; then
  expect_rc 2 "mpirun -np 2: per-rank layout" -- mpirun --allow-run-as-root --oversubscribe -np 2 -x YARDSTICK_LIBCUDA -x YARDSTICK_LIBNCCL -x YS_FAKE_GPUS \
    "$bin" bench --filter coll.all_reduce --sizes 4K --iters 2 --no-history
  expect_in "$tmp/out" "ncclCommInitRank(&comm, control.size(), id, control.rank()): invalid usage (fake NCCL)" "ncclCommInitRank over the job's 2 ranks"
fi
finish
