#!/usr/bin/env bash
# The CPU benchmarks (mem.stream, gemm.cpu, gemm.cpu.determinism, storage.checkpoint) the way an
# operator runs them, at small sizes: tables and summaries on the console, measurements in the
# JSON, storage skip/error messages, and no checkpoint file left behind. Shapes only, never speed.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

expect_rc 0 "mem.stream at 2 MiB arrays" -- "$bin" bench --filter mem.stream --sizes 2M --iters 3
expect_in "$tmp/out" "best GB/s" "STREAM table header"
for k in copy scale add triad; do expect_in "$tmp/out" " $k " "STREAM row $k"; done
expect_in "$tmp/out" "triad" "summary names triad"
# A benchmark's parameter from the site file's [unit."<id>"] table (--expect), and a bad one.
printf '[unit."mem.stream"]\ncache_multiple = 1\n' > "$tmp/site.toml"
expect_rc 0 "mem.stream sized by the site file" -- \
  "$bin" bench --filter mem.stream --iters 2 --json --expect "$tmp/site.toml"
expect_in "$tmp/out" '"array_rule": "1 x last-level cache"' "arrays sized by cache_multiple"
printf '[unit."mem.stream"]\ncache_multiple = 0\n' > "$tmp/bad-site.toml"
expect_rc 2 "a parameter out of range" -- \
  "$bin" bench --filter mem.stream --expect "$tmp/bad-site.toml"
expect_in "$tmp/err" "bad-site.toml:2" "names the file and line"
expect_in "$tmp/err" "cache_multiple: 0 is out of range" "names the parameter and the range"

expect_rc 0 "gemm.cpu and its determinism check at small squares" -- \
  "$bin" bench --filter 'gemm.cpu*' --sizes 64:128:x2 --iters 2 --json
python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: gemm JSON"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
b = {x["id"]: x for x in d["benchmarks"]}
assert b["gemm.cpu"]["outcome"] == "pass", b["gemm.cpu"]
names = sorted({m["name"] for m in b["gemm.cpu"]["measurements"]})
assert names == ["gemm.cpu.dgemm", "gemm.cpu.sgemm"], names
for m in b["gemm.cpu"]["measurements"]:
    assert m["unit"] == "GFLOPS" and len(m["samples"]) == 2, m
    assert int(m["params"]["flops"]) == 2 * int(m["params"]["m"]) ** 3, m["params"]
det = b["gemm.cpu.determinism"]
assert det["outcome"] == "pass", det
assert [m["value"] for m in det["measurements"] if m["name"].endswith("mismatched_runs")] == [0]
PY

expect_rc 2 "storage without --path skips (nothing measured: inconclusive)" -- "$bin" bench --filter storage.checkpoint
expect_in "$tmp/out" "no --path" "skip reason"
expect_rc 2 "storage to a file is an error" -- "$bin" bench --filter storage.checkpoint --path /etc/hostname
expect_in "$tmp/out" "/etc/hostname: not a directory" "names the path"
mkdir -p "$tmp/ckpt"
expect_rc 0 "storage to a directory" -- "$bin" bench --filter storage.checkpoint --path "$tmp/ckpt" --sizes 1M --iters 2
expect_in "$tmp/out" "write" "write row"
expect_in "$tmp/out" "read" "read row"
[ -z "$(ls -A "$tmp/ckpt")" ] && passes=$((passes + 1)) || { echo "FAIL: files left in $tmp/ckpt"; fails=$((fails + 1)); }
finish
