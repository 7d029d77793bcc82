#!/usr/bin/env bash
# `yardstick predict` the way an operator runs it: a recipe from models/ at its recorded
# parallelism (console and JSON, the JSON valid against schemas/predict.schema.json and its
# breakdown adding up to step_time_s), a recipe at a scale the file does not list, a what-if with
# --set, every published row of baselines/ predicted, and bad input (exit 2 naming the flag or the
# file, exit 64 without a recipe).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

expect_rc 0 "predict 405b" -- "$bin" predict --model llama3.1_405b --chip h100 --dtype bf16 --gpus 1024
expect_in "$tmp/out" "step time (total)" "the total line"
expect_in "$tmp/out" "pipeline bubble" "the bubble row"
expect_in "$tmp/out" "tensor-parallel comm (tp)" "the TP row"
expect_in "$tmp/out" "tokens/s/GPU" "tokens/s/GPU"

expect_rc 0 "predict json" -- "$bin" predict --model llama3.1_405b --chip h100 --dtype bf16 --gpus 1024 --json
cp "$tmp/out" "$tmp/405b.json"
python3 - "$tmp/405b.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: predict JSON adds up"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
total = sum(r["seconds"] for r in j["breakdown"])
u = j["unanchored"]["step_time_s"]
assert abs(total - u) < 1e-9 * u, (total, u)
# The top-level answer is the booked one: anchored where an anchor exists, tokens/s and MFU with it.
if j["booked"] == "anchored":
    assert abs(j["step_time_s"] - u * j["anchor"]["factor"]) < 1e-9 * u, j["anchor"]
    assert abs(j["tokens_per_s_per_gpu"] * j["step_time_s"] - j["unanchored"]["tokens_per_s_per_gpu"] * u) < 1e-6 * u
else:
    assert j["step_time_s"] == u and "anchor" not in j
assert j["expected_error"]["situation"] in ("calibrated_release", "model_not_fitted"), j["expected_error"]
assert j["recipe"]["tp"] == 8 and j["recipe"]["pp"] == 8 and j["recipe"]["micro_batches"] == 192, j["recipe"]
assert 0 < j["mfu"] < 1, j["mfu"]
assert j["what_if"] == [], j["what_if"]
PY

# A model file given as a path, at a GPU count and layer count the file does not list.
# A GPU count the model file has no entry for: the nearest entry's layout, data parallelism and
# global batch scaled (the published recipes' weak scaling), said in the header and the JSON.
expect_rc 0 "predict at a count without an entry" -- "$bin" predict --model llama3.1_70b --chip b200 --dtype fp8 --gpus 1024
expect_in "$tmp/out" "the layout of the model file's 512-GPU entry" "the scaled entry named"
expect_in "$tmp/out" "global batch 4096" "the global batch scaled with the GPUs"
expect_rc 0 "predict json at a count without an entry" -- "$bin" predict --model llama3.1_70b --chip b200 --dtype fp8 --gpus 1024 --json
expect_in "$tmp/out" '"weak_scaled_from": 512' "the scaled entry in the JSON"
expect_rc 0 "predict file, fewer layers" -- "$bin" predict --model "$src/models/llama3.1_70b.toml" --chip h100 --dtype fp8 --gpus 16 --tp 4 --pp 2 --gbs 32 --layers 8 --json
cp "$tmp/out" "$tmp/proxy.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["recipe"]["layers"]==8 and j["recipe"]["gpus"]==16 and j["recipe"]["data_parallel"]==2, j["recipe"]' "$tmp/proxy.json" \
  && passes=$((passes + 1)) || { echo "FAIL: command-line recipe"; fails=$((fails + 1)); }

# What-if (Exemplar case 3): with one micro-batch a step, a slow network all-gather and
# reduce-scatter no longer hide under compute and show in the ranking, with their cost.
expect_rc 0 "predict what-if" -- "$bin" predict --model llama3.1_8b --chip gb300 --dtype fp8 --gpus 128 --gbs 512 --set coll.all_gather.busbw=28GB/s --set coll.reduce_scatter.busbw=28GB/s --json
cp "$tmp/out" "$tmp/whatif.json"
python3 - "$tmp/whatif.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: what-if ranking"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
rates = [w["rate"] for w in j["what_if"]]
assert set(rates) == {"coll.all_gather.busbw", "coll.reduce_scatter.busbw"}, rates
assert all(w["recovery_s"] > 0 for w in j["what_if"]), j["what_if"]
assert j["rates_origin"]["coll.all_gather.busbw"] == "--set", j["rates_origin"]
PY

