#!/usr/bin/env bash
# nccl-tests logs of real machines (tests/fixtures/real/nccl-tests, SOURCES.md) through
# `yardstick ingest` as an operator runs it: the console tables, the run document (--json) whose
# coll.all_reduce.busbw at every size and placement equals the log's own column, and that
# document taken by compare, diagnose, merge and predict --measured like a bench run; a failed
# data check exits 1 with YS-BENCH-001; a bandwidth the log does not let be judged (two nodes,
# one GPU) exits 2 (INCONCLUSIVE) and one far below its link class warns (YS-BENCH-004); bad input
# exits 2 naming the file and line.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
real=$src/tests/fixtures/real/nccl-tests
h100=$real/a3mega_h100_2x8_all_reduce.txt

expect_rc 2 "H100 log over two nodes, console: bandwidth not judged" -- "$bin" ingest "$h100"
expect_in "$tmp/out" "coll.all_reduce" "the unit named"
expect_in "$tmp/out" "# Avg bus bandwidth    : 70.742" "the log's footer"
expect_in "$tmp/out" "338.82" "the 8 GiB busbw"

expect_in "$tmp/out" "not judged" "why the bandwidth is not judged"
expect_rc 2 "H100 log, run document" -- "$bin" ingest "$h100" --json
cp "$tmp/out" "$tmp/h100.json"
awk '/^ +[0-9]+ +[0-9]+ +float/ {print $1, 0, $8; print $1, 1, $12}' "$h100" >"$tmp/printed"
/usr/bin/python3 - "$tmp/h100.json" "$tmp/printed" <<'PY' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
printed = {(s, p): float(v) for s, p, v in (l.split() for l in open(sys.argv[2]))}
assert len(printed) == 62, len(printed)
(u,) = doc["benchmarks"]
assert u["id"] == "coll.all_reduce" and u["outcome"] == "error", (u["id"], u["outcome"])
got = {(m["params"]["size"], m["params"]["inplace"]): m["value"]
       for m in u["measurements"] if m["name"] == "coll.all_reduce.busbw"}
assert got == printed, set(got.items()) ^ set(printed.items())
names = {m["name"] for m in u["measurements"]}
assert names == {"coll.all_reduce." + n for n in ("busbw", "algbw", "time_us", "avg_busbw")}, names
m = next(m for m in u["measurements"] if m["name"] == "coll.all_reduce.busbw")
assert m["unit"] == "GB/s" and m["params"]["backend"] == "nccl" and m["params"]["ranks"] == "16", m
assert [n["hostname"] for n in doc["nodes"]] == ["ztan-mig-235z", "ztan-mig-gq73"], doc["nodes"]
PY

# Every run document ingest writes keeps the run document's schema.
for f in "$h100" "$src/tests/fixtures/real/dcgmi/h100_8gpu_r3_cuinit_fail.txt" "$src/tests/fixtures/real/nvlink/v100_nvlink_s_two_inactive.txt"; do
  "$bin" ingest "$f" --json >"$tmp/schema.json" 2>/dev/null
  /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/run.schema.json" "$tmp/schema.json" >/dev/null \
    && passes=$((passes + 1)) || { echo "FAIL: $f: run document outside schemas/run.schema.json"; fails=$((fails + 1)); }
done

# The document is taken like a bench run.
expect_rc 0 "compare two ingested runs" -- "$bin" compare "$tmp/h100.json" "$tmp/h100.json"
expect_in "$tmp/out" "coll.all_reduce.busbw" "compared figure"
diagnose_rc=0; "$bin" diagnose "$tmp/h100.json" >"$tmp/out" 2>"$tmp/err" || diagnose_rc=$?
if [ "$diagnose_rc" -le 1 ]; then passes=$((passes + 1)); else echo "FAIL: diagnose exit $diagnose_rc"; cat "$tmp/err"; fails=$((fails + 1)); fi
merge_rc=0; "$bin" merge "$tmp/h100.json" >"$tmp/out" 2>"$tmp/err" || merge_rc=$?
if [ "$merge_rc" -le 1 ]; then passes=$((passes + 1)); else echo "FAIL: merge exit $merge_rc"; cat "$tmp/err"; fails=$((fails + 1)); fi
expect_rc 0 "predict --measured takes the 16-rank busbw" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 16 --gbs 128 --measured "$tmp/h100.json"
expect_in "$tmp/out" "h100.json" "the measured document named"

# A failed data check (the H100 log with one #wrong and the footer changed as nccl-tests prints).
sed -e 's/47743  179.92  337.35      0/47743  179.92  337.35      5/' \
    -e 's/# Out of bounds values : 0 OK/# Out of bounds values : 1 FAILED/' "$h100" >"$tmp/wrong.txt"
expect_rc 1 "a wrong element fails" -- "$bin" ingest "$tmp/wrong.txt"
expect_in "$tmp/out" "YS-BENCH-001" "the data-check finding"

