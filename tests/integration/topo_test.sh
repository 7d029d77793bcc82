#!/usr/bin/env bash
# `yardstick topo` the way an operator runs it: the matrix from a recorded tree and recorded NVML
# state, without NVML state, JSON against its schema, --strict, and bad input.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
validate() { /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/topo.schema.json" "$@"; }
hosts=$src/tests/fixtures/hosts
state=$src/tests/fixtures/nvml/healthy-h100x8.json

expect_rc 0 "topo --help" -- "$bin" topo --help
expect_in "$tmp/out" "--nvml-state" "help names --nvml-state"

# The H100x8 fixture with its recorded NVML state.
expect_rc 0 "healthy with NVML state" -- "$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$state"
expect_in "$tmp/out" "CPU Affinity" "matrix header"
grep -E '^GPU0 +X +NV18 +NV18 +NV18 +NV18 +NV18 +NV18 +NV18 +PIX +NODE +NODE +NODE +SYS +SYS +SYS +SYS +0-3,8-11 +0$' "$tmp/out" >/dev/null \
  && passes=$((passes + 1)) || { echo "FAIL: GPU0 row"; cat "$tmp/out"; fails=$((fails + 1)); }
expect_in "$tmp/out" "NV#  = Connection traversing a bonded set of # NVLinks" "legend"
expect_in "$tmp/out" "NIC0: mlx5_0 (0000:12:00.0)" "NIC legend"
expect_in "$tmp/out" "no GPU's nearest NIC is across the CPU interconnect" "locality verdict"
expect_rc 0 "strict on a healthy tree" -- "$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$state" --strict

# Without NVML state: the PCI matrix, and it says NVLink is unknown.
expect_rc 0 "healthy without NVML state" -- "$bin" topo --root "$hosts/healthy-8gpu"
expect_in "$tmp/out" "NVLink unknown without NVML state" "says NVLink unknown"
expect_in "$tmp/out" "NVML state: none (no recorded NVML state" "says why there is none"
expect_not_in "$tmp/out" "NV18" "no NVLink cells without NVML"

# Recorded state inside the tree is found on its own.
cp -r "$hosts/healthy-8gpu" "$tmp/withstate"
mkdir -p "$tmp/withstate/.yardstick" && cp "$state" "$tmp/withstate/.yardstick/nvml.json"
expect_rc 0 "tree with .yardstick/nvml.json" -- "$bin" topo --root "$tmp/withstate"
expect_in "$tmp/out" "NV18" "recorded state in the tree used"

# JSON, against its schema, for every fixture (with and without NVML state).
i=0
for root in "$hosts"/*/; do
  "$bin" topo --root "$root" --json > "$tmp/doc$i.json" || { echo "FAIL: topo --json on $root"; fails=$((fails + 1)); }
  i=$((i + 1))
done
"$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$state" --json > "$tmp/doc-nvml.json"
if validate "$tmp"/doc*.json; then passes=$((passes + 1)); else echo "FAIL: topo JSON schema"; fails=$((fails + 1)); fi
/usr/bin/python3 - "$tmp/doc-nvml.json" <<'PY' && passes=$((passes + 1)) || { echo "FAIL: topo JSON content"; fails=$((fails + 1)); }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nvml"]["available"] is True
assert d["matrix"]["GPU0"]["GPU7"] == "NV18" and d["pci_matrix"]["GPU0"]["GPU7"] == "SYS"
assert d["matrix"]["GPU3"]["NIC3"] == "PIX" and d["gpus"][3]["nearest_nic"] == {"label": "NIC3", "link": "PIX"}
assert len(d["gpus"]) == 8 and len(d["nics"]) == 8 and d["flags"] == []
PY
# The schema can fail.
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['matrix']['GPU0']['GPU1'] = 'FAST'; json.dump(d, open(sys.argv[2], 'w'))" "$tmp/doc-nvml.json" "$tmp/broken.json"
if validate "$tmp/broken.json" >/dev/null; then echo "FAIL: schema accepted a bad cell"; fails=$((fails + 1)); else passes=$((passes + 1)); fi

# A node whose socket-0 GPUs have no NIC on their socket: flagged; exit 1 only with --strict.
cp -r "$hosts/healthy-8gpu" "$tmp/sys"
rm "$tmp/sys/sys/bus/pci/devices/"{0000:12:00.0,0000:22:00.0,0000:32:00.0,0000:42:00.0}
expect_rc 0 "SYS NIC without --strict" -- "$bin" topo --root "$tmp/sys" --nvml-state "$state"
expect_in "$tmp/out" "WARNING: GPU0 (0000:11:00.0): nearest NIC is NIC0 (mlx5_4) at SYS" "SYS flagged"
expect_rc 1 "SYS NIC with --strict" -- "$bin" topo --root "$tmp/sys" --nvml-state "$state" --strict
expect_rc 1 "SYS NIC with --strict --json" -- "$bin" topo --root "$tmp/sys" --strict --json
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert [f['gpu'] for f in d['flags']] == ['GPU0','GPU1','GPU2','GPU3'], d['flags']" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: flags in JSON"; fails=$((fails + 1)); }

# Bad input is 2 with a message naming what is wrong.
expect_rc 2 "missing NVML state file" -- "$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$tmp/none.json"
expect_in "$tmp/err" "$tmp/none.json" "missing state file named"
printf '{"devices": [{"index": 0, "uuid": "GPU-1", "name": "H100", "pci_bus_id": "00000000:11:00.0", "temperature_c": 40}]}' > "$tmp/bad.json"
expect_rc 2 "malformed NVML state" -- "$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$tmp/bad.json"
expect_in "$tmp/err" "bad.json: devices[0].temperature_c" "state error names file and field"
head -c 2000 /dev/urandom > "$tmp/withstate/.yardstick/nvml.json"
expect_rc 2 "garbage recorded state in the tree" -- "$bin" topo --root "$tmp/withstate"
expect_in "$tmp/err" "withstate/.yardstick/nvml.json: not JSON" "tree state error names the file"
expect_rc 2 "root is not a directory" -- "$bin" topo --root /nonexistent/tree
expect_in "$tmp/err" "/nonexistent/tree" "root error names the path"
expect_rc 64 "unknown option" -- "$bin" topo --frobnicate

# This machine: whatever it has, topo answers (0) and never crashes.
expect_rc 0 "live host" -- "$bin" topo

finish
