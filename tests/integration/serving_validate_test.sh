#!/usr/bin/env bash
# A serving suite end to end on a real load generator's export: ingest reads it, validate scores
# its phase by the >95% rule against a reference (pass, fail, no reference, a refused run),
# validation.json carries the phase, archive packs the phase's files and verify re-derives the
# verdict from the archived copy; validate --predict predicts the phase (alone, and beside it).
#   tests/integration/serving_validate_test.sh BUILD/yardstick SRC
bin=${1:?usage: serving_validate_test.sh YARDSTICK SRC} src=${2:?}
. "$(dirname "$0")/lib.sh"

fx=$src/tests/fixtures/serving
real=$src/tests/fixtures/real/serving/aiperf
suite=$fx/qwen3-serving.toml
runs=$tmp/runs
mkdir -p "$runs/qwen3_chat_c8/c8"
# The export in a per-concurrency folder, as AIPerf's artifact directories are; the server's log
# beside it is not a serving export and is left alone.
cp "$real/aiperf_plot_fixture_qwen3_0.6b_c8.json" "$runs/qwen3_chat_c8/c8/profile_export_aiperf.json"
echo "INFO: server started" > "$runs/qwen3_chat_c8/server.log"

expect_rc 0 "ingest the export" -- "$bin" ingest "$runs/qwen3_chat_c8/c8/profile_export_aiperf.json"
expect_in "$tmp/out" "aiperf-json" "ingest names the format"

expect_rc 0 "validate: every metric above the rule" -- "$bin" validate --suite "$suite" --runs "$runs" \
  --reference "$fx/qwen3-reference-pass.toml" --out "$tmp/v"
expect_in "$tmp/out" "qwen3_chat_c8  chat qwen3-0.6b bf16, ISL/OSL 100/200, 1 GPU (TP1)" "phase line"
expect_in "$tmp/out" "PASS  above the rule: output throughput 101.5%, TTFT mean 100.9%, TPOT mean 97.3%" "the three scores"
expect_in "$tmp/out" "verdict: PASS: all 1 serving phases of the testgpu suite above 95%" "suite verdict"
expect_in "$tmp/v/validation.json" '"phases"' "validation.json carries the phases"
expect_in "$tmp/v/validation.json" '"output_tokens_per_s_per_gpu": 380.0' "and the reference"

expect_rc 1 "validate: throughput below 95%" -- "$bin" validate --suite "$suite" --runs "$runs" \
  --reference "$fx/qwen3-reference-fail.toml"
expect_in "$tmp/out" "FAIL  below the rule: output throughput 91.8%" "failing metric named"

expect_rc 2 "validate: no serving reference" -- "$bin" validate --suite "$suite" --runs "$runs"
expect_in "$tmp/out" "INCONCLUSIVE  no serving reference for qwen3_chat_c8" "what to supply"

# A run whose outputs stopped short of the asked length (no ignore_eos) is refused, not scored.
mkdir -p "$tmp/short/qwen3_chat_c8"
cp "$real/aiperf_wellflat_gpt_oss_20b_a100_c1.json" "$tmp/short/qwen3_chat_c8/profile_export_aiperf.json"
expect_rc 2 "validate: a refused run" -- "$bin" validate --suite "$suite" --runs "$tmp/short" \
  --reference "$fx/qwen3-reference-pass.toml"
expect_in "$tmp/out" "outputs_short: outputs average 283.5 tokens of the 300 asked" "why it was refused"

# A folder without any serving export fails the phase and names what it holds.
mkdir -p "$tmp/empty/qwen3_chat_c8" && echo "log" > "$tmp/empty/qwen3_chat_c8/server.log"
expect_rc 1 "validate: no serving output" -- "$bin" validate --suite "$suite" --runs "$tmp/empty" \
  --reference "$fx/qwen3-reference-pass.toml"
expect_in "$tmp/out" "(it holds server.log)" "what the folder holds"

# Archive and verify: the phase's export travels at its place and re-derives the same verdict.
expect_rc 0 "archive" -- "$bin" archive --suite "$suite" --runs "$runs" \
  --reference "$fx/qwen3-reference-pass.toml" -o "$tmp/a.tar.zst"
