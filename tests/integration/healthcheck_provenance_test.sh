#!/usr/bin/env bash
# `yardstick healthcheck` acts on a node in Slurm only on that node's live state. A fake
# `scontrol`, first on PATH, records every call and keeps one node's state, so the test needs no
# Slurm: with a recorded input (--root other than /, --nvml-state, --kernel-log) a failing run
# reports CRITICAL and calls nothing, not even `scontrol show`; --act-on-recorded drains and
# resumes, and says so; a live run resumes yardstick's own drain. preflight and burnin on recorded
# inputs call nothing either.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
node=fake-node
fakes=$tmp/fakebin calls=$tmp/scontrol.calls fake_state=$tmp/fake-slurm
mkdir -p "$fakes" "$fake_state"
cat >"$fakes/scontrol" <<'EOF'
#!/usr/bin/env bash
# A one-node scontrol: `show node N` prints the node's state and reason (with the
# "[user@time]" that slurmctld appends), `update NodeName=N State=DRAIN|RESUME [Reason=R]` sets them.
printf '%s\n' "$*" >>"$FAKE_SCONTROL_CALLS"
st=$FAKE_SLURM_STATE
case "$1" in
  show)
    echo "NodeName=$3 Arch=x86_64 CoresPerSocket=1"
    echo "   State=$(cat "$st/state" 2>/dev/null || echo IDLE) ThreadsPerCore=1"
    if [ -s "$st/reason" ]; then echo "   Reason=$(cat "$st/reason") [$(id -un)@2026-01-01T00:00:00]"; fi
    ;;
  update)
    for arg in "$@"; do
      case "$arg" in
        State=DRAIN) echo IDLE+DRAIN >"$st/state" ;;
        State=RESUME) echo IDLE >"$st/state"; : >"$st/reason" ;;
        Reason=*) printf '%s' "${arg#Reason=}" >"$st/reason" ;;
      esac
    done
    ;;
  *) echo "fake scontrol: unexpected: $*" >&2; exit 1 ;;
esac
EOF
chmod +x "$fakes/scontrol"
export PATH=$fakes:$PATH FAKE_SCONTROL_CALLS=$calls FAKE_SLURM_STATE=$fake_state SLURMD_NODENAME=$node
hc=("$bin" healthcheck --state-dir "$tmp/state")
hosts=$src/tests/fixtures/hosts nvml=$src/tests/fixtures/nvml
# The operator's report: a recorded 8-GPU tree with a recorded XID 79 and its kernel log.
recorded=(--root "$hosts/healthy-8gpu" --nvml-state "$nvml/xid.json" --kernel-log "$nvml/xid-kmsg.txt")
calls_made() { [ -s "$calls" ] && cat "$calls" || echo "(none)"; }
expect_no_calls() {  # expect_no_calls DESCRIPTION
  if [ -s "$calls" ]; then
    echo "FAIL: $1: scontrol was called:"; sed 's/^/  /' "$calls"; failed+="$1; "; fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}
[ "$(command -v scontrol)" = "$fakes/scontrol" ] && passes=$((passes + 1)) || { echo "FAIL: the fake scontrol is not first on PATH"; fails=$((fails + 1)); }

# Recorded evidence of a fatal XID: CRITICAL, and the node is not drained.
: >"$calls"
expect_rc 1 "recorded XID 79: critical" -- "${hc[@]}" "${recorded[@]}"
expect_in "$tmp/out" "HEALTHCHECK CRITICAL - $node: YS-GPU-040" "the recorded fault is reported"
expect_in "$tmp/out" "not draining: the evidence is recorded (--root $hosts/healthy-8gpu, --nvml-state $nvml/xid.json, --kernel-log $nvml/xid-kmsg.txt), not this node's live state" "why it is not drained"
expect_in "$tmp/out" "--act-on-recorded" "the override named"
expect_no_calls "recorded inputs"
# Each recorded input alone turns the action off: a recorded GPU state on this machine's tree (its
# XIDs are not judged from this machine's kernel log), a recorded tree.
for one in "--nvml-state $nvml/xid.json" "--root $hosts/healthy-8gpu"; do
  : >"$calls"
  # shellcheck disable=SC2086  # one flag and its value
  "${hc[@]}" $one --filter gpu.count,gpu.xid >"$tmp/out" 2>"$tmp/err"
  expect_in "$tmp/out" "the evidence is recorded ($one), not this node's live state" "recorded $one named"
  expect_no_calls "recorded $one"
done

# --act-on-recorded: the recorded fault drains the node, and the status line says on what.
: >"$calls"
expect_rc 1 "--act-on-recorded drains" -- "${hc[@]}" "${recorded[@]}" --act-on-recorded
expect_in "$tmp/out" "acting on recorded evidence (--root $hosts/healthy-8gpu" "override reported"
expect_in "$tmp/out" "as --act-on-recorded asks" "override flag named"
expect_in "$calls" "update NodeName=$node State=DRAIN Reason=yardstick: YS-GPU-040" "drained through scontrol"
expect_in "$fake_state/state" "DRAIN" "the fake node is drained"

# Recorded healthy evidence does not resume yardstick's own drain either.
passing=(--root "$hosts/healthy-8gpu" --nvml-state "$nvml/healthy-h100x8.json")
: >"$calls"
expect_rc 0 "recorded pass: no resume" -- "${hc[@]}" "${passing[@]}"
expect_in "$tmp/out" "node state left as it is (no resume): the evidence is recorded" "no resume reported"
expect_no_calls "recorded pass"
expect_in "$fake_state/state" "DRAIN" "still drained"

# A live run (no recorded input) acts: this machine's checks pass here, and yardstick's own
# drain is resumed. Where the live checks do not pass, that case cannot be shown and is left out.
live=(--filter 'gpu.nvml,gpu.xid,gpu.count')
"$bin" healthcheck "${live[@]}" --no-drain >"$tmp/live" 2>&1
if grep -qE "^HEALTHCHECK (OK|WARNING) " "$tmp/live"; then
  : >"$calls"
  expect_rc 0 "live pass resumes our drain" -- "${hc[@]}" "${live[@]}"
  expect_in "$calls" "update NodeName=$node State=RESUME" "resumed through scontrol"
  expect_not_in "$tmp/out" "recorded" "a live run names no recording"
  expect_not_in "$fake_state/state" "DRAIN" "resumed"
else
  echo "  live case left out: the live checks do not pass here: $(head -1 "$tmp/live")"
fi

# With the override, recorded healthy evidence resumes yardstick's own drain.
expect_rc 1 "--act-on-recorded drains again" -- "${hc[@]}" "${recorded[@]}" --act-on-recorded
: >"$calls"
expect_rc 0 "--act-on-recorded resumes" -- "${hc[@]}" "${passing[@]}" --act-on-recorded
expect_in "$calls" "update NodeName=$node State=RESUME" "resumed on recorded evidence when asked"
expect_in "$tmp/out" "as --act-on-recorded asks" "the resume names the override"
echo "  scontrol calls of the last run: $(calls_made | tr '\n' ';')"

# preflight and burnin on the recorded fault: they judge and report, and write to no system (no
# scontrol call with the fake first on PATH).
: >"$calls"
expect_rc 1 "preflight on the recorded XID" -- "$bin" preflight --no-history "${recorded[@]}"
expect_no_calls "preflight on recorded inputs"
"$bin" burnin --duration 2s --profile compute --backend cpu --nvml-state "$nvml/xid.json" \
  --out "$tmp/burnin" >"$tmp/burnin.out" 2>&1
expect_no_calls "burnin on a recorded GPU state"
finish
