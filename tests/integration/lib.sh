# Shared by the integration scripts: a scratch folder, pass/fail counters and the assertions.
# Source it after setting bin and src; end the script with `finish`.
#
# No test writes outside its scratch folder: HOME and XDG_DATA_HOME (the run history) point into
# it, and the working directory is $tmp/cwd, so that a default output (./yardstick-runs/, a Slurm
# job's slurm-N.out) lands there rather than in the build or source tree. bin and src are made
# absolute first, so that a script started with relative paths still finds them.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bin=$(realpath -- "$bin") src=$(realpath -- "$src")
export XDG_DATA_HOME=$tmp/xdg HOME=$tmp/home
mkdir -p "$HOME" "$tmp/cwd" && cd "$tmp/cwd" || exit 1
fails=0 passes=0
expect_rc() {  # expect_rc WANT DESCRIPTION -- command...   (output in $tmp/out, $tmp/err)
  local want=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"; failed+="$what (exit $rc); "; sed 's/^/  out: /' "$tmp/out" | head -20; sed 's/^/  err: /' "$tmp/err" | head -5
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
expect_in() {  # expect_in FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then passes=$((passes + 1)); else echo "FAIL: $3: '$2' not in $1:"; failed+="$3; "; head -30 "$1"; fails=$((fails + 1)); fi
}
expect_not_in() {  # expect_not_in FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then echo "FAIL: $3: '$2' in $1"; failed+="$3; "; fails=$((fails + 1)); else passes=$((passes + 1)); fi
}
failed=""  # the descriptions of failed expectations, repeated on the last line (a log's tail)
finish() {
  echo "$passes passed, $fails failed${failed:+ (${failed%; })}"
  [ "$fails" -eq 0 ]
}
# Starts (idempotently) the one-node Slurm cluster of scripts/slurm-local.sh and exports
# SLURM_CONF; the tests then use sbatch, srun, squeue and scontrol for real.
ensure_slurm() {
  bash "$src/scripts/slurm-local.sh" start || { echo "FAIL: could not start the local Slurm cluster"; exit 1; }
  SLURM_CONF=$(bash "$src/scripts/slurm-local.sh" conf); export SLURM_CONF
}
# expect_verdict WANT DESCRIPTION -- command...: a command that judges a node (preflight, run,
# bench) says one verdict four ways: its exit code, the console's summary line, the JSON
# document's "verdict" (the command again with --json) and the HTML banner of that document
# (`yardstick report`). WANT is pass, warn, fail or inconclusive (docs/verdict.md). The JSON
# document is left in $tmp/verdict.json, the console in $tmp/verdict.txt.
expect_verdict() {
  local want=$1 what=$2 rc_want; shift 3
  case $want in pass | warn) rc_want=0 ;; fail) rc_want=1 ;; *) rc_want=2 ;; esac
  expect_rc "$rc_want" "$what: exit code" -- "$@"
  cp "$tmp/out" "$tmp/verdict.txt"
  if grep -qE "^[a-z-]+: [0-9]+ pass, [0-9]+ warn, [0-9]+ fail, [0-9]+ skip, [0-9]+ error in [0-9.]+ s: ${want^^}( \(incomplete\))?: " "$tmp/verdict.txt"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $what: the console's summary line does not say ${want^^}:"; tail -3 "$tmp/verdict.txt"; fails=$((fails + 1))
  fi
  expect_rc "$rc_want" "$what: exit code with --json" -- "$@" --json
  cp "$tmp/out" "$tmp/verdict.json"
  if /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d['verdict']==sys.argv[2] and d['verdict_reason'] else 1)" "$tmp/verdict.json" "$want"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $what: the JSON verdict is not $want:"; grep -E '"verdict' "$tmp/verdict.json" | head -2; fails=$((fails + 1))
  fi
  expect_rc 0 "$what: the HTML page" -- "$bin" report "$tmp/verdict.json" -o "$tmp/verdict.html"
  expect_in "$tmp/verdict.html" "data-verdict=\"$want\"" "$what: the HTML banner"
  expect_in "$tmp/verdict.html" "<div class=\"big\">run: ${want^^}</div>" "$what: the banner's run verdict"
}
# Waits until a burn-in's heartbeat (in the output folder $2) says at least $1 s of load are done
# (at most 150 s).
wait_load() {
  local want=$1 dir=$2 i
  for i in $(seq 1 300); do
    if [ -f "$dir/burnin.heartbeat" ] && awk -v w="$want" '{exit !($1 >= w)}' "$dir/burnin.heartbeat"; then return 0; fi
    sleep 0.5
  done
  echo "FAIL: the heartbeat never reached $want s"; fails=$((fails + 1)); return 1
}
