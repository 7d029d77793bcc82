#!/usr/bin/env bash
# Verdicts that agree with their evidence (docs/verdict.md), on every fixture and real sample the
# tree holds, found by globbing so that a new fixture is covered without editing the test: every
# file through `ingest` (console and --json), every host tree, recorded GPU state and kernel log
# through `preflight`, every run and validation document through `diagnose`. The console's verdict
# line, the JSON verdict, the exit code, the HTML banner and the exporter's check states agree;
# a skip is never counted as a pass; no message contradicts the evidence beside it
# (consistency_check.py holds the claims).
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
if /usr/bin/python3 "$src/tests/integration/consistency_check.py" "$bin" "$src" "$tmp/cwd"; then
  passes=$((passes + 1))
else
  fails=$((fails + 1)) failed+="consistency_check.py; "
fi
finish
