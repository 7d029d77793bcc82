#!/usr/bin/env bash
# A stand-in for a recipe's training launcher, started by `srun` on every rank of a job that
# `yardstick submit` generated: rank 0 prints a Megatron-Bridge log of 50 iterations (the format
# `yardstick validate` ingests); the other ranks print nothing. Usage: fake_recipe.sh STEP_MS TFLOPS
set -euo pipefail
step_ms=${1:-9950.0} tflops=${2:-805.0}
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
echo "Megatron-Bridge pretraining, 50 iterations (stand-in for ${YARDSTICK_WORKLOAD:-?} on ${SLURM_JOB_NUM_NODES:-1} node(s), ${SLURM_NTASKS:-1} ranks)"
for i in $(seq 1 50); do
  echo "Step Time : $(awk -v m="$step_ms" 'BEGIN{printf "%.2f", m/1000}')s GPU utilization: ${tflops}MODEL_TFLOP/s/GPU"
  printf '[2026-11-29 10:%02d:00] iteration %8d/      50 | consumed samples: %12d | elapsed time per iteration (ms): %s | learning rate: 3.000000E-05 | global batch size:  2048 | lm loss: 1.555635E+00 | loss scale: 1.0 | grad norm: 0.127 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
    "$i" "$i" $((i * 2048)) "$step_ms"
done
