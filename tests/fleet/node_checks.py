"""The preflight checks of one node as `yardstick run` writes them (src/checks/): 26 check records,
pass with their evidence, or warn/fail with a finding (code from src/core/finding_codes.cc, the
entity the check names: "gpu3", "mlx5_2/1", "node").

Fleet-wide, every node carries the same YS-MEM-001 warning (THP defrag = always): a setting of the
whole fleet, not an outlier of any node.
"""

CHECK_IDS = ("cpu.busy_clock", "cpu.cstates", "cpu.frequency", "cpu.isolation", "cpu.mitigations", "cpu.smt",
             "env.runtime", "gpu.clocks", "gpu.count", "gpu.driver", "gpu.ecc", "gpu.fabric", "gpu.memory_repair",
             "gpu.mig", "gpu.nvlink", "gpu.pcie", "gpu.persistence", "gpu.power", "gpu.processes", "gpu.thermal",
             "gpu.xid", "ib.ports", "mem.settings", "numa.placement", "pcie.links", "virt.iommu")

# Planted failing checks: code -> (check id, severity, entity pattern, message, evidence, fix).
PLANTED_CODES = {
    "YS-GPU-026": ("gpu.ecc", "fail", "gpu", "volatile uncorrected ECC errors: 2 (DRAM 2, SRAM 0) since the last reset",
                   {"volatile_uncorrected": "2"}, "drain the GPU; reset it (nvidia-smi -r -i N) and run dcgmi diag -r 3"),
    "YS-GPU-032": ("gpu.memory_repair", "warn", "gpu", "a row remap is pending: it takes effect at the next GPU reset",
                   {"remapped_rows_pending": "1"}, "reset the GPU (nvidia-smi -r -i N) when it is idle"),
    "YS-IB-004": ("ib.ports", "warn", "nic", "port error counters non-zero: symbol_error 1840, link_error_recovery 3",
                  {"symbol_error": "1840", "link_error_recovery": "3"},
                  "reseat or replace the cable/optic: mlxlink -d DEV -p 1 -c; clear the counters after the repair"),
    "YS-MEM-003": ("mem.settings", "warn", "node", "swap in use: 18.2 GiB of 32.0 GiB",
                   {"/proc/meminfo SwapTotal - SwapFree": "19084288 kB"}, "swapoff -a; find what filled the memory"),
    "YS-GPU-046": ("gpu.nvlink", "warn", "gpu", "NVLink replay errors: 412 on link 7",
                   {"link7.replay_errors": "412"}, "nvidia-smi nvlink -e -i N; reseat the GPU baseboard if it grows"),
}


def _check(cid, summary, evidence, findings=(), outcome="pass", ms=0.3):
    return {"id": cid, "outcome": outcome, "summary": summary, "duration_ms": ms, "evidence": evidence,
            "findings": list(findings)}


def _finding(code, severity, entity, message, evidence, fix):
    return {"code": code, "severity": severity, "entity": entity, "message": message, "evidence": evidence, "fix": fix}


