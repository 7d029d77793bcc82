#!/usr/bin/env python3
"""Writes raw seed inputs for every fuzz target from the repository's fixtures and data files.

    python3 tests/fuzz/make_seeds.py OUT_DIR [DOCUMENT.json...]

OUT_DIR/<target>/ gets one file per seed, with the target's selector byte in front where the
target has several readers (see the comment at the top of each tests/fuzz/<target>_fuzz.cc).
The committed corpus (tests/fuzz/corpus/<target>/) is these seeds minimised by libFuzzer
(`-merge=1` into an empty folder); see README.md "Sanitizers and fuzzing".
"""
import fnmatch
import glob
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scanner_seeds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures")
MAX = 64 * 1024  # larger files are cut: the fuzzer works on small inputs


def read(path):
    with open(path, "rb") as f:
        return f.read(MAX)


def emit(out, target, data, selector=None):
    if selector is not None:
        data = bytes([selector]) + data
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def walk(base, pattern):
    """Regular files under `base` whose relative path matches `pattern` ("**/" spans folders).
    Symbolic links are not followed: the host fixture trees link /sys directories in cycles."""
    regex = re.compile(fnmatch.translate(pattern).replace(".*/", "(.*/)?", 1)
                       if pattern.startswith("**/") else fnmatch.translate(pattern))
    found = []
    for d, dirs, names in os.walk(base):
        dirs.sort()
        for n in sorted(names):
            f = os.path.join(d, n)
            if not os.path.islink(f) and os.path.isfile(f) and \
                    regex.match(os.path.relpath(f, base)):
                found.append(f)
    return found


def files(*patterns):
    seen = []
    for p in patterns:
        head, _, rest = p.partition("/**/")
        matches = walk(os.path.join(ROOT, head), "**/" + rest) if rest else sorted(
            glob.glob(os.path.join(ROOT, p)))
        for f in matches:
            if os.path.isfile(f) and f not in seen:
                seen.append(f)
    return seen


def training_logs(out):
    formats = {"nemo": 1, "megatron": 2, "torchtitan": 3, ".json": 4}
    for f in files("tests/fixtures/logs/**/*.log", "tests/fixtures/logs/**/*.out",
                   "tests/fixtures/logs/**/*.json", "tests/fixtures/logs/**/*.jsonl",
                   "tests/fixtures/runs/h100-pass/**/*.out"):
        emit(out, "training_log", read(f), 0)
        for key, sel in formats.items():
            if key in os.path.basename(f):
                emit(out, "training_log", read(f), sel)
    for f in files("tests/fixtures/logs/**/*.yaml", "tests/fixtures/runs/**/*.yaml"):
        emit(out, "llmb_config", read(f))


def nccl_tests(out):
    for f in files("tests/fixtures/real/nccl-tests/*.txt", "tests/fixtures/real/nccl-tests/*.log"):
        emit(out, "nccl_tests", read(f), 0)
        emit(out, "nccl_tests", read(f), 1)


def gpu_tool_outputs(out):
    for f in files("tests/fixtures/real/dcgmi/*.txt", "tests/fixtures/real/dcgmi/*.json"):
        emit(out, "gpu_tool_output", read(f), 0)
        emit(out, "gpu_tool_output", read(f), 1)
    for f in files("tests/fixtures/real/nvlink/*.txt"):
        emit(out, "gpu_tool_output", read(f), 0)
        emit(out, "gpu_tool_output", read(f), 2)


def topo_texts(out):
    for f in files("tests/fixtures/real/topo/*.txt", "tests/fuzz/seeds/topo/*.txt"):
        emit(out, "topo_expect", read(f))


def tomls(out):
    groups = [(0, ["suites/*.toml"]),
              (1, ["baselines/**/*.toml", "tests/fixtures/runs/*.toml"]),
              (2, ["models/*.toml"]), (3, ["specs/*.toml"]), (4, ["examples/site.toml"]),
              (5, ["examples/prices.toml"]), (6, ["examples/cluster.toml"])]
    for sel, patterns in groups:
        for f in files(*patterns):
            emit(out, "toml", read(f), sel)


