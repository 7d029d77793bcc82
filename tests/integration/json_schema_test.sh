#!/usr/bin/env bash
# `yardstick preflight --json` validates against schemas/run.schema.json on this machine and on
# every recorded host tree; and the validator does reject a document that breaks the schema.
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
validate() { /usr/bin/python3 "$src/tests/integration/validate_json.py" "$src/schemas/run.schema.json" "$@"; }

"$bin" preflight --json > "$tmp/live.json" || [ $? -le 2 ]
docs=("$tmp/live.json")
for root in "$src"/tests/fixtures/hosts/*/; do
  name=$(basename "$root")
  "$bin" preflight --root "$root" --json > "$tmp/$name.json" || [ $? -le 2 ]
  docs+=("$tmp/$name.json")
done
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
