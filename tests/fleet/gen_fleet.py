#!/usr/bin/env python3
"""Writes a test fleet: one yardstick run document per node, as the tool writes them, with
realistic noise and planted faults, and the ground truth the fleet analysis is judged by.

    gen_fleet.py --nodes 1000 --out DIR [--seed 1] [--fault-rate 0.01] [--rank-docs 0.3]
                 [--gpu h100|h200|a100] [--mixed] [--duplicates] [--corrupt K] [--bimodal FRACTION]
                 [--p-dip P] [--p-sample-dip P] [--jobs 2]
                 [--variation LO:HI] [--gpu-gemm-spread SD] [--subpopulation F] [--gemm-gpu-exact K:SIZE]

DIR/nodes/*.run.json   run documents (schemas/run.schema.json): an 8x H100 SXM node each, about
                       490 figures; a --rank-docs fraction are 8-rank one-node documents (nodes[]
                       with per-node benchmarks, the collectives and the proxy job-level), the
                       rest one-process documents
DIR/truth.json         {"faults": [{"node", "entity", "kind", "size", "detail", "accept_entities"}...],
                        "node_names": [...], "faulty_nodes": [...], ...}: every planted fault; "entity"
                       is the bare label ("node", "gpu3", "mlx5_0"), "accept_entities" other labels of
                       the same place ("cpu", "storage"), "kind" the scorer's kind (score_fleet.py)

Faults, on distinct nodes, about --fault-rate of the nodes over 17 kinds (at least one of each,
three of "check"), sizes spread evenly over each kind's range so that the mildest is planted:
  gemm     node: every GPU's GEMM 6-10% slow            gemm    gpuN: one GPU's GEMM 8-20% slow
  memory   gpuN: HBM copy 12-20% low                    nvlink  gpuN: all its pairs, both ways
  pcie     gpuN: h2d and d2h 30-50% low                 network mlx5_N: one NIC 10-30% slow
  network  node: every NIC 8-15% slow                   clock   gpuN: HW thermal slowdown (YS-GPU-011,
  cpu_gemm, stream, proxy, storage  node: 12-50% slow           -020), its clock and GEMM 10-20% low
  check    a failing/warning code (gpuN, mlx5_N or node)
  missing_units, incomplete, version (driver or NCCL skew): node; spread gpuN: samples 8x the spread
Fleet options: --mixed (a few documents of the other two GPU models: kind hardware),
--duplicates (a host name twice and one file twice: kind duplicate), --corrupt K (K truncated documents: kind corrupt),
--bimodal F (a fraction F of the healthy nodes 12% slow in GEMM: kind gemm, group "bimodal").
Realistic variation (the healthy differences between real nodes; node_model.py):
--variation LO:HI   each kind of figure gets a per-node and a per-device persistent offset, N(0, sd),
                    each sd drawn once per fleet from [LO, HI] (e.g. 0.005:0.02)
--gpu-gemm-spread SD  the per-GPU GEMM sd instead (e.g. 0.01)
--subpopulation F   a fraction F of the nodes (healthy) 3% slower in STREAM and CPU GEMM and 1.5% in
                    HBM copies (another DIMM or BIOS population): bimodal kinds that are no fault
--gemm-gpu-exact K:SIZE  K more nodes with one GPU's GEMM SIZE below its peers' median (its own
                    persistent offsets replaced by the median of the node's other GPUs'), kind gemm:
                    the sensitivity test (e.g. 20:0.05)
Deterministic for a seed (each node has its own random stream), whatever --jobs.
"""
import argparse
import json
import multiprocessing
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from node_checks import PLANTED_CODES, node_checks  # noqa: E402
from node_model import COLLECTIVES, CUDA, DRIVER, HARDWARE, NCCL, NICS, Node  # noqa: E402

