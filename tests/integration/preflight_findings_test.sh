#!/usr/bin/env bash
# The findings of `yardstick preflight --json` on every recorded host tree, compared with the
# golden files in tests/golden/preflight_findings/ (one finding a line: code, severity, entity,
# message, evidence, fix, expected recovery and reference, sorted). The unit that raised a finding
# is left out on purpose: splitting a unit changes which id carries a finding, never the finding.
# YS_UPDATE_GOLDEN=1 rewrites the golden files.
# Usage: preflight_findings_test.sh BIN SRC
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
golden=$src/tests/golden/preflight_findings
hosts=$src/tests/fixtures/hosts
nvml=$src/tests/fixtures/nvml

extract() {  # extract JSON -> one finding a line, sorted; the source tree's path reads <src>
  python3 - "$1" "$src" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
roots = sorted({sys.argv[2].rstrip("/"), os.path.realpath(sys.argv[2])}, key=len, reverse=True)
units = list(doc.get("checks", []))
for node in doc.get("nodes", []) or []:
    units += node.get("checks", [])
lines = []
for u in units:
    for f in u.get("findings", []):
        keep = {k: f.get(k) for k in ("code", "severity", "entity", "message", "evidence", "fix",
                                      "expected_recovery", "reference")}
        line = json.dumps(keep, sort_keys=True, ensure_ascii=False)
        for root in roots:
            line = line.replace(root + "/", "<src>/")
        lines.append(line)
for line in sorted(lines):
    print(line)
PY
}

compare() {  # compare NAME preflight-arguments...
  local name=$1; shift
  local rc=0
  "$bin" preflight "$@" --json >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "FAIL: $name: preflight exit $rc"; head -5 "$tmp/$name.err"; fails=$((fails + 1)); return
  fi
  extract "$tmp/$name.json" >"$tmp/$name.txt" || { echo "FAIL: $name: unreadable JSON"; fails=$((fails + 1)); return; }
  if [ -n "${YS_UPDATE_GOLDEN:-}" ]; then cp "$tmp/$name.txt" "$golden/$name.txt"; fi
  if diff -u "$golden/$name.txt" "$tmp/$name.txt" >"$tmp/$name.diff"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name: findings differ from $golden/$name.txt"; head -40 "$tmp/$name.diff"; fails=$((fails + 1))
  fi
}

sites=$src/tests/fixtures/sites
for tree in "$hosts"/*/; do
  name=$(basename "$tree")
  compare "$name" --root "$tree"
  # Site policies and thresholds that turn the policy branches of the checks on.
  for site in "$sites"/*.toml; do
    compare "$name@$(basename "$site" .toml)" --root "$tree" --expect "$site"
  done
done
# The recorded NVML states the GPU integration tests replay on the healthy tree.
for state in h200x8-throttle-remap nvlink-down; do
  compare "healthy-8gpu+$state" --root "$hosts/healthy-8gpu" --nvml-state "$nvml/$state.json"
done
compare "healthy-8gpu+xid" --root "$hosts/healthy-8gpu" --nvml-state "$nvml/xid.json" \
  --kernel-log "$nvml/xid-kmsg.txt"
# Every tree has a golden file, and no golden file outlives its tree.
for g in "$golden"/*.txt; do
  [ -f "$tmp/$(basename "$g")" ] || { echo "FAIL: $g names no tree this script checks"; fails=$((fails + 1)); }
done
finish
