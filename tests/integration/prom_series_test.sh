#!/usr/bin/env bash
# Prometheus conventions of the exporter (docs/exporter.md), over two real CPU benchmark runs of
# this machine: labels carry identity only, so both runs give the same series (metric names and
# label sets); `promtool check metrics` finds nothing beyond the names kept for dcgm-exporter
# compatibility; `compare` of the two runs lists no figure as only in one of them. The exporter
# refuses a port another exporter listens on (exit 2, naming the port) and warns when it has no
# run to export.
# ctest: run alone (the benchmarks measure the machine)
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
for tool in promtool curl python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed (scripts/install-deps.sh)"; exit 1; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# The metric names kept as dcgm-exporter spells them (dashboards written for it work unchanged):
# promtool reports their counters without "_total" and their label names UUID, modelName and
# Hostname (not snake case), which the GPU metrics of yardstick_* carry too, for PromQL joins.
dcgm_names='DCGM_FI_DEV_CLOCK_THROTTLE_REASONS DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS DCGM_FI_DEV_ECC_DBE_AGG_TOTAL DCGM_FI_DEV_ECC_DBE_VOL_TOTAL DCGM_FI_DEV_ECC_SBE_AGG_TOTAL DCGM_FI_DEV_ECC_SBE_VOL_TOTAL DCGM_FI_DEV_FB_FREE DCGM_FI_DEV_FB_USED DCGM_FI_DEV_GPU_TEMP DCGM_FI_DEV_GPU_UTIL DCGM_FI_DEV_MEMORY_TEMP DCGM_FI_DEV_MEM_CLOCK DCGM_FI_DEV_MEM_COPY_UTIL DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL DCGM_FI_DEV_PCIE_REPLAY_COUNTER DCGM_FI_DEV_POWER_MGMT_LIMIT DCGM_FI_DEV_POWER_USAGE DCGM_FI_DEV_ROW_REMAP_FAILURE DCGM_FI_DEV_SM_CLOCK DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS'

# Two runs of the same units on this machine: the measured values and the params derived from
# them (STREAM's best rate, the CPU peak from the measured clock, the proxy's time breakdown and
# foreign-CPU method string) differ between them. Small sizes (GEMM 256-1024, STREAM 1 KiB
# arrays): the series depend on the units and shapes run, not on how long each runs, and the
# default GEMM sweep to 4096³ took 30 of this test's 60 s per run here.
units=(--filter mem.stream --filter gemm.cpu --filter host.busy_clock --filter proxy.llama3.1_8b)
for r in a b; do
  "$bin" bench --backend cpu "${units[@]}" --iters 3 --warmup 1 --sizes 256:1024:x2 \
    --out "$tmp/$r.json" >"$tmp/bench_$r.out" 2>&1
  [ -s "$tmp/$r.json" ] || { echo "FAIL: bench run $r wrote no document"; tail -20 "$tmp/bench_$r.out"; exit 1; }
done

scrape() {  # scrape RUN OUT: one exporter over RUN, /metrics into OUT
  local port; port=$(free_port)
  "$bin" exporter --listen "127.0.0.1:$port" --run "$1" --interval 1 >"$2.log" 2>&1 &
  local pid=$!
  pids+=($pid)
  for _ in $(seq 1 50); do
    curl -sf "http://127.0.0.1:$port/metrics" -o "$2" && grep -q '^yardstick_measurement{' "$2" && break
    sleep 0.2
  done
  kill "$pid"; wait "$pid" 2>/dev/null
}
scrape "$tmp/a.json" "$tmp/metrics_a"
scrape "$tmp/b.json" "$tmp/metrics_b"
series() {  # the run's series of a scrape: name{labels}, sorted; node telemetry left out
  python3 - "$1" <<'PY'
import re, sys
out = set()
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? \S+$", line.strip())
    if not m:
        print("UNPARSED " + line.strip()); continue
    if m.group(1).startswith(("yardstick_measurement", "yardstick_busbw", "yardstick_check")):
        out.add(m.group(1) + (m.group(2) or ""))
print("\n".join(sorted(out)))
PY
}
series "$tmp/metrics_a" >"$tmp/series_a"
series "$tmp/metrics_b" >"$tmp/series_b"
n=$(grep -c . "$tmp/series_a")
if [ "$n" -gt 10 ] && diff "$tmp/series_a" "$tmp/series_b" >"$tmp/series.diff"; then
  passes=$((passes + 1)); echo "both runs: the same $n series"
else
  echo "FAIL: the two runs' series differ ($n series in run a):"; head -20 "$tmp/series.diff"; fails=$((fails + 1))