if /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/predict.schema.json" "$tmp/405b.json" "$tmp/proxy.json" "$tmp/whatif.json"; then
  passes=$((passes + 1))
else
  echo "FAIL: predict documents against the schema"; fails=$((fails + 1))
fi

# The release is part of the recipe: --release 26.02 runs the model file's 26.02 entry (the
# all-to-all dispatcher), the default release 26.04.01's (HybridEP, as DeepEP).
expect_rc 0 "predict --release 26.02" -- "$bin" predict --model qwen3_30b_a3b --chip b200 --dtype mxfp8 --gpus 8 --release 26.02
expect_in "$tmp/out" "alltoall dispatcher, dropless" "the 26.02 recipe"
expect_rc 0 "predict default release" -- "$bin" predict --model qwen3_30b_a3b --chip b200 --dtype mxfp8 --gpus 8
expect_in "$tmp/out" "deepep dispatcher" "the 26.04.01 recipe"

# A recipe property on the command line: DeepSeek-V3 on GB200 in the v25.05.05 recipe runs an
# unfused attention core (the file's entry); --attention fused is the what-if of a fused kernel.
expect_rc 0 "predict unfused" -- "$bin" predict --model deepseek-v3_671b --chip gb200 --dtype bf16 --gpus 128 --json
cp "$tmp/out" "$tmp/unfused.json"
expect_rc 0 "predict fused what-if" -- "$bin" predict --model deepseek-v3_671b --chip gb200 --dtype bf16 --gpus 128 --attention fused --json
cp "$tmp/out" "$tmp/fused.json"
python3 - "$tmp/unfused.json" "$tmp/fused.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: attention backend what-if"; fails=$((fails + 1)); }
import json, sys
u, f = (json.load(open(p)) for p in sys.argv[1:3])
assert u["recipe"]["attention_backend"] == "unfused" and f["recipe"]["attention_backend"] == "fused"
assert u["recipe"]["recompute"] == "selective", u["recipe"]
assert u["step_time_s"] > f["step_time_s"], (u["step_time_s"], f["step_time_s"])
PY
if /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/predict.schema.json" "$tmp/unfused.json" "$tmp/fused.json"; then
  passes=$((passes + 1))
else
  echo "FAIL: attention what-if documents against the schema"; fails=$((fails + 1))
fi
expect_rc 2 "bad --attention" -- "$bin" predict --model deepseek-v3_671b --chip gb200 --dtype bf16 --gpus 128 --attention flash
expect_in "$tmp/err" "--attention flash" "the bad backend named"

# The MoE dispatcher and token drop on the command line. DeepSeek-V3 on 512 H100 (ep 64 over
# eight HGX domains): DeepEP sends a token once per remote domain, so its all-to-all is shorter;
# dropless (no static capacity) adds the dispatcher's host synchronisation. Both are in the
# document's recipe (for a model with experts only) and in the console header.
h100=(predict --model deepseek-v3_671b --chip h100 --dtype bf16 --gpus 512)
expect_rc 0 "predict alltoall token drop" -- "$bin" "${h100[@]}" --json
cp "$tmp/out" "$tmp/a2a.json"
expect_rc 0 "predict deepep dropless" -- "$bin" "${h100[@]}" --dispatcher deepep --token-drop off --json
cp "$tmp/out" "$tmp/deepep.json"
python3 - "$tmp/a2a.json" "$tmp/deepep.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: dispatcher what-if"; fails=$((fails + 1)); }
import json, sys
a, d = (json.load(open(p)) for p in sys.argv[1:3])
assert (a["recipe"]["moe_dispatcher"], a["recipe"]["moe_token_drop"]) == ("alltoall", True), a["recipe"]
assert (d["recipe"]["moe_dispatcher"], d["recipe"]["moe_token_drop"]) == ("deepep", False), d["recipe"]
ep = lambda j: next(c["exposed_s"] for c in j["comm"] if c["name"] == "ep")
assert ep(d) < ep(a), (ep(d), ep(a))
assert d["host_s"] > a["host_s"] == 0, (d["host_s"], a["host_s"])
PY
if /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/predict.schema.json" "$tmp/a2a.json" "$tmp/deepep.json"; then
  passes=$((passes + 1))
else
  echo "FAIL: dispatcher what-if documents against the schema"; fails=$((fails + 1))
