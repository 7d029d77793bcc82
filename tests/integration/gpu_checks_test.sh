#!/usr/bin/env bash
# The gpu.* checks the way an operator runs them: on this machine (no NVIDIA driver) every one
# that reads NVML skips with the reason, gpu.nvml says there is no GPU to judge, and the run
# passes; replaying each recorded NVML state against the host
# tree its GPUs belong to reports exactly the planted finding codes, with the exit code to match.
set -euo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory
nvml=$src/tests/fixtures/nvml
root=$src/tests/fixtures/hosts/healthy-8gpu

# This machine.
rc=0; "$bin" preflight --filter 'gpu.*' --json > "$tmp/live.json" || rc=$?
/usr/bin/python3 - "$tmp/live.json" "$rc" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
gpu = [c for c in d["checks"] if c["id"].startswith("gpu.") and c["id"] != "gpu.nvml"]
assert len(gpu) == 14, [c["id"] for c in gpu]
nvml = [c for c in d["checks"] if c["id"] == "gpu.nvml"]
assert len(nvml) == 1 and nvml[0]["outcome"] == "pass" and "no GPU" in nvml[0]["summary"], nvml
for c in gpu:
    # No NVIDIA driver here: every GPU unit skips and says why.
    assert c["outcome"] == "skip", (c["id"], c["outcome"], c.get("summary"))
    assert c.get("summary"), c["id"]
assert sys.argv[2] == "0", "exit code " + sys.argv[2]
print("live: %d gpu checks skip: %s" % (len(gpu), gpu[0]["summary"]))
PY

check() {  # state kernel-log expected-exit codes...
  local state=$1 log=$2 want=$3; shift 3
  local rc=0
  "$bin" preflight --root "$root" --nvml-state "$nvml/$state.json" --kernel-log "$nvml/$log" \
    --filter 'gpu.*' --json > "$tmp/$state.json" || rc=$?
  [ "$rc" = "$want" ] || { echo "$state: exit $rc, expected $want"; exit 1; }
  /usr/bin/python3 - "$tmp/$state.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted(f["code"] for c in d["checks"] for f in c["findings"])
want = sorted(sys.argv[2:])
assert got == want, (sys.argv[1], got, want)
for c in d["checks"]:
    assert c["outcome"] in ("pass", "warn", "fail"), (c["id"], c["outcome"], c.get("summary"))
print("%s: %s" % (sys.argv[1].rsplit("/", 1)[-1], " ".join(got) or "no findings"))
PY
}
check healthy-h100x8 healthy-kmsg.txt 0
check h200x8-throttle-remap healthy-kmsg.txt 1 YS-GPU-011 YS-GPU-020 YS-GPU-032
check nvlink-down healthy-kmsg.txt 1 YS-GPU-045 YS-GPU-046 YS-GPU-047
check xid xid-kmsg.txt 1 YS-GPU-040 YS-GPU-040

# Findings with GPU evidence keep to the run document's schema.
/usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/run.schema.json" \
  "$tmp/live.json" "$tmp/healthy-h100x8.json" "$tmp/h200x8-throttle-remap.json" \
  "$tmp/nvlink-down.json" "$tmp/xid.json"

# A kernel log file that does not exist is the operator's mistake: an error for gpu.xid, named.
rc=0; "$bin" preflight --root "$root" --nvml-state "$nvml/xid.json" --kernel-log /nonexistent/kmsg \
  --filter gpu.xid > "$tmp/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "missing --kernel-log: exit $rc"; cat "$tmp/out"; exit 1; }
grep -q /nonexistent/kmsg "$tmp/out"
echo "gpu checks: ok"
