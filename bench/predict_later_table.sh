#!/usr/bin/env bash
# How `predict --published` answers a table of a release newer than every calibrated one when the
# table states only the layout: the 26.04.01 rows of baselines/published/megatron_bridge.tsv are
# copied under a later tag ("26.06") into a scratch data directory twice, once as they are and once
# with every software-feature column (dispatcher, token drop, all-to-all overlap, CUDA graphs,
# recompute, MTP, FSDP, expert TP, other) set to "-". Both are predicted with 26.04.01's constants
# and anchored on 26.04.01's rows; the recipe is the same, so the two answers should agree: a
# row's unstated features come from the model file's newest entry at or before its release
# (release_cases.h FeatureDonor). Prints the "releases after" summary of each.
#
#   bench/predict_later_table.sh [build/yardstick]
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

for variant in stated unstated; do
  d=$work/$variant
  mkdir -p "$d/baselines/published"
  for x in models specs calibration; do ln -s "$src/$x" "$d/$x"; done
  cp -r "$src/baselines/h100" "$src/baselines/gb200" "$d/baselines/"
  cp "$src"/baselines/published/*.tsv "$d/baselines/published/"
  python3 - "$src/baselines/published/megatron_bridge.tsv" "$d/baselines/published/later.tsv" \
    "$variant" <<'PY'
import sys
src, out, variant = sys.argv[1:4]
lines = open(src).read().split("\n")
header = next(l for l in lines if l.startswith("release\t"))
cols = header.split("\t")
blank = ["dispatcher", "token_drop", "a2a_overlap", "cuda_graphs", "recompute", "mtp", "other",
         "fsdp", "etp", "ga"]
rows = []
for l in lines:
    if not l.startswith("26.04.01\t"):
        continue
    r = l.split("\t")
    r[0] = "26.06"
    if variant == "unstated":
        for c in blank:
            r[cols.index(c)] = "-"
    rows.append("\t".join(r))
open(out, "w").write("\n".join([header] + rows) + "\n")
print(f"{variant}: {len(rows)} rows of 26.04.01 as 26.06", file=sys.stderr)
PY
  echo "== $variant"
  HOME=$work "$bin" predict --published --data "$d" | sed -n '/^releases after/,/^  [^ ]*:[0-9]/p' | grep -v '\.tsv:[0-9]'
done
