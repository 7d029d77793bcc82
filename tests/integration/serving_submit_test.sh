#!/usr/bin/env bash
# `yardstick submit` of a serving suite through the real sbatch, end to end: the job runs under
# Slurm, then ingest, validate, archive and verify, report and the exporter take its output. The
# local Slurm cluster runs the generated job, whose serving stack and load generator are real
# local processes set through cluster.toml's [serving] overrides (tests/integration/
# serving_standin.py): an OpenAI-compatible HTTP server streaming the asked number of tokens, and
# a load generator sending real streaming requests at each concurrency and writing what
# `vllm bench serve --save-result` writes, with the figures it measured.
#
# What this proves: the job's orchestration. It starts the stack as a Slurm step, waits for the
# health URL (and fails, naming it, when the stack never answers), runs the load generator once
# per concurrency into <runs>/<phase>/c<C>/, keeps the server log and the GPU telemetry (or the
# note that there is no nvidia-smi) there, stops the stack on every exit, success or failure, and
# ends with the load generator's exit code; `validate` then reads the phase's output and judges
# it against a reference (PASS or FAIL as the measured figures say; INCONCLUSIVE without one).
# What it does not prove: real GPU serving. No vLLM, SGLang, TensorRT-LLM or Dynamo runs, and the
# default launch lines for them are checked by the unit tests (tests/unit/slurm/
# serving_script_test.cc) only. Everything stays on this machine (the server binds the address
# the node's name resolves to), and each job is bounded by its time limit.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
ensure_slurm

standin=$src/tests/integration/serving_standin.py
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
port=$((20000 + RANDOM % 20000))

phase() {  # phase ID SERVED_MODEL
  cat <<TOML

[[phase]]
id = "$1"
phase = "chat"
model = "standin"
precision = "bf16"
stack = "vllm"
stack_version = "standin"
served_model = "$2"
gpus = 2
tp = 2
isl = 64
osl = 48
concurrency = [2, 4]
requests = 32
warmup_requests = 4
load_generator = "vllm"
TOML
}
suite_head() {
  printf '[suite]\nchip = "h100"\nrecipe_release = "v26.05"\n'
  printf 'source = "serving_submit_test: a stand-in stack"\nthreshold = 0.95\nrule = "every"\n'
}
{ suite_head; phase standin_chat standin-model; } > "$tmp/suite.toml"
# Two phases whose jobs fail: a stack that never answers, a load generator that fails.
{
  suite_head
  phase standin_never_ready standin-never-ready
  phase standin_load_fails standin-load-fails
} > "$tmp/failing.toml"

cat > "$tmp/cluster.toml" <<TOML
[slurm]
partition = "test"
time_limit = "3"
gpus_per_node = 2
nodes = 1
gres = false          # the test node has no GPU GRES

[serving]
port = $port
health_path = "/v1/models"
health_timeout_s = 8
telemetry_interval_ms = 200
server_command = ["$py", "$standin", "serve", "--host", "{host}", "--port", "{port}",
                  "--model", "{served_model}", "--pidfile", "{runs_dir}/{phase}.server.pid"]
load_command = ["$py", "$standin", "load", "--url", "{url}", "--model", "{served_model}",
                "--isl", "{isl}", "--osl", "{osl}", "--concurrency", "{concurrency}",
                "--requests", "{requests}", "--warmup", "{warmup_requests}",
                "--out", "{artifact_dir}/vllm_bench.json"]
TOML

