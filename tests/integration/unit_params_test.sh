#!/usr/bin/env bash
# Unit parameters end to end: `list --params` (text and JSON), a site file's [unit."<id>"] table
# changing a finding, a retired id's table, and a bad table refused with exit 2.
bin=${1:?usage: unit_params_test.sh BIN SRC} src=${2:?}
. "$(dirname "$0")/lib.sh"
hosts=$src/tests/fixtures/hosts

expect_rc 0 "list --params" -- "$bin" list --params
expect_in "$tmp/out" "gpu.thermal" "list --params names the unit"
expect_in "$tmp/out" "temperature_margin_c" "list --params names the parameter"
expect_in "$tmp/out" "0 to 50" "list --params shows the range"
expect_not_in "$tmp/out" "gpu.clocks" "a unit without parameters is not listed"
expect_rc 0 "list --params --json" -- "$bin" list --params --json --filter 'numa.placement'
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
p = {(x['id'], x['name']): x for x in d}
m = p[('numa.placement.memory', 'max_remote_share')]
assert m['type'] == 'double' and m['default'] == 0.1 and m['min'] == 0 and m['max'] == 1, m
assert m['meaning'], m
assert p[('numa.placement.kernel_policy', 'balancing')]['default'] == 'off'
" "$tmp/out" && passes=$((passes + 1)) || { echo "FAIL: list --params --json"; fails=$((fails + 1)); }
# Without --params, list is the unit listing.
expect_rc 0 "list" -- "$bin" list --filter 'gpu.thermal'
expect_in "$tmp/out" "gpu.thermal" "list shows the unit"
expect_not_in "$tmp/out" "temperature_margin_c" "list without --params shows no parameters"

# cpu.smt reports only by default; its table makes active SMT a finding.
expect_rc 0 "smt default" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.smt --json
expect_not_in "$tmp/out" "YS-CPU-020" "no SMT finding by default"
printf '[unit."cpu.smt"]\nsmt = "off"\n' >"$tmp/smt.toml"
expect_rc 0 "smt off" -- "$bin" preflight --root "$hosts/healthy-8gpu" --filter cpu.smt --json --expect "$tmp/smt.toml"
expect_in "$tmp/out" "YS-CPU-020" "the unit read the site's value"

# A retired id's table reaches the unit that replaced it.
printf '[unit."numa.placement"]\nmax_remote_share = 0.5\n' >"$tmp/alias.toml"
expect_rc 1 "alias strict default" -- "$bin" preflight --root "$hosts/h100-misconfigured" --filter numa.placement.memory --json
expect_in "$tmp/out" "YS-NUMA-001" "18% remote fails the default 10%"
expect_rc 0 "alias lenient" -- "$bin" preflight --root "$hosts/h100-misconfigured" --filter numa.placement.memory --json --expect "$tmp/alias.toml"
expect_not_in "$tmp/out" "YS-NUMA-001" "18% remote passes 50% set under the retired id"

# Bad tables: exit 2 with file:line, table, key, expected.
printf '[unit."gpu.nope"]\nx = 1\n' >"$tmp/bad1.toml"
expect_rc 2 "unknown unit id" -- "$bin" preflight --root "$hosts/healthy-8gpu" --expect "$tmp/bad1.toml"
expect_in "$tmp/err" "bad1.toml:1: [unit.\"gpu.nope\"]: unknown unit id" "unknown id named"
printf '[unit."gpu.thermal"]\ntemperature_margin_c = 99\n' >"$tmp/bad2.toml"
expect_rc 2 "out of range" -- "$bin" preflight --root "$hosts/healthy-8gpu" --expect "$tmp/bad2.toml"
expect_in "$tmp/err" "bad2.toml:2: [unit.\"gpu.thermal\"] temperature_margin_c: 99 is out of range" "range named"

finish