# The step-time model's readers (tests/fuzz/predict_fuzz.cc): the calibration file (selector 0),
# --set rate assignments (selector 1) and the serving model's file (selector 4).
PREDICT_SETS = [b"coll.all_gather.busbw=28GB/s", b"nvlink.alltoall.busbw=0.3TB/s",
                b"gemm.fp8.tflops=1.2PFLOPS", b"hbm.bandwidth=3", b"coll.all_gather.busbw=-5GB/s",
                b"coll.reduce_scatter.busbw=1e400", b"gemm.fp64.tflops=1", b"=3"]


def predict(out):
    for f in files("calibration/*.toml"):
        emit(out, "predict", read(f), 0)
    # The serving model's file (selector 4).
    emit(out, "predict", read("calibration/serve_model.toml"), 4)
    for s in PREDICT_SETS:
        emit(out, "predict", s, 1)
    # The published tables (selector 3): the comments, the header and the first rows of each.
    for f in files("baselines/published/*.tsv"):
        lines = read(f).split(b"\n")
        head = [l for l in lines if l.startswith(b"#")]
        rows = [l for l in lines if l and not l.startswith(b"#")]
        emit(out, "predict", b"\n".join(head[:4] + rows[:12]) + b"\n", 3)
        # Rows whose recompute joins Megatron's modules, and the same naming one no recipe has.
        joined = [r for r in rows if b"+moe_act" in r or b"moe_act+" in r][:3]
        if joined:
            emit(out, "predict", b"\n".join(head[:4] + joined) + b"\n", 3)
            bad = joined[0].replace(b"moe_act", b"moe_bogus", 1)
            emit(out, "predict", b"\n".join(head[:4] + [bad]) + b"\n", 3)


def kind_of(path):
    try:
        doc = json.loads(open(path, "rb").read())
        return doc.get("kind", "") if isinstance(doc, dict) else ""
    except ValueError:
        return ""


def documents(out, extra):
    runs = files("tests/fixtures/runs/**/run.json", "tests/fixtures/exporter/run.json") + [
        f for f in extra if kind_of(f) not in ("yardstick-validation", "yardstick-burnin-checkpoint")]
    for f in runs:
        emit(out, "run_document", read(f))
        emit(out, "fleet_document", read(f))
    validations = files("tests/fixtures/runs/**/validation.json",
                        "tests/fixtures/exporter/validation.json") + [
        f for f in extra if kind_of(f) == "yardstick-validation"]
    for f in extra:
        if kind_of(f) == "yardstick-burnin-checkpoint":
            emit(out, "burnin", read(f), 3)
    for f in validations:
        emit(out, "validation_document", read(f))
    for r in runs:
        for v in validations[:1]:
            emit(out, "exporter", read(r) + b"\0" + read(v), 2)
    for text in [b"127.0.0.1:9400", b"[::1]:9400", b"localhost:1", b"0.0.0.0:65535"]:
        emit(out, "exporter", text, 0)
    for text in [b"2026-01-02T03:04:05Z", b"1970-01-01T00:00:00Z"]:
        emit(out, "exporter", text, 1)
    for burnin in runs:
        report = json.loads(open(burnin, "rb").read()).get("burnin")
        if report is None:
            continue
        emit(out, "burnin", json.dumps(report).encode(), 0)
        for e in report.get("entities", [])[:4]:
            emit(out, "burnin", json.dumps(e).encode(), 1)
    emit(out, "burnin", b"12.5 2026-01-02T03:04:05Z\n", 4)


def gpu_states(out):
    base = read(os.path.join(FIX, "nvml", "healthy-h100x8.json"))
    for f in files("tests/fixtures/nvml/*.json"):
        data = read(f)
        if b"yardstick-nvml-timeline" in data:
            timeline = json.loads(data)
            timeline["base"] = "base.json"
            emit(out, "gpu_state", json.dumps(timeline).encode() + b"\0" + base, 2)
        else:
            emit(out, "gpu_state", data, 0)
            emit(out, "gpu_state", data, 1)
    for f in files("tests/fixtures/nvml/*kmsg*", "tests/fixtures/hosts/*/dev/kmsg",
                   "tests/fixtures/real/kernel-log/*.txt"):
        emit(out, "kernel_log", read(f))