def node_checks(hw, driver, planted, clock_faults):
    """planted: [(code, entity)] failing checks; clock_faults: [(gpu entity, size)] throttled GPUs."""
    g = ["gpu%d" % i for i in range(8)]
    max_mhz = {"h100": 1980, "h200": 1980, "a100": 1410}[hw]
    gpu_ev = lambda text: {e: text for e in g}
    clocks_ev = gpu_ev("345/%d MHz SM, reasons: GPU idle" % max_mhz)
    clock_findings = []
    for e, size in clock_faults:
        mhz = int(max_mhz * (1 - size))
        clocks_ev[e] = "%d/%d MHz SM, reasons: SW thermal slowdown" % (mhz, max_mhz)
        clock_findings.append(_finding(
            "YS-GPU-013", "warn", e, "clocks held down by SW thermal slowdown (%d/%d MHz SM), 84 C" % (mhz, max_mhz),
            {"nvmlDeviceGetCurrentClocksEventReasons": "0x20 (SW thermal slowdown)", "sm_clock_mhz": str(mhz),
             "max_sm_clock_mhz": str(max_mhz), "temperature_c": "84"},
            "check the GPU's cooling (fans, airflow, inlet temperature, liquid loop) and the BMC's thermal events "
            "(ipmitool sel list); nvidia-smi -q -d PERFORMANCE,TEMPERATURE -i " + e[3:]))
    checks = {
        "cpu.busy_clock": _check("cpu.busy_clock", "median busy-core clock 3800 MHz over 8 CPUs, 100% of the rated "
                                 "3800 MHz", {"median": "3800 MHz", "rated": "3800 MHz (cpuinfo_max_freq)"}, ms=140.2),
        "cpu.cstates": _check("cpu.cstates", "deepest C-state C6 enabled on 224 CPUs", {"deepest": "C6"}),
        "cpu.frequency": _check("cpu.frequency", "governor performance, turbo on, no cap on 224 CPUs",
                                {"governor": "performance", "no_turbo": "0"}),
        "cpu.isolation": _check("cpu.isolation", "no other process on the job's 224 CPUs", {"job_cpus": "0-223"}),
        "cpu.mitigations": _check("cpu.mitigations", "mitigations as the kernel defaults", {"mitigations": "auto"}),
        "cpu.smt": _check("cpu.smt", "SMT on (2 threads per core)", {"smt/control": "on"}),
        "env.runtime": _check("env.runtime", "NCCL and CUDA environment as expected",
                              {"NCCL_IB_HCA": "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"}),
        "gpu.clocks": _check("gpu.clocks", "no clock slowdown on 8 GPUs", clocks_ev, clock_findings,
                             "warn" if clock_findings else "pass", 1.2),
        "gpu.count": _check("gpu.count", "8 GPUs, as many as on the PCI bus", {"nvml": "8", "pci": "8"}),
        "gpu.driver": _check("gpu.driver", "driver %s, CUDA %s" % (driver, "12.4"),
                             {"nvml.driver_version": driver, "nvml.cuda_driver_version": "12.4",
                              "nvml.version": "12." + driver, "kernel_module": "/proc/driver/nvidia/version: " + driver}),
        "gpu.ecc": _check("gpu.ecc", "ECC on, no uncorrected errors on 8 GPUs", gpu_ev("ECC enabled, 0 uncorrected")),
        "gpu.fabric": _check("gpu.fabric", "fabric registration completed on 8 GPUs", gpu_ev("completed")),
        "gpu.memory_repair": _check("gpu.memory_repair", "no pending or failed row remap on 8 GPUs",
                                    gpu_ev("remapped rows: 0 correctable, 0 uncorrectable, pending no, failure no")),
        "gpu.mig": _check("gpu.mig", "MIG disabled on 8 GPUs", gpu_ev("MIG disabled")),
        "gpu.nvlink": _check("gpu.nvlink", "18 NVLink links active on 8 GPUs, no errors", gpu_ev("18 of 18 links active")),
        "gpu.pcie": _check("gpu.pcie", "PCIe Gen5 x16 on 8 GPUs", gpu_ev("Gen5 x16 (max Gen5 x16)")),
        "gpu.persistence": _check("gpu.persistence", "persistence mode on, 8 GPUs", gpu_ev("Enabled")),
        "gpu.power": _check("gpu.power", "power limit 700 W (default) on 8 GPUs", gpu_ev("700 W of 700 W default")),
        "gpu.processes": _check("gpu.processes", "no compute process on 8 GPUs", gpu_ev("none")),
        "gpu.thermal": _check("gpu.thermal", "8 GPUs below their slowdown temperature", gpu_ev("34 C (slowdown 87 C)")),
        "gpu.xid": _check("gpu.xid", "no XID in the kernel log", {"/dev/kmsg": "0 XID lines"}, ms=4.1),
        "ib.ports": _check("ib.ports", "8 ports ACTIVE and LinkUp at full width, no error counts",
                           {"mlx5_%d/1" % i: "4: ACTIVE, 5: LinkUp, 400 Gb/sec (4X NDR), InfiniBand" for i in range(8)}),
        "mem.settings": _check("mem.settings", "THP defrag always", {"transparent_hugepage/defrag": "[always]"},
                               [_finding("YS-MEM-001", "warn", "node", "THP defrag [always]: allocations stall on "
                                         "compaction", {"/sys/kernel/mm/transparent_hugepage/defrag": "[always]"},
                                         "echo madvise > /sys/kernel/mm/transparent_hugepage/defrag")], "warn"),
        "numa.placement": _check("numa.placement", "process CPUs and memory local to its GPUs and NICs",
                                 {"numa_nodes": "2"}),
        "pcie.links": _check("pcie.links", "16 GPU and NIC links at their maximum speed and width", {"links": "16"}),
        "virt.iommu": _check("virt.iommu", "IOMMU in passthrough for DMA", {"iommu": "pt"}),
    }
    for code, entity in planted:
        cid, sev, _, msg, ev, fix = PLANTED_CODES[code]
        c = checks[cid]
        c["findings"].append(_finding(code, sev, entity, msg, ev, fix.replace("-i N", "-i " + entity[3:])
                                      .replace("DEV", entity.split("/")[0])))
        if c["outcome"] != "fail":
            c["outcome"] = sev
        c["summary"] = c["findings"][0]["message"]
    return [checks[c] for c in CHECK_IDS]
