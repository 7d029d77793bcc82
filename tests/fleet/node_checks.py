"""The preflight checks of one node as `yardstick run` writes them: the 26 check records the tool
wrote for the healthy 8x H100 fixture (templates/preflight_h100x8.json, with how it was captured),
with findings planted into them. Findings the tool wrote for the GPU fixtures (a throttling GPU, a
pending row remap, NVLink errors) are moved to the GPU they are planted on; YS-GPU-026, YS-IB-004
and YS-MEM-003 follow their checks' code (src/checks/) in the same format.

Fleet-wide, every node carries the same YS-MEM-001 warning (THP defrag = always): a setting of the
whole fleet, not an outlier of any node.
"""
import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates", "preflight_h100x8.json")) as _f:
    _TEMPLATE = json.load(_f)
_REFERENCE = "DCGM health watch; NVML API Reference (docs.nvidia.com/deploy/nvml-api/)"

# Planted failing checks: code -> (check id, where: "gpu" | "nic" | "node"), from the template or below.
PLANTED_CODES = {"YS-GPU-026": ("gpu.ecc", "gpu"), "YS-GPU-032": ("gpu.memory_repair", "gpu"),
                 "YS-GPU-046": ("gpu.nvlink", "gpu"), "YS-IB-004": ("ib.ports", "nic"),
                 "YS-MEM-003": ("mem.settings", "node")}
_WRITTEN = {
    "YS-GPU-026": {"code": "YS-GPU-026", "severity": "fail", "entity": "gpu0",
                   "message": "2 volatile uncorrected ECC errors since the last reset",
                   "evidence": {"gpu0.name": "NVIDIA H100 80GB HBM3", "ecc_errors_uncorrected_volatile": "2",
                                "ecc_errors_uncorrected_aggregate": "2"},
                   "fix": "drain the node; reset the GPU (nvidia-smi -r -i 0) and run dcgmi diag -r 3 before "
                          "returning it to service", "reference": _REFERENCE},
    "YS-IB-004": {"code": "YS-IB-004", "severity": "warn", "entity": "mlx5_0/1",
                  "message": "error counters non-zero: symbol_error 1840, link_error_recovery 3",
                  "evidence": {"/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error": "1840",
                               "/sys/class/infiniband/mlx5_0/ports/1/counters/link_error_recovery": "3"},
                  "fix": "mlxlink -d mlx5_0 -p 1 -c; reseat or replace the cable/optic if the counts grow",
                  "reference": "docs/node-checks.md \u00a7rdma; Documentation/ABI/stable/sysfs-class-infiniband"},
    "YS-MEM-003": {"code": "YS-MEM-003", "severity": "warn", "entity": "node",
                   "message": "swap in use: 18.2 GiB of 32.0 GiB",
                   "evidence": {"swap": "32768 MiB total, 18636 MiB used"},
                   "fix": "swapoff -a after finding what filled the memory", "reference": "docs/node-checks.md"},
    "YS-MEM-001": {"code": "YS-MEM-001", "severity": "warn", "entity": "node",
                   "message": "THP defrag [always]: allocations stall on compaction",
                   "evidence": {"/sys/kernel/mm/transparent_hugepage/defrag": "[always] defer defer+madvise madvise never"},
                   "fix": "echo madvise > /sys/kernel/mm/transparent_hugepage/defrag", "reference": "docs/node-checks.md"},
}
_SOURCE_GPU = {"YS-GPU-011": 2, "YS-GPU-020": 2, "YS-GPU-032": 5, "YS-GPU-045": 3, "YS-GPU-046": 3,
               "YS-GPU-047": 3, "YS-GPU-026": 0}
_TEXT = {}


def _template_text(gpu_name):
    if gpu_name not in _TEXT:
        _TEXT[gpu_name] = json.dumps(_TEMPLATE["checks"]).replace("NVIDIA H100 80GB HBM3", gpu_name)
    return _TEXT[gpu_name]


def _moved(code, entity, gpu_name):
    """The finding for `code`, moved to `entity` (gpuN, mlx5_N/1 or node)."""
    f = _TEMPLATE["findings"].get(code) or _WRITTEN[code]
    text = json.dumps({k: v for k, v in f.items() if k != "check"}).replace("NVIDIA H100 80GB HBM3", gpu_name)
    if code in _SOURCE_GPU and entity.startswith("gpu"):
        src, dst = _SOURCE_GPU[code], entity[3:]
        text = re.sub(r"\bgpu%d\b" % src, entity, text).replace("-i %d" % src, "-i " + dst)
    elif code == "YS-IB-004":
        text = text.replace("mlx5_0", entity.split("/")[0])
    return json.loads(text)


def _add(check, finding):
    check["findings"].append(finding)
    if check["outcome"] != "fail":
        check["outcome"] = finding["severity"]
    check["summary"] = ""  # the tool leaves a warn/fail check's summary to its findings


def node_checks(gpu_name, max_mhz, driver, planted, clock_faults):
    """planted: [(code, entity)]; clock_faults: [(gpu entity, fraction of the clock lost)]."""
    checks = {c["id"]: c for c in json.loads(_template_text(gpu_name))}
    if driver != "550.127.05":
        d = checks["gpu.driver"]
        d["summary"] = d["summary"].replace("550.127.05", driver)
        for k in ("nvml.driver_version", "kernel_module"):
            d["evidence"][k] = d["evidence"][k].replace("550.127.05", driver)
        d["evidence"]["nvml.version"] = "12." + driver
    for e, size in clock_faults:
        mhz = int(max_mhz * (1 - size))
        checks["gpu.clocks"]["evidence"][e] = "%d/%d MHz SM, reasons: HW thermal slowdown, HW slowdown" % (mhz, max_mhz)
        f = _moved("YS-GPU-011", e, gpu_name)
        f["message"] = f["message"].replace("1125/1980", "%d/%d" % (mhz, max_mhz))
        f["evidence"]["sm_clock_mhz"], f["evidence"]["max_sm_clock_mhz"] = str(mhz), str(max_mhz)
        _add(checks["gpu.clocks"], f)
        checks["gpu.thermal"]["evidence"][e] = "91 C (slowdown 89 C, max operating 87 C, shutdown 92 C)"
        _add(checks["gpu.thermal"], _moved("YS-GPU-020", e, gpu_name))
    mem = checks["mem.settings"]
    mem["evidence"]["thp.defrag"] = "always"
    _add(mem, _moved("YS-MEM-001", "node", gpu_name))
    for code, entity in planted:
        _add(checks[PLANTED_CODES[code][0]], _moved(code, entity, gpu_name))
    return list(checks.values())
