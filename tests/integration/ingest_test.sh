#!/usr/bin/env bash
# `yardstick ingest` the way an operator runs it: every fixture log format, retries, exit codes
# (0 all success, 1 incomplete or invalid, 2 unreadable input), JSON output, bad input.
set -uo pipefail
bin=$1 src=$2
logs=$src/tests/fixtures/logs
. "$src/tests/integration/lib.sh"
expect_py() {  # expect_py DESCRIPTION PYTHON-EXPRESSION-ON-d  (d = the JSON on stdout)
  if /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $2, d" "$tmp/out" 2>"$tmp/pyerr"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $1"; tail -3 "$tmp/pyerr"; fails=$((fails + 1))
  fi
}

expect_rc 0 "ingest --help" -- "$bin" ingest --help
expect_in "$tmp/out" "--window" "help names --window"

# Megatron-Bridge: two retries of job 4242, the newest counts; llmb-config gives 512 GPUs.
mb=$logs/megatron_bridge
expect_rc 0 "megatron-bridge retries" -- "$bin" ingest "$mb"/log-*_4242_0.out "$mb"/log-*_4242_1.out --seq 8192 --peak-tflops 989
expect_in "$tmp/out" "success: steps 35-44 all timed (10 samples)" "status and reason"
expect_in "$tmp/out" "14.660 ± 0.006 s" "window step time mean ± stdev"
expect_in "$tmp/out" "537.0 ± 0.2" "TFLOPS/GPU"
expect_in "$tmp/out" "1117.6  (seq 8192 x GBS 1024 / 14.660 s / 512 GPUs)" "tokens/s/GPU from the config's scale"
expect_in "$tmp/out" "54.3%" "MFU"
expect_in "$tmp/out" "superseded    $mb/log-pretrain_llama3.1_70b_bf16_gpus512_4242_0.out" "older retry named"
expect_in "$tmp/out" "ingest: 1 log(s): 1 success; 1 older retry superseded" "summary"
expect_rc 1 "the older retry alone is incomplete" -- "$bin" ingest "$mb"/log-*_4242_0.out
expect_in "$tmp/out" "last iteration printed: 20/50" "incomplete reason"

# Every other format.
expect_rc 0 "nemo2" -- "$bin" ingest "$logs/nemo2.log" --seq 8192 --gpus 8
expect_in "$tmp/out" "steps 35-44 (printed as iteration 34-43)" "nemo 0-based window mapping"
expect_in "$tmp/out" "12.270 ± 0.026 s" "nemo step time"
expect_in "$tmp/out" "10682.3" "nemo tokens/s/GPU"
expect_rc 0 "megatron-lm" -- "$bin" ingest "$logs/megatron_lm.log"
expect_in "$tmp/out" "401.2 ±" "megatron-lm inline TFLOPS"
expect_rc 0 "torchtitan" -- "$bin" ingest "$logs/torchtitan.log" --gpus 512
expect_in "$tmp/out" "format        torchtitan" "torchtitan detected through ANSI colours"
expect_in "$tmp/out" "169.5 ±" "torchtitan tflops"
expect_rc 0 "forced format" -- "$bin" ingest --format megatron "$logs/megatron_lm.log"
expect_rc 2 "wrong forced format" -- "$bin" ingest --format nemo2 "$logs/megatron_lm.log"
expect_in "$tmp/err" "expected NeMo 2 lines" "forced-format mismatch explained"
expect_rc 0 "hybrid model TFLOPS 0" -- "$bin" ingest "$logs/nemotronh_hybrid.log"
expect_in "$tmp/out" "TFLOPS/GPU    not reported" "zero TFLOPS is not reported"
expect_rc 0 "vllm json" -- "$bin" ingest "$logs/vllm_result.json" --gpus 32
expect_in "$tmp/out" "output 3337.24 tok/s (104.29/GPU)" "serving tokens/s/GPU"
expect_in "$tmp/out" "800.17" "median TTFT"
expect_rc 0 "sglang jsonl" -- "$bin" ingest "$logs/sglang_results.jsonl"

