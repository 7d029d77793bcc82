# Shared by the integration scripts: a scratch folder, pass/fail counters and the assertions.
# Source it after setting bin and src; end the script with `finish`.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME=$tmp/xdg  # no test writes into the real home (run history)
fails=0 passes=0
expect_rc() {  # expect_rc WANT DESCRIPTION -- command...   (output in $tmp/out, $tmp/err)
  local want=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"; sed 's/^/  out: /' "$tmp/out" | head -20; sed 's/^/  err: /' "$tmp/err" | head -5
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
expect_in() {  # expect_in FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then passes=$((passes + 1)); else echo "FAIL: $3: '$2' not in $1:"; head -30 "$1"; fails=$((fails + 1)); fi
}
expect_not_in() {  # expect_not_in FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "FAIL: $3: '$2' in $1"; fails=$((fails + 1)); else passes=$((passes + 1)); fi
}
finish() {
  echo "$passes passed, $fails failed"
  [ "$fails" -eq 0 ]
}
# Starts (idempotently) the one-node Slurm cluster of scripts/slurm-local.sh and exports
# SLURM_CONF; the tests then use sbatch, srun, squeue and scontrol for real.
ensure_slurm() {
  bash "$src/scripts/slurm-local.sh" start || { echo "FAIL: could not start the local Slurm cluster"; exit 1; }
  SLURM_CONF=$(bash "$src/scripts/slurm-local.sh" conf); export SLURM_CONF
}