# mpirun --tag-output prefixes, and a log that does not name its collective.
expect_rc 2 "RTX 5090 through mpirun --tag-output (two ranks on one GPU)" -- "$bin" ingest "$real/rtx5090_tag_output_all_reduce_mpi.log" --json
expect_in "$tmp/out" "NCCL 2.29.7" "the library from the version line"
expect_rc 2 "K80 log without a collective" -- "$bin" ingest "$real/pkb_k80_2node_all_reduce_c0.txt"
expect_in "$tmp/err" "give --collective" "what to give"
expect_rc 2 "K80 log with --collective (two VMs: not judged)" -- "$bin" ingest "$real/pkb_k80_2node_all_reduce_c0.txt" --collective all_reduce --json
expect_in "$tmp/out" "off (-c 0)" "the data check was off"

# Rank counts the device list does not give whole, and bandwidths that are none or too low.
expect_rc 2 "GB300 log with a shortened device list" -- "$bin" ingest "$real/oci_gb300_32node_128rank_all_reduce_elided.txt" --json
expect_in "$tmp/out" '"ranks": "128"' "128 ranks, not 4"
expect_rc 2 "one-GPU reduce_perf: no communication" -- "$bin" ingest "$real/autodl_2080ti_1gpu_reduce.txt" --json
expect_in "$tmp/out" "no communication" "said so"
if grep -q 'coll.reduce.busbw' "$tmp/out"; then echo "FAIL: a one-GPU busbw kept as bandwidth"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
expect_rc 0 "2 x RTX 2080 Ti without P2P: warns" -- "$bin" ingest "$real/autodl_2080ti_x2_pcie_no_p2p_all_reduce.txt"
expect_in "$tmp/out" "YS-BENCH-004" "far below PCIe Gen3 x16"

printf 'no table here\n' >"$tmp/none.txt"

# dcgmi diag and nvidia-smi nvlink outputs of real machines: the verdict and the GPU.
dcgmi=$src/tests/fixtures/real/dcgmi nvlink=$src/tests/fixtures/real/nvlink
expect_rc 1 "H100 dcgmi diag: GPU Memory fails" -- "$bin" ingest "$dcgmi/h100_8gpu_r3_cuinit_fail.txt"
expect_in "$tmp/out" "YS-GPU-070" "the DCGM finding"
expect_in "$tmp/out" "GPU Memory failed on GPU 7" "on the GPU DCGM names"
expect_rc 0 "RTX PRO 6000 dcgmi diag: passes with skips" -- "$bin" ingest "$dcgmi/rtx_pro_6000_blackwell_r3_skips.txt"
expect_rc 1 "V100 nvlink -s: two inactive links" -- "$bin" ingest "$nvlink/v100_nvlink_s_two_inactive.txt" --json
expect_in "$tmp/out" "YS-GPU-045" "inactive link finding"
expect_in "$tmp/out" "links 3, 5 inactive" "the links named"
expect_rc 0 "GB200 nvlink -s passes" -- "$bin" ingest "$nvlink/gb200_nvlink_s.txt"
printf 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n         Link 0: fast\n' >"$tmp/badlink.txt"
expect_rc 2 "a malformed Link line" -- "$bin" ingest "$tmp/badlink.txt"
expect_in "$tmp/err" "badlink.txt:2: a counter" "file, line and expectation"
expect_rc 2 "forced nvlink format without a block" -- "$bin" ingest --format nvidia-smi-nvlink "$tmp/none.txt"
expect_in "$tmp/err" "no NVLink block" "what was expected"

# topo --expect: the healthy fixture against a real HGX H100 (each NIC PIX to its GPU there).
expect_rc 1 "topo --expect lists differing cells" -- "$bin" topo --root "$src/tests/fixtures/hosts/healthy-8gpu" \
  --nvml-state "$src/tests/fixtures/nvml/healthy-h100x8.json" --expect "$src/tests/fixtures/real/topo/hgx_h100_8gpu_nv18_nic_pix_partial.txt"
expect_in "$tmp/out" "topo --expect" "the comparison printed"
# GPU i is PIX to NIC i on both; the real board numbers its NICs differently and has ten.
expect_not_in "$tmp/out" "GPU0 - NIC0:" "the fixture's GPU0-NIC0 placement is a real HGX H100's (PIX)"
expect_in "$tmp/out" "in the file, not found here: NIC8" "a NIC the fixture lacks"
printf 'no matrix\n' >"$tmp/notopo.txt"
expect_rc 2 "topo --expect without a matrix" -- "$bin" topo --root "$src/tests/fixtures/hosts/healthy-8gpu" --expect "$tmp/notopo.txt"
expect_in "$tmp/err" "no topology matrix" "what was expected"

# Bad input: the file, the line and what was expected.
head -30 "$h100" >"$tmp/cut.txt"
printf '     1024   256   float   sum   -1   20.0\n' >>"$tmp/cut.txt"
expect_rc 2 "a short row" -- "$bin" ingest "$tmp/cut.txt"
expect_in "$tmp/err" "cut.txt:31: a table row: expected 13 columns" "file, line and expectation"

printf 'no table here\n' >"$tmp/none.txt"
expect_rc 2 "forced format without a table" -- "$bin" ingest --format nccl-tests "$tmp/none.txt"
expect_in "$tmp/err" "no nccl-tests table" "what was expected"
finish
