#!/usr/bin/env bash
# A one-node Slurm cluster on this machine for the integration tests: munged, slurmctld and
# slurmd started for real, with the PMIx plugin so that `srun --mpi=pmix` starts OpenMPI ranks.
#
#   scripts/slurm-local.sh start   # idempotent; waits until the node is idle
#   scripts/slurm-local.sh stop    # stops every daemon this script started, waits until they are
#                                  # gone; exit 1 naming any left running
#   scripts/slurm-local.sh check   # exit 1 naming any daemon it started that still runs
#   scripts/slurm-local.sh status
#
# munged is stopped only when this script started it (its pid is kept in run/munged.ours): a
# munged the machine already ran is left alone. ctest stops the cluster after the last test that
# used it (the fixture `slurm`, CMakeLists.txt), whether the tests passed or not, and `make test`
# stops it again on exit, an interrupted run included.
#
# Everything lives under $YS_SLURM_DIR (default /tmp/yardstick-slurm): configuration, state,
# logs. The node advertises $YS_SLURM_CPUS CPUs (default 8, more than this machine has, through
# SlurmdParameters=config_overrides) so that tests can start up to 8 ranks on a 2-core machine.
set -euo pipefail

dir=${YS_SLURM_DIR:-/tmp/yardstick-slurm}
cpus=${YS_SLURM_CPUS:-8}
node=$(hostname -s)
conf=$dir/etc/slurm.conf

log() { echo "slurm-local: $*" >&2; }

write_conf() {
  mkdir -p "$dir"/{etc,state,spool,log,run}
  chown -R slurm:slurm "$dir"/state "$dir"/log "$dir"/run 2>/dev/null || true
  local mem_mb
  mem_mb=$(awk '/MemTotal/ {print int($2/1024*0.9)}' /proc/meminfo)
  cat > "$conf" <<CONF
ClusterName=yardstick-test
SlurmctldHost=$node
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${YS_SLURMCTLD_PORT:-6817}
SlurmdPort=${YS_SLURMD_PORT:-6818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
SlurmdParameters=config_overrides
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$node CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
}

running() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  write_conf
  export SLURM_CONF=$conf
  if ! pgrep -x munged >/dev/null; then
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge 2>/dev/null || true
    [[ -s /etc/munge/munge.key ]] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
    runuser -u munge -- munged || munged --force
    pgrep -x -n munged >"$dir/run/munged.ours" || true
  fi
  running "$dir/run/slurmctld.pid" || slurmctld -f "$conf"
  running "$dir/run/slurmd.pid" || slurmd -f "$conf"
  for _ in $(seq 1 60); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    case $state in
      idle*|mixed*|allocated*) log "node $node $state (SLURM_CONF=$conf)"; return 0 ;;
      down*|drain*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
    esac
    sleep 1
  done
  log "node $node did not become idle; logs in $dir/log"
  tail -20 "$dir"/log/*.log >&2 || true
  return 1
}

# The pid files of the daemons this script started: slurmd, slurmctld, and munged when it was
# not running before.
our_pidfiles() {
  local f
  for f in "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/run/munged.ours"; do
    [[ -s $f ]] && echo "$f"
  done
  return 0
}

daemon_of() { local n; n=$(basename "$1"); echo "${n%%.*}"; }

# The process of a pid file, when it runs and is the daemon the file names (a pid reused by
# another program after the daemon died is not ours to stop).
live_pid() {
  local f=$1 pid want comm
  pid=$(cat "$f" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  want=$(daemon_of "$f")
  comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $comm == "$want" ]] && echo "$pid"
}

check() {
  local f pid left=0
  for f in $(our_pidfiles); do
    if pid=$(live_pid "$f"); then log "still running: $(daemon_of "$f") (pid $pid)"; left=1; fi
  done
  return $left
}

stop() {
  local f pid i
  for f in $(our_pidfiles); do
    pid=$(live_pid "$f") || continue
    kill "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { log "$(daemon_of "$f") (pid $pid) ignored SIGTERM for 10 s: SIGKILL"; kill -9 "$pid" 2>/dev/null || true; sleep 0.5; }
  done
  check || return 1
  rm -f "$dir/run/munged.ours"
}

case ${1:-start} in
  start) start ;;
  stop) stop ;;
  check) check ;;
  status) SLURM_CONF=$conf sinfo; SLURM_CONF=$conf squeue ;;
  conf) echo "$conf" ;;
  *) echo "usage: $0 start|stop|check|status|conf" >&2; exit 64 ;;
esac
