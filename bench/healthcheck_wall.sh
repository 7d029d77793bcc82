#!/usr/bin/env bash
# Wall time of `yardstick healthcheck` (the default subset, with and without the Slurm calls) and
# the submit-to-start latency of small jobs on the local Slurm cluster of scripts/slurm-local.sh.
#
#   bench/healthcheck_wall.sh [RUNS] [BINARY]
set -euo pipefail
runs=${1:-20}
bin=${2:-build/yardstick}
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin" ] || { echo "no binary at $bin: run make build first" >&2; exit 2; }

stats() {
  sort -n | awk '{a[NR]=$1} END {p90=a[int(NR*0.9+0.5)]; if (p90=="") p90=a[NR];
    med=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2;
    printf "min %.1f  median %.1f  p90 %.1f  max %.1f  (n=%d)\n", a[1], med, p90, a[NR], NR}'
}
time_ms() {
  local t0 t1
  t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 )) | awk '{printf "%.3f\n", $1/1000}'
}
series() { for _ in $(seq "$runs"); do time_ms "$@"; done | stats; }

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
bash "$src/scripts/slurm-local.sh" start >/dev/null 2>&1
SLURM_CONF=$(bash "$src/scripts/slurm-local.sh" conf); export SLURM_CONF
fixture=$src/tests/fixtures/hosts/healthy-8gpu
echo "healthcheck --no-drain, this node (ms):       $(series "$bin" healthcheck --no-drain)"
echo "healthcheck --no-drain, healthy-8gpu (ms):    $(series "$bin" healthcheck --no-drain --root "$fixture")"
echo "healthcheck with scontrol, healthy-8gpu (ms): $(series "$bin" healthcheck --act-on-recorded --root "$fixture")"

# Submit-to-start latency (StartTime - SubmitTime, whole seconds as Slurm records them).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/bash\ntrue\n' > "$tmp/j.sh"
ids=()
for _ in $(seq 5); do ids+=("$(sbatch --parsable -p test -o /dev/null "$tmp/j.sh")"); sleep 1; done
sleep 5
for id in "${ids[@]}"; do
  scontrol show job "$id" | awk -v id="$id" '/SubmitTime=/{for(i=1;i<=NF;i++) if ($i ~ /^SubmitTime=/) s=substr($i,12)}
    /StartTime=/{for(i=1;i<=NF;i++) if ($i ~ /^StartTime=/) t=substr($i,11)}
    END {cmd="date -d " s " +%s"; cmd | getline a; close(cmd); cmd="date -d " t " +%s"; cmd | getline b; print b-a}'
done | stats | sed 's/^/submit-to-start latency (s): /'
