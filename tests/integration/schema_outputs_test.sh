#!/usr/bin/env bash
# Real outputs of the program, one or more of every document it writes, valid against the schemas
# generated from the field lists (schemas/*.schema.json, docs/schemas.md): a schema that says
# less or other than the writer writes fails here. The run, fleet, predict and topo documents are
# also validated by the tests of their commands (json_schema, merge, predict, topo, ...).
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory
runs=$src/tests/fixtures/runs
ref=$runs/golden-reference.toml
hosts=$src/tests/fixtures/hosts
logs=$src/tests/fixtures/logs
prices=$src/examples/prices.toml
out=$tmp/docs
mkdir -p "$out"
declare -A validated=()

# produce NAME WANT_RC -- command...: the command's stdout is the document $out/NAME.json; WANT_RC
# is an exit code or several ("0|1": a verdict that depends on this machine).
produce() {
  local name=$1 want=$2; shift 3
  "$@" >"$out/$name.json" 2>"$tmp/err"; local rc=$?
  if ! [[ "$rc" =~ ^($want)$ ]]; then
    echo "FAIL: $name: exit $rc, expected $want"; head -5 "$tmp/err"; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
# valid SCHEMA FILE...: each file against schemas/SCHEMA.schema.json.
valid() {
  local schema=$1; shift
  if /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/$schema.schema.json" "$@"; then
    passes=$((passes + 1)); validated[$schema]=1
  else
    echo "FAIL: $* against schemas/$schema.schema.json"; fails=$((fails + 1))
  fi
}

produce version 0 -- "$bin" version --json
valid version "$out/version.json"
produce list 0 -- "$bin" list --json
valid list "$out/list.json"
produce list_codes 0 -- "$bin" list --codes --json
valid list_codes "$out/list_codes.json"
produce list_params 0 -- "$bin" list --params --json
valid list_params "$out/list_params.json"
produce list_formats 0 -- "$bin" list --formats --json
valid list_formats "$out/list_formats.json"

# Run documents: preflight on recorded trees (recorded in the history, which history lists).
produce run-healthy "0|1" -- "$bin" preflight --root "$hosts/healthy-8gpu" --json
produce run-misconfigured 1 -- "$bin" preflight --root "$hosts/h100-misconfigured" --json
valid run "$out/run-healthy.json" "$out/run-misconfigured.json" "$runs/report-3node/run.json"
produce topo 0 -- "$bin" topo --root "$hosts/healthy-8gpu" --json
valid topo "$out/topo.json"
produce compare 0 -- "$bin" compare "$out/run-healthy.json" "$out/run-misconfigured.json" --json
valid compare "$out/compare.json"
produce history 0 -- "$bin" bench --filter mem.stream --sizes 2M --iters 2 --db "$tmp/h.db" --json
produce history 0 -- "$bin" history --db "$tmp/h.db" --json
valid history "$out/history.json"

# Validation, its diagnosis and the archive's manifest and environment.
produce validation 1 -- "$bin" validate --suite h100 --runs "$runs/h100-one-at-94" --reference "$ref" --json
valid validation "$out/validation.json"
"$bin" validate --suite h100 --runs "$runs/h100-one-at-94" --reference "$ref" --out "$tmp/val" >/dev/null 2>&1
valid validation "$tmp/val/validation.json"
valid diagnosis "$tmp/val/diagnosis.json"
produce diagnosis 1 -- "$bin" diagnose "$out/run-misconfigured.json" --json
valid diagnosis "$out/diagnosis.json"
produce predict_suite 0 -- "$bin" validate --suite h100 --predict --json
valid predict_suite "$out/predict_suite.json"
produce predict_suite_serving 0 -- "$bin" validate --suite h200-serving --predict --json
valid predict_suite "$out/predict_suite_serving.json"
produce predict_serve 0 -- "$bin" predict --serve --model deepseek-r1 --chip h200 --dtype fp8 --gpus 8 --tp 8 --ep 8 --isl 1024 --osl 1024 --concurrency 64 --json
valid predict_serve "$out/predict_serve.json"
if "$bin" archive --suite h100 --runs "$runs/h100-pass" --reference "$ref" -o "$tmp/a.tar.zst" >/dev/null 2>&1 &&
  mkdir -p "$tmp/archive" && tar --zstd -xf "$tmp/a.tar.zst" -C "$tmp/archive"; then
  passes=$((passes + 1))
  valid manifest "$(find "$tmp/archive" -name manifest.json)"
  valid environment "$(find "$tmp/archive" -name environment.json)"
else
  echo "FAIL: archive"; fails=$((fails + 1))
fi

# Logs read, cost, predictions, scaling.
produce ingest 1 -- "$bin" ingest --json --seq 8192 "$logs"/megatron_bridge/log-*_4242_0.out "$logs/nan_grad_norm.log"
valid ingest "$out/ingest.json"
/usr/bin/python3 -c "import json,sys; [json.dump(r, open('%s/workload_run%d.json' % (sys.argv[2], i), 'w')) for i, r in enumerate(json.load(open(sys.argv[1]))['runs'])]" \
  "$out/ingest.json" "$tmp"
valid workload_run "$tmp"/workload_run*.json
produce cost 0 -- "$bin" cost --prices "$prices" --tokens-per-s-per-gpu 1000 --gpus 1024 --tokens 15T --reference-tokens-per-s 1111 --compare "$prices" --compare-tokens-per-s 1500 --json
produce cost-run 0 -- "$bin" cost --prices "$prices" --run "$runs/report-3node/run.json" --gpus 512 --json
valid cost "$out/cost.json" "$out/cost-run.json"
produce predict 0 -- "$bin" predict --model deepseek-v3_671b --chip gb200 --dtype bf16 --gpus 128 --json
valid predict "$out/predict.json"
produce predict_published 0 -- "$bin" predict --published --json
valid predict_published "$out/predict_published.json"
produce scaling_predicted 0 -- "$bin" scaling --model llama3.1_70b --chip h100 --dtype bf16 --json
valid scaling_predicted "$out/scaling_predicted.json"
produce scaling "0|1" -- "$bin" scaling --unit coll.all_reduce --ranks 1,2,3 --oversubscribe --size 64K --iters 3 --json
valid scaling "$out/scaling.json"

# A burn-in's checkpoint and its run document.
"$bin" burnin --profile compute --duration 3s --cycle 1 --checkpoint-interval 1 --gemm-n 256 \
  --stream-bytes 4M --out "$tmp/burnin" >/dev/null 2>&1
valid burnin_checkpoint "$tmp/burnin/burnin.checkpoint.json"
valid run "$tmp/burnin/run.json"
# The fleet: node documents merged.
produce fleet "0|1" -- "$bin" merge "$out/run-healthy.json" "$out/run-misconfigured.json" "$runs/report-3node/run.json" --json
valid fleet "$out/fleet.json"

# The schemas can fail: a key the writer never writes, a value of the wrong type.
/usr/bin/python3 - "$out" "$tmp" <<'PY'
import json, sys
out, tmp = sys.argv[1], sys.argv[2]
for name in ("version", "cost", "validation", "compare", "predict", "fleet", "history"):
    doc = json.load(open("%s/%s.json" % (out, name)))
    target = doc[0] if isinstance(doc, list) else doc
    bad = json.loads(json.dumps(doc))
    (bad[0] if isinstance(bad, list) else bad)["no_such_key"] = 1
    json.dump(bad, open("%s/%s-unknown.json" % (tmp, name), "w"))
    key = next(k for k, v in target.items() if isinstance(v, (str, int, float, bool)))
    bad = json.loads(json.dumps(doc))
    (bad[0] if isinstance(bad, list) else bad)[key] = [] if not isinstance(target[key], list) else 7
    json.dump(bad, open("%s/%s-type.json" % (tmp, name), "w"))
PY
[ $? -eq 0 ] && passes=$((passes + 1)) || { echo "FAIL: broken documents not made"; fails=$((fails + 1)); }
for f in "$tmp"/*-unknown.json "$tmp"/*-type.json; do
  name=$(basename "$f" .json); name=${name%-unknown}; name=${name%-type}
  if /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/$name.schema.json" "$f" >/dev/null; then
    echo "FAIL: schemas/$name.schema.json accepted $f"; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
done

# Every schema but those validated elsewhere met a real document here: nvml (capture, which needs
# NVML; the recorded fixtures are read back instead) and exporter_telemetry (exporter_test).
valid nvml "$src"/tests/fixtures/nvml/healthy-h100x8.json
for f in "$src"/schemas/*.schema.json; do
  name=$(basename "$f" .schema.json)
  case $name in exporter_telemetry) continue ;; esac
  if [ -z "${validated[$name]:-}" ]; then echo "FAIL: no output validated against $f"; fails=$((fails + 1)); fi
done
finish
