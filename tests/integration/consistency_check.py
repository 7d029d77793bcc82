#!/usr/bin/env python3
"""One verdict that agrees with its evidence, on every input the fixtures hold.

Discovers its inputs, so that a new fixture is covered without editing this file:
  - every file under tests/fixtures/ (real samples included), except the recorded host trees,
    generator scripts and notes, through `yardstick ingest FILE` and `ingest FILE --json`;
  - every host tree under tests/fixtures/hosts/ with a recorded GPU state, every recorded GPU
    state (tests/fixtures/nvml/*.json and the real nvidia-smi -q outputs) on a GPU tree, and
    every kernel log (tests/fixtures/nvml/*kmsg*, tests/fixtures/real/kernel-log/) through
    `yardstick preflight --root HOST --nvml-state STATE [--kernel-log LOG]`, console and --json;
  - every run or validation document under tests/fixtures/ through `yardstick diagnose`.

For each output: the console's verdict line, the JSON verdict and the exit code agree (pass and
warn 0, fail 1, inconclusive 2); the counts add up and a skip is never counted as a pass; a unit
that judged nothing is not a pass; every finding's message agrees with the numbers beside it
(CLAIMS below). On a sample of the documents the HTML report's banner and the exporter's check
state series say the same.

Usage: consistency_check.py BIN SRC TMP   (exit 0 when every assertion holds)
"""
import concurrent.futures
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

BIN, SRC, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
FIX = os.path.join(SRC, "tests", "fixtures")
RC_OF = {"pass": 0, "warn": 0, "fail": 1, "inconclusive": 2}
SUMMARY = re.compile(r"^([a-z-]+): (\d+) pass, (\d+) warn, (\d+) fail, (\d+) skip, (\d+) error "
                     r"in [0-9.]+ s: (PASS|WARN|FAIL|INCONCLUSIVE)( \(incomplete\))?: ", re.M)
failures = []
counted = {"outputs": 0, "documents": 0, "units": 0, "findings": 0, "claims": 0}


def fail(where, what):
    failures.append(f"{where}: {what}")


def run(args):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, errors="replace",
                       cwd=TMP, timeout=60)
    return p.returncode, p.stdout, p.stderr


def rel(path):
    return os.path.relpath(path, SRC)


# ---- message-vs-evidence claims --------------------------------------------------------------
def num(text):
    m = re.search(r"-?\d+(?:\.\d+)?", text or "")
    return float(m.group()) if m else None


def ev_get(ev, *suffixes):
    """The first evidence value whose key ends with one of `suffixes` (keys carry gpuN. etc.)."""
    for k, v in ev.items():
        if any(k == s or k.endswith("." + s) or k.endswith(" " + s) for s in suffixes):
            return v
    return None


def power_draw(f):
    m = re.match(r"(\d+) W of (\d+) W", ev_get(f["evidence"], "power") or "")
    return (float(m.group(1)), float(m.group(2))) if m else None


def power_near_limit(m, f):
    p = power_draw(f)
    return p[1] > 0 and p[0] >= 0.9 * p[1] if p else "unknown" in f["message"]


def power_far_below_limit(m, f):
    p = power_draw(f)
    return p is not None and p[0] < 0.9 * p[1]


def clock_below_max(m, f):
    cur = num(ev_get(f["evidence"], "sm_clock_mhz"))
    top = num(ev_get(f["evidence"], "max_sm_clock_mhz"))
    inline = re.search(r"\((\d+)/(\d+) MHz", f["message"])
    if cur is None and inline:
        cur, top = float(inline.group(1)), float(inline.group(2))
    return cur is not None and top is not None and cur < top


def bus_id_absent_from_nvml(m, f):
    ev = f["evidence"]
    bus = ev_get(ev, "pci_bus_id", "bus_id")
    listed = ev_get(ev, "nvml_bus_ids", "nvml_pci_bus_ids", "nvml_lists")
    return bus is not None and listed is not None and bus.lower()[-12:] not in listed.lower()


def not_pass(m, f):
    return f["_unit"]["outcome"] != "pass"


def less(i, j):
    return lambda m, f: float(m.group(i)) < float(m.group(j))


def at_least(i, j):
    return lambda m, f: float(m.group(i)) >= float(m.group(j))


def share(pct, part, whole, tol=1.0):
    return lambda m, f: abs(float(m.group(pct)) - 100 * float(m.group(part)) /
                            float(m.group(whole))) <= tol


def links_inactive(m, f):  # "links 3, 5 inactive (4 of 6 ... active)": the named ones are the rest
    named = len(re.findall(r"\d+", m.group(1)))
    return int(m.group(2)) < int(m.group(3)) and named == int(m.group(3)) - int(m.group(2))


