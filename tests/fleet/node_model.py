"""One node's yardstick run document, as the real units write it (schemas/run.schema.json).

The figures follow the units' code: names, units, `better`, params (including the ones computed
from the value: pct_of_peak, hbm_traffic_gb_per_s, STREAM's best, the CPU peak from the measured
clock, the proxy's time breakdown), samples and stats (value = median of the samples, except the
collectives, whose value is nccl-tests' figure from the rank-averaged time). Sources:
  gemm.gpu, mem.gpu, copy.h2d/d2h/d2d, host.launch_latency     src/bench/{gemm,mem,copy,host}/
  coll.*                                                       src/bench/coll/sweep.cc
  gemm.cpu, mem.stream, host.busy_clock, storage.checkpoint    src/bench/
  proxy.llama3.1_8b                                            src/workloads/proxy/proxy_unit.cc
  checks (26 ids)                                              src/checks/
`net.ib.*` has no unit in the tool yet: it is written the way a perftest-based unit in the house
style would write it (device = the RDMA device), see README.md.

Noise: each figure = base x hardware x (1 + per-device persistent offset) x (1 + Gaussian noise at
the figure's level, 0.3% to 3%) x faults; its samples scatter around it; one-off dips (heavy tail)
hit a figure's value (p_dip, depth 2% + an exponential tail of mean 2%, at most 15%) or one of its
samples (p_sample_dip, 5-25%) on any node.

Realistic variation (gen_fleet.py --variation): on top of that, each kind of figure has a
persistent offset per node and per device (GPU, NIC) drawn from N(0, sd), the sds per kind drawn
once per fleet (`sds`: kind -> (node sd, device sd)); a sub-population (`subpop`) is a few percent
slower on some kinds as a whole (another BIOS or DIMM population, healthy); a device with a planted
fault of size `exact` takes the median of its peers' offsets of that kind as its own: it is that much below
its peers' median.
"""
import math
from statistics import NormalDist

# Standard normal deviates by inverse CDF at 2^16 evenly spaced quantiles (tails cut at 4.3 sd):
# a table lookup per draw is several times faster than random.gauss, which matters at 5M draws.
_NORMAL = [NormalDist().inv_cdf((i + 0.5) / 65536) for i in range(65536)]


# The kind of figure by its name's prefix (the engine's FigureKind, src/fleet/key.h).
KIND_OF_NAME = (("gemm.gpu", "gemm"), ("mem.gpu", "memory"), ("copy.d2d", "nvlink"), ("copy.h2d", "pcie"),
                ("copy.d2h", "pcie"), ("net.", "network"), ("coll.", "collective"), ("gemm.cpu", "cpu_gemm"),
                ("mem.stream", "stream"), ("proxy.", "proxy"), ("storage.", "storage"), ("host.busy_clock", "clock"),
                ("host.launch_latency", "launch"))


def kind_of(name):
    for prefix, kind in KIND_OF_NAME:
        if name.startswith(prefix):
            return kind
    return "other"


class FastRandom:
    """random.Random with a table-driven gauss(); deterministic for a seed like its base."""

    def __init__(self, rng):
        self.rng = rng
        self.random, self.uniform, self.randrange = rng.random, rng.uniform, rng.randrange
        self.expovariate = rng.expovariate
        self._bits = rng.getrandbits

    def gauss(self, mu, sigma):
        return mu + sigma * _NORMAL[self._bits(16)]

    def noise(self, n, sd):
        """n factors 1 + N(0, sd)."""
        bits, table = self._bits, _NORMAL
        return [1 + sd * table[bits(16)] for _ in range(n)]

SPECS = "/opt/yardstick/share/specs/"
GEMM_DTYPES = ("bf16", "fp16", "tf32", "fp8")
GEMM_SHAPES = (("square", 8192, 8192, 8192, 1.0), ("mlp_up", 8192, 28672, 8192, 1.025),
               ("mlp_down", 8192, 8192, 28672, 0.985))
COLLECTIVES = (  # name, latency us (8 ranks, NVLink), large-size busbw GB/s, busbw factor(n)
    ("all_gather", 11.0, 365.0, lambda n: (n - 1) / n),
    ("all_reduce", 14.0, 470.0, lambda n: 2 * (n - 1) / n),
    ("alltoall", 22.0, 335.0, lambda n: (n - 1) / n),
    ("reduce_scatter", 11.0, 362.0, lambda n: (n - 1) / n),
    ("sendrecv", 8.0, 385.0, lambda n: 1.0),
)
COLL_SIZES = (1024, 16384, 262144, 4194304, 67108864)  # the quick sweep 1K:256M:x16
NICS = 8

