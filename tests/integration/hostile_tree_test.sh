#!/usr/bin/env bash
# Recorded host trees nobody here wrote (`--root DIR`): FIFOs, links to devices and to this
# machine's files, `..` chains. preflight and topo end in bounded time with a verdict or exit 2,
# and nothing of this machine (its /etc/passwd, its environment) reaches the console or the JSON.
# A tree whose links are absolute but stay inside it reads exactly as its relative twin. The
# watchdogs of preflight, topo and capture end a hung step with exit 2, naming it. The trees are
# made here, at test time: no FIFO or device is committed.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts
passwd=$(head -1 /etc/passwd)  # e.g. root:x:0:0:root:/root:/bin/bash
# A value only this process's environment holds: a tree's /proc/self/environ linked to the real one
# would carry it into the report (the NCCL environment is shown there).
export NCCL_SOCKET_IFNAME=ys-secret-$$-$RANDOM
secret=$NCCL_SOCKET_IFNAME

# bounded WHAT -- command...: ends within 60 s with exit 0, 1 or 2, and says nothing of this machine.
bounded() {
  local what=$1; shift 2
  local start=$SECONDS
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -gt 2 ]; then
    echo "FAIL: $what: exit $rc after $((SECONDS - start)) s (124: still running at timeout 60)"
    sed 's/^/  err: /' "$tmp/err" | head -5
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
  for f in "$tmp/out" "$tmp/err"; do
    expect_not_in "$f" "$passwd" "$what: this machine's /etc/passwd in $(basename "$f")"
    expect_not_in "$f" "$secret" "$what: this process's environment in $(basename "$f")"
  done
  last_rc=$rc
}

# Each tree is a copy of a healthy capture with one hostile change.
tree() { rm -rf "$tmp/$1"; cp -r "$hosts/healthy-8gpu" "$tmp/$1"; echo "$tmp/$1"; }

# 1. A FIFO where the CPU list is: refused by name, no hang.
t=$(tree fifo-online)
rm "$t/sys/devices/system/cpu/online" && mkfifo "$t/sys/devices/system/cpu/online"
bounded "preflight, FIFO at cpu/online" -- "$bin" preflight --root "$t"
bounded "preflight --json, FIFO at cpu/online" -- "$bin" preflight --root "$t" --json
bounded "topo, FIFO at cpu/online" -- "$bin" topo --root "$t"
[ "$last_rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: topo on a FIFO: exit $last_rc, expected 2"; fails=$((fails + 1)); }
expect_in "$tmp/err" "sys/devices/system/cpu/online: a FIFO, expected a regular file" "topo names the FIFO"

# 2. /proc/cpuinfo linked to /dev/zero: the tree's own /dev/zero, which it does not have.
t=$(tree cpuinfo-zero)
rm "$t/proc/cpuinfo" && ln -s /dev/zero "$t/proc/cpuinfo"
bounded "preflight, cpuinfo -> /dev/zero" -- "$bin" preflight --root "$t"
bounded "topo, cpuinfo -> /dev/zero" -- "$bin" topo --root "$t"
[ "$last_rc" -eq 0 ] && passes=$((passes + 1)) || { echo "FAIL: topo with cpuinfo -> /dev/zero: exit $last_rc"; fails=$((fails + 1)); }
# A FIFO among the files only hwloc reads (cache sizes): refused, never handed to hwloc.
mkdir -p "$t/sys/devices/system/cpu/cpu0/cache/index0" && mkfifo "$t/sys/devices/system/cpu/cpu0/cache/index0/size"
bounded "topo, FIFO among hwloc's inputs" -- "$bin" topo --root "$t"
expect_in "$tmp/err" "cache/index0/size: a FIFO, expected a regular file" "topo names hwloc's FIFO"
bounded "preflight, FIFO among hwloc's inputs" -- "$bin" preflight --root "$t" --json
# A device node, where this process may make one (root): refused unopened.
if mknod "$t/sys/devices/system/cpu/cpu0/cache/index0/level" c 1 5 2>/dev/null; then
  bounded "topo, a character device in the tree" -- "$bin" topo --root "$t"
  expect_in "$tmp/err" "a character device, expected a regular file" "topo names the device"
fi

# 3. Files linked to this machine's /etc/passwd and /proc/self/environ, absolute and by `..`.
t=$(tree links-out)
for f in proc/sys/kernel/hostname proc/sys/kernel/osrelease proc/cmdline etc/os-release; do
  rm -f "$t/$f"; mkdir -p "$(dirname "$t/$f")"; ln -s /etc/passwd "$t/$f"