def every_link_inactive(m, f):
    active = ev_get(f["evidence"], "active_links", "links_active")
    return active is None or num(active) == 0


def evidence_agrees(key, group):  # the message's figure is the evidence's
    return lambda m, f: num(ev_get(f["evidence"], key)) in (None, float(m.group(group)))


def counters_positive(m, f):
    return all(int(v) > 0 for v in re.findall(r"=(\d+)", m.group(1)))


def dcgm_status_failed(m, f):
    return (ev_get(f["evidence"], "status") or "Fail").lower().startswith("fail")


# (message regex, predicate on the match and the finding's structured evidence, what it says)
CLAIMS = [
    (r"held down by SW power cap|at its enforced power limit|held by its power limit",
     power_near_limit, "power within 10% of the enforced limit"),
    (r"far below the limit", power_far_below_limit, "power well below the enforced limit"),
    (r"\bheld down\b|\bthrottl", clock_below_max, "current SM clock below its maximum"),
    (r"not in NVML|NVML does not list|NVML lists no", bus_id_absent_from_nvml,
     "the bus id absent from NVML's list in the evidence"),
    (r"too short|not enough (data|steps|samples)|too few", not_pass,
     "the unit is not a pass (too little evidence is INCONCLUSIVE)"),
    (r"every NVLink is inactive|all links are inactive", every_link_inactive,
     "no active link in the evidence"),
    (r"links? ([\d, ]+) inactive \((\d+) of (\d+)[a-z ]* active\)", links_inactive,
     "the inactive links named are those not counted active"),
    (r"(\d+) NVLink (replay|recovery) errors", lambda m, f: int(m.group(1)) > 0,
     "a positive error count"),
    (r"at x(\d+), the (?:GPU and slot|device) supports? x(\d+)(?:: (\d+)% of)?",
     lambda m, f: less(1, 2)(m, f) and (m.group(3) is None or
                                        abs(100 - 100 * int(m.group(1)) / int(m.group(2)) -
                                            int(m.group(3))) <= 1),
     "a width below the supported one, the loss its share"),
    (r"(\d+) C is at or above the slowdown threshold (\d+) C",
     lambda m, f: at_least(1, 2)(m, f) and evidence_agrees("temperature_c", 1)(m, f),
     "the temperature at or above the threshold, as the evidence reads it"),
    (r"(\d+) MHz is (\d+)% of the rated maximum (\d+) MHz", share(2, 1, 3),
     "the share the two clocks give"),
    (r"capped: (\d+) MHz \(of (\d+) MHz\)", less(1, 2), "the cap below the maximum"),
    (r"MFU ([\d.]+)% against the reference's ([\d.]+)%", less(1, 2),
     "an MFU below the reference's"),
    (r"scores ([\d.]+) against the reference \(threshold ([\d.]+)\)", less(1, 2),
     "a score below the threshold"),
    (r"([\d.]+)% of the process's memory \(([\d.]+) MiB of ([\d.]+) MiB\)", share(1, 2, 3, 0.2),
     "the share the two sizes give"),
    (r"peaks at ([\d.]+) GB/s .* far below the ([\d.]+)", less(1, 2),
     "a peak below the expected range"),
    (r"error counters non-zero: ([^(]*)", counters_positive, "every counter named above zero"),
    (r"dcgmi diag: .* failed on GPU", dcgm_status_failed, "dcgmi's own status a failure"),
]
CLAIMS = [(re.compile(rx, re.I), pred, says) for rx, pred, says in CLAIMS]


def check_claims(where, unit, doc):
    """Each finding's message against CLAIMS; the first claim that matches decides."""
    for f in unit.get("findings", []):
        counted["findings"] += 1
        msg = f.get("message", "")
        if os.environ.get("YS_DUMP_MESSAGES"):
            print("MSG", unit["id"], unit["outcome"], msg[:160], file=sys.stderr)
        g = {"message": msg, "evidence": f.get("evidence") or {}, "_unit": unit}
        for rx, pred, says in CLAIMS:
            m = rx.search(msg)
            if m:
                counted["claims"] += 1
                if not pred(m, g):
                    fail(where, f"{unit['id']}: '{msg[:120]}' but not {says}: {g['evidence']}")
                break


# ---- a run document ---------------------------------------------------------------------------
DCGM_TALLY = re.compile(r"(\d+) pass, (\d+) fail, (\d+) warn, (\d+) skip")


