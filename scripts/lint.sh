#!/usr/bin/env bash
# clang-tidy 14 (.clang-tidy) on the C++ sources changed since BASE, committed or not, with the
# compile commands of BUILD (a unity build: a file outside the database takes the flags of its
# nearest neighbour there, which carry the same include paths). Exits 1 on any finding.
#
#   scripts/lint.sh BUILD [BASE]     BASE: a commit (default: origin/main if it exists, else HEAD~1)
set -uo pipefail
build=${1:?usage: lint.sh BUILD [BASE]}
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src" || exit 2
base=${2:-}
if [ -z "$base" ]; then
  if git rev-parse -q --verify origin/main >/dev/null; then base=origin/main; else base=HEAD~1; fi
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint: $build/compile_commands.json missing: configure first (make configure)" >&2
  exit 2
fi
mapfile -t files < <( { git diff --name-only "$base" -- 'src/*.cc' 'tests/*.cc';
                        git ls-files --others --exclude-standard -- 'src/*.cc' 'tests/*.cc'; } |
                      sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if [ ${#files[@]} -eq 0 ]; then
  echo "lint: no C++ source changed since $base"
  exit 0
fi
echo "lint: clang-tidy on ${#files[@]} file(s) changed since $base" >&2
out=$(clang-tidy-14 -p "$build" --quiet "${files[@]}" 2>/dev/null)
if grep -qE "(warning|error):" <<<"$out"; then
  echo "$out"
  echo "lint: findings above (.clang-tidy says which checks run)" >&2
  exit 1
fi
echo "lint: clean"
