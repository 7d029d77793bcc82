#!/bin/bash
# yardstick merge on an independent test fleet (tests/fleet/gen_fleet.py: 8x H100 nodes of about
# 490 figures, 1% of nodes with planted faults of 17 kinds, realistic noise and one-off dips):
# median wall time of 3 merges, their median user+sys CPU time (a shared machine stretches the
# wall time, less the CPU time), peak RSS (/usr/bin/time -v), figures per second, then the
# scorer's table (found / planted per kind, false alarms). The fleet lives in a temp dir, removed
# at the end.
#   bench/fleet_merge.sh [NODES (10000)] [BINARY (build/yardstick)] [-- GEN_FLEET_OPTIONS...]
#   e.g. bench/fleet_merge.sh 1000 build/yardstick -- --mixed --duplicates --corrupt 2
# FLEET=DIR merges a fleet gen_fleet.py wrote to DIR before (DIR/nodes, DIR/truth.json) instead.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
nodes=${1:-10000}; [ $# -gt 0 ] && shift
bin=${1:-$src/build/yardstick}; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
[ -x "$bin" ] || { echo "fleet_merge.sh: $bin is not an executable yardstick binary" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

if [ -n "${FLEET:-}" ]; then
  [ -f "$FLEET/truth.json" ] && [ -d "$FLEET/nodes" ] || { echo "fleet_merge.sh: $FLEET is no gen_fleet.py fleet" >&2; exit 2; }
  ln -s "$(cd "$FLEET" && pwd)" "$work/fleet"; gen="(earlier)"
else
  g0=$(date +%s.%N)
  python3 "$src/tests/fleet/gen_fleet.py" --nodes "$nodes" --seed 2026 --out "$work/fleet" "$@" >"$work/gen.out"
  gen=$(awk -v a="$g0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f s", b - a}')
fi
read -r docs figures bytes < <(python3 -c "
import json, os, sys
t = json.load(open(sys.argv[1])); d = sys.argv[2]
print(t['documents'], t['figures'], sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)))" \
  "$work/fleet/truth.json" "$work/fleet/nodes")
echo "fleet: $nodes nodes, $docs documents, $figures figures, $((bytes / 1048576)) MiB (generated in ${gen})"

walls=() rss=() cpus=()
for i in 1 2 3; do
  rc=0
  /usr/bin/time -v -o "$work/time$i" "$bin" merge "$work/fleet/nodes" --keep-going --json \
    >"$work/fleet$i.json" 2>"$work/err$i" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "merge failed (exit $rc):"; tail -5 "$work/err$i"; grep -v '^\s' "$work/time$i" | head -3; exit 1
  fi
  walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time$i")")
  cpus+=("$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$work/time$i")")
  rss+=("$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$work/time$i")")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
wall=$(median "${walls[@]}") peak=$(median "${rss[@]}") cpu=$(median "${cpus[@]}")
rate=$(awk -v f="$figures" -v w="$wall" 'BEGIN {printf "%.3g", (w > 0) ? f / w : 0}')
echo "merge: median wall ${wall} s (runs ${walls[*]}), user+sys CPU ${cpu} s (runs ${cpus[*]}), peak RSS ${peak} MB (runs ${rss[*]}), ${rate} figures/s"
rc=0
python3 "$src/tests/fleet/score_fleet.py" "$work/fleet1.json" "$work/fleet/truth.json" || rc=$?
[ "$rc" -le 1 ] || exit 1
