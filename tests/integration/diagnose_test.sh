#!/usr/bin/env bash
# `yardstick diagnose` the way an operator runs it: on the preflight documents of recorded hosts
# (the Grace VM without CMDQV, a container missing its NCCL topology file, a healthy node), on a
# run with a noisy neighbour measured by a proxy (and the same run without it), on a validation
# document and a run directory, and on malformed input (exit 2 naming the file and the field).
# ctest: run alone (the live noisy-neighbour case counts every other process on the cores).
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts

preflight() {  # preflight FIXTURE OUT.json [ARGS...]: the document, whatever the verdict
  local fixture=$1 out=$2; shift 2
  "$bin" preflight --root "$hosts/$fixture" "$@" --json >"$out" 2>/dev/null
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out" || { echo "FAIL: preflight $fixture wrote no JSON"; fails=$((fails + 1)); }
}

# Exemplar case 1: the Grace VM fixture -> the SMMU CMDQV rule with its fix.
preflight grace-vm-smmu "$tmp/grace.json"
expect_rc 1 "diagnose grace VM" -- "$bin" diagnose "$tmp/grace.json"
expect_in "$tmp/out" "virt.smmu_cmdqv" "grace VM: the CMDQV rule"
expect_in "$tmp/out" "CONFIG_TEGRA241_CMDQV=y" "grace VM: the kernel fix"
expect_in "$tmp/out" "Exemplar case 1" "grace VM: the recovery's basis"
expect_in "$tmp/out" "YS-VIRT-002" "grace VM: the finding it rests on"

# Exemplar case 4: NCCL_TOPO_FILE absent in the container -> the bind mount.
preflight container-topo-missing "$tmp/topo.json"
expect_rc 1 "diagnose container" -- "$bin" diagnose "$tmp/topo.json"
expect_in "$tmp/out" "container.topology_file" "container: the topology-file rule"
expect_in "$tmp/out" "--container-mounts=" "container: the pyxis bind mount"

# Recorded GPU state: a GPU in HW thermal slowdown, an NVLink link down.
"$bin" preflight --root "$hosts/healthy-8gpu" --nvml-state "$src/tests/fixtures/nvml/h200x8-throttle-remap.json" \
  --json >"$tmp/throttle.json" 2>/dev/null
expect_rc 1 "diagnose throttling" -- "$bin" diagnose "$tmp/throttle.json"
expect_in "$tmp/out" "gpu.throttling" "throttle: the throttling rule"
expect_in "$tmp/out" "max / clock - 1" "throttle: recovery from the clocks"
"$bin" preflight --root "$hosts/healthy-8gpu" --nvml-state "$src/tests/fixtures/nvml/nvlink-down.json" \
  --json >"$tmp/nvlink.json" 2>/dev/null
expect_rc 1 "diagnose nvlink" -- "$bin" diagnose "$tmp/nvlink.json"
expect_in "$tmp/out" "fabric.downtrained_link" "nvlink: the downtrained-link rule"
expect_in "$tmp/out" "not quantified" "nvlink: no invented recovery"

# Exemplar case 2 on the misconfigured H100 host: shared cpuset, remote memory, C6, a neighbour.
preflight h100-misconfigured "$tmp/h100.json"
expect_rc 1 "diagnose h100-misconfigured" -- "$bin" diagnose "$tmp/h100.json"
expect_in "$tmp/out" "host.cpu_placement" "h100: placement"
expect_in "$tmp/out" "12% to 3%" "h100: case 2's figure"
expect_in "$tmp/out" "host.core_sharing" "h100: the processes on the job's cores"

# The healthy node: nothing to diagnose.
# With its GPUs' recorded state: without it gpu.nvml fails the tree (its GPUs were not judged).
preflight healthy-8gpu "$tmp/healthy.json" --nvml-state "$src/tests/fixtures/nvml/healthy-h100x8.json"
expect_rc 0 "diagnose healthy" -- "$bin" diagnose "$tmp/healthy.json"
expect_in "$tmp/out" "no cause found" "healthy: no cause"

