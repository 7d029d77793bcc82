#!/usr/bin/env bash
# The default output folders the way an operator meets them: two runs started in the same second
# (or a folder of that name left by another run) never share a folder, and the same burn-in
# command run again after a finished burn-in starts a new one (the finished one is moved aside)
# instead of refusing; a finished burn-in in a folder named with --out is still refused.
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
host=$(hostname)
fixture=$src/tests/fixtures/hosts/healthy-8gpu
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run: the folders of the next seconds are taken (another run's, with its document).
now=$(date -u +%s)
for s in $(seq 0 9); do
  d=yardstick-runs/$(date -u -d "@$((now + s))" +%Y%m%dT%H%M%SZ)-$host
  mkdir -p "$d" && echo theirs > "$d/run.json"
done
rc=0; "$bin" run --no-bench --no-history --root "$fixture" >"$tmp/run.out" 2>"$tmp/run.err" || rc=$?
[ "$rc" -le 1 ] && ok || { bad "run exit $rc"; cat "$tmp/run.err"; }
[ "$(cat yardstick-runs/*/run.json | grep -c '^theirs$')" -eq 10 ] && ok || bad "a run wrote into another run's folder"
mine=$(sed -n 's/^run document: //p' "$tmp/run.out")
case "$mine" in yardstick-runs/*-"$host"-2/run.json) ok ;; *) bad "run document at '$mine', expected a -2 folder" ;; esac
grep -q '"command": "run"' "$mine" 2>/dev/null && ok || bad "no run document in $mine"

# Two runs at once in one directory: two folders, two documents.
rm -rf yardstick-runs
"$bin" run --no-bench --no-history --root "$fixture" >"$tmp/r1.out" 2>&1 &
p1=$!
"$bin" run --no-bench --no-history --root "$fixture" >"$tmp/r2.out" 2>&1 &
p2=$!
wait "$p1"; wait "$p2"
[ "$(ls yardstick-runs | wc -l)" -eq 2 ] && ok || bad "two runs made $(ls yardstick-runs | wc -l) folders"
[ "$(grep -l '"command": "run"' yardstick-runs/*/run.json | wc -l)" -eq 2 ] && ok || bad "two runs left fewer than two documents"

# burnin: the same command twice in the same directory.
burn=("$bin" burnin --duration 2s --profile compute --backend cpu --cycle 1 --gemm-n 64)
rc1=0; "${burn[@]}" >"$tmp/b1.out" 2>"$tmp/b1.err" || rc1=$?
# 2 s cannot judge drift: INCONCLUSIVE (2) without a fault, 1 with one; the directories are the point.
[ "$rc1" -le 2 ] && ok || { bad "first burn-in exit $rc1"; cat "$tmp/b1.err"; }
rc2=0; "${burn[@]}" >"$tmp/b2.out" 2>"$tmp/b2.err" || rc2=$?
[ "$rc2" -eq "$rc1" ] && ok || { bad "second burn-in exit $rc2, the first's was $rc1"; cat "$tmp/b2.err"; }
expect_in "$tmp/b2.err" "the finished burn-in in yardstick-runs/burnin-$host was moved to yardstick-runs/burnin-$host-" \
  "says where the finished burn-in went"
aside=(yardstick-runs/burnin-"$host"-*/)
[ "${#aside[@]}" -eq 1 ] && [ -f "${aside[0]}run.json" ] && grep -Eq '"finished": ?true' "${aside[0]}burnin.checkpoint.json" &&
  ok || bad "the finished burn-in was not kept aside: ${aside[*]}"
grep -Eq '"finished": ?true' "yardstick-runs/burnin-$host/burnin.checkpoint.json" && ok || bad "no new burn-in in the default folder"
# A third run moves the second aside too: two finished ones kept, never overwritten.
"${burn[@]}" >/dev/null 2>&1
aside=(yardstick-runs/burnin-"$host"-*/)
[ "${#aside[@]}" -eq 2 ] && ok || bad "after three burn-ins: ${aside[*]}"
# Named explicitly, a finished burn-in is kept and the run refused.
expect_rc 2 "a finished burn-in in --out" -- "${burn[@]}" --out "yardstick-runs/burnin-$host"
expect_in "$tmp/err" "this burn-in already finished" "says so"
finish