fi
expect_rc 0 "predict deepep console" -- "$bin" "${h100[@]}" --dispatcher deepep --token-drop off
expect_in "$tmp/out" "deepep dispatcher, dropless" "the dispatcher in the header"
expect_rc 0 "predict dense json" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 8 --json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["recipe"]; assert "moe_dispatcher" not in r and "moe_token_drop" not in r, r' "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: a dense recipe carries no dispatcher"; fails=$((fails + 1)); }
expect_rc 2 "bad --dispatcher" -- "$bin" "${h100[@]}" --dispatcher nccl
expect_in "$tmp/err" "--dispatcher nccl: expected alltoall or deepep" "the bad dispatcher named"
expect_rc 2 "bad --token-drop" -- "$bin" "${h100[@]}" --token-drop yes
expect_in "$tmp/err" "--token-drop yes: expected on or off" "the bad token drop named"
# Full recompute of 5 layers of the 32: between no recompute and every layer's, and stated.
expect_rc 0 "recompute 5 layers" -- "$bin" "${h100[@]}" --recompute full --recompute-layers 5 --json
cp "$tmp/out" "$tmp/five.json"
expect_rc 0 "recompute every layer" -- "$bin" "${h100[@]}" --recompute full --json
cp "$tmp/out" "$tmp/all.json"
expect_rc 0 "recompute none" -- "$bin" "${h100[@]}" --recompute none --json
cp "$tmp/out" "$tmp/none.json"
python3 - "$tmp/none.json" "$tmp/five.json" "$tmp/all.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: recompute layers"; fails=$((fails + 1)); }
import json, sys
n, f, a = (json.load(open(p)) for p in sys.argv[1:4])
assert f["recipe"]["recompute_layers"] == 5 and "recompute_layers" not in a["recipe"], f["recipe"]
assert n["step_time_s"] < f["step_time_s"] < a["step_time_s"], (n["step_time_s"], f["step_time_s"], a["step_time_s"])
PY
expect_rc 2 "--recompute-layers without full" -- "$bin" "${h100[@]}" --recompute selective --recompute-layers 5
expect_in "$tmp/err" "needs --recompute full" "the flag named"
# Nemotron 3 Super's NVFP4 recipe keeps 14 layers and some modules in bf16: its entry says so, the
# header states it, and clearing both (--bf16-layers 0 --module-precision none) predicts faster.
super=(predict --model nemotron3_super_120b_a12b --chip gb300 --dtype nvfp4 --gpus 64 --release 26.04.01)
expect_rc 0 "super nvfp4 console" -- "$bin" "${super[@]}"
expect_in "$tmp/out" "14 layers in bf16, module precision attn:bf16+latent:bf16+mtp:bf16+mamba_out:fp8" "the recipe's formats in the header"
expect_rc 0 "super nvfp4 json" -- "$bin" "${super[@]}" --json
cp "$tmp/out" "$tmp/super.json"
expect_rc 0 "super nvfp4 all in nvfp4" -- "$bin" "${super[@]}" --bf16-layers 0 --module-precision none --json
cp "$tmp/out" "$tmp/super_fp4.json"
python3 - "$tmp/super.json" "$tmp/super_fp4.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: super nvfp4 formats"; fails=$((fails + 1)); }
import json, sys
s, f = (json.load(open(p)) for p in sys.argv[1:3])
assert s["recipe"]["bf16_layers"] == 14 and s["recipe"]["module_precision"].startswith("attn:bf16"), s["recipe"]
assert f["recipe"]["bf16_layers"] == 0 and "module_precision" not in f["recipe"], f["recipe"]
assert f["step_time_s"] < s["step_time_s"], (f["step_time_s"], s["step_time_s"])
PY
expect_rc 2 "bad --module-precision" -- "$bin" "${super[@]}" --module-precision attn=bf16
expect_in "$tmp/err" "--module-precision attn=bf16: expected none or module:format pairs" "the bad module precision named"
# Every answer states the error it can expect, from the release's measured rows: about the
# calibrated release its leave-one-model-out error, anchored the next-release anchored error;
# about a later release the next-release error; on a chip no release calibrates, its sibling's
# (H200: H100's) constants and their errors, said to be measured on the sibling.
expect_rc 0 "expected error, calibrated release" -- "$bin" "${super[@]}"
expect_in "$tmp/out" "expected |error| of the unanchored step time (calibrated_release): median" "the unanchored expectation"
expect_in "$tmp/out" "leave-one-model-out over the 14 rows of release 26.04.01 on gb300" "what it was measured on"
expect_in "$tmp/out" "booked: anchored on megatron_bridge.tsv" "the booked answer named"
expect_in "$tmp/out" "expected |error| of the anchored step time (calibrated_release): median" "the anchored expectation"
expect_rc 0 "expected error, later release" -- "$bin" "${super[@]:0:9}" --release 26.08 --json
python3 - "$tmp/out" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: expected error JSON"; fails=$((fails + 1)); }
import json, sys
j = json.load(open(sys.argv[1]))
# A release newer than every calibrated one: both answers carry the release-to-release spread of
# the published tables; the booked (anchored) one is the top level.
e, a = j["unanchored"]["expected_error"], j["expected_error"]
assert j["booked"] == "anchored" and j["step_time_s"] != j["unanchored"]["step_time_s"], j["booked"]
assert e["situation"] == a["situation"] == "newer_release", (e, a)
assert 0 < e["median"] <= e["p90"] and "previous calibrated release's constants" in e["basis"], e
assert 0 < a["median"] < e["median"] and "between any two releases" in a["basis"], a
assert e["median_abs"] == e["median"] and e["measured"] == e["basis"], e
PY
expect_rc 0 "expected error, uncalibrated chip" -- "$bin" predict --model llama3.1_70b --chip h200 --dtype fp8 --gpus 64 --tp 4 --pp 4 --gbs 128
expect_in "$tmp/out" "h200 takes h100's constants" "the sibling's constants said in the header"
expect_in "$tmp/out" "measured on h100, not on this chip" "the sibling's errors said to be the sibling's"
# An expert layout that does not fit a pipeline stage: etp defaults to tp (2), 2·64 > 64.
expect_rc 2 "expert layout too large" -- "$bin" predict --model qwen3_235b --chip gb200 --dtype bf16 --gpus 64 --tp 2 --pp 1 --ep 64 --gbs 1024 --mbs 1
expect_in "$tmp/err" "etp·ep = 2·64 does not divide the 64 GPUs of one pipeline stage" "the layout named"
expect_rc 0 "expert layout at etp 1" -- "$bin" predict --model qwen3_235b --chip gb200 --dtype bf16 --gpus 64 --tp 2 --pp 1 --ep 64 --etp 1 --gbs 1024 --mbs 1