# kind label, truth kind, entity ("node", "gpu", "nic", "code"), size range (fraction of performance lost)
FAULT_KINDS = [
    ("gemm_node", "gemm", "node", (0.06, 0.10)), ("gemm_gpu", "gemm", "gpu", (0.08, 0.20)),
    ("memory", "memory", "gpu", (0.12, 0.20)), ("nvlink", "nvlink", "gpu", (0.15, 0.40)),
    ("pcie", "pcie", "gpu", (0.30, 0.50)), ("network_nic", "network", "nic", (0.10, 0.30)),
    ("network_node", "network", "node", (0.08, 0.15)), ("clock", "clock", "gpu", (0.10, 0.20)),
    ("cpu_gemm", "cpu_gemm", "node", (0.12, 0.25)), ("stream", "stream", "node", (0.15, 0.30)),
    ("proxy", "proxy", "node", (0.12, 0.25)), ("storage", "storage", "node", (0.25, 0.50)),
    ("check", "check", "code", (0, 0)), ("missing_units", "missing_units", "node", (0, 0)),
    ("incomplete", "incomplete", "node", (0, 0)), ("version", "version", "node", (0, 0)),
    ("spread", "spread", "gpu", (0, 0)),
]
# Node-wide kinds whose figures name the node's only such device (device = "cpu", "storage"): a
# row on that device is on the right entity.
SOLE_DEVICE = {"cpu_gemm": "cpu", "stream": "cpu", "proxy": "cpu", "storage": "storage"}
MISSABLE_UNITS = ("copy.d2d", "mem.stream", "host.launch_latency", "storage.checkpoint", "gemm.cpu")
SKEWED_DRIVER, SKEWED_NCCL = "535.183.01", "NCCL 2.19.3"
# A healthy sub-population (--subpopulation): kind -> how much slower.
SUBPOPULATION = {"stream": 0.03, "cpu_gemm": 0.03, "memory": 0.015}
VARIED_KINDS = ("gemm", "memory", "nvlink", "pcie", "network", "collective", "clock", "cpu_gemm", "stream",
                "proxy", "storage", "launch")


def fleet_sds(rng, a):
    """kind -> (node sd, device sd) of the persistent offsets (--variation), drawn once per fleet."""
    if not a.variation:
        return {}
    lo, hi = a.variation
    sds = {k: (rng.uniform(lo, hi), rng.uniform(lo, hi)) for k in VARIED_KINDS}
    if a.gpu_gemm_spread is not None:      # node_model.py gives each GPU's silicon 0.7% of its own
        sds["gemm"] = (sds["gemm"][0], max(0.0, a.gpu_gemm_spread ** 2 - 0.007 ** 2) ** 0.5)
    return sds


def pair(text, conv):
    lo, _, hi = text.partition(":")
    return conv[0](lo), conv[1](hi)


