#!/bin/bash
# The cost of a clean build: configure and build the program (`make run`'s part), then the rest
# (tests, fakes, fuzz replays), in a fresh build directory with ccache off. Prints CPU-seconds
# (user + sys of the whole build, /usr/bin/time) and wall time of each part, the number of build
# steps, and the slowest steps from .ninja_log. Packages must be installed (scripts/install-deps.sh).
#   bench/build_cost.sh [SOURCE_DIR (this checkout)] [JOBS (nproc)]
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
jobs=${2:-$(nproc)}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export CCACHE_DISABLE=1
unset CMAKE_CXX_COMPILER_LAUNCHER CMAKE_C_COMPILER_LAUNCHER

part() {  # NAME TIMEFILE COMMAND...
  local name=$1 tf=$2; shift 2
  /usr/bin/time -f '%U %S %e' -o "$tf" "$@" >"$work/$name.log" 2>&1 ||
    { echo "build_cost: $name failed:"; tail -20 "$work/$name.log"; exit 1; }
  read -r u s e <"$tf"
  steps=$(grep -c '^\[' "$work/$name.log" || true)
  printf '%-9s %7.0f CPU-s  %6.0f s wall  %4d steps\n' "$name" "$(echo "$u + $s" | bc)" "$e" "$steps"
}

echo "build_cost: $(git -C "$src" describe --always --dirty 2>/dev/null || echo "$src"), $jobs jobs, $(nproc) cores, $(c++ --version | head -1)"
part configure "$work/t0" cmake -S "$src" --preset default -B "$work/build"
part program "$work/t1" cmake --build "$work/build" -j "$jobs" --target yardstick
part rest "$work/t2" cmake --build "$work/build" -j "$jobs"
read -r u1 s1 e1 <"$work/t1"; read -r u2 s2 e2 <"$work/t2"; read -r u0 s0 e0 <"$work/t0"
printf 'total     %7.0f CPU-s  %6.0f s wall\n' "$(echo "$u0 + $s0 + $u1 + $s1 + $u2 + $s2" | bc)" \
  "$(echo "$e0 + $e1 + $e2" | bc)"
echo "slowest steps (wall s, from .ninja_log):"
awk -F'\t' '!/^#/ {printf "%8.1f  %s\n", ($2 - $1) / 1000, $4}' "$work/build/.ninja_log" |
  sort -rn | head -12
