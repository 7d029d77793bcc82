#!/usr/bin/env bash
# Ids retired by a split keep working: --filter with an old id selects the units that replaced
# it (preflight and list), and the site file keys that governed the old unit govern them.
# (Site files name policies and thresholds, not unit ids: [cpu] deep_cstates governs every
# cpu.cstates.* unit.)
# Usage: unit_aliases_test.sh BIN SRC
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts
ids() {  # ids JSON -> the unit ids of its checks, sorted, comma-separated
  python3 -c 'import json,sys; print(",".join(sorted(c["id"] for c in json.load(open(sys.argv[1]))["checks"])))' "$1"
}
codes() {  # codes JSON -> "unit code" of every finding, sorted
  python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["checks"]:
    for f in c["findings"]: print(c["id"], f["code"])' "$1" | sort
}

cstates=cpu.cstates.deep_entered,cpu.cstates.deep_offered,cpu.cstates.deepest_enabled,cpu.cstates.idle_framework,cpu.cstates.kernel_limit
expect_rc 0 "old id in --filter" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.cstates --json
cp "$tmp/out" "$tmp/cstates.json"
[ "$(ids "$tmp/cstates.json")" = "$cstates" ] && passes=$((passes + 1)) || {
  echo "FAIL: --filter cpu.cstates ran $(ids "$tmp/cstates.json"), expected $cstates"; fails=$((fails + 1)); }

# The misconfigured tree's disabled C6 is still found under the old id.
expect_rc 0 "old id finds the fault (a warning)" -- "$bin" preflight --root "$hosts/h100-misconfigured" --filter cpu.cstates --json
cp "$tmp/out" "$tmp/h100.json"
expect_in <(codes "$tmp/h100.json") "cpu.cstates.deepest_enabled YS-CPU-002" "C6 disabled on every CPU"

# A site file's policy reaches the split units: deep C-states off, while the tree has them on.
printf '[cpu]\ndeep_cstates = "off"\n' >"$tmp/site.toml"
expect_rc 0 "site policy with an old id (a warning)" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.cstates --expect "$tmp/site.toml" --json
cp "$tmp/out" "$tmp/site.json"
expect_in <(codes "$tmp/site.json") "cpu.cstates.deepest_enabled YS-CPU-005" "deep C-states against site policy"
[ "$(ids "$tmp/site.json")" = "$cstates" ] && passes=$((passes + 1)) || {
  echo "FAIL: with a site file, --filter cpu.cstates ran $(ids "$tmp/site.json")"; fails=$((fails + 1)); }

# Several old ids at once, and globs: every replacement unit of each, nothing else.
expect_rc 0 "several old ids" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.frequency,env.runtime,virt.iommu --json
cp "$tmp/out" "$tmp/many.json"
n=$(ids "$tmp/many.json" | tr ',' '\n' | grep -cE '^(cpu\.frequency|env\.runtime|virt\.iommu)\.')
all=$(ids "$tmp/many.json" | tr ',' '\n' | wc -l)
[ "$n" -eq 18 ] && [ "$all" -eq 18 ] && passes=$((passes + 1)) || {
  echo "FAIL: three old ids ran $all units ($n of them replacements), expected 18"; fails=$((fails + 1)); }

# list resolves old ids too.
expect_rc 0 "list with an old id" -- "$bin" list --filter cpu.frequency
expect_in "$tmp/out" "cpu.frequency.turbo" "list --filter cpu.frequency"
[ "$(grep -c 'cpu\.frequency\.' "$tmp/out")" -eq 7 ] && passes=$((passes + 1)) || {
  echo "FAIL: list --filter cpu.frequency:"; cat "$tmp/out"; fails=$((fails + 1)); }

# An id that was never one still selects nothing.
expect_rc 2 "unknown id" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.cstates_typo
finish