reference() {  # reference FILE OUTPUT_TOKENS_PER_S_PER_GPU
  cat > "$1" <<TOML
[provenance]
chip = "h100"
kind = "recorded"
release = "v26.05"
source = "serving_submit_test"
date = "2026-11-29"
hardware = "test cluster"
software = "stand-in stack"
made_by = "serving_submit_test.sh"
metric = "serving"

[[serving_reference]]
phase = "standin_chat"
model = "standin"
precision = "bf16"
isl = 64
osl = 48
gpus = 2
concurrency = 4
mode = "serving"
gpu_denominator = "all GPUs"
output_tokens_per_s_per_gpu = $2
TOML
}
mkdir -p "$tmp/empty"
runs=$tmp/runs
submit() {  # submit WANT_RC DESCRIPTION SUITE RUNS [--reference ...]
  local want=$1 what=$2 suite=$3 dir=$4; shift 4
  expect_rc "$want" "$what" -- "$bin" submit --suite "$suite" --cluster "$tmp/cluster.toml" \
    --runs "$dir" --wait --timeout 120 --poll 1 --db "$tmp/history.db" --baselines "$tmp/empty" "$@"
}
job_of() { sed -n "s/^submitted $1: job \([0-9]*\).*/\1/p" "$2"; }
stopped() {  # stopped PIDFILE DESCRIPTION: the stand-in server wrote it and no longer runs
  if [ -s "$1" ] && ! kill -0 "$(cat "$1")" 2>/dev/null; then passes=$((passes + 1)); else
    echo "FAIL: $2: server pid file $1 missing or the server still runs"; fails=$((fails + 1)); fi
}

# Dry run: the serving job's script, nothing submitted.
expect_rc 0 "dry run" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/cluster.toml" --runs "$runs" --dry-run
expect_in "$tmp/out" "trap ys_stop EXIT" "dry run: the stack is stopped on exit"
expect_in "$tmp/out" "srun --overlap --nodes=1 --ntasks=1 --ntasks-per-node=1 -- '$py' '$standin' 'serve' '--host' \"\$ys_head\"" "dry run: the site's server command"
expect_in "$tmp/out" "'--concurrency' '4'" "dry run: one load per concurrency"
[ ! -e "$runs" ] && passes=$((passes + 1)) || { echo "FAIL: dry run wrote $runs"; fails=$((fails + 1)); }

# The real thing: the good phase, judged against a floor it clears.
reference "$tmp/floor.toml" 1.0
submit 0 "submit --wait (serving)" "$tmp/suite.toml" "$runs" --reference "$tmp/floor.toml"
cp "$tmp/out" "$tmp/ok.out"
expect_in "$tmp/ok.out" "submitted standin_chat: job" "phase submitted"
expect_in "$tmp/ok.out" "COMPLETED" "job completed"
for c in 2 4; do
  [ -s "$runs/standin_chat/c$c/vllm_bench.json" ] && passes=$((passes + 1)) || { echo "FAIL: no export at concurrency $c"; fails=$((fails + 1)); }
done
expect_in "$runs/standin_chat/server.log" "POST /v1/chat/completions" "server log kept in the phase folder"
ls "$runs"/standin_chat/gpu_telemetry_* >/dev/null 2>&1 && passes=$((passes + 1)) || { echo "FAIL: no GPU telemetry or note"; fails=$((fails + 1)); }
log=$(ls "$runs"/standin_chat.job/slurm-standin_chat_*.out 2>/dev/null | head -1)
expect_in "${log:-/dev/null}" "the serving stack answered after" "job log: health wait"
expect_in "${log:-/dev/null}" "standin-load: concurrency 4: 32 of 32 completed" "job log: the load generator's console"
expect_in "${log:-/dev/null}" "stopping 2 background step(s)" "job log: stack stopped at the end"
stopped "$runs/standin_chat.server.pid" "after success"
"$py" - "$runs/validation.json" > "$tmp/phase" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["phases"]:
    print(json.dumps(p, sort_keys=True))
PY
expect_in "$tmp/phase" '"outcome": "pass"' "validation.json: the phase passes the floor"
expect_in "$tmp/ok.out" "verdict: PASS" "the suite passes"
expect_not_in "$tmp/ok.out" "ignored:" "the job's own files are not taken for training logs"

