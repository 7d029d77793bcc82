#!/usr/bin/env bash
# The proxy workloads the way an operator runs them: proxy.llama3.1_8b on one process and on 2 MPI
# ranks (measurement names, the table, JSON), `yardstick run` with the serving proxy in its
# document and report, and with a busy loop pinned to the job's cores (taskset): the foreign CPU
# share is large and the loop is named in the evidence.
# ctest: run alone (the foreign CPU share counts every other process on the cores).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

expect_rc 0 "one process, llama3.1_8b" -- "$bin" bench --filter proxy.llama3.1_8b --iters 4 --warmup 1 --data "$src"
expect_in "$tmp/out" "Llama 3.1 8B proxy step" "table title"
expect_in "$tmp/out" "predicted" "prediction beside the measurement"
expect_rc 0 "one process, JSON" -- "$bin" bench --filter proxy.llama3.1_8b --iters 4 --warmup 1 --data "$src" --json
for q in step_time rank_step_time predicted_step_time tokens_per_s_per_gpu model_tflops_per_gpu foreign_cpu_share; do
  expect_in "$tmp/out" "\"proxy.llama3.1_8b.$q\"" "measurement $q"
done

# `yardstick run` (the quick profile, live) runs the serving proxy beside the training proxy: its
# line with the prediction on the console, its figures in the run document, its table in the report.
expect_rc 0 "run, quick profile" -- "$bin" run --data "$src" --out "$tmp/run" --no-history
expect_in "$tmp/out" "serving.llama3.1_8b" "serving proxy on the console"
python3 - "$tmp/run/run.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: serving proxy in the run document"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
b = {x["id"]: x for x in d["benchmarks"]}["serving.llama3.1_8b"]
assert b["outcome"] == "pass", b["summary"]
names = {m["name"] for m in b["measurements"]}
for q in ("ttft", "tpot", "output_tokens_per_s", "tokens_per_s_per_user", "predicted_ttft",
          "predicted_tpot", "predicted_output_tokens_per_s"):
    assert "serving.llama3.1_8b." + q in names, q
assert "predicted" in b["summary"], b["summary"]
PY
expect_in "$tmp/run/report.html" "Serving proxy" "serving proxy section in the report"

if command -v mpirun >/dev/null; then
  expect_rc 0 "2 ranks, qwen3 (TP, EP all-to-all, DP)" -- mpirun --allow-run-as-root --oversubscribe -np 2 \
    "$bin" bench --filter proxy.qwen3_235b --iters 4 --warmup 1 --data "$src"
  expect_in "$tmp/out" "MoE a2a" "all-to-all row"
  expect_in "$tmp/out" "TP comm" "TP row"
fi

if command -v taskset >/dev/null; then
  taskset -c 0,1 bash -c 'while :; do :; done' &
  hog=$!
  expect_rc 0 "with a pinned busy loop" -- "$bin" bench --filter proxy.llama3.1_8b --iters 8 --warmup 1 --data "$src" --json
  kill "$hog"; wait "$hog" 2>/dev/null
  grep -Eq "\"foreign_process\.[0-9]+\": \"pid $hog \(bash\) on cpus " "$tmp/out" && passes=$((passes + 1)) \
    || { echo "FAIL: the busy loop (pid $hog) is named among the foreign processes"; grep foreign_process "$tmp/out"; fails=$((fails + 1)); }
  share=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print([m["value"] for b in d["benchmarks"] for m in b["measurements"] if m["name"].endswith("foreign_cpu_share")][0])' "$tmp/out")
  python3 -c "import sys; sys.exit(0 if $share > 0.2 else 1)" && passes=$((passes + 1)) \
    || { echo "FAIL: foreign CPU share $share not above 0.2 with a busy loop on the job's cores"; fails=$((fails + 1)); }
fi
finish
