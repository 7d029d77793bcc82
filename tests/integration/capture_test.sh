#!/usr/bin/env bash
# `yardstick capture DIR` records what the checks read on this machine; replaying the tree with
# --root gives the same outcomes and finding codes as the live run.
set -euo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory

"$bin" capture "$tmp/tree" > "$tmp/capture.out"
grep -q "captured" "$tmp/capture.out"
test -s "$tmp/tree/proc/meminfo"
test -f "$tmp/tree/.yardstick/capture.txt"
# The GPUs: recorded where NVML answers, and said so either way.
if [ -f "$tmp/tree/.yardstick/nvml.json" ]; then
  grep -q "recorded the NVML state of" "$tmp/capture.out"
  "$bin" preflight --root "$tmp/tree" --nvml-state "$tmp/tree/.yardstick/nvml.json" --json > /dev/null || [ $? -le 1 ]
else
  grep -q "no NVML state recorded: " "$tmp/capture.out"
fi
# The environment is filtered: nothing but the variables the checks judge.
if tr '\0' '\n' < "$tmp/tree/proc/self/environ" | grep -qE '^(PATH|HOME|PWD)='; then
  echo "capture kept unrelated environment variables"; exit 1
fi

# A capture never overwrites an existing tree.
if "$bin" capture "$tmp/tree" 2> "$tmp/err"; then echo "capture overwrote a tree"; exit 1; fi
grep -q "not empty" "$tmp/err"
# Nor writes through a link: a target that is a symbolic link (here to an empty directory
# elsewhere) is refused and nothing appears where it points.
mkdir "$tmp/elsewhere"; ln -s "$tmp/elsewhere" "$tmp/linked"
if "$bin" capture "$tmp/linked" 2> "$tmp/err"; then echo "capture wrote through a symbolic link"; exit 1; fi
grep -q "a symbolic link" "$tmp/err"
if [ -n "$(ls -A "$tmp/elsewhere")" ]; then echo "capture wrote into the link's target"; exit 1; fi

"$bin" preflight --json > "$tmp/live.json" || [ $? -le 2 ]
"$bin" preflight --root "$tmp/tree" --json > "$tmp/replay.json" || [ $? -le 2 ]
/usr/bin/python3 - "$tmp/live.json" "$tmp/replay.json" <<'PY'
import json, sys
def shape(path):
    d = json.load(open(path))
    return {c["id"]: (c["outcome"], sorted(f["code"] for f in c["findings"])) for c in d["checks"]}
live, replay = shape(sys.argv[1]), shape(sys.argv[2])
bad = {k: (live[k], replay.get(k)) for k in live if live[k] != replay.get(k)}
if bad:
    print("live and replay differ:", json.dumps(bad, indent=1))
    sys.exit(1)
print("replay matches live for %d checks" % len(live))
PY