done
rm -f "$t/proc/meminfo" && ln -s ../../../../../../../../../../../../etc/passwd "$t/proc/meminfo"
rm -f "$t/proc/self/environ" && ln -s /proc/self/environ "$t/proc/self/environ"
rm -f "$t/proc/self/status" && ln -s ../../../../../../../../../../proc/self/status "$t/proc/self/status"
rm -rf "$t/sys/class/net" && ln -s /sys/class/net "$t/sys/class/net"
mkdir -p "$t/.yardstick" && ln -s /proc/self/environ "$t/.yardstick/nvml.json"
bounded "preflight, links out of the tree" -- "$bin" preflight --root "$t"
bounded "preflight --json, links out of the tree" -- "$bin" preflight --root "$t" --json
bounded "topo, links out of the tree" -- "$bin" topo --root "$t"
bounded "topo --json, links out of the tree" -- "$bin" topo --root "$t" --json

# 4. The same capture with absolute internal links: identical results.
t=$(tree absolute)
(cd "$t" && find . -type l | while read -r l; do
   target=$(readlink "$l"); case $target in /*) continue ;; esac
   abs=$(cd "$(dirname "$l")" && realpath -m -s --relative-to="$t" "$target")
   rm "$l" && ln -s "/$abs" "$l"
 done)
[ -z "$(find "$t" -type l -lname '[!/]*')" ] && [ -n "$(find "$t" -type l -lname '/*')" ] \
  && passes=$((passes + 1)) || { echo "FAIL: the absolute twin still has relative links"; fails=$((fails + 1)); }
summary() {  # check id, outcome and finding codes of a preflight --json document
  /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["checks"]:
    print(c["id"], c["outcome"], sorted(f["code"] for f in c.get("findings", [])))' "$1"
}
"$bin" preflight --root "$hosts/healthy-8gpu" --json >"$tmp/rel.json" 2>/dev/null
"$bin" preflight --root "$t" --json >"$tmp/abs.json" 2>/dev/null
if [ -s "$tmp/rel.json" ] && diff <(summary "$tmp/rel.json") <(summary "$tmp/abs.json") >"$tmp/diff"; then
  passes=$((passes + 1))
else
  echo "FAIL: absolute internal links change the preflight"; head -20 "$tmp/diff"; fails=$((fails + 1))
fi
"$bin" topo --root "$hosts/healthy-8gpu" --json | sed "s#$hosts/healthy-8gpu#ROOT#g" >"$tmp/rel.topo"
"$bin" topo --root "$t" --json | sed "s#$t#ROOT#g" >"$tmp/abs.topo"
if diff "$tmp/rel.topo" "$tmp/abs.topo" >"$tmp/diff"; then passes=$((passes + 1)); else
  echo "FAIL: absolute internal links change topo"; head -20 "$tmp/diff"; fails=$((fails + 1)); fi
expect_in "$tmp/abs.topo" '"GPU0"' "topo of the absolute twin has its GPUs"

# 5. Watchdogs: a step that never ends (an input that blocks) ends the command with exit 2 and
# the step named. Should that input come to be refused up front instead, exit 2 still holds.
mkfifo "$tmp/never.toml" "$tmp/never.json"
bounded "preflight --timeout" -- "$bin" preflight --root "$hosts/healthy-8gpu" --expect "$tmp/never.toml" --timeout 1
[ "$last_rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: preflight --timeout: exit $last_rc"; fails=$((fails + 1)); }
grep -q "did not finish within --timeout 1 s" "$tmp/err" && expect_in "$tmp/err" \
  "preflight: reading the site expectations $tmp/never.toml did not finish" "preflight watchdog names the step"
bounded "topo --timeout" -- "$bin" topo --root "$hosts/healthy-8gpu" --nvml-state "$tmp/never.json" --timeout 1
[ "$last_rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: topo --timeout: exit $last_rc"; fails=$((fails + 1)); }
grep -q "did not finish within --timeout 1 s" "$tmp/err" && expect_in "$tmp/err" \
  "topo: reading the GPU state did not finish" "topo watchdog names the step"
bounded "capture --timeout" -- "$bin" capture "$tmp/captured" --expect "$tmp/never.toml" --timeout 1
[ "$last_rc" -eq 2 ] && passes=$((passes + 1)) || { echo "FAIL: capture --timeout: exit $last_rc"; fails=$((fails + 1)); }
grep -q "did not finish within --timeout 1 s" "$tmp/err" && expect_in "$tmp/err" \
  "capture: reading the site expectations" "capture watchdog names the step"
expect_rc 0 "preflight --help names --timeout" -- "$bin" preflight --help
expect_in "$tmp/out" "--timeout" "preflight --timeout documented"
expect_rc 0 "topo --help names --timeout" -- "$bin" topo --help
expect_in "$tmp/out" "--timeout" "topo --timeout documented"
expect_rc 0 "capture --help names --timeout" -- "$bin" capture --help
expect_in "$tmp/out" "--timeout" "capture --timeout documented"

finish
