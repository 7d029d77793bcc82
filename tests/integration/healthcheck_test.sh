#!/usr/bin/env bash
# `yardstick healthcheck` against the real one-node Slurm cluster: a failing run drains the node
# with a "yardstick:" reason carrying the drain id it recorded under --state-dir, a passing run
# resumes it, an admin's drain is never resumed (nor its reason replaced), nor is a drain whose
# reason merely starts with "yardstick:" or copies the format with another id, a hung check and an unreachable slurmctld end in bounded time with a clear
# message. The node is left idle at the end.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
ensure_slurm
node=$(hostname -s)
trap 'scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1; rm -rf "$tmp"' EXIT
# The default subset fails on a recorded GPU state with an NVLink link down (YS-GPU-045). The
# evidence is recorded, so healthcheck acts on it only with --act-on-recorded (without it nothing
# reaches Slurm: healthcheck_provenance_test.sh).
state_dir=$tmp/state  # where the ids of yardstick's drains are kept (the default is under /var/lib)
failing=(--act-on-recorded --root "$src/tests/fixtures/hosts/healthy-8gpu" --nvml-state "$src/tests/fixtures/nvml/nvlink-down.json" --state-dir "$state_dir")
passing=(--act-on-recorded --root "$src/tests/fixtures/hosts/healthy-8gpu" --nvml-state "$src/tests/fixtures/nvml/healthy-h100x8.json" --state-dir "$state_dir")
reason() { scontrol show node "$node" | sed -n 's/^ *Reason=//p' | sed 's/ \[[^]]*@[^]]*\]$//'; }
state() { scontrol show node "$node" | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }
expect_state() {  # expect_state drained|not-drained DESCRIPTION  (a transient NOT_RESPONDING flag is ignored)
  local s; s=$(state)
  if { [ "$1" = drained ] && [[ $s == *DRAIN* ]]; } || { [ "$1" = not-drained ] && [[ $s != *DRAIN* ]]; }; then
    passes=$((passes + 1))
  else
    echo "FAIL: $2: node state $s, expected $1 (reason: $(reason))"; fails=$((fails + 1))
  fi
}
scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1

# Without --drain nothing changes in Slurm.
expect_rc 1 "failing checks, --no-drain" -- "$bin" healthcheck "${failing[@]}" --no-drain
expect_in "$tmp/out" "HEALTHCHECK CRITICAL - $node: YS-" "one-line status"
expect_state not-drained "--no-drain leaves the node"

# A failing run drains the node with a yardstick reason.
expect_rc 1 "failing checks drain" -- "$bin" healthcheck "${failing[@]}"
expect_in "$tmp/out" "; drained" "drain reported"
expect_state drained "drained"
r=$(reason); [[ $r == "yardstick: YS-"* ]] && passes=$((passes + 1)) || { echo "FAIL: reason '$r'"; fails=$((fails + 1)); }
echo "  drain reason: $r"
id=$(cat "$state_dir/$node.drain-id" 2>/dev/null)
[[ -n $id && $r == *" (drain id $id)" ]] && passes=$((passes + 1)) || { echo "FAIL: reason '$r' without the recorded id '$id'"; fails=$((fails + 1)); }
[ "$(stat -c %a "$state_dir")" = 700 ] && passes=$((passes + 1)) || { echo "FAIL: $state_dir mode $(stat -c %a "$state_dir")"; fails=$((fails + 1)); }
expect_rc 2 "nagios CRITICAL" -- "$bin" healthcheck "${failing[@]}" --nagios
expect_in "$tmp/out" "already drained by yardstick" "second fail keeps our drain"
# Another failure (a filter choosing a site-policy check on a misconfigured host) updates our reason.
expect_rc 1 "another failure" -- "$bin" healthcheck --act-on-recorded --root "$src/tests/fixtures/hosts/h100-misconfigured" --filter cpu.frequency --state-dir "$state_dir"
expect_in "$tmp/out" "reason updated" "our reason updated"
r=$(reason); [[ $r == "yardstick: YS-CPU-"*" (drain id $id)" ]] && passes=$((passes + 1)) || { echo "FAIL: updated reason '$r'"; fails=$((fails + 1)); }

# A passing run resumes it.
expect_rc 0 "passing checks resume" -- "$bin" healthcheck "${passing[@]}" --nagios
expect_in "$tmp/out" "HEALTHCHECK OK - $node" "OK status"
expect_in "$tmp/out" "resumed (yardstick had drained it" "resume reported"
expect_state not-drained "resumed"
[ ! -e "$state_dir/$node.drain-id" ] && passes=$((passes + 1)) || { echo "FAIL: drain id kept after the resume"; fails=$((fails + 1)); }

# Drains that only look like ours: a reason anyone can type starting with "yardstick:", and one
# copying the format with an id yardstick never recorded. Neither is resumed nor replaced.
for foreign in "yardstick: do NOT resume, RMA pending" "yardstick: YS-GPU-045 gpu0: x (drain id 0123456789abcdef)"; do
  scontrol update NodeName="$node" State=DRAIN Reason="$foreign"
  expect_rc 0 "passing checks, foreign yardstick-looking drain" -- "$bin" healthcheck "${passing[@]}"
  expect_in "$tmp/out" "drained by someone else (reason: $foreign, set by" "foreign drain reported"
  expect_state drained "foreign drain '$foreign' kept by a pass"
  expect_rc 1 "failing checks, foreign yardstick-looking drain" -- "$bin" healthcheck "${failing[@]}"
  expect_in "$tmp/out" "their drain and reason are kept" "foreign reason kept"
  [ "$(reason)" = "$foreign" ] && passes=$((passes + 1)) || { echo "FAIL: foreign reason replaced: $(reason)"; fails=$((fails + 1)); }
  scontrol update NodeName="$node" State=RESUME