def judge(doc):
    """The verdict the units call for (docs/verdict.md), without the diagnosis."""
    outs = [u["outcome"] for u in units_of(doc)]
    if "fail" in outs or (doc.get("burnin") or {}).get("faults"):
        return {"fail"}
    if doc.get("incomplete") or "error" in outs:
        return {"inconclusive"}
    if "warn" in outs:
        return {"warn"}
    if not outs or all(o == "skip" for o in outs):
        return {"inconclusive"}
    return {"pass", "warn"} if doc.get("diagnosis") else {"pass"}


def units_of(doc):
    return list(doc.get("checks", [])) + list(doc.get("benchmarks", []))


def check_unit(where, u, doc):
    counted["units"] += 1
    fs = u.get("findings", [])
    sev = {f.get("severity") for f in fs}
    if u["outcome"] == "fail" and not any(f.get("code") and f.get("severity") == "fail"
                                          for f in fs):
        fail(where, f"{u['id']}: fail without a fail finding carrying a code")
    if "fail" in sev and u["outcome"] != "fail":
        fail(where, f"{u['id']}: a fail finding in a unit that is {u['outcome']}")
    m = DCGM_TALLY.search(u.get("summary", ""))
    if m:  # a tool's own tally: a skip is a skip, a pass needs a test that passed
        p, fl, w, s = map(int, m.groups())
        if fl and u["outcome"] != "fail":
            fail(where, f"{u['id']}: {fl} failed but the unit is {u['outcome']}")
        if p == 0 and fl == 0 and w == 0 and u["outcome"] == "pass":
            fail(where, f"{u['id']}: PASS with nothing tested ({m.group()})")
    if u["outcome"] == "pass" and re.search(r"\b(0|no) (tests?|units?|ranks?|rows?|steps?)\b "
                                            r"(ran|run|judged|read|passed)", u.get("summary", "")):
        fail(where, f"{u['id']}: PASS that tested nothing: {u['summary']}")
    check_claims(where, u, doc)


def check_document(where, doc, console, rc):
    counted["documents"] += 1
    verdict = doc.get("verdict")
    if verdict not in RC_OF:
        return fail(where, f"no verdict in the JSON document: {verdict!r}")
    if rc != RC_OF[verdict]:
        fail(where, f"exit code {rc} for a {verdict} verdict")
    if verdict not in judge(doc):
        fail(where, f"verdict {verdict} where the units call for {sorted(judge(doc))}")
    tally = {k: 0 for k in ("pass", "warn", "fail", "skip", "error")}
    for u in units_of(doc):
        tally[u["outcome"]] += 1
        check_unit(where, u, doc)
    if doc.get("counts") != tally:
        fail(where, f"counts {doc.get('counts')} but the units are {tally}")
    if console is not None:
        m = SUMMARY.search(console)
        if not m:
            return fail(where, "no verdict line on the console")
        said = dict(zip(("pass", "warn", "fail", "skip", "error"), map(int, m.groups()[1:6])))
        if m.group(7).lower() != verdict:
            fail(where, f"console says {m.group(7)}, JSON says {verdict}")
        if said != tally:
            fail(where, f"console counts {said}, the units are {tally}")


# ---- the commands -----------------------------------------------------------------------------
def check_ingest(path):
    where = f"ingest {rel(path)}"
    rc_c, out_c, err_c = run(["ingest", "-q", path])
    rc_j, out_j, err_j = run(["ingest", "-q", path, "--json"])
    counted["outputs"] += 2
    if rc_c != rc_j:
        fail(where, f"exit code {rc_c} on the console, {rc_j} with --json")
    if rc_j not in (0, 1, 2):
        return fail(where, f"exit code {rc_j}: {err_j[-300:]}")
    try:
        doc = json.loads(out_j) if out_j.strip() else None
    except json.JSONDecodeError as e:
        return fail(where, f"--json printed no JSON ({e})")
    if doc is None:  # refused: a clear error that names the file
        if rc_j != 2 or path not in err_j:
            fail(where, f"no document, exit {rc_j}, and the error does not name the file")
        return None
    if "verdict" in doc:
        check_document(where, doc, out_c, rc_j)
        return doc
    # Workload runs: each run's status decides the exit code (success 0, incomplete 1, else 2).
    codes = [{"success": 0, "incomplete": 1, "invalid_grad_norm": 1}.get(r["status"], 2)
             for r in doc.get("runs", [])] + [2 for _ in doc.get("errors", [])]
    if rc_j != max(codes, default=2):
        fail(where, f"exit code {rc_j} for run statuses {[r['status'] for r in doc['runs']]}")
    for r in doc.get("runs", []):
        measured = [(r.get(k) or {}).get("n") for k in
                    ("step_time_s", "tflops_per_gpu", "tokens_per_s_per_gpu")]
        points = [v for v in (r.get("inference") or {}).values() if isinstance(v, list) and v]
        if r["status"] == "success" and not any(measured) and not points:
            fail(where, f"success with nothing measured: {r.get('reason')}")
    return None