# The same output judged again: against twice what was measured (FAIL), and with no reference.
measured=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["output_throughput"] / 2)' "$runs/standin_chat/c4/vllm_bench.json")
reference "$tmp/double.toml" "$("$py" -c "print(2 * $measured)")"
expect_rc 1 "validate: twice the measured throughput" -- "$bin" validate --suite "$tmp/suite.toml" --runs "$runs" \
  --baselines "$tmp/empty" --reference "$tmp/double.toml"
expect_in "$tmp/out" "FAIL" "a reference twice as fast fails the phase"
expect_rc 2 "validate: no reference" -- "$bin" validate --suite "$tmp/suite.toml" --runs "$runs" --baselines "$tmp/empty"
expect_in "$tmp/out" "no serving reference" "without a reference: inconclusive, saying why"

# The rest of the chain on the job's own output: ingest reads the export, validate writes the
# document, archive packs the phase's files and verify re-derives the verdict from them, the report
# shows the phase, and the exporter serves its state.
expect_rc 0 "ingest the job's export" -- "$bin" ingest "$runs/standin_chat/c4/vllm_bench.json"
expect_in "$tmp/out" "inference-json" "ingest: the export's format"
expect_in "$tmp/out" "every request completed" "ingest: a complete serving point"
expect_rc 0 "validate --out" -- "$bin" validate --suite "$tmp/suite.toml" --runs "$runs" \
  --baselines "$tmp/empty" --reference "$tmp/floor.toml" --out "$tmp/v"
expect_rc 0 "archive the serving validation" -- "$bin" archive --suite "$tmp/suite.toml" --runs "$runs" \
  --baselines "$tmp/empty" --reference "$tmp/floor.toml" -o "$tmp/serving.tar.zst"
expect_rc 0 "verify re-derives the serving verdict" -- "$bin" verify "$tmp/serving.tar.zst"
expect_in "$tmp/out" "PASS" "verify: the recomputed verdict"
expect_rc 0 "report of the serving validation" -- "$bin" report "$tmp/v" -o "$tmp/serving.html"
expect_in "$tmp/serving.html" "standin_chat" "report: the phase"
eport=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" exporter --listen "127.0.0.1:$eport" --validation "$tmp/v/validation.json" --interval 1 \
  >"$tmp/exporter.out" 2>"$tmp/exporter.err" &
epid=$!
for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$eport/metrics" -o "$tmp/metrics" && grep -q yardstick_serving_phase_state "$tmp/metrics" && break
  sleep 0.2
done
kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null
grep 'yardstick_serving_phase_state{' "$tmp/metrics" 2>/dev/null | grep 'phase="standin_chat"' | grep 'state="pass"' > "$tmp/state" || true
expect_in "$tmp/state" "} 1" "exporter: the phase's pass state is 1"

# Failures: a stack that never answers, and a load generator that fails. Each job fails with
# its reason and stops the stack.
submit 1 "submit --wait (failing phases)" "$tmp/failing.toml" "$tmp/runs2"
cp "$tmp/out" "$tmp/bad.out"
for id in standin_never_ready standin_load_fails; do
  scontrol show job "$(job_of "$id" "$tmp/bad.out")" > "$tmp/job.$id" 2>&1
  expect_in "$tmp/job.$id" "JobState=FAILED" "$id: the job failed"
  stopped "$tmp/runs2/$id.server.pid" "$id"
done
expect_in "$tmp/job.standin_never_ready" "ExitCode=1:0" "never ready: exit 1"
expect_in "$tmp/runs2"/standin_never_ready.job/slurm-*.out "/v1/models did not answer within 8 s ([serving] health_timeout_s)" "never ready: the reason, naming the URL"
expect_in "$tmp/job.standin_load_fails" "ExitCode=3:0" "load fails: the load generator's exit code is the job's"
expect_in "$tmp/runs2"/standin_load_fails.job/slurm-*.out "the load generator exited 3 at concurrency 2" "load fails: the reason"
finish
