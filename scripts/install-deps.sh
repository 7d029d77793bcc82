#!/usr/bin/env bash
# Installs the Debian packages yardstick builds and tests with. Idempotent: packages already
# present are not touched, and apt is not called at all when nothing is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config lld
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev
  libopenmpi-dev openmpi-bin libopenblas-dev
  libhwloc-dev hwloc
  zlib1g-dev
  libarchive-dev libzstd-dev libssl-dev libsqlite3-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev
  python3 python3-jsonschema
  openssl zstd tar
  slurm-wlm slurm-client munge libpmix-dev
  chromium libjs-chart.js  # yardstick report: Chart.js inlined, the page checked in headless Chromium
  prometheus wrk curl  # exporter: integration test (real Prometheus, load)
  clang-14 libclang-rt-14-dev  # make sanitize / make fuzz: ASan, UBSan and libFuzzer runtimes
  clang-format-14  # make format and the style.format test
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