def check_preflight(host, state, klog=None):
    args = ["preflight", "--no-history", "--root", host, "--nvml-state", state]
    if klog:
        args += ["--kernel-log", klog]
    where = "preflight " + " ".join(rel(a) if a.startswith(SRC) else a for a in args[2:])
    rc_c, out_c, _ = run(args)
    rc_j, out_j, err_j = run(args + ["--json"])
    counted["outputs"] += 2
    if rc_c != rc_j:
        fail(where, f"exit code {rc_c} on the console, {rc_j} with --json")
    try:
        doc = json.loads(out_j)
    except json.JSONDecodeError:
        if rc_j != 2:
            fail(where, f"no JSON and exit {rc_j}: {err_j[-200:]}")
        return None
    check_document(where, doc, out_c, rc_j)
    return doc


def check_diagnose(path):
    where = f"diagnose {rel(path)}"
    rc_c, out_c, _ = run(["diagnose", "-q", path])
    rc_j, out_j, err_j = run(["diagnose", "-q", path, "--json"])
    counted["outputs"] += 2
    if rc_c != rc_j:
        fail(where, f"exit code {rc_c} on the console, {rc_j} with --json")
    if rc_j == 2:
        return
    d = json.loads(out_j)
    for dg in d.get("diagnosis", []):
        r = dg.get("recovery", {})
        if r.get("low", 0) > r.get("high", 0):
            fail(where, f"{dg['rule']}: recovery low {r['low']} above high {r['high']}")
        if r.get("low", 0) < 0:
            fail(where, f"{dg['rule']}: a negative recovery {r['low']}")
        # the cause is a message too: the same claims on its evidence
        unit = {"id": dg["rule"], "outcome": "warn",
                "findings": [{"message": dg["cause"], "evidence": dg.get("evidence", {})}]}
        check_claims(where, unit, d)
        if dg["cause"][:60] not in out_c:
            fail(where, f"{dg['rule']}: the JSON's cause is not on the console")