# --json: the diagnosis list and the rules not evaluated; every entry valid against the schema.
expect_rc 1 "diagnose --json" -- "$bin" diagnose --json "$tmp/grace.json"
cp "$tmp/out" "$tmp/grace-diag.json"
python3 - "$src/schemas/run.schema.json" "$tmp/grace-diag.json" <<'PY' || { echo "FAIL: --json diagnosis invalid"; fails=$((fails + 1)); }
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
assert set(doc) == {"diagnosis", "not_evaluated"}, doc.keys()
assert doc["diagnosis"] and doc["diagnosis"][0]["rule"] == "virt.smmu_cmdqv"
sub = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "$ref": "#/$defs/diagnosis"}
for d in doc["diagnosis"]:
    jsonschema.Draft202012Validator(sub).validate(d)
PY
passes=$((passes + 1))

# A noisy neighbour measured by a proxy: the healthy node's document plus a proxy whose step times
# grew a tail while pid 4242 took 30% of the job's cores; then the same run without the hog.
neighbour() {  # neighbour SHARE TAIL OUT.json
  python3 - "$tmp/healthy.json" "$1" "$2" "$3" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
share, tail = float(sys.argv[2]), sys.argv[3] == "1"
steps = [0.1 + (0.05 if tail and i % 4 == 3 else 0) + 0.0002 * (i % 3) for i in range(40)]
def m(name, value, samples=()):
    return {"name": name, "value": value, "unit": "s", "better": "lower", "params": {},
            "stats": {"n": len(samples), "min": 0, "median": 0, "max": 0, "mean": 0, "stdev": 0},
            "samples": list(samples)}
doc["benchmarks"].append({
    "id": "proxy.llama3.1_8b", "outcome": "pass", "summary": "proxy", "duration_ms": 1,
    "evidence": {"foreign_process.1": "pid 4242 (stress) on cpus 0-1: 30%"} if share > 0.05 else {},
    "findings": [], "tables": [],
    "measurements": [m("proxy.llama3.1_8b.step_time", 0.1, steps),
                     m("proxy.llama3.1_8b.predicted_step_time", 0.098),
                     m("proxy.llama3.1_8b.foreign_cpu_share", share)]})
json.dump(doc, open(sys.argv[4], "w"))
PY
}
neighbour 0.30 1 "$tmp/hog.json"
expect_rc 1 "diagnose noisy neighbour" -- "$bin" diagnose "$tmp/hog.json"
expect_in "$tmp/out" "host.core_sharing" "hog: core sharing"
expect_in "$tmp/out" "pid 4242 (stress) on cpus 0-1" "hog: names the process and its cores"
expect_in "$tmp/out" "AllowedCPUs=" "hog: the cpuset fix"
# The rule's arithmetic keeps its figure; the proxy's recovery is an estimate, to two figures.
expect_in "$tmp/out" "1 / (1 - s) - 1 = 42.9%" "hog: 1 / (1 - 0.3) - 1"
expect_in "$tmp/out" "~+43% (estimate)" "hog: the proxy's recovery is an estimate"
expect_not_in "$tmp/out" "+42.9% " "hog: no tenth of a percent in the ranked line"
neighbour 0.01 0 "$tmp/nohog.json"
expect_rc 0 "diagnose without the hog" -- "$bin" diagnose "$tmp/nohog.json"
expect_not_in "$tmp/out" "host.core_sharing" "no hog: core sharing silent"