# GPU models: cuDeviceGetName, specs file (None: the tool ships no spec), peaks, typical figures.
HARDWARE = {
    "h100": dict(gpu_name="NVIDIA H100 80GB HBM3", spec="h100", cc=90, max_mhz=1980,
                 peak={"bf16": 989, "fp16": 989, "tf32": 494.5, "fp8": 1979}, hbm=3350.0, nvlink=450, pcie=64,
                 gemm={"bf16": 735.0, "fp16": 742.0, "tf32": 392.0, "fp8": 1290.0},
                 mem={"ce": 1342.0, "sm": 1461.0}, d2d={"ce": 371.0, "sm": 389.0},
                 host={"ce": 55.3, "sm": 51.8}, coll=1.0, launch=(2.1, 4.3, 9.8)),
    "h200": dict(gpu_name="NVIDIA H200", spec="h200", cc=90, max_mhz=1980,
                 peak={"bf16": 989, "fp16": 989, "tf32": 494.5, "fp8": 1979}, hbm=4800.0, nvlink=450, pcie=64,
                 gemm={"bf16": 761.0, "fp16": 766.0, "tf32": 401.0, "fp8": 1352.0},
                 mem={"ce": 1922.0, "sm": 2088.0}, d2d={"ce": 372.0, "sm": 390.0},
                 host={"ce": 55.6, "sm": 52.0}, coll=1.01, launch=(2.1, 4.2, 9.7)),
    "a100": dict(gpu_name="NVIDIA A100-SXM4-80GB", spec=None, cc=80, max_mhz=1410, peak=None, hbm=None, nvlink=None, pcie=None,
                 gemm={"bf16": 276.0, "fp16": 281.0, "tf32": 142.0},
                 mem={"ce": 812.0, "sm": 871.0}, d2d={"ce": 242.0, "sm": 254.0},
                 host={"ce": 24.6, "sm": 22.9}, coll=0.55, launch=(2.4, 4.9, 11.2)),
}
DRIVER, CUDA, NCCL, CUBLASLT = "550.127.05", "12.4", "NCCL 2.21.5", "120405"


def stats(samples):
    n = len(samples)
    if n == 1:
        x = samples[0]
        return {"n": 1, "min": x, "median": x, "max": x, "mean": x, "stdev": 0.0}
    s = sorted(samples)
    mean = sum(s) / n
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    sd = math.sqrt(max(0.0, sum([(x - mean) * (x - mean) for x in s]) / (n - 1)))
    return {"n": n, "min": s[0], "median": med, "max": s[-1], "mean": mean, "stdev": sd}


