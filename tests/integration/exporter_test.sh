#!/usr/bin/env bash
# yardstick exporter against a real Prometheus: recorded NVML state with telemetry, a recorded
# host tree with InfiniBand ports and a busy-clock file, a run.json with validation.json beside it.
# Prometheus scrapes every second; its HTTP API must give back the fixture's values. The Grafana
# dashboard may use only metric names the exporter exposes. Then a bounded wrk load: no errors.
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

root=$src/tests/fixtures/hosts/healthy-8gpu
nvml=$src/tests/fixtures/nvml/exporter-h100x8.json
run=$src/tests/fixtures/exporter/run.json

for tool in prometheus wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not installed (scripts/install-deps.sh)"; exit 1; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Bad options: exit 2 with a message naming the option.
expect_rc 2 "malformed --listen" -- "$bin" exporter --listen 127.0.0.1:notaport
expect_in "$tmp/err" "--listen" "malformed --listen names the option"
expect_rc 2 "non-loopback without --allow-remote" -- "$bin" exporter --listen 0.0.0.0:9400
expect_in "$tmp/err" "--allow-remote" "the refusal says how to allow it"
expect_rc 2 "missing --run file" -- "$bin" exporter --run "$tmp/absent.json"
expect_rc 2 "bad --interval" -- "$bin" exporter --interval 0

port=$(free_port)
"$bin" exporter --listen "127.0.0.1:$port" --root "$root" --nvml-state "$nvml" --run "$run" \
  --interval 1 --collector-timeout 2 >"$tmp/exporter.out" 2>"$tmp/exporter.err" &
exporter_pid=$!
pids+=($exporter_pid)
for _ in $(seq 1 50); do
  curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/metrics" && grep -q yardstick_nvlink_throughput "$tmp/metrics" && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/metrics" || { echo "FAIL: exporter did not answer"; cat "$tmp/exporter.err"; exit 1; }
expect_in "$tmp/metrics" 'yardstick_collector_up{collector="gpu"} 1' "gpu collector up"
expect_in "$tmp/metrics" 'yardstick_collector_up{collector="infiniband"} 1' "infiniband collector up"
expect_in "$tmp/metrics" 'yardstick_collector_up{collector="run"} 1' "run collector up"
expect_in "$tmp/metrics" '# TYPE DCGM_FI_DEV_GPU_TEMP gauge' "dcgm-exporter name"
curl -sf "http://127.0.0.1:$port/" -o "$tmp/page.html"
expect_in "$tmp/page.html" "/api/telemetry" "page polls the telemetry endpoint"
curl -sf "http://127.0.0.1:$port/api/telemetry" -o "$tmp/telemetry.json"
expect_in "$tmp/telemetry.json" '"util":93' "telemetry JSON carries the recorded utilisation"
expect_rc 0 "telemetry JSON matches its schema" -- /usr/bin/python3 "$src/tests/integration/validate_json.py" \
  "$src/schemas/exporter_telemetry.schema.json" "$tmp/telemetry.json"
# A web page that rebinds its own DNS name to 127.0.0.1 sends that name as Host: refused (421).
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: attacker.example' "http://127.0.0.1:$port/metrics")
[ "$code" = 421 ] && passes=$((passes + 1)) || { echo "FAIL: foreign Host header answered $code"; fails=$((fails + 1)); }
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: localhost:$port" "http://127.0.0.1:$port/metrics")
[ "$code" = 200 ] && passes=$((passes + 1)) || { echo "FAIL: Host localhost answered $code"; fails=$((fails + 1)); }
# A request body is refused before it is read: 8 MiB posted, the exporter's memory does not move.
rss() { awk '/^VmRSS/ {print $2}' "/proc/$exporter_pid/status"; }
before=$(rss)
code=$(head -c 8388608 /dev/zero | curl -s -o /dev/null -w '%{http_code}' --data-binary @- "http://127.0.0.1:$port/metrics")
after=$(rss)
[ "$code" = 413 ] && passes=$((passes + 1)) || { echo "FAIL: a POST body answered $code"; fails=$((fails + 1)); }
[ $((after - before)) -lt 4096 ] && passes=$((passes + 1)) || { echo "FAIL: exporter RSS grew $before -> $after KiB on a POST"; fails=$((fails + 1)); }

# Every metric the dashboard's PromQL uses is exposed.
python3 - "$src/dashboards/yardstick.json" "$tmp/metrics" >"$tmp/dash.out" 2>&1 <<'PY'
import json, re, sys
dash = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
exprs += [v.get("query", "") for v in dash.get("templating", {}).get("list", []) if isinstance(v.get("query"), str)]
names = sorted({n for e in exprs for n in re.findall(r"\b(?:DCGM_FI_[A-Z0-9_]+|yardstick_[a-z0-9_]+)\b", e)})
exposed = set(re.findall(r"^# TYPE (\S+) ", open(sys.argv[2]).read(), re.M))
missing = [n for n in names if n not in exposed]
print(f"dashboard uses {len(names)} metrics; missing from /metrics: {missing}")
sys.exit(1 if missing or not names else 0)
PY
if [ $? -eq 0 ]; then passes=$((passes + 1)); cat "$tmp/dash.out"; else echo "FAIL: dashboard metrics"; cat "$tmp/dash.out"; fails=$((fails + 1)); fi

