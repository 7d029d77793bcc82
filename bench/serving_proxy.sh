#!/usr/bin/env bash
# The serving proxy's prediction error on this machine: runs `yardstick bench --filter
# serving.llama3.1_8b` at several concurrencies and ISL/OSL (a site file's [unit."serving.llama3.1_8b"]
# table sets them), REPEATS times each, and prints per setting the medians over the repeats of the
# measured and predicted TTFT (mean per request), TPOT (mean per request) and output tokens/s, and
# over every run the median and p90 (nearest rank) of |predicted / measured - 1| per figure: the
# figures calibration/serve_cpu.toml states for this CPU. Also prints the BLAS kernel in use
# (openblas_get_corename(), as the unit reports it), OPENBLAS_CORETYPE and the load average, which
# the figures depend on.
#
#   bench/serving_proxy.sh [build/yardstick]
#   environment: REPEATS (3), CONCURRENCIES ("4 8 16"), LENGTHS ("128:32 64:64", ISL:OSL),
#                REQUESTS (32 counted requests per run)
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
repeats=${REPEATS:-3} concurrencies=${CONCURRENCIES:-4 8 16} lengths=${LENGTHS:-128:32 64:64}
requests=${REQUESTS:-32}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export HOME="$work/home" XDG_DATA_HOME="$work/home"; mkdir -p "$HOME"

extract() {  # "<K> <ISL> <OSL> <ttft> <pred> <tpot> <pred> <tok/s> <pred> <blas>"
  python3 -c '
import json, sys
d = json.load(sys.stdin)
for b in d.get("benchmarks", []):
    if not b["id"].startswith("serving."): continue
    if b.get("outcome") != "pass":
        print("#", b["id"], b.get("outcome"), b.get("summary"), file=sys.stderr); continue
    m = {x["name"].split(".")[-1]: x for x in b["measurements"]}
    p = m["ttft"]["params"]
    blas = b["evidence"]["backend"].split("(")[1].split(" kernel")[0]
    print(p["concurrency"], p["isl"], p["osl"], p["mean"], m["predicted_ttft"]["value"],
          m["tpot"]["params"]["mean"], m["predicted_tpot"]["value"],
          m["output_tokens_per_s"]["value"], m["predicted_output_tokens_per_s"]["value"], blas)'
}

for ((i = 0; i < repeats; i++)); do
  for k in $concurrencies; do
    for len in $lengths; do
      printf '[unit."serving.llama3.1_8b"]\nconcurrency = %s\nisl = %s\nosl = %s\nrequests = %s\n' \
        "$k" "${len%%:*}" "${len##*:}" "$requests" >"$work/site.toml"
      "$bin" bench --filter serving.llama3.1_8b --data "$src" --expect "$work/site.toml" --json \
        --no-history 2>>"$work/log" | extract >>"$work/all.txt" || true
    done
  done
done

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}; $repeats repeats per setting, $requests counted requests per run"
python3 - "$work/all.txt" <<'PY'
import math, statistics, sys
rows, blas, errs = {}, set(), {"ttft": [], "tpot": [], "output_tokens_per_s": []}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 10: continue
    v = [float(x) for x in f[3:9]]
    rows.setdefault((int(f[0]), int(f[1]), int(f[2])), []).append(v)
    blas.add(f[9])
    for name, (meas, pred) in zip(errs, [(v[0], v[1]), (v[2], v[3]), (v[4], v[5])]):
        errs[name].append(abs(pred / meas - 1))
print("BLAS kernel in use (openblas_get_corename):", ", ".join(sorted(blas)) or "?")
print("%4s %5s %5s %9s %9s %9s %9s %9s %9s" % ("K", "ISL", "OSL", "TTFT ms", "pred", "TPOT ms",
      "pred", "tok/s", "pred"))
for (k, isl, osl), v in sorted(rows.items()):
    med = [statistics.median(c) for c in zip(*v)]
    print("%4d %5d %5d %9.3f %9.3f %9.3f %9.3f %9.0f %9.0f" % (k, isl, osl, med[0] * 1e3,
          med[1] * 1e3, med[2] * 1e3, med[3] * 1e3, med[4], med[5]))
def p90(x):
    s = sorted(x); return s[max(0, math.ceil(0.9 * len(s)) - 1)]
for name, e in errs.items():
    if e:
        print("%-20s |predicted/measured - 1| over %d runs: median %.3f, p90 %.3f" %
              (name, len(e), statistics.median(e), p90(e)))
PY
if [ -s "$work/log" ]; then grep -h "^#" "$work/log" | sort -u || true; fi