# Every published row.
expect_rc 0 "predict published" -- "$bin" predict --published --json
python3 - "$tmp/out" "$src" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: every published row"; fails=$((fails + 1)); }
import json, sys, tomllib, glob
j = json.load(open(sys.argv[1]))
rows = sum(len(tomllib.load(open(f, "rb")).get("reference", [])) for f in glob.glob(sys.argv[2] + "/baselines/*/*.toml"))
assert len(j["rows"]) == rows, (len(j["rows"]), rows)
assert all(r["step_time_s"] > 0 for r in j["rows"])
assert j["held_out"]["rows"] > 0 and j["fitted"]["rows"] > 0
PY
expect_rc 0 "predict published table" -- "$bin" predict --published
expect_in "$tmp/out" "held out:" "the held-out summary"
expect_in "$tmp/out" "rows predicted, " "the rows no answer was given for counted"

# Bad input.
expect_rc 2 "bad --set" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 8 --tp 1 --gbs 128 --set coll.all_gather.busbw=fast
expect_in "$tmp/err" "--set coll.all_gather.busbw=fast" "the bad assignment named"
expect_rc 2 "unknown rate" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 8 --gbs 128 --set cpu.speed=1
expect_in "$tmp/err" "unknown rate" "unknown rate named"
expect_rc 2 "unknown model" -- "$bin" predict --model nosuch_1b --chip h100 --dtype bf16 --gpus 8
expect_in "$tmp/err" "nosuch_1b" "the model named"
expect_rc 2 "no recipe at that scale" -- "$bin" predict --model llama3.1_405b --chip h100 --dtype bf16 --gpus 96
expect_in "$tmp/err" "--gbs" "what to give named"
expect_rc 2 "gpus not divisible" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 12 --tp 8 --gbs 64
expect_rc 2 "out of range" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 0
expect_in "$tmp/err" "--gpus" "the flag named"
echo '{"schema_version": 1}' >"$tmp/bad.json"
expect_rc 2 "bad measured document" -- "$bin" predict --model llama3.1_8b --chip h100 --dtype bf16 --gpus 8 --gbs 128 --measured "$tmp/bad.json"
expect_in "$tmp/err" "bad.json" "the document named"
expect_rc 64 "no recipe" -- "$bin" predict --chip h100
finish
