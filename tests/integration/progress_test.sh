#!/usr/bin/env bash
# Progress on stderr: shown on a terminal (a pseudo-terminal made by script(1)), silent with
# --quiet and when stderr is not a terminal. Results on stdout are the same either way.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
hosts=$src/tests/fixtures/hosts nvml=$src/tests/fixtures/nvml
pf=("$bin" preflight --root "$hosts/healthy-8gpu" --nvml-state "$nvml/healthy-h100x8.json")

# On a terminal: the step, its number of the total, the unit and the elapsed time.
on_tty() {  # on_tty OUTFILE command...: runs the command with a terminal as stdin, stdout, stderr
  local out=$1; shift
  local line; printf -v line '%q ' "$@"
  script -qec "$line" /dev/null >"$out" 2>&1 </dev/null
}
on_tty "$tmp/tty.txt" "${pf[@]}"
expect_in "$tmp/tty.txt" "yardstick preflight: check 1/" "preflight on a terminal shows its first step"
if grep -qE 'yardstick preflight: check [0-9]+/[0-9]+ [a-z]+\.[a-z_]+ \([0-9]+\.[0-9] s\)' "$tmp/tty.txt"; then
  passes=$((passes + 1))
else
  echo "FAIL: the progress line does not say step N/M, the unit and the elapsed time"; fails=$((fails + 1))
fi
expect_in "$tmp/tty.txt" "preflight:" "the results follow on the same terminal"

on_tty "$tmp/quiet.txt" "${pf[@]}" --quiet
expect_not_in "$tmp/quiet.txt" "yardstick preflight: check" "--quiet shows no progress"

# Not a terminal: stderr carries no progress.
expect_rc 0 "preflight into files" -- "${pf[@]}"
expect_not_in "$tmp/err" "check 1/" "no progress when stderr is not a terminal"
expect_not_in "$tmp/err" $'\x1b[K' "no terminal control bytes in a file"

# A command without a quiet mode of its own takes --quiet too (no progress).
expect_rc 0 "version --quiet" -- "$bin" version --quiet

# Burn-in on a terminal: a status line that stays, with the time left and the current figures.
on_tty "$tmp/burn.txt" "$bin" burnin --duration 12s --profile compute --cycle 1 --backend cpu \
  --gemm-n 128 --out "$tmp/burn"
if grep -aqE 'burn-in: [0-9]+ of 12 s, [0-9]+ s left; .*GFLOPS' "$tmp/burn.txt"; then
  passes=$((passes + 1))
else
  echo "FAIL: burn-in on a terminal prints no status line with the time left and figures:"
  tr '\r' '\n' <"$tmp/burn.txt" | tail -5; fails=$((fails + 1))
fi
expect_in "$tmp/burn.txt" "cycle " "burn-in shows the cycle it is in"
finish