class Node:
    """Builds one node's figures. `faults` maps a fault kind to its planted record (gen_fleet.py)."""

    def __init__(self, rng, hostname, hw, faults, p_dip, p_sample_dip, sds=None, subpop=None):
        rng = FastRandom(rng)
        self.sds, self.subpop, self._offsets = sds or {}, subpop or {}, {}
        self._bits = rng._bits
        self.rng, self.host, self.hw, self.hwname = rng, hostname, HARDWARE[hw], hw
        self.faults, self.p_dip, self.p_sample_dip = faults, p_dip, p_sample_dip
        self.nccl = NCCL
        g = rng.gauss
        node_gpu = g(0, 0.004)                            # the node's cooling and power delivery
        self.gpu_off = [node_gpu + g(0, 0.007) for _ in range(8)]  # and each GPU's silicon
        self.mem_off = [g(0, 0.004) for _ in range(8)]
        self.link_off = [g(0, 0.003) for _ in range(8)]
        self.nic_off = [g(0, 0.003) for _ in range(NICS)]
        self.node_off = g(0, 0.005)                      # CPU, DIMMs, storage mount: per node
        self._exact_gemm()

    def _exact_gemm(self):
        """A GPU planted `exact`ly (gen_fleet.py --gemm-gpu-exact) gets the median of the other GPUs'
        persistent GEMM offsets (silicon and per-kind variation) as its own: its planted size is then
        its deficit against its peers' median, not that plus its own draw."""
        exact = [f["entity"] for f in self.faults.get("gemm", ()) if f.get("exact")]
        if not exact:
            return
        dev_sd = self.sds.get("gemm", (0.0, 0.0))[1]
        k = int(exact[0][3:])
        others = sorted(self.gpu_off[j] + self.offset("gemm", "gpu%d" % j, dev_sd) for j in range(8) if j != k)
        self.gpu_off[k] = others[len(others) // 2]

    # factor < 1: that much of the performance left, for the figure of `kind` on `entity`.
    def fault(self, kind, entity=None, peer=None):
        f = 1.0
        for fk in self.faults.get(kind, ()):
            e = fk["entity"]
            if e == "node" or e == entity or (peer is not None and e == peer):
                f *= 1 - fk["size"]
        return f

    def dip(self):
        """A one-off dip's depth: 2% plus an exponential tail of mean 2%, at most 15% (13% of the
        dips are deeper than 6%, 2% deeper than 10%)."""
        return min(0.15, 0.02 + self.rng.expovariate(50.0))

    def jitter(self, entity):
        return any(fk["entity"] == entity for fk in self.faults.get("spread", ()))

    def offset(self, kind, entity, sd):
        """The persistent offset of one kind of figure on the node or one device (0 on a device
        planted `exact`ly below its peers)."""
        o = self._offsets.get((kind, entity))
        if o is None:
            exact = any(f.get("exact") and f["entity"] == entity for f in self.faults.get(kind, ()))
            o = self._offsets[(kind, entity)] = 0.0 if exact or sd <= 0 else self.rng.gauss(0, sd)
        return o

    def variation(self, name, params):
        """The factor of the node's and the device's persistent offsets and the sub-population."""
        kind = kind_of(name)
        node_sd, dev_sd = self.sds.get(kind, (0.0, 0.0))
        off = self.offset(kind, "node", node_sd)
        for who in (params.get("device", ""), params.get("peer", "")):
            if who.startswith("gpu") and who != "gpu" or who.startswith("mlx5"):
                off += self.offset(kind, who.split("/")[0], dev_sd)
        return (1 + off) * (1 - self.subpop.get(kind, 0.0))

    def figure(self, name, unit, better, params, base, sd, n, spread, factor=1.0, jittery=False):
        """A measurement: value = median of n samples around base x (1 + noise) x factor."""
        if self.sds or self.subpop:
            factor *= self.variation(name, params)
        rng, table, bits = self.rng, _NORMAL, self._bits
        v = base * (1 + sd * table[bits(16)])
        if rng.random() < self.p_dip:
            v *= 1 - self.dip()                              # a one-off dip of the whole figure
        v = v * factor if better == "higher" else v / factor
        vs = v * spread * (8 if jittery else 1)
        samples = [v + vs * table[bits(16)] for _ in range(n)]
        if n > 1 and rng.random() < self.p_sample_dip:
            i = rng.randrange(n)                             # one sample hit by a transient
            d = rng.uniform(0.05, 0.25)
            samples[i] *= (1 - d) if better == "higher" else 1 / (1 - d)
        st = stats(samples)
        return {"name": name, "value": st["median"], "unit": unit, "better": better, "params": params,
                "stats": st, "samples": samples}

    @staticmethod
    def add_peak(params, value, peak, source, why):
        if peak:
            params["peak"] = "%g" % peak
            params["peak_source"] = source
            params["pct_of_peak"] = "%.1f" % (100.0 * value / peak)
        else:
            params["peak"] = "unknown"
            params["peak_note"] = why

    def no_spec(self):
        return 'no device spec for "%s" (known: "NVIDIA B200", "NVIDIA B300", "NVIDIA GB200", ' \
               '"NVIDIA GB300", "NVIDIA H100 80GB HBM3", "NVIDIA H200")' % self.hw["gpu_name"]

    # ---- GPU units -------------------------------------------------------------------------
    def gemm_gpu(self, gpu):
        hw, e = self.hw, "gpu%d" % gpu
        f = self.fault("gemm", e) * self.fault("clock", e)
        out = []
        for dtype in GEMM_DTYPES:
            if dtype not in hw["gemm"]:
                continue
            for shape, m, n, k, sf in GEMM_SHAPES:
                p = {"backend": "cuda", "device": e, "gpu_name": hw["gpu_name"], "dtype": dtype, "shape": shape,
                     "m": str(m), "n": str(n), "k": str(k), "layout": "TN", "workspace": "33554432",
                     "heuristic_waves": "%.2f" % (m * n / (256 * 128) / 132), "iters_per_sample": "20"}
                x = self.figure("gemm.gpu.tflops", "TFLOPS", "higher", p,
                                hw["gemm"][dtype] * sf * (1 + self.gpu_off[gpu]), 0.004, 5, 0.003, f, self.jitter(e))
                peak = hw["peak"] and hw["peak"][dtype]
                self.add_peak(p, x["value"], peak, SPECS + "%s.toml [peak_dense_tflops] %s" % (hw["spec"], dtype),
                              self.no_spec())
                out.append(x)
        return out

    def gemm_gpu_evidence(self, gpus):
        ev = {"cublaslt": "libcublasLt.so.12 version " + CUBLASLT}
        for g in gpus:
            for dtype in GEMM_DTYPES:
                if dtype not in self.hw["gemm"]:
                    ev["gpu%d.%s" % (g, dtype)] = "not run: needs compute capability 8.9, the GPU has 8.0"
                    continue
                ev["gpu%d.%s.reference" % (g, dtype)] = "64 of 64 sampled elements within the bound (worst 0.%03d of it)" % (
                    100 + (g * 37 + len(dtype) * 11) % 600)
                ev["gpu%d.%s.repeats" % (g, dtype)] = "3 reruns, 0 elements differ"
                if g != gpus[0]:
                    ev["gpu%d.%s.vs_gpu%d" % (g, dtype, gpus[0])] = "0 elements differ"
        return ev

    def mem_gpu(self, gpu):
        hw, e = self.hw, "gpu%d" % gpu
        out = []
        for method in ("ce", "sm"):
            p = {"backend": "cuda", "device": e, "gpu_name": hw["gpu_name"], "size": "536870912", "method": method,
                 "copies_per_sample": "16",
                 "convention": "bytes copied / time (nvbandwidth device_local_copy); HBM traffic is twice this"}
            x = self.figure("mem.gpu.copy_" + method, "GB/s", "higher", p, hw["mem"][method] * (1 + self.mem_off[gpu]),
                            0.003, 3, 0.002, self.fault("memory", e), self.jitter(e))
            self.add_peak(p, x["value"], hw["hbm"] and hw["hbm"] / 2,
                          SPECS + "%s.toml [memory] hbm_tb_per_s = %g / 2 (a copy reads and writes)" % (
                              hw["spec"], (hw["hbm"] or 0) / 1000), self.no_spec())
            p["hbm_traffic_gb_per_s"] = "%.1f" % (2 * x["value"])
            out.append(x)
        return out

    def host_copy(self, direction, gpus):
        hw, out = self.hw, []
        for gpu in gpus:
            e, gnode = "gpu%d" % gpu, gpu // 4
            f = self.fault("pcie", e)
            for numa in (gnode,):  # the quick profile: the GPU's own NUMA node (the full one: all)
                local = "yes" if numa == gnode else "no"
                for method in ("ce", "sm"):
                    p = {"backend": "cuda", "device": e, "gpu_name": hw["gpu_name"], "size": "536870912",
                         "method": method, "host_numa_node": str(numa), "gpu_numa_node": str(gnode), "local": local,
                         "copies_per_sample": "16"}
                    base = hw["host"][method] * (1.0 if local == "yes" else 0.78) * (1 + self.link_off[gpu])
                    if direction == "d2h":
                        base *= 1.012
                    x = self.figure("copy.%s.%s" % (direction, method), "GB/s", "higher", p, base, 0.006, 3, 0.004,
                                    f, self.jitter(e))
                    self.add_peak(p, x["value"], hw["pcie"], SPECS + "%s.toml [pcie] per_direction_gb_per_s" % hw["spec"],
                                  self.no_spec())
                    out.append(x)
        return out

    def d2d(self, gpus):
        hw, out = self.hw, []
        for a in gpus:
            for b in gpus:
                if a == b:
                    continue
                ea, eb = "gpu%d" % a, "gpu%d" % b
                f = self.fault("nvlink", ea, eb)
                for method in ("ce", "sm"):
                    p = {"backend": "cuda", "device": ea, "peer": eb, "gpu_name": hw["gpu_name"], "size": "536870912",
                         "method": method, "copies_per_sample": "16"}
                    base = hw["d2d"][method] * (1 + 0.5 * (self.link_off[a] + self.link_off[b]))
                    x = self.figure("copy.d2d." + method, "GB/s", "higher", p, base, 0.004, 3, 0.003, f,
                                    self.jitter(ea))
                    self.add_peak(p, x["value"], hw["nvlink"], SPECS + "%s.toml [nvlink] per_direction_gb_per_s" % hw["spec"],
                                  self.no_spec())
                    if hw["nvlink"]:
                        p["peak_assumes"] = "the pair is joined by NVLink (NVSwitch or direct links)"
                    out.append(x)
        return out

    def launch_latency(self, gpus):
        out = []
        for gpu in gpus:
            e = "gpu%d" % gpu
            p = {"backend": "cuda", "device": e, "gpu_name": self.hw["gpu_name"], "launches_per_sample": "100",
                 "kernel": "ys_empty <<<1, 32>>>"}
            for what, base in zip(("launch", "gpu", "sync"), self.hw["launch"]):
                out.append(self.figure("host.launch_latency." + what, "us", "lower", p, base, 0.02, 5, 0.03))
        return out

    # ---- collectives (NCCL over the node's GPUs; one rank in a one-process document) ------------
    def collective(self, name, lat, bw, factor, nranks):
        hw = self.hw
        out, busbws = [], []
        f_coll = 1.0
        nv = self.faults.get("nvlink")
        if nv and nranks > 1:
            f_coll *= 1 - 0.8 * nv[0]["size"]  # the ring runs at its slowest link's rate
        for size in COLL_SIZES:
            count = size // 4 // (nranks if name in ("all_gather", "reduce_scatter", "alltoall") else 1)
            for inplace in ("0", "1"):
                if nranks == 1:
                    t = 4.5 + size / 1.3e9 * 1e6 / 1000  # a device-local copy
                else:
                    t = lat + size / (bw * hw["coll"] / factor(nranks) * 1e3) * (1.004 if inplace == "1" else 1.0)
                sd = 0.025 if size < 1 << 20 else 0.008
                t = t * (1 + self.rng.gauss(0, sd)) / (f_coll if size >= 1 << 22 else 1.0)
                if self.sds or self.subpop:
                    t /= self.variation("coll." + name, {})
                if self.rng.random() < self.p_dip:
                    t /= 1 - self.dip()
                ranks_t = [t * x for x in self.rng.noise(nranks, sd / 3)]
                tm = sum(ranks_t) / nranks
                alg = [size / 1e9 / (x * 1e-6) for x in ranks_t]
                bfac = factor(nranks)
                p = {"size": str(size), "count": str(count), "dtype": "float", "inplace": inplace, "backend": "nccl",
                     "library": self.nccl, "device": "gpu", "ranks": str(nranks),
                     "value": "time averaged over ranks (nccl-tests); samples per rank"}
                algv = size / 1e9 / (tm * 1e-6)
                for suffix, unit, better, samples, value in (
                        (".busbw", "GB/s", "higher", [a * bfac for a in alg], algv * bfac),
                        (".algbw", "GB/s", "higher", alg, algv),
                        (".time_us", "us", "lower", ranks_t, tm)):
                    out.append({"name": "coll." + name + suffix, "value": value, "unit": unit, "better": better,
                                "params": p, "stats": stats(samples), "samples": samples})
                busbws.append(algv * bfac)
        avg = sum(busbws) / len(busbws)
        out.append({"name": "coll.%s.avg_busbw" % name, "value": avg, "unit": "GB/s", "better": "higher",
                    "params": {"dtype": "float", "backend": "nccl", "library": self.nccl, "device": "gpu",
                               "ranks": str(nranks), "sizes": "1K..256M",
                               "value": "mean busbw over all sizes, out of place and in place (nccl-tests)"},
                    "stats": stats(busbws), "samples": busbws})
        return out

    # ---- network: one figure pair per RDMA device --------------------------------------------
    def network(self):
        out = []
        for nic in range(NICS):
            e = "mlx5_%d" % nic
            f = self.fault("network", e)
            p = {"backend": "perftest", "device": e, "port": "1", "size": "1048576", "qps": "4",
                 "peer": "loopback through the leaf switch"}
            out.append(self.figure("net.ib.write_bw", "Gb/s", "higher", p, 392.0 * (1 + self.nic_off[nic]), 0.003, 5,
                                   0.002, f))
            p = {"backend": "perftest", "device": e, "port": "1", "size": "8", "peer": "loopback through the leaf switch"}
            out.append(self.figure("net.ib.write_lat", "us", "lower", p, 1.92 * (1 - self.nic_off[nic]), 0.015, 5,
                                   0.01, f))
        return out

    # ---- CPU units ---------------------------------------------------------------------------
    def busy_clock(self):
        out, per_core = [], []
        for cpu in range(8):
            v = self.figure("host.busy_clock.cpu", "MHz", "higher", {"device": "cpu%d" % cpu, "windows_ms": "20"},
                            3800.0 * (1 + self.node_off * 0.2), 0.002, 1, 0.0)
            per_core.append(v["value"])
            out.append(v)
        st = stats(per_core)
        out.insert(0, {"name": "host.busy_clock", "value": st["median"], "unit": "MHz", "better": "higher",
                       "params": {"device": "cpu", "cores": "8"}, "stats": st, "samples": per_core})
        return out

    def gemm_cpu(self, mhz):
        out, f = [], self.fault("cpu_gemm")
        shapes = [("square", n, n, n) for n in (1024, 2048, 4096)] + [
            ("qkv", 2048, 6144, 2048), ("mlp_up", 2048, 8192, 2048), ("mlp_down", 2048, 2048, 8192)]
        for fp64 in (False, True):
            peak = 56 * 2 * mhz / 1000 * (32 if fp64 else 64)  # 2 sockets x 56 cores, avx512f
            formula = "112 cores x %.3f GHz x %d flops/cycle (avx512f %s) = %.1f GFLOPS" % (
                mhz / 1000, 32 if fp64 else 64, "fp64" if fp64 else "fp32", peak)
            for shape, m, n, k in shapes:
                p = {"backend": "cpu", "device": "cpu", "dtype": "fp64" if fp64 else "fp32", "shape": shape,
                     "m": str(m), "n": str(n), "k": str(k), "flops": "%.0f" % (2 * m * n * k),
                     "flops_formula": "2 m n k", "threads": "224", "blas": "OpenBLAS SapphireRapids",
                     "layout": "row-major, no transpose"}
                if shape != "square":
                    p["model"] = "transformer layer, tokens 2048, hidden 2048 (scaled down)"
                eff = {1024: 0.42, 2048: 0.61, 4096: 0.70}.get(m if shape == "square" else 0, 0.58)
                x = self.figure("gemm.cpu." + ("dgemm" if fp64 else "sgemm"), "GFLOPS", "higher", p,
                                peak * eff * (1 + self.node_off), 0.012, 5, 0.01, f)
                p.update({"peak": "%.1f" % peak, "peak_source": "computed: cores x GHz x flops/cycle",
                          "peak_formula": formula, "pct_of_peak": "%.1f" % (100 * x["value"] / peak)})
                out.append(x)
        return out

    def stream(self):
        out, f = [], self.fault("stream")
        for numa, cpus, threads, base in (("0", "0-55,112-167", 112, 246.0), ("1", "56-111,168-223", 112, 247.0),
                                          ("all", "0-223", 224, 489.0)):
            params = {"backend": "cpu", "device": "cpu", "numa_node": numa, "threads": str(threads), "cpus": cpus,
                      "array_bytes": "1409286144", "elements": "176160768", "warmup": "1",
                      "array_rule": "4 x last-level cache", "llc_bytes": "352321536"}
            for kernel, kf, bpe in (("copy", 0.93, 16), ("scale", 0.925, 16), ("add", 1.0, 24), ("triad", 1.0, 24)):
                p = dict(params, bytes_per_pass=str(176160768 * bpe))
                x = self.figure("mem.stream." + kernel, "GB/s", "higher", p, base * kf * (1 + self.node_off), 0.008, 5,
                                0.01, f)
                p["best"] = "%.2f" % x["stats"]["max"]
                out.append(x)
        return out

    def storage(self):
        f = self.fault("storage")
        p = {"backend": "cpu", "device": "storage", "path": "/lustre/ckpt/yardstick", "file_bytes": "1073741824",
             "files": "4", "block_bytes": "16777216", "direct": "false",
             "cache": "posix_fadvise(DONTNEED) after fsync; pages the kernel keeps may be read from memory"}
        return [self.figure("storage.checkpoint.write", "GB/s", "higher",
                            dict(p, timing="open, write, fsync, close of every file"), 9.6 * (1 + self.node_off),
                            0.03, 3, 0.02, f),
                self.figure("storage.checkpoint.read", "GB/s", "higher",
                            dict(p, timing="open, read, close of every file (verification excluded)"),
                            14.2 * (1 + self.node_off), 0.025, 3, 0.02, f)]

    def proxy(self, ranks, mhz):
        f = self.fault("proxy")
        common = {"backend": "cpu", "device": "cpu", "dtype": "fp32", "scale": "1/16", "layers": "2",
                  "micro_batches": "1", "ranks": str(ranks), "recipe": "h100/bf16/128"}
        base = 0.0412 * (1 + self.node_off) * (ranks / 8 if ranks > 1 else 0.85)
        if self.sds or self.subpop:
            base /= self.variation("proxy.", {})
        steps = [base / f * x for x in self.rng.noise(8, 0.01)]
        if self.rng.random() < self.p_dip:
            steps[self.rng.randrange(8)] *= 1.4                  # one slow step (a stall)
        out = [{"name": "proxy.llama3.1_8b.step_time", "value": stats(steps)["median"], "unit": "s", "better": "lower",
                "params": dict(common), "stats": stats(steps), "samples": steps}]
        for rk in range(ranks):
            rs = [s * (1 - abs(self.rng.gauss(0, 0.004))) for s in steps]
            st = stats(rs)
            out.append({"name": "proxy.llama3.1_8b.rank_step_time", "value": st["median"], "unit": "s",
                        "better": "lower", "params": dict(common, rank=str(rk)), "stats": st, "samples": rs})
        pred = base * 0.93 * (1 + self.rng.gauss(0, 0.01))
        comp = pred * (0.81 if ranks > 1 else 1.0)
        out.append({"name": "proxy.llama3.1_8b.predicted_step_time", "value": pred, "unit": "s", "better": "lower",
                    "params": dict(common, overlapped_bound_s="%.6g" % comp, compute_s="%.6g" % comp,
                                   comm_s="%.6g" % (pred - comp if ranks > 1 else 0),
                                   assumption="no overlap: the proxy runs its ops one after another, so predicted "
                                              "= sum of GEMM times + sum of collective times, each op timed alone at "
                                              "its own shape or message size; max(compute, comm) is the "
                                              "fully-overlapped bound"),
                    "stats": stats([pred]), "samples": [pred]})
        tok = [256 / s for s in steps]
        out.append({"name": "proxy.llama3.1_8b.tokens_per_s_per_gpu", "value": stats(tok)["median"], "unit": "tokens/s",
                    "better": "higher", "params": dict(common, tokens_per_step="256",
                                                       note="per rank (one rank stands for one GPU)"),
                    "stats": stats(tok), "samples": tok})
        tf = [3.52322e9 / s / 1e12 for s in steps]
        peak = 224 * mhz / 1000 * 64 / 1000 / (ranks if ranks > 1 else 1)
        mt = stats(tf)
        out.append({"name": "proxy.llama3.1_8b.model_tflops_per_gpu", "value": mt["median"], "unit": "TFLOPS",
                    "better": "higher", "params": dict(
                        common, flops_per_step="3.52322e+09",
                        flops_formula="the plan's GEMMs: 2 m n k x batch, fwd + dgrad + wgrad (excl. head, scan)",
                        peak="%.6g" % peak, peak_source="computed: cores x GHz x flops/cycle (bench/cpu_peak.h)",
                        pct_of_peak="%.1f" % (100 * mt["median"] / peak)), "stats": mt, "samples": tf})
        share = abs(self.rng.gauss(0.002, 0.001)) + (0.15 if f < 1 else 0.0)
        out.append({"name": "proxy.llama3.1_8b.foreign_cpu_share", "value": share, "unit": "fraction",
                    "better": "lower", "params": dict(
                        common, job_cpus="0-223", method="sum over processes outside the job of delta(utime+stime) / "
                        "CLK_TCK (100) x |allowed cpus in 0-223| / |allowed cpus|, / (224 cpus x %.3f s)" % (
                            sum(steps) * 1.05)),
                    "stats": stats([share]), "samples": [share]})
        return out
