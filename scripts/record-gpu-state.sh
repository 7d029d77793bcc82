#!/usr/bin/env bash
# Runs yardstick's GPU side on the machine at hand and writes one JSON file with everything it
# saw, for reading back on a machine without GPUs (and for turning into a fixture):
#   scripts/record-gpu-state.sh [OUT.json]        (default: gpu-check-<host>-<UTC time>.json)
#
# Steps: `make build` (skipped when YARDSTICK_BIN names a built binary); `yardstick preflight
# --filter 'gpu.*' --json`; `yardstick capture` into a temporary directory, keeping the NVML state
# it records; `yardstick topo` when the binary has it; the NEEDED entries of the binary (it must
# need no NVIDIA library); and, for comparison, what nvidia-smi says when it is installed.
# Where there is no GPU, no driver or no GPU unit, each step records what it printed and the
# script still writes the file: it fails (exit 2) only when it cannot build or cannot write.
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-gpu-check-$(hostname -s 2>/dev/null || echo host)-$(date -u +%Y%m%dT%H%M%SZ).json}
case $out in /*) ;; *) out=$PWD/$out ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- JSON writing without any tool beyond bash ----
json_string() {  # a file's text (first 4 MB, control characters dropped) as a JSON string
  local s
  s=$(head -c 4000000 "$1" | tr -d '\000-\010\013\014\016-\037')
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}
is_json() {  # a file that holds one JSON document
  [ -s "$1" ] || return 1
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
  else
    return 1
  fi
}
json_value() {  # a file as JSON: the document itself when it is one, else its text
  if is_json "$1"; then cat "$1"; else json_string "$1"; fi
}

steps=()  # JSON objects, one per step
# step NAME STDOUT_IS_JSON(0/1) CMD...: runs CMD, records argv, exit status, stdout, stderr.
step() {
  local name=$1 want_json=$2
  shift 2
  local o="$tmp/$name.out" e="$tmp/$name.err" rc start end
  start=$(date +%s.%N)
  "$@" >"$o" 2>"$e"
  rc=$?
  end=$(date +%s.%N)
  local argv="" a
  for a in "$@"; do
    printf '%s' "$a" >"$tmp/arg"
    argv+="${argv:+, }$(json_string "$tmp/arg")"
  done
  local stdout
  if [ "$want_json" = 1 ]; then stdout=$(json_value "$o"); else stdout=$(json_string "$o"); fi
  steps+=("{\"name\": \"$name\", \"argv\": [$argv], \"exit_code\": $rc, \"seconds\": $(awk "BEGIN{print $end-$start}"), \"stdout\": $stdout, \"stderr\": $(json_string "$e")}")
  echo "gpu-check: $name: exit $rc" >&2
  return $rc
}

# ---- Build ----
bin=${YARDSTICK_BIN:-}
if [ -z "$bin" ]; then
  if ! step build 0 make -C "$src" build; then
    echo "gpu-check: make build failed; see $out" >&2
    build_failed=1
  fi
  bin=$src/build/yardstick
fi

if [ -x "$bin" ]; then
  step version 0 "$bin" version
  step preflight_gpu 1 "$bin" preflight --filter 'gpu.*' --json
  step capture 0 "$bin" capture "$tmp/capture"
  if "$bin" --help 2>/dev/null | grep -qE '^[[:space:]]+topo[[:space:]]'; then
    step topo 0 "$bin" topo
  else
    printf 'this build has no `yardstick topo`\n' >"$tmp/none"
    steps+=("{\"name\": \"topo\", \"skipped\": $(json_string "$tmp/none")}")
  fi
  if command -v readelf >/dev/null 2>&1; then
    step needed 0 sh -c "readelf -d '$bin' | grep NEEDED"
  fi
fi
if command -v nvidia-smi >/dev/null 2>&1; then
  step nvidia_smi 0 nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,persistence_mode,pstate,clocks.sm,clocks.max.sm,clocks_event_reasons.active,power.draw,enforced.power.limit,power.default_limit,temperature.gpu,ecc.mode.current,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,mig.mode.current --format=csv
  step nvidia_smi_topo 0 nvidia-smi topo -m
  step nvidia_smi_nvlink 0 nvidia-smi nvlink -s
else
  printf 'nvidia-smi is not installed\n' >"$tmp/none"
  steps+=("{\"name\": \"nvidia_smi\", \"skipped\": $(json_string "$tmp/none")}")
fi

nvml_state=null
if [ -f "$tmp/capture/.yardstick/nvml.json" ]; then
  nvml_state=$(json_value "$tmp/capture/.yardstick/nvml.json")
fi

{
  printf '{\n  "tool": "scripts/record-gpu-state.sh",\n'
  printf '  "host": %s,\n' "$(hostname > "$tmp/h"; json_string "$tmp/h")"
  printf '  "kernel": %s,\n' "$(uname -r > "$tmp/k"; json_string "$tmp/k")"
  printf '  "started_at": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf '  "source_tree": %s,\n' "$(git -C "$src" describe --always --dirty > "$tmp/g" 2>/dev/null; json_string "$tmp/g")"
  printf '  "binary": %s,\n' "$(printf '%s' "$bin" > "$tmp/b"; json_string "$tmp/b")"
  printf '  "steps": [\n'
  for i in "${!steps[@]}"; do
    printf '    %s%s\n' "${steps[$i]}" "$([ "$i" -lt $((${#steps[@]} - 1)) ] && echo ,)"
  done
  printf '  ],\n'
  printf '  "nvml_state": %s\n}\n' "$nvml_state"
} >"$out.tmp" && mv "$out.tmp" "$out" || { echo "gpu-check: cannot write $out" >&2; exit 2; }

echo "gpu-check: wrote $out" >&2
[ -z "${build_failed:-}" ] || exit 2
exit 0