HOST_FILES = [  # (selector, glob under a host fixture tree)
    (0, "proc/self/status"), (1, "proc/meminfo"), (4, "proc/cmdline"), (5, "proc/cpuinfo"),
    (8, "sys/devices/system/cpu/**/cpufreq/*"), (9, "sys/devices/**/current_link_speed"),
    (10, "proc/self/numa_maps"), (11, "sys/devices/system/cpu/vulnerabilities/*"),
    (12, "sys/devices/system/cpu/cpu0/cache/*/size"), (13, "sys/kernel/iommu_groups/*/type"),
    (15, "sys/devices/**/aer_dev_*"), (16, "sys/devices/**/ports/*/rate"),
    (17, "proc/self/uid_map"), (18, "sys/devices/system/edac/**/*_count"),
    (20, "proc/interrupts"), (21, "proc/*/status"), (22, "proc/*/stat"),
    (23, "sys/class/hwmon/*/temp*_input"), (24, ".yardstick/busy-clock"),
    (25, "sys/devices/system/cpu/smt/control"), (26, "boot/config-*"),
    (28, "sys/module/*/parameters/*"), (35, "sys/fs/cgroup/**/cpu.max"),
    (36, "proc/driver/nvidia/version"), (37, "proc/sys/kernel/osrelease"),
    (38, "sys/devices/**/local_cpulist"), (39, "sys/devices/**/local_cpus"),
    (2, "sys/kernel/mm/transparent_hugepage/enabled"),
    (3, "proc/sys/kernel/numa_balancing"),
    (7, "sys/devices/system/cpu/cpuidle/current_governor*"),
]


def smi_dumps(out):
    """nvidia-smi -q text and -x XML: the real dumps, each cut after its first GPU."""
    for f in files("tests/fixtures/real/nvidia-smi/*.txt", "tests/fixtures/real/nvidia-smi/*.xml"):
        data = read(f)
        second = data.find(b"\nGPU 0", data.find(b"\nGPU 0") + 1)
        if f.endswith(".xml"):
            second = data.find(b"<gpu id=", data.find(b"<gpu id=") + 1)
        emit(out, "smi_dump", data[:second] if second > 0 else data)


def host_files(out):
    for tree in sorted(glob.glob(os.path.join(FIX, "hosts", "*"))):
        for sel, pattern in HOST_FILES:
            head, _, rest = pattern.partition("/**/")
            found = walk(os.path.join(tree, head), "**/" + rest) if rest else sorted(
                glob.glob(os.path.join(tree, pattern)))
            for f in found[:3]:
                if os.path.isfile(f):
                    emit(out, "host", read(f), sel)
        limits = os.path.join(tree, "proc", "self", "limits")
        if os.path.isfile(limits):
            emit(out, "host", read(limits) + b"\0Max open files", 6)
        status, stat = (os.path.join(tree, "proc", "self", n) for n in ("status", "stat"))
        for pid in sorted(glob.glob(os.path.join(tree, "proc", "[0-9]*")))[:2]:
            s, t = os.path.join(pid, "status"), os.path.join(pid, "stat")
            if os.path.isfile(s) and os.path.isfile(t):
                emit(out, "host", read(s) + b"\0" + read(t), 32)
        cg, mi = (os.path.join(tree, "proc", "self", n) for n in ("cgroup", "mountinfo"))
        if os.path.isfile(cg) and os.path.isfile(mi):
            emit(out, "host", read(cg) + b"\0" + read(mi), 33)
    for sel, text in [(14, b"Y\n"), (19, b"/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0"),
                      (29, b"^=mlx5_0:1,mlx5_1"), (30, b"NCCL_IB_HCA=mlx5_0\n# c\n"), (31, b"0x10"),
                      (34, b"/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0")]:
        emit(out, "host", text, sel)