# A real Prometheus scraping every second.
pport=$(free_port)
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: yardstick
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$pport" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
query() {  # query PROMQL -> the first result's value, or empty
  curl -sf -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
for _ in $(seq 1 60); do
  [ -n "$(query 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' 2>/dev/null)" ] && break
  sleep 0.5
done
check() {  # check PROMQL WANT DESCRIPTION
  local got; got=$(query "$1")
  if python3 -c "import sys; sys.exit(0 if '$got' and abs(float('$got') - float('$2')) <= 1e-9 * max(1, abs(float('$2'))) else 1)"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $3: $1 = '$got', expected $2"; fails=$((fails + 1))
  fi
}
fx() { python3 -c "import json; d=json.load(open('$nvml'))['devices']; print($1)"; }
check 'DCGM_FI_DEV_GPU_TEMP{gpu="0"}' "$(fx "d[0]['temperature_c']['value']")" "GPU temperature from the fixture"
check 'DCGM_FI_DEV_POWER_USAGE{gpu="5"}' "$(fx "d[5]['power_usage_mw']['value'] / 1000")" "power in W"
check 'DCGM_FI_DEV_GPU_UTIL{gpu="3"}' "$(fx "d[3]['telemetry']['gpu_utilization_pct']['value']")" "utilisation"
check 'DCGM_FI_DEV_FB_USED{gpu="2"}' "$(fx "d[2]['telemetry']['memory_used_bytes']['value'] / 1048576")" "framebuffer used in MiB"
check 'DCGM_FI_DEV_SM_CLOCK{gpu="1"}' "$(fx "d[1]['sm_clock_mhz']['value']")" "SM clock"
words=$(cat "$root/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data")
check 'yardstick_ib_port_data_bytes_total{device="mlx5_0",port="1",direction="tx"}' "$((words * 4))" "IB bytes = words x 4"
check 'yardstick_ib_port_throughput_bytes_per_second{device="mlx5_0",direction="tx"}' 0 "IB rate of a recording that does not move"
check 'yardstick_check_status{id="gpu.ecc.uncorrected"}' 2 "a failed check is 2"
check 'yardstick_check_status{id="virt.hypervisor"}' 3 "a skipped check is 3"
check 'yardstick_score_ratio{workload="llama3.1-8b"}' 0.982 "score from validation.json beside the run"
check 'yardstick_check_state{id="gpu.ecc.uncorrected",state="fail"}' 1 "a failed check: its state series is 1"
check 'sum(yardstick_check_state{id="gpu.ecc.uncorrected"})' 1 "exactly one state series is 1"
check 'count(yardstick_check_status{Hostname="gpu-node-07"})' "$(query 'count(yardstick_check_status)')" "every check series carries Hostname"
check 'count(yardstick_ib_port_state{Hostname="hgx-ok-01"})' "$(query 'count(yardstick_ib_port_state)')" "every IB series carries Hostname"
check 'yardstick_busbw_bytes_per_second{collective="all_reduce",size="1048576"}' 11250000000 "busbw in bytes/s"
check 'yardstick_run_timestamp_seconds' 1795166042 "run time"
check 'yardstick_diagnosis_recovery_ratio{rule="gpu.throttling",bound="high"}' 0.08 "diagnosis recovery"
check 'yardstick_cpu_busy_clock_mhz{cpu="0"}' "$(awk '$1=="cpu0"{print $2}' "$root/.yardstick/busy-clock")" "busy clock replayed"
check 'up{job="yardstick"}' 1 "Prometheus scrapes the exporter"

# Load: 2 threads, 8 connections, 5 s.
wrk -t2 -c8 -d5s "http://127.0.0.1:$port/metrics" >"$tmp/wrk.out" 2>&1
grep -E "Requests/sec" "$tmp/wrk.out"
expect_not_in "$tmp/wrk.out" "Non-2xx" "wrk: no non-2xx responses"
expect_not_in "$tmp/wrk.out" "Socket errors" "wrk: no socket errors"
expect_in "$tmp/wrk.out" "Requests/sec" "wrk ran"
curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/metrics" && expect_in "$tmp/metrics" 'yardstick_collector_up{collector="gpu"} 1' "still up after the load"
# SIGTERM: the exporter stops its server and collectors and exits 0, within a few seconds.
kill -TERM "$exporter_pid"
for _ in $(seq 1 50); do kill -0 "$exporter_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$exporter_pid" 2>/dev/null; then
  echo "FAIL: exporter still running 5 s after SIGTERM"; fails=$((fails + 1))
else
  wait "$exporter_pid"; rc=$?
  if [ "$rc" -eq 0 ]; then passes=$((passes + 1)); else echo "FAIL: exporter exit $rc after SIGTERM"; fails=$((fails + 1)); fi
fi
finish
