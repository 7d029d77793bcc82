#!/usr/bin/env bash
# `yardstick preflight --json` validates against schemas/run.schema.json on this machine and on
# every recorded host tree; and the validator does reject a document that breaks the schema.
set -euo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory
validate() { /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/run.schema.json" "$@"; }

"$bin" preflight --json > "$tmp/live.json" || [ $? -le 2 ]
docs=("$tmp/live.json")
for root in "$src"/tests/fixtures/hosts/*/; do
  name=$(basename "$root")
  "$bin" preflight --root "$root" --json > "$tmp/$name.json" || [ $? -le 2 ]
  docs+=("$tmp/$name.json")
done
# Given recorded NVML state, the document names the GPU source and driver (host.gpu_*).
cat > "$tmp/nvml.json" <<'JSON'
{"source": "nvml", "driver_version": {"value": "550.54.15"},
 "devices": [{"index": 0, "uuid": "GPU-1", "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:1B:00.0"}]}
JSON
"$bin" preflight --root "$src/tests/fixtures/hosts/healthy-8gpu" --nvml-state "$tmp/nvml.json" --json \
  > "$tmp/nvml-state.json" || [ $? -le 2 ]
grep -q '"gpu_driver": "550.54.15"' "$tmp/nvml-state.json"
docs+=("$tmp/nvml-state.json")
validate "${docs[@]}"
echo "valid: ${#docs[@]} documents"

# The schema must be able to fail: a finding without a fix, a wrong outcome, a missing field.
/usr/bin/python3 - "$tmp/live.json" "$tmp" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
broken = []
d = json.loads(json.dumps(doc)); d["verdict"] = "great"; broken.append(d)
d = json.loads(json.dumps(doc)); del d["host"]; broken.append(d)
d = json.loads(json.dumps(doc)); d["checks"].append({"id": "x.y", "outcome": "fail", "summary": "", "duration_ms": 1, "evidence": {}, "findings": []}); broken.append(d)
for i, b in enumerate(broken):
    json.dump(b, open("%s/broken%d.json" % (sys.argv[2], i), "w"))
PY
for b in "$tmp"/broken*.json; do
  if validate "$b" >/dev/null; then echo "schema accepted a broken document: $b"; exit 1; fi
done
echo "rejected: 3 broken documents"