def slurm(out):
    emit(out, "slurm", b"JobId=4242 JobName=x\n   JobState=RUNNING Reason=None\n"
                       b"   NumNodes=2 NodeList=n[1-2]\n   SubmitTime=2026-01-02T03:04:05\n", 0)
    emit(out, "slurm", b"4242|RUNNING|n[1-2]|x\n4243|PENDING|(Priority)|y\n", 1)
    emit(out, "slurm", b"4242|COMPLETED|0:0|2026-01-02T03:04:05|2026-01-02T04:04:05\n", 2)
    emit(out, "slurm", b"NodeName=n1 Arch=x86_64\n   State=IDLE+DRAIN Reason=bad [root@t]\n", 3)
    emit(out, "slurm", b"2026-01-02T03:04:05", 4)


def manifest_text(files):
    entries = ",\n".join(
        '    {\n      "path": %s,\n      "size": %d,\n      "sha256": "%s"\n    }'
        % (json.dumps(p), len(b), hashlib.sha256(b).hexdigest()) for p, b in sorted(files.items()))
    return ('{\n  "format": "yardstick-manifest",\n  "version": 1,\n  "files": [\n%s\n  ]\n}\n'
            % entries).encode()


def tar_bytes(members, compress=False):
    """A tar of (name, bytes or None for a directory, or ("link", target))."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, body in members:
            info = tarfile.TarInfo(name)
            if body is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif isinstance(body, tuple):
                info.type = tarfile.SYMTYPE if body[0] == "link" else tarfile.LNKTYPE
                info.linkname = body[1]
                tar.addfile(info)
            else:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    data = buf.getvalue()
    if compress:
        data = subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True,
                              check=True).stdout
    return data


def archives(out):
    files = {"run.json": b'{"schema_version": 1}\n', "logs/a.log": b"step 1\n"}
    manifest = manifest_text(files)
    good = [("r/", None)] + [("r/" + p, b) for p, b in sorted(files.items())] + [
        ("r/manifest.json", manifest)]
    emit(out, "archive", tar_bytes(good))
    emit(out, "archive", tar_bytes(good, compress=True))
    emit(out, "archive", tar_bytes(good + [("r/manifest.sig", b"A" * 86 + b"==\n")]))
    emit(out, "archive", tar_bytes([("r/", None), ("r/x", ("link", "../../etc/passwd"))]))
    emit(out, "archive", tar_bytes([("r/", None), ("r/h", ("hard", "r/run.json"))]))
    emit(out, "archive", tar_bytes([("../r/x", b"1"), ("/abs", b"2")]))
    emit(out, "manifest", manifest, 0)
    emit(out, "manifest", b"A" * 86 + b"==\n", 1)
    emit(out, "manifest", b"SGVsbG8gd29ybGQ=", 2)
    emit(out, "manifest", b"logs/a.log", 3)


# The published serving table (tests/fuzz/serve_published_fuzz.cc): its comments, header and first
# rows; the same with an empty and a repeated column name, and a short row.
def serve_published(out):
    for f in files("baselines/published/serving/*.tsv"):
        lines = read(f).split(b"\n")
        head = [l for l in lines if l.startswith(b"#")][:4]
        body = [l for l in lines if l and not l.startswith(b"#")]
        emit(out, "serve_published", b"\n".join(head + body[:12]) + b"\n")
        cols = body[0].split(b"\t")
        emit(out, "serve_published", b"\t".join(cols[:2] + [b""] + cols[3:]) + b"\n" + body[1] + b"\n")
        emit(out, "serve_published", b"\t".join(cols + [cols[0]]) + b"\n")
        emit(out, "serve_published", body[0] + b"\n" + body[1].rsplit(b"\t", 3)[0] + b"\n")


def main():
    out = sys.argv[1]
    # Documents made elsewhere: run documents (preflight over the host fixtures, a short CPU
    # burn-in), validation documents, burn-in checkpoints; told apart by their "kind".
    extra = sys.argv[2:]
    training_logs(out)
    nccl_tests(out)
    gpu_tool_outputs(out)
    topo_texts(out)
    tomls(out)
    predict(out)
    serve_published(out)
    documents(out, extra)
    scanner_seeds.seeds(emit, out)
    gpu_states(out)
    smi_dumps(out)
    host_files(out)
    slurm(out)
    archives(out)


if __name__ == "__main__":
    main()