done
# Our own drain, then the recorded id lost: not resumed (nothing proves it is ours any more).
expect_rc 1 "failing checks drain again" -- "$bin" healthcheck "${failing[@]}"
rm -f "$state_dir/$node.drain-id"
expect_rc 0 "passing checks, id lost" -- "$bin" healthcheck "${passing[@]}"
expect_state drained "a drain without its recorded id is not resumed"
scontrol update NodeName="$node" State=RESUME
# A state directory others can write is refused: someone could plant an id there.
mkdir -p "$tmp/open-state" && chmod 777 "$tmp/open-state"
expect_rc 2 "state directory writable by others" -- "$bin" healthcheck "${passing[@]:0:5}" --state-dir "$tmp/open-state"
expect_in "$tmp/out" "writable by others" "open state directory named"

# An admin's drain: a passing run does not resume it, a failing run does not replace its reason.
scontrol update NodeName="$node" State=DRAIN Reason="admin: maintenance"
expect_rc 0 "passing checks, admin drain" -- "$bin" healthcheck "${passing[@]}"
expect_in "$tmp/out" "drained by someone else (reason: admin: maintenance, set by $(id -un)); not resumed" "admin drain reported"
expect_state drained "admin drain kept by a pass"
expect_rc 1 "failing checks, admin drain" -- "$bin" healthcheck "${failing[@]}"
expect_in "$tmp/out" "their drain and reason are kept" "admin reason kept"
[ "$(reason)" = "admin: maintenance" ] && passes=$((passes + 1)) || { echo "FAIL: admin reason replaced: $(reason)"; fails=$((fails + 1)); }
scontrol update NodeName="$node" State=RESUME

# A hung check: the watchdog ends the run at --timeout (UNKNOWN), and the node is left alone.
# Inputs can no longer hang a check (a FIFO is refused as a FIFO), so the test stops the checks'
# process itself (SIGSTOP), as a check stuck in the kernel or in NVML would be.
start=$SECONDS
"$bin" healthcheck "${failing[@]}" --timeout 2 --nagios >"$tmp/out" 2>"$tmp/err" &
hc=$!
(sleep 60; kill -9 "$hc") >/dev/null 2>&1 & guard=$!
stopped=""
for _ in $(seq 250); do
  child=$(pgrep -P "$hc" -f preflight | head -n 1)
  if [ -n "$child" ] && kill -STOP "$child" 2>/dev/null; then stopped=$child; break; fi
  sleep 0.02
done
wait "$hc"; rc=$?
pkill -P "$guard" 2>/dev/null; kill "$guard" 2>/dev/null
if [ -z "$stopped" ]; then
  echo "FAIL: hung check: the checks' process was not seen"; fails=$((fails + 1))
elif [ "$rc" -ne 3 ]; then
  echo "FAIL: hung check: exit $rc, expected 3"; sed 's/^/  out: /' "$tmp/out"; fails=$((fails + 1))
else
  passes=$((passes + 1))
fi
expect_in "$tmp/out" "HEALTHCHECK UNKNOWN - $node: the checks" "hang reported"
expect_in "$tmp/out" "did not finish within --timeout 2 s and were killed" "watchdog named"
echo "  hung check ended after $((SECONDS - start)) s"
expect_state not-drained "a hang does not drain"

# slurmctld unreachable: a copy of the configuration pointing at a port nothing listens on.
sed 's/^SlurmctldPort=.*/SlurmctldPort=9/' "$SLURM_CONF" > "$tmp/dead.conf"
start=$SECONDS
SLURM_CONF=$tmp/dead.conf expect_rc 3 "slurmctld unreachable, healthy node" -- timeout 60 "$bin" healthcheck "${passing[@]}" --slurm-timeout 3 --nagios
expect_in "$tmp/out" "cannot reach Slurm to check the node" "unreachable reported"
echo "  unreachable slurmctld: ended after $((SECONDS - start)) s: $(head -1 "$tmp/out")"
SLURM_CONF=$tmp/dead.conf expect_rc 2 "slurmctld unreachable, failing node" -- timeout 60 "$bin" healthcheck "${failing[@]}" --slurm-timeout 3 --nagios
expect_in "$tmp/out" "cannot reach Slurm to drain the node" "unreachable while failing reported"

# The node name: --node overrides; SLURMD_NODENAME is what slurmd sets.
SLURMD_NODENAME=no-such-node expect_rc 2 "unknown node" -- "$bin" healthcheck "${passing[@]}" --slurm-timeout 5
expect_in "$tmp/out" "no-such-node" "node name from SLURMD_NODENAME"
expect_rc 0 "--node" -- "$bin" healthcheck "${passing[@]}" --node "$node"

expect_state not-drained "left idle"
finish