# ---- the HTML report and the exporter on a sample ---------------------------------------------
def check_html(where, doc, n):
    path = os.path.join(TMP, f"doc{n}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    rc, _, err = run(["report", "-q", path, "-o", path + ".html"])
    if rc != 0:
        return fail(where, f"report: exit {rc}: {err[-200:]}")
    html = open(path + ".html", errors="replace").read()
    if f'data-verdict="{doc["verdict"]}"' not in html:
        fail(where, f"the HTML banner does not say {doc['verdict']}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_exporter(where, doc, n):
    path = os.path.join(TMP, f"exp{n}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    port = free_port()
    p = subprocess.Popen([BIN, "exporter", "-q", "--run", path, "--root",
                          os.path.join(FIX, "hosts", "this-machine"), "--listen",
                          f"127.0.0.1:{port}", "--interval", "0.2"], cwd=TMP,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = ""
    try:
        for _ in range(50):
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
                text = text.decode()
                if "yardstick_check_state" in text or not units_of(doc):
                    break
            except OSError:
                pass
            time.sleep(0.1)
    finally:
        p.terminate()
        p.wait(timeout=10)
    for u in doc.get("checks", []):
        want = f'yardstick_check_state{{id="{u["id"]}",Hostname="{doc["host"]["hostname"]}",' \
               f'state="{u["outcome"]}"}} 1'
        if want not in text:
            fail(where, f"exporter: no {want}")


# ---- discovery --------------------------------------------------------------------------------
SKIP_NAMES = {"SOURCES.md", "README.md"}


def ingest_inputs():
    out = []
    for root, dirs, files in os.walk(FIX):
        if os.path.relpath(root, FIX).split(os.sep)[0] in ("hosts", "gen"):
            continue
        out += [os.path.join(root, f) for f in files
                if f not in SKIP_NAMES and not f.endswith((".py", ".pyc"))]
    return sorted(out)


def gpu_states():
    nvml = os.path.join(FIX, "nvml")
    smi = os.path.join(FIX, "real", "nvidia-smi")
    return sorted([os.path.join(nvml, f) for f in os.listdir(nvml) if f.endswith(".json")] +
                  [os.path.join(smi, f) for f in os.listdir(smi) if f not in SKIP_NAMES])


def kernel_logs():
    nvml = os.path.join(FIX, "nvml")
    real = os.path.join(FIX, "real", "kernel-log")
    return sorted([os.path.join(nvml, f) for f in os.listdir(nvml) if "kmsg" in f] +
                  [os.path.join(real, f) for f in os.listdir(real) if f not in SKIP_NAMES])


def preflight_inputs():
    hosts_dir = os.path.join(FIX, "hosts")
    hosts = sorted(os.path.join(hosts_dir, h) for h in os.listdir(hosts_dir))
    gpu_host = os.path.join(hosts_dir, "healthy-8gpu")
    states = gpu_states()
    healthy = os.path.join(FIX, "nvml", "healthy-h100x8.json")
    jobs = [(h, healthy, None) for h in hosts]  # every host tree
    jobs += [(gpu_host, s, None) for s in states if s != healthy]  # every recorded GPU state
    jobs += [(gpu_host, healthy, k) for k in kernel_logs()]  # every kernel log
    return jobs


def self_test():
    """Documents that contradict themselves must each be caught: the checks above can fail."""
    bad = [
        ({"verdict": "pass", "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0},
          "checks": [{"id": "a", "outcome": "skip", "summary": ""}]}, 0),  # a skip as a pass
        ({"verdict": "pass", "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0},
          "checks": [{"id": "d", "outcome": "pass",
                      "summary": "dcgmi diag: 0 pass, 0 fail, 0 warn, 4 skip"}]}, 0),
        ({"verdict": "fail", "counts": {"pass": 0, "warn": 0, "fail": 1, "skip": 0, "error": 0},
          "checks": [{"id": "c", "outcome": "fail", "summary": "", "findings": [
              {"code": "X", "severity": "fail", "message": "clocks held down by HW slowdown",
               "evidence": {"sm_clock_mhz": "1980", "max_sm_clock_mhz": "1980"}}]}]}, 0),
        ({"verdict": "warn", "counts": {"pass": 0, "warn": 1, "fail": 0, "skip": 0, "error": 0},
          "checks": [{"id": "c", "outcome": "warn", "summary": "", "findings": [
              {"code": "X", "severity": "warn", "message": "clocks held down by SW power cap",
               "evidence": {"power": "100 W of 700 W enforced", "sm_clock_mhz": "1",
                            "max_sm_clock_mhz": "2"}}]}]}, 0),
        ({"verdict": "pass", "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0},
          "checks": [{"id": "t", "outcome": "pass", "summary": "", "findings": [
              {"message": "too short to judge drift", "evidence": {}}]}]}, 0),
        ({"verdict": "fail", "counts": {"pass": 0, "warn": 0, "fail": 1, "skip": 0, "error": 0},
          "checks": [{"id": "f", "outcome": "fail", "summary": "",
                      "findings": [{"code": "X", "severity": "fail", "message": "m"}]}]}, 2),
    ]
    for n, (doc, rc) in enumerate(bad):
        before = len(failures)
        check_document(f"self-test {n}", doc, None, rc)
        if len(failures) == before:
            print(f"FAIL: self-test {n}: a contradictory document was not caught")
            return False
        del failures[before:]
    return True


def main():
    if not self_test():
        return 1
    counted.update({k: 0 for k in counted})
    t0 = time.time()
    docs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        ing = list(pool.map(check_ingest, ingest_inputs()))
        pre = list(pool.map(lambda j: check_preflight(*j), preflight_inputs()))
        runs = [p for p in ingest_inputs()
                if os.path.basename(p) in ("run.json", "validation.json")]
        list(pool.map(check_diagnose, runs))
    docs = [d for d in ing + pre if d is not None]
    # The HTML banner on every document of each verdict, the exporter on one of each.
    seen = set()
    for n, d in enumerate(docs):
        check_html(f"report of document {n}", d, n)
        if d["verdict"] not in seen and d.get("checks"):
            seen.add(d["verdict"])
            check_exporter(f"exporter on document {n} ({d['verdict']})", d, n)
    verdicts = sorted({d["verdict"] for d in docs})
    print(f"consistency: {counted['outputs']} outputs, {counted['documents']} documents "
          f"({', '.join(verdicts)}), {counted['units']} units, {counted['findings']} findings, "
          f"{counted['claims']} message claims checked, {len(docs)} HTML reports, "
          f"{len(seen)} exporter scrapes, {time.time() - t0:.1f} s")
    # The check must have had something to judge: every verdict seen, claims exercised.
    for v in RC_OF:
        if v not in verdicts:
            fail("coverage", f"no input gave a {v} verdict")
    if counted["claims"] < 5:
        fail("coverage", f"only {counted['claims']} message claims were exercised")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