fi
for measured in 'best=' 'compute_s=' 'comm_s=' 'method="' 'pct_of_peak=' 'peak=' 'job_cpus=' 'flops_per_step='; do
  expect_not_in "$tmp/series_a" "$measured" "no measured or derived value as a label ($measured)"
done
expect_in "$tmp/metrics_a" 'yardstick_measurement{name="mem.stream.triad"' "STREAM triad exported"
expect_in "$tmp/metrics_a" 'yardstick_measurement_peak_ratio{name="gemm.cpu.sgemm"' "the fraction of peak is a sample of its own metric"
expect_not_in "$tmp/metrics_a" 'yardstick_measurement_pct_of_peak' "no percentage under the old name"

# promtool: no problem beyond the dcgm-exporter names. The node telemetry comes from a recorded
# GPU state so that those names are present.
port=$(free_port)
"$bin" exporter --listen "127.0.0.1:$port" --root "$src/tests/fixtures/hosts/healthy-8gpu" \
  --nvml-state "$src/tests/fixtures/nvml/exporter-h100x8.json" --run "$tmp/a.json" --interval 1 \
  >"$tmp/full.log" 2>&1 &
pid=$!
pids+=($pid)
for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/metrics_full" && grep -q '^DCGM_FI_DEV_GPU_TEMP' "$tmp/metrics_full" && grep -q '^yardstick_measurement{' "$tmp/metrics_full" && break
  sleep 0.2
done
promtool check metrics <"$tmp/metrics_full" >"$tmp/promtool.out" 2>&1
echo "promtool: $(grep -c . "$tmp/promtool.out") line(s)"
python3 - "$tmp/promtool.out" "$tmp/metrics_full" $dcgm_names >"$tmp/promtool.check" 2>&1 <<'PY'
import re, sys
allowed = set(sys.argv[3:])
# dcgm-exporter's label names, kept on the GPU metrics so that PromQL joins on them work.
dcgm_labels = {"UUID", "modelName", "Hostname"}
bad = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    name = line.split()[0]
    if name in allowed:
        continue
    if line.endswith("label names should be written in 'snake_case' not 'camelCase'"):
        continue  # judged below, label by label
    bad.append(line)
for line in open(sys.argv[2]):
    m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} ", line)
    if not m or m.group(1) in allowed:
        continue
    for label in re.findall(r'(?:^|,)([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(2)):
        if re.search(r"[a-z][A-Z]|^[A-Z]", label) and label not in dcgm_labels:
            bad.append(f"{m.group(1)}: label {label} is not snake case")
bad = sorted(set(bad))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
if [ $? -eq 0 ]; then passes=$((passes + 1)); else echo "FAIL: promtool problems beyond the dcgm-exporter names:"; cat "$tmp/promtool.check"; fails=$((fails + 1)); fi

# A second exporter on the same port: refused, exit 2, naming the port.
expect_rc 2 "a second exporter on a port in use" -- timeout 10 "$bin" exporter --listen "127.0.0.1:$port"
expect_in "$tmp/err" "127.0.0.1:$port: the port is in use" "the refusal names the port"
curl -sf "http://127.0.0.1:$port/metrics" -o /dev/null && passes=$((passes + 1)) || { echo "FAIL: the first exporter stopped answering"; fails=$((fails + 1)); }
kill "$pid"; wait "$pid" 2>/dev/null

# No --run: a warning on stderr.
port=$(free_port)
"$bin" exporter --listen "127.0.0.1:$port" >"$tmp/norun.out" 2>"$tmp/norun.err" &
pid=$!
pids+=($pid)
for _ in $(seq 1 50); do grep -q "listening" "$tmp/norun.err" && break; sleep 0.1; done
kill "$pid"; wait "$pid" 2>/dev/null
expect_in "$tmp/norun.err" "no --run: exporting node telemetry only" "a warning without --run"

# compare: the same figures in both runs, none only in one.
expect_rc 0 "compare the two runs" -- "$bin" compare "$tmp/a.json" "$tmp/b.json" --json
python3 - "$tmp/out" >"$tmp/compare.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
only = [(side, m["name"], m.get("params")) for side in ("only_in_a", "only_in_b") for m in d[side]]
print(f"{len(d['measurements'])} figures in both; only in one: {only}")
sys.exit(1 if only or not d["measurements"] else 0)
PY
if [ $? -eq 0 ]; then passes=$((passes + 1)); cat "$tmp/compare.check"; else echo "FAIL: compare:"; cat "$tmp/compare.check"; fails=$((fails + 1)); fi
finish
