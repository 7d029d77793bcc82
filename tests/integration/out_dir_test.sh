#!/usr/bin/env bash
# `--out` names a directory on every command that takes it (run, bench, burnin, validate); a
# command writing one document to a file takes -o/--output FILE. bench --out FILE.json, the old
# form, still writes that file and says what the new form is; a --out that is a file is refused.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
b=("$bin" bench --filter host.busy_clock --iters 2 --no-history)

expect_rc 0 "bench --out DIR" -- "${b[@]}" --out "$tmp/benchdir"
[ -s "$tmp/benchdir/run.json" ] && passes=$((passes + 1)) || { echo "FAIL: bench --out DIR wrote no DIR/run.json"; fails=$((fails + 1)); }
expect_not_in "$tmp/err" "warning" "a directory is the form --out takes: no warning"

expect_rc 0 "bench --out FILE.json (the old form)" -- "${b[@]}" --out "$tmp/old.json"
[ -s "$tmp/old.json" ] && passes=$((passes + 1)) || { echo "FAIL: bench --out FILE.json no longer writes the file"; fails=$((fails + 1)); }
expect_in "$tmp/err" "--out names a directory now" "the old form says what the new one is"

: >"$tmp/plainfile"
expect_rc 2 "bench --out naming a file" -- "${b[@]}" --out "$tmp/plainfile"
expect_in "$tmp/err" "not a directory (--out names the directory" "a file given to --out is refused, saying why"

# Every --out in the help is a directory; every command writing one file takes -o/--output.
for sub in run bench burnin validate; do
  expect_rc 0 "$sub --help" -- "$bin" "$sub" --help
  if grep -E '^\s+--out ' "$tmp/out" | grep -qi 'director'; then passes=$((passes + 1)); else
    echo "FAIL: $sub --out is not described as a directory:"; grep -E -- '--out' "$tmp/out"; fails=$((fails + 1)); fi
done
for sub in merge archive report; do
  expect_rc 0 "$sub --help" -- "$bin" "$sub" --help
  expect_in "$tmp/out" "-o,--output" "$sub writes one file with -o/--output"
  expect_not_in "$tmp/out" "  --out " "$sub has no --out"
done
finish
