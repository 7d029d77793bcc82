#!/bin/bash
# yardstick merge at fleet scale: generates N nodes x 8 GPUs x 8 NICs (make_fleet.py, planted slow
# nodes, GPUs and NICs), merges them, prints wall time and peak RSS, and checks found vs planted.
# Runs 1,024, 2,048 and 4,096 nodes by default, to show that memory does not grow with the node count.
#   bench/merge_fleet.sh [BUILD_DIR] [NODES...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}; shift || true
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1024 2048 4096)
bin=$build/yardstick
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
printf '%-7s %-9s %-10s %-11s %-9s %s\n' nodes figures "gen (s)" "merge (s)" "RSS (MB)" "found vs planted"
for n in "${sizes[@]}"; do
  g0=$(date +%s.%N)
  python3 "$src/tests/fixtures/fleet/make_fleet.py" --nodes "$n" --seed 2026 --out "$work/f$n" >/dev/null
  gen=$(awk -v a="$g0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  rc=0
  /usr/bin/time -v -o "$work/time$n" "$bin" merge "$work/f$n/nodes" -o "$work/f$n.json" >"$work/out$n" || rc=$?
  [ "$rc" -le 1 ] || { echo "merge failed (exit $rc)"; cat "$work/out$n"; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time$n")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$work/time$n")
  figures=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['inputs']['figures'])" "$work/f$n.json")
  verdict="ok"
  python3 "$src/tests/fixtures/fleet/check_fleet.py" "$work/f$n.json" "$work/f$n/truth.json" >"$work/check$n" || verdict="MISMATCH"
  summary=$(grep -E '^slow' "$work/check$n" | awk '{printf "%s %s/%s fp %s; ", $2, $6, $4, $NF}')
  printf '%-7s %-9s %-10s %-11s %-9s %s%s\n' "$n" "$figures" "$gen" "$wall" "$rss" "$summary" "$verdict"
  [ "$verdict" = ok ] || cat "$work/check$n"
done
