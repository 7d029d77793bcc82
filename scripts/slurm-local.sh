#!/usr/bin/env bash
# A one-node Slurm cluster on this machine for the integration tests: munged, slurmctld and
# slurmd started for real, with the PMIx plugin so that `srun --mpi=pmix` starts OpenMPI ranks.
#
#   scripts/slurm-local.sh start   # idempotent; waits until the node is idle
#   scripts/slurm-local.sh stop
#   scripts/slurm-local.sh status
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

stop() {
  for p in slurmd slurmctld; do
    if running "$dir/run/$p.pid"; then kill "$(cat "$dir/run/$p.pid")" || true; fi
  done
}

case ${1:-start} in
  start) start ;;
  stop) stop ;;
  status) SLURM_CONF=$conf sinfo; SLURM_CONF=$conf squeue ;;
  conf) echo "$conf" ;;
  *) echo "usage: $0 start|stop|status|conf" >&2; exit 64 ;;
esac