# The live noisy neighbour, where this build has the proxy units: a proxy run with a busy loop
# pinned to the job's cores names the loop, its cores and the cpuset fix; without it the rule
# stays silent (other step-time rules may speak on a busy shared machine: not asserted).
if "$bin" list 2>/dev/null | grep -q '^proxy.llama3.1_8b ' && command -v taskset >/dev/null; then
  "$bin" bench --filter proxy.llama3.1_8b --iters 12 --warmup 1 --data "$src" --json >"$tmp/live-clean.json" 2>/dev/null
  "$bin" diagnose "$tmp/live-clean.json" >"$tmp/out" 2>&1
  expect_not_in "$tmp/out" "host.core_sharing" "live, no hog: core sharing silent"
  taskset -c 0,1 bash -c 'while :; do :; done' &
  hog=$!
  "$bin" bench --filter proxy.llama3.1_8b --iters 12 --warmup 1 --data "$src" --json >"$tmp/live-hog.json" 2>/dev/null
  kill "$hog"; wait "$hog" 2>/dev/null
  expect_rc 1 "live, with a pinned busy loop" -- "$bin" diagnose "$tmp/live-hog.json"
  expect_in "$tmp/out" "host.core_sharing" "live hog: core sharing"
  expect_in "$tmp/out" "pid $hog (bash) on cpus 0-1" "live hog: names the loop and its cores"
  expect_in "$tmp/out" "taskset -acp <housekeeping cores> $hog" "live hog: the fix for that pid"
else
  echo "note: no proxy units in this build (or no taskset): the live noisy-neighbour case is not run"
fi

# A validation document alone, and a run directory holding run.json and validation.json.
cat >"$tmp/validation.json" <<'JSON'
{"kind": "yardstick-validation", "suite": {"threshold": 0.95},
 "workloads": [{"id": "pretrain_llama3.1_70b_fp8", "score": 0.75, "mfu": 0.3,
                "measured": {"log": "/runs/70b/log.txt", "tflops_per_gpu": 300},
                "reference": {"tflops_per_gpu": 400}}]}
JSON
expect_rc 1 "diagnose validation" -- "$bin" diagnose "$tmp/validation.json"
expect_in "$tmp/out" "workload.low_mfu" "validation: low MFU"
expect_in "$tmp/out" "+33.3%" "validation: reference MFU / MFU - 1"
mkdir -p "$tmp/rundir"
cp "$tmp/topo.json" "$tmp/rundir/run.json"
cp "$tmp/validation.json" "$tmp/rundir/validation.json"
expect_rc 1 "diagnose run directory" -- "$bin" diagnose "$tmp/rundir"
expect_in "$tmp/out" "container.topology_file" "run dir: the run's cause"
expect_not_in "$tmp/out" "workload.low_mfu" "run dir: a failed finding explains the gap, not tuning"
expect_rc 1 "diagnose --validation" -- "$bin" diagnose "$tmp/healthy.json" --validation "$tmp/validation.json"
expect_in "$tmp/out" "workload.low_mfu" "--validation: low MFU with a healthy run"

# Bad input: exit 2 naming the file and what was expected.
echo 'not json {' >"$tmp/bad.json"
expect_rc 2 "not JSON" -- "$bin" diagnose "$tmp/bad.json"
expect_in "$tmp/err" "bad.json: not JSON" "not JSON: names the file"
echo '{"schema_version": 1, "command": "run", "checks": 3}' >"$tmp/types.json"
expect_rc 2 "wrong types" -- "$bin" diagnose "$tmp/types.json"
expect_in "$tmp/err" "types.json: not a run document" "wrong types: names the file"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["workloads"][0]["score"]="high"; json.dump(d, open(sys.argv[2],"w"))' \
  "$tmp/validation.json" "$tmp/badval.json"
expect_rc 2 "validation wrong type" -- "$bin" diagnose "$tmp/badval.json"
expect_in "$tmp/err" "workloads[0].score: expected a number or null" "validation: names the field"
expect_rc 2 "missing file" -- "$bin" diagnose "$tmp/none.json"
expect_in "$tmp/err" "none.json" "missing file named"
mkdir -p "$tmp/empty"
expect_rc 2 "empty directory" -- "$bin" diagnose "$tmp/empty"
expect_in "$tmp/err" "run.json or validation.json" "empty directory: says what it needs"
expect_rc 2 "--validation not a validation" -- "$bin" diagnose "$tmp/healthy.json" --validation "$tmp/healthy.json"
expect_in "$tmp/err" "expects a validation document" "--validation: says what it expects"
finish
