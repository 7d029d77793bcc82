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

# --from: a saved nvidia-smi topo -m judged on its own (tests/fixtures/real/topo/SOURCES.md).
real=$src/tests/fixtures/real/topo
expect_rc 0 "--from a healthy HGX H100 matrix" -- "$bin" topo --from "$real/hgx_h100_8gpu_nv18_nic_pix_partial.txt"
expect_in "$tmp/out" "NV18 on all 28 GPU pairs" "NVLink judged from the matrix"
expect_in "$tmp/out" "verdict: PASS" "verdict PASS"
expect_rc 0 "--from a PCIe-only matrix" -- "$bin" topo --from "$real/rtx_pro_6000_blackwell_2gpu_topo_mp.txt"
expect_in "$tmp/out" "PCIe only" "PCIe board judged as such"
expect_rc 2 "--from a cut matrix is INCONCLUSIVE" -- "$bin" topo --from "$real/pcie_8gpu_mlx4_socket0_fragment.txt"
expect_in "$tmp/out" "GPU5-GPU6" "the missing pair named"
expect_in "$tmp/out" "verdict: INCONCLUSIVE" "verdict INCONCLUSIVE"
sed 's/^GPU0\( *\)X\( *\)NV6\( *\)NV6\( *\)NV6/GPU0\1X\2NV6\3NV6\4SYS/; s/^GPU3\( *\)NV6/GPU3\1SYS/' "$real/h100_4gpu_nv6_nic_pix.txt" > "$tmp/nvdown.txt"
expect_rc 1 "--from a matrix with a missing NVLink" -- "$bin" topo --from "$tmp/nvdown.txt"
expect_in "$tmp/out" "NVLink missing or down: GPU0-GPU3 SYS" "the pair without NVLink named"
printf '  GPU0 GPU1 NIC0 CPU Affinity NUMA Affinity\nGPU0 X NV4 PIX 0-7 0\nGPU1 NV4 X SYS 8-15 1\nNIC0 PIX SYS X\n' > "$tmp/far.txt"
expect_rc 0 "--from a NIC across the socket warns" -- "$bin" topo --from "$tmp/far.txt"
expect_in "$tmp/out" "GPU1: nearest NIC is SYS" "GPU across the socket named"
expect_rc 1 "--from a NIC across the socket with --strict" -- "$bin" topo --from "$tmp/far.txt" --strict
expect_rc 2 "--from a file that is no matrix" -- "$bin" topo --from "$state"
expect_in "$tmp/err" "healthy-h100x8.json" "the file named"
expect_rc 2 "--from a missing file" -- "$bin" topo --from "$tmp/none.txt"
expect_in "$tmp/err" "$tmp/none.txt" "missing file named"
expect_rc 64 "--from with --root" -- "$bin" topo --from "$tmp/far.txt" --root "$hosts/healthy-8gpu"

# This machine: whatever it has, topo answers (0) and never crashes.
expect_rc 0 "live host" -- "$bin" topo

finish
