#!/usr/bin/env bash
# Runs every libFuzzer target of a sanitize build (make fuzz) for FUZZ_SECONDS each, one after
# another, starting from the committed corpus. New interesting inputs go to a scratch folder in the
# build directory (BUILD/fuzz-new/TARGET), never into tests/fuzz/corpus; a crash, leak, timeout or
# out-of-memory input is written to BUILD/fuzz-artifacts/TARGET/ and the script exits 1 naming it.
#
#   scripts/fuzz.sh BUILD_DIR [SECONDS] [TARGET...]     (TARGET: training_log, toml, ...)
set -uo pipefail

build=${1:?usage: fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}
seconds=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
src=$(cd "$(dirname "$0")/.." && pwd)

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$src"/tests/fuzz/*_fuzz.cc; do
    n=$(basename "$f" .cc)
    targets+=("${n%_fuzz}")
  done
fi

failed=()
for t in "${targets[@]}"; do
  bin="$build/${t}_fuzz"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin: not built (make fuzz builds it in the sanitize preset)" >&2
    exit 2
  fi
  new="$build/fuzz-new/$t"
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$new" "$artifacts"
  inputs=("$new" "$src/tests/fuzz/corpus/$t")
  [ -d "$src/tests/fuzz/crashes/$t" ] && inputs+=("$src/tests/fuzz/crashes/$t")
  echo "fuzz: $t for ${seconds}s" >&2
  if ! "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "${inputs[@]}" 2>"$build/fuzz-$t.log"; then
    echo "fuzz: $t FAILED: see $build/fuzz-$t.log and $artifacts/" >&2
    failed+=("$t")
  fi
  grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units' "$build/fuzz-$t.log" | tail -2 >&2
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