expect_rc 0 "verify re-derives the serving verdict" -- "$bin" verify "$tmp/a.tar.zst"
expect_in "$tmp/out" "PASS" "the recomputed verdict"
tar --zstd -tf "$tmp/a.tar.zst" > "$tmp/list" 2>/dev/null || tar -tf "$tmp/a.tar.zst" > "$tmp/list"
expect_in "$tmp/list" "runs/qwen3_chat_c8/c8/profile_export_aiperf.json" "the export in the archive"

# validate --predict on a serving suite. The test chip has no spec: the phase gets a reason and no
# number, alone (exit 0) and beside the phase's scorecard block and in validation.json.
expect_rc 0 "validate --predict alone" -- "$bin" validate --suite "$suite" --predict \
  --reference "$fx/qwen3-reference-pass.toml"
expect_in "$tmp/out" "no chip spec specs/testgpu.toml: no rates to predict with" "the reason"
expect_in "$tmp/out" "predicted: 0 of 1 serving phases under 95%" "the count"
expect_rc 0 "validate --predict --runs" -- "$bin" validate --suite "$suite" --runs "$runs" \
  --reference "$fx/qwen3-reference-pass.toml" --predict --out "$tmp/vp"
expect_in "$tmp/out" "predicted: none: no chip spec specs/testgpu.toml" "beside the phase"
python3 - "$tmp/vp/validation.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: reason in validation.json"; fails=$((fails + 1)); }
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]["prediction"]
assert p["reason"].startswith("no chip spec"), p
assert p["output_tokens_per_s_per_gpu"] is None and p["predicted_score"] is None, p
PY
# The same phase on a chip and model the serving model knows (h100, llama3.1_8b), with the HBM
# bandwidth set below the chip's: the figures agree with predict --serve for the same inputs, and
# the reference's figures are scored under the threshold.
for f in qwen3-serving qwen3-reference-fail; do
  sed 's/"testgpu"/"h100"/; s/"qwen3-0.6b"/"llama3.1_8b"/' "$fx/$f.toml" > "$tmp/$f-h100.toml"
done
expect_rc 1 "validate --predict --runs, a known model" -- "$bin" validate --suite "$tmp/qwen3-serving-h100.toml" \
  --runs "$runs" --reference "$tmp/qwen3-reference-fail-h100.toml" --predict --set hbm.bandwidth=2.5 --out "$tmp/vk"
expect_in "$tmp/out" "    predicted at concurrency 8: " "the prediction beside the phase"
expect_in "$tmp/out" "UNDER: output throughput" "under, and why"
expect_in "$tmp/out" "expected error:" "the expected error"
expect_rc 0 "predict --serve, the same inputs" -- "$bin" predict --serve --model llama3.1_8b --chip h100 \
  --dtype bf16 --gpus 1 --isl 100 --osl 200 --concurrency 8 --set hbm.bandwidth=2.5 --json
cp "$tmp/out" "$tmp/serve.json"
python3 - "$tmp/vk/validation.json" "$tmp/serve.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: phase prediction agrees with predict --serve"; fails=$((fails + 1)); }
import json, sys
p = json.load(open(sys.argv[1]))["phases"][0]["prediction"]
s = json.load(open(sys.argv[2]))
for k in ("output_tokens_per_s_per_gpu", "ttft_s", "tpot_s", "tokens_per_s_per_user"):
    assert abs(p[k] - s[k]) <= 1e-9 * s[k], (k, p[k], s[k])
assert p["expected_error"] == s["expected_error"], (p["expected_error"], s["expected_error"])
m = {x["key"]: x for x in p["metrics"]}
t = m["output_tokens_per_s_per_gpu"]
assert t["reference"] == 420.0 and t["score"] < 0.95 and t["under"], t
assert abs(t["predicted"] - 420.0 * t["score"]) < 1e-9 * 420, t
assert p["under"] and abs(p["predicted_score"] - min(x["score"] for x in p["metrics"])) <= 1e-9, p
PY
if python3 "$src/tests/integration/validate_json.py" "$src/schemas/validation.schema.json" "$tmp/vk/validation.json" "$tmp/vp/validation.json" &&
  python3 "$src/tests/integration/validate_json.py" "$src/schemas/predict_serve.schema.json" "$tmp/serve.json"; then
  passes=$((passes + 1))
else
  echo "FAIL: documents against their schemas"; fails=$((fails + 1))
fi

finish
