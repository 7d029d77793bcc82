#!/usr/bin/env bash
# The step-time model's error table over every published row of baselines/: workload, chip,
# release, GPUs, GBS, published and predicted step time, error, and whether the row was in the
# fit or held out; then the median and 90th-percentile |error| of each set.
#   scripts/predict_error_table.sh [YARDSTICK] [--fit] [--json]
# YARDSTICK defaults to build/yardstick; --fit re-fits the constants first (and prints them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/yardstick}
[ $# -gt 0 ] && shift
YARDSTICK_DATA=${YARDSTICK_DATA:-$here} exec "$bin" predict --published "$@"
