#!/usr/bin/env bash
# The C++ sources follow .clang-format (Google style, 100 columns): clang-format 14 on every
# .cc and .h under src/ and tests/ (fixtures excepted) must change nothing. `make format`
# rewrites them in place.
#   tests/style/format_check.sh SOURCE_DIR [--fix]
set -euo pipefail
src=${1:?usage: format_check.sh SOURCE_DIR [--fix]}
fix=${2:-}
cd "$src"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$fmt" ] || { echo "format_check: clang-format-14 is not installed (scripts/install-deps.sh)" >&2; exit 2; }
mapfile -d '' files < <(find src tests \( -name '*.cc' -o -name '*.h' \) -not -path 'tests/fixtures/*' -print0 | sort -z)
if [ "$fix" = "--fix" ]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$fmt" -i
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
# One clang-format process per 100 files; each finding reads "FILE:LINE:COL: error: ...".
mapfile -t bad < <(printf '%s\0' "${files[@]}" | xargs -0 -n 100 "$fmt" --dry-run -Werror 2>&1 |
  sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u || true)
if [ ${#bad[@]} -gt 0 ]; then
  echo "format_check: ${#bad[@]} of ${#files[@]} files differ from .clang-format (run 'make format'):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format_check: ${#files[@]} files follow .clang-format"