def plant(rng, names, a):
    """The truth: (faults list, per-node {kind: [fault]}, per-node hardware)."""
    n = len(names)
    per_kind = max(1, round(a.fault_rate * n / len(FAULT_KINDS))) if a.fault_rate > 0 else 0
    counts = {label: (max(3, per_kind) if label == "check" and per_kind else per_kind) for label, *_ in FAULT_KINDS}
    pool = list(names)
    rng.shuffle(pool)
    faults = []

    def take():
        if not pool:
            sys.exit("gen_fleet.py: --nodes %d is too few for the faults asked for (distinct nodes); "
                     "give more nodes or a lower --fault-rate" % n)
        return pool.pop()

    for label, kind, etype, (lo, hi) in FAULT_KINDS:
        k = counts[label]
        sizes = [lo + (hi - lo) * i / max(1, k - 1) for i in range(k)]
        rng.shuffle(sizes)
        codes = sorted(PLANTED_CODES)
        for i in range(k):
            node = take()
            f = {"node": node, "kind": kind, "size": round(sizes[i], 4), "label": label}
            if etype == "gpu":
                f["entity"] = "gpu%d" % rng.randrange(8)
            elif etype == "nic":
                f["entity"] = "mlx5_%d" % rng.randrange(NICS)
            elif etype == "code":
                code = codes[i % len(codes)]
                where = PLANTED_CODES[code][1]
                f["entity"] = {"gpu": "gpu%d" % rng.randrange(8), "nic": "mlx5_%d" % rng.randrange(NICS),
                               "node": "node"}[where]
                f["detail"] = code
            else:
                f["entity"] = "node"
            if kind in SOLE_DEVICE:                # the node's one CPU complex or checkpoint store
                f["accept_entities"] = [SOLE_DEVICE[kind]]
            if label == "missing_units":
                f["detail"] = sorted(rng.sample(MISSABLE_UNITS, rng.randint(1, 2)))
            if label == "version":                  # driver and NCCL skew in turn
                f["detail"] = ("driver %s (fleet %s)" % (SKEWED_DRIVER, DRIVER) if i % 2 == 0 else
                               "%s (fleet %s)" % (SKEWED_NCCL, NCCL))
            faults.append(f)
    hardware = {}
    if a.mixed:
        for i in range(max(2, n // 300)):
            node = take()
            hw = [h for h in ("a100", "h200", "h100") if h != a.gpu][i % 2]
            hardware[node] = hw
            faults.append({"node": node, "kind": "hardware", "entity": "node", "size": 0, "detail": hw})
    if a.gemm_gpu_exact:
        k, size = a.gemm_gpu_exact
        for _ in range(k):
            node = take()
            faults.append({"node": node, "kind": "gemm", "entity": "gpu%d" % rng.randrange(8), "size": size,
                           "label": "gemm_gpu_exact", "exact": True})
    if a.bimodal:
        for node in sorted(pool[:int(a.bimodal * n)]):
            faults.append({"node": node, "kind": "gemm", "entity": "node", "size": 0.12, "group": "bimodal",
                           "label": "gemm_node"})
        pool = pool[int(a.bimodal * n):]
    extra = {}
    if a.duplicates:
        twice, copied = take(), take()
        extra["rerun"], extra["copy"] = twice, copied
        faults.append({"node": twice, "kind": "duplicate", "entity": "node", "size": 0,
                       "detail": "host name in two documents (a second run)"})
        faults.append({"node": copied, "kind": "duplicate", "entity": "node", "size": 0,
                       "detail": "the same document given twice (a byte-identical copy)"})
    if a.corrupt:
        extra["corrupt"] = [take() for _ in range(a.corrupt)]
        for node in extra["corrupt"]:
            faults.append({"node": node, "kind": "corrupt", "entity": "node", "size": 0,
                           "detail": "truncated document", "file": "nodes/%s.run.json" % node})
    by_node = {}
    for f in faults:
        if f["kind"] in ("hardware", "duplicate", "corrupt"):
            continue
        key = f.get("label", f["kind"])
        key = {"gemm_node": "gemm", "gemm_gpu": "gemm", "gemm_gpu_exact": "gemm", "network_nic": "network", "network_node": "network"}.get(
            key, key)
        by_node.setdefault(f["node"], {}).setdefault(key, []).append(f)
    return faults, by_node, hardware, extra


def benchmark(uid, measurements, evidence=None, findings=(), summary=None):
    rows = [[m["params"].get("device", ""), m["name"].rsplit(".", 1)[-1], m["params"].get("size", ""),
             "%.4g" % m["value"]] for m in measurements[:8]]  # the tool's tables are longer: not read here
    return {"id": uid, "outcome": "pass", "summary": summary or "%d figures" % len(measurements),
            "duration_ms": 1000.0 + 37.0 * len(measurements), "evidence": evidence or {}, "findings": list(findings),
            "measurements": measurements,
            "tables": [{"title": uid, "columns": ["device", "figure", "size", "value"], "rows": rows, "footer": []}]}


def node_document(idx, name, faults, hw, seed, rank_doc, rerun, a):
    rng = random.Random(seed * 1000003 + idx * 7 + (1 if rerun else 0))
    subpop = SUBPOPULATION if (idx * 2654435761 % 1000) < a.subpopulation * 1000 else None
    nd = Node(rng, name, hw, faults, a.p_dip, a.p_sample_dip, a.sds, subpop)
    if any(f["detail"].startswith("NCCL") for f in faults.get("version", ())):
        nd.nccl = SKEWED_NCCL
    gpus = list(range(8))
    ranks = 8 if rank_doc else 1
    mhz = nd.busy_clock()
    node_units = []                         # (id, measurements, evidence)
    if rank_doc:                            # reach rank: one benchmark per rank, its own GPU
        for g in gpus:
            node_units.append(("gemm.gpu", nd.gemm_gpu(g), nd.gemm_gpu_evidence([g])))
    else:
        node_units.append(("gemm.gpu", [m for g in gpus for m in nd.gemm_gpu(g)], nd.gemm_gpu_evidence(gpus)))
    node_units += [("copy.d2d", nd.d2d(gpus), {}), ("copy.d2h", nd.host_copy("d2h", gpus), {}),
                   ("copy.h2d", nd.host_copy("h2d", gpus), {})]
    node_units.append(("gemm.cpu", nd.gemm_cpu(mhz[0]["value"]), {"blas_core": "SapphireRapids", "blas_threads": "224"}))
    node_units += [("host.busy_clock", mhz, {}), ("host.launch_latency", nd.launch_latency(gpus), {})]
    if rank_doc:
        for g in gpus:
            node_units.append(("mem.gpu", nd.mem_gpu(g), {}))
    else:
        node_units.append(("mem.gpu", [m for g in gpus for m in nd.mem_gpu(g)], {}))
    node_units += [("mem.stream", nd.stream(), {}), ("net.ib", nd.network(), {}),
                   ("storage.checkpoint", nd.storage(), {})]
    job_units = [("coll." + c[0], nd.collective(*c, nranks=ranks),
                  {"backend": "nccl (%s), device buffers" % nd.nccl, "ranks": str(ranks), "sizes": "1K..256M"})
                 for c in COLLECTIVES]
    job_units.append(("proxy.llama3.1_8b", nd.proxy(ranks, mhz[0]["value"]), {"recipe": "h100/bf16/128"}))
    missing = set()
    for f in faults.get("missing_units", ()):
        missing.update(f["detail"])
    incomplete = bool(faults.get("incomplete"))
    if incomplete:                          # interrupted after the node units: the job units are lost
        job_units = job_units[:2]
    node_units = [u for u in node_units if u[0] not in missing]
    planted = [(f["detail"], f["entity"] if f["entity"] != "node" else "node") for f in faults.get("check", ())]
    planted = [(c, e + "/1" if e.startswith("mlx5") else e) for c, e in planted]
    skew = [f["detail"] for f in faults.get("version", ())]
    driver = SKEWED_DRIVER if any(d.startswith("driver") for d in skew) else DRIVER
    checks = node_checks(HARDWARE[hw]["gpu_name"], HARDWARE[hw]["max_mhz"], driver, planted,
                         [(f["entity"], f["size"]) for f in faults.get("clock", ())])
    nodeb = [benchmark(u, m, ev) for u, m, ev in node_units]
    jobb = [benchmark(u, m, ev) for u, m, ev in job_units]
    counts = {"pass": 0, "warn": 0, "fail": 0, "skip": 0, "error": 0}
    for r in checks + nodeb + jobb:
        counts[r["outcome"]] += 1
    verdict = "fail" if counts["fail"] else "warn" if counts["warn"] else "pass"
    minute = (idx * 7 + (30 if rerun else 0)) % 600
    doc = {"schema_version": 1, "command": "run",
           "started_at": "2026-11-29T%02d:%02d:%02dZ" % (8 + minute // 60, minute % 60, idx % 60),
           "duration_ms": 412345.0 + idx % 1000, "incomplete": incomplete, "verdict": verdict,
           "tool": {"name": "yardstick", "version": "0.1.0 (bcfdd26)", "build_type": "RelWithDebInfo",
                    "compiler": "GNU 12.2.0"},
           "host": {"hostname": name, "kernel": "6.1.0-28-amd64", "arch": "x86_64", "root": "/",
                    "cpu_model": "Intel(R) Xeon(R) Platinum 8480+", "logical_cpus": 224, "gpu_source": "nvml",
                    "gpu_driver": driver},
           "warnings": [], "counts": counts, "checks": [], "measurements": [], "benchmarks": []}
    if incomplete:
        doc["incomplete_reason"] = "interrupted by SIGTERM during coll.alltoall: what was measured before is kept"
    if rank_doc:
        doc["warnings"].append("8 ranks on 1 node (srun); checks and node-local benchmarks ran on each node's first rank")
        doc["ranks"] = [{"rank": r, "hostname": name, "local_rank": r, "state": "ok"} for r in range(8)]
        doc["nodes"] = [{"hostname": name, "ranks": list(range(8)), "checks": checks,
                         "benchmarks": sorted(nodeb, key=lambda b: b["id"])}]
        doc["benchmarks"] = jobb
    else:
        doc["checks"] = checks
        doc["benchmarks"] = sorted(nodeb + jobb, key=lambda b: b["id"])
    return doc


def write_chunk(job):
    items, a = job
    nodes_dir = os.path.join(a.out, "nodes")
    figures = 0
    for idx, name, faults, hw, rank_doc, suffix in items:
        doc = node_document(idx, name, faults, hw, a.seed, rank_doc, suffix == ".rerun", a)
        for b in doc["benchmarks"] + [b for n in doc.get("nodes", ()) for b in n["benchmarks"]]:
            figures += len(b["measurements"])
        with open(os.path.join(nodes_dir, name + suffix + ".run.json"), "w") as f:
            f.write(json.dumps(doc, separators=(",", ":")))
    return len(items), figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fault-rate", type=float, default=0.01, help="about this fraction of nodes faulty (default 1%%; 0: none)")
    ap.add_argument("--rank-docs", type=float, default=0.3, help="fraction of 8-rank one-node documents")
    ap.add_argument("--gpu", choices=("h100", "h200", "a100"), default="h100", help="the fleet's GPU model")
    ap.add_argument("--mixed", action="store_true", help="a few documents of the two other GPU models")
    ap.add_argument("--duplicates", action="store_true", help="a host name twice and one file twice")
    ap.add_argument("--corrupt", type=int, default=0, metavar="K", help="K truncated documents")
    ap.add_argument("--bimodal", type=float, default=0.0, metavar="FRACTION", help="that fraction 12%% slow in GEMM")
    ap.add_argument("--p-dip", type=float, default=0.003, help="probability of a one-off dip per figure")
    ap.add_argument("--p-sample-dip", type=float, default=0.01, help="probability that one sample dips")
    ap.add_argument("--variation", type=lambda t: pair(t, (float, float)), metavar="LO:HI",
                    help="persistent per-node and per-device offsets per kind, sd in [LO, HI]")
    ap.add_argument("--gpu-gemm-spread", type=float, default=None, metavar="SD", help="per-GPU GEMM offset sd")
    ap.add_argument("--subpopulation", type=float, default=0.0, metavar="F",
                    help="a healthy fraction F 3%% slower in STREAM and CPU GEMM, 1.5%% in HBM")
    ap.add_argument("--gemm-gpu-exact", type=lambda t: pair(t, (int, float)), default=None, metavar="K:SIZE",
                    help="K nodes with one GPU's GEMM SIZE below its peers")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    a = ap.parse_args()
    if a.nodes < 1 or not 0 <= a.bimodal < 1 or not 0 <= a.rank_docs <= 1 or a.corrupt < 0:
        ap.error("--nodes >= 1, 0 <= --bimodal < 1, 0 <= --rank-docs <= 1, --corrupt >= 0")
    rng = random.Random(a.seed)
    a.sds = fleet_sds(random.Random(a.seed + 17), a)
    names = ["node%05d" % i for i in range(a.nodes)]
    faults, by_node, hardware, extra = plant(rng, names, a)
    rank_docs = set(rng.sample(names, int(a.rank_docs * a.nodes)))
    os.makedirs(os.path.join(a.out, "nodes"), exist_ok=True)
    items = [(i, n, by_node.get(n, {}), hardware.get(n, a.gpu), n in rank_docs, "") for i, n in enumerate(names)]
    if "rerun" in extra:
        i = names.index(extra["rerun"])
        items.append((i, extra["rerun"], {}, a.gpu, False, ".rerun"))
    chunks = [(items[i::a.jobs * 4], a) for i in range(a.jobs * 4)]
    if a.jobs > 1:
        with multiprocessing.Pool(a.jobs) as pool:
            done = pool.map(write_chunk, chunks)
    else:
        done = list(map(write_chunk, chunks))
    written, figures = sum(d[0] for d in done), sum(d[1] for d in done)
    nodes_dir = os.path.join(a.out, "nodes")
    if "copy" in extra:
        figures += figures // max(1, written)
        src = os.path.join(nodes_dir, extra["copy"] + ".run.json")
        with open(src, "rb") as f, open(os.path.join(nodes_dir, extra["copy"] + ".copy.run.json"), "wb") as g:
            g.write(f.read())
        written += 1
    for node in extra.get("corrupt", ()):
        path = os.path.join(nodes_dir, node + ".run.json")
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(int(size * rng.uniform(0.3, 0.9)))
    real = [f for f in faults if f.get("group") != "bimodal"]
    truth = {"generator": "tests/fleet/gen_fleet.py", "seed": a.seed, "nodes": a.nodes, "documents": written,
             "figures": figures,
             "options": {k: getattr(a, k) for k in ("gpu", "fault_rate", "rank_docs", "mixed", "duplicates", "corrupt",
                                                    "bimodal", "p_dip", "p_sample_dip", "variation",
                                                    "gpu_gemm_spread", "subpopulation", "gemm_gpu_exact")},
             "offset_sds": a.sds,
             "gpus_per_node": 8, "nics_per_node": NICS, "driver": DRIVER, "cuda": CUDA,
             "faulty_nodes": sorted({f["node"] for f in faults}),
             "faults": sorted(real, key=lambda f: (f["kind"], f["node"])) +
                       sorted((f for f in faults if f.get("group") == "bimodal"), key=lambda f: f["node"]),
             "node_names": names}
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print("wrote %d documents (%d nodes, %d faults on %d nodes) to %s" % (
        written, a.nodes, len(faults), len(truth["faulty_nodes"]), nodes_dir))


if __name__ == "__main__":
    main()