# Not good: incomplete, invalid. Exit 1, with the reason.
expect_rc 1 "nan grad norm" -- "$bin" ingest "$logs/nan_grad_norm.log"
expect_in "$tmp/out" "invalid_grad_norm: grad norm is nan at step 40" "NaN named"
expect_rc 1 "truncated" -- "$bin" ingest "$logs/truncated.log"
expect_in "$tmp/out" "no timing sample for step 41-44 of window 35-44" "missing steps named"
expect_rc 1 "missing timing line" -- "$bin" ingest "$logs/missing_timing.log"
expect_in "$tmp/out" "no timing sample for step 38 of window 35-44" "missing iteration named"
expect_rc 0 "missing TFLOPS line" -- "$bin" ingest "$logs/missing_tflops.log"
expect_rc 1 "window moved before the cut" -- "$bin" ingest "$logs/truncated.log" --window 30:39
expect_in "$tmp/out" "incomplete: final marker 'iteration 50/50' not seen" "final marker still required"
expect_rc 1 "mixed success and incomplete" -- "$bin" ingest "$logs/nemo2.log" "$logs/truncated.log"

# Unreadable input is 2 and the message names the file and what was expected.
expect_rc 2 "missing file" -- "$bin" ingest "$tmp/none.log"
expect_in "$tmp/err" "$tmp/none.log: no such file" "missing file named"
head -c 8192 /dev/urandom > "$tmp/garbage.bin"; printf '\0' | dd of="$tmp/garbage.bin" bs=1 seek=10 conv=notrunc 2>/dev/null
expect_rc 2 "binary garbage" -- "$bin" ingest "$tmp/garbage.bin"
expect_in "$tmp/err" "garbage.bin: binary data" "binary named"
head -c 400 "$logs/prestart_only.log" > "$tmp/cut.log"
expect_rc 2 "truncated to nothing parseable" -- "$bin" ingest "$tmp/cut.log"
expect_in "$tmp/err" "cut.log: no_data: no training iterations" "nothing parseable named"
head -c 300 "$logs/vllm_result.json" > "$tmp/cut.json"
expect_rc 2 "truncated json" -- "$bin" ingest "$tmp/cut.json"
expect_in "$tmp/err" "cut.json: not valid JSON" "json error named"
truncate -s 3G "$tmp/huge.log"
expect_rc 2 "over the size limit" -- "$bin" ingest "$tmp/huge.log"
expect_in "$tmp/err" "over the 2147483648-byte limit" "size limit named"
expect_rc 2 "a directory" -- "$bin" ingest "$tmp"
expect_rc 2 "unsupported framework" -- "$bin" ingest "$logs/unsupported/log-rl_grpo_deepseek_777_0.out"
expect_in "$tmp/err" "framework 'nemo_rl'" "framework named"
expect_rc 2 "one bad among good" -- "$bin" ingest "$logs/nemo2.log" "$tmp/none.log"

# Usage errors are 64.
expect_rc 64 "no log" -- "$bin" ingest
expect_rc 64 "bad window" -- "$bin" ingest --window 44:35 "$logs/nemo2.log"
expect_rc 64 "bad format" -- "$bin" ingest --format nemo "$logs/nemo2.log"
expect_rc 64 "bad gpus" -- "$bin" ingest --gpus 0 "$logs/nemo2.log"

# JSON: the runs, the superseded retry, the errors; every run reads back (schema fields present).
expect_rc 2 "json" -- "$bin" ingest --json --seq 8192 "$mb"/log-*_4242_0.out "$mb"/log-*_4242_1.out "$logs/nan_grad_norm.log" "$tmp/none.log"
expect_py "json runs" "[r['status'] for r in d['runs']] == ['success', 'invalid_grad_norm']"
expect_py "json superseded" "d['superseded'][0]['path'].endswith('_4242_0.out') and d['superseded'][0]['newest'].endswith('_4242_1.out')"
expect_py "json errors" "d['errors'][0]['path'].endswith('none.log')"
expect_py "json derived" "abs(d['runs'][0]['derived']['tokens_per_s_per_gpu'] - 1117.5989086) < 1e-6"
expect_py "json nan as string" "d['runs'][1]['nonfinite_grad_norms'][0]['value'] == 'nan'"
expect_py "json samples keyed by step" "[s['step'] for s in d['runs'][0]['samples']] == list(range(1, 51))"

finish
