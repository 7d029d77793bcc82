#!/usr/bin/env python3
"""The comparisons and the figures of bench/gpu_runbook.sh.

  gpu_runbook_compare.py nvml LIVE.json SMI.json    NVML state documents (yardstick capture's
      .yardstick/nvml.json): the live NVML reading against the same moment's `nvidia-smi -q`
      read back through --nvml-state, field by field and GPU by GPU (matched by PCI bus id).
  gpu_runbook_compare.py verdicts LIVE.json SMI.json    two preflight run documents: each gpu.*
      unit's outcome from live NVML and from the nvidia-smi -q text.
  gpu_runbook_compare.py figures DIR    every run document (*.json) under DIR: each unit's outcome,
      findings and tables, one line per measurement with its % of peak; burn-in summaries.

Never fails on a missing or unreadable input: it says so and goes on (exit 0), so that the
runbook's file of figures always says what is missing.
"""
import glob
import json
import os
import sys

# Counters that move by themselves between two readings a second apart: a difference there is
# expected, not a disagreement between the two readers.
MOVING = {"sm_clock_mhz", "mem_clock_mhz", "power_usage_mw", "temperature_c", "performance_state",
          "clocks_event_reasons", "compute_processes", "pcie_gen_current", "pcie_width_current"}
# What identifies a document or the moment rather than a GPU's state.
IGNORED = {"source", "captured_at"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, f"{path}: unreadable ({e})"


def field_text(v):
    """A Field's JSON ({"value": x} or {"error": why}) as text; other JSON as is."""
    if isinstance(v, dict) and set(v) <= {"value", "error"}:
        if "value" in v:
            return json.dumps(v["value"], sort_keys=True), True
        return "(" + str(v.get("error", "")) + ")", False
    return json.dumps(v, sort_keys=True), True


def compare_fields(where, live, smi, tally):
    for key in sorted(set(live) | set(smi)):
        if key in IGNORED:
            continue
        if key not in smi:
            tally["not read from nvidia-smi"] += 1
            print(f"{where} {key}: live {field_text(live[key])[0]}; nvidia-smi: NOT READ")
            continue
        if key not in live:
            tally["only in nvidia-smi"] += 1
            print(f"{where} {key}: nvidia-smi {field_text(smi[key])[0]}; live: absent")
            continue
        if key == "nvlinks" and isinstance(live[key], list) and isinstance(smi[key], list):
            links = {str(l.get("link")): l for l in smi[key]}
            for link in live[key]:
                other = links.pop(str(link.get("link")), None)
                if other is None:
                    tally["not read from nvidia-smi"] += 1
                    print(f"{where} nvlink {link.get('link')}: NOT READ from nvidia-smi")
                else:
                    compare_fields(f"{where} nvlink {link.get('link')}", link, other, tally)
            for name in links:
                tally["only in nvidia-smi"] += 1
                print(f"{where} nvlink {name}: only in nvidia-smi")
            continue
        a, a_has = field_text(live[key])
        b, b_has = field_text(smi[key])
        if a == b:
            tally["same"] += 1
            continue
        if a_has and not b_has:
            kind = "not reported by nvidia-smi"
        elif b_has and not a_has:
            kind = "not reported by NVML"
        elif key in MOVING:
            kind = "moving"
        else:
            kind = "DIFFERENT"
        tally[kind] += 1
        print(f"{where} {key}: live {a} | nvidia-smi {b}  [{kind}]")


def compare_nvml(live_path, smi_path):
    live, err_a = load(live_path)
    smi, err_b = load(smi_path)
    if live is None or smi is None:
        print("; ".join(e for e in (err_a, err_b) if e))
        return
    tally = {k: 0 for k in ("same", "moving", "DIFFERENT", "not reported by nvidia-smi",
                            "not reported by NVML", "not read from nvidia-smi",
                            "only in nvidia-smi")}
    top_live = {k: v for k, v in live.items() if k != "devices"}
    top_smi = {k: v for k, v in smi.items() if k != "devices"}
    compare_fields("system", top_live, top_smi, tally)
    by_bus = {d.get("pci_bus_id", "").lower(): d for d in smi.get("devices", [])}
    for d in live.get("devices", []):
        bus = d.get("pci_bus_id", "").lower()
        where = f"gpu{d.get('index')} {bus}"
        other = by_bus.pop(bus, None)
        if other is None:
            print(f"{where}: in NVML, not in the nvidia-smi reading")
            tally["DIFFERENT"] += 1
            continue
        compare_fields(where, d, other, tally)
    for bus in by_bus:
        print(f"{bus}: in the nvidia-smi reading, not in NVML")
        tally["DIFFERENT"] += 1
    print("fields: " + ", ".join(f"{k} {v}" for k, v in tally.items()))


def outcomes(doc):
    found = {}
    for u in units(doc):
        if str(u.get("id", "")).startswith("gpu."):
            found[u["id"]] = (u.get("outcome"), u.get("summary", ""))
    return found


def compare_verdicts(live_path, smi_path):
    live, err_a = load(live_path)
    smi, err_b = load(smi_path)
    if live is None or smi is None:
        print("; ".join(e for e in (err_a, err_b) if e))
        return
    a, b = outcomes(live), outcomes(smi)
    same = 0
    for uid in sorted(set(a) | set(b)):
        oa, ob = a.get(uid, ("absent", "")), b.get(uid, ("absent", ""))
        if oa[0] == ob[0]:
            same += 1
            continue
        print(f"verdict {uid}: live {oa[0]} ({oa[1]}) | nvidia-smi {ob[0]} ({ob[1]})")
    print(f"verdicts: {same} of {len(set(a) | set(b))} gpu.* units agree")


def units(d):
    if isinstance(d, dict):
        if "id" in d and "outcome" in d:
            yield d
        for v in d.values():
            yield from units(v)
    elif isinstance(d, list):
        for v in d:
            yield from units(v)


def print_burnin(b):
    print(f"== burnin {b.get('profile')}: {b.get('elapsed_s', 0):.0f} s of load, "
          f"{len(b.get('faults', []))} faults, availability {b.get('availability', 0):.4f}")
    for e in b.get("entities", []):
        if e.get("metric"):
            print(f"   {e['entity']:<6} {e['metric']:<10} median {e.get('perf_median')} "
                  f"{e.get('unit')} lowest window {e.get('perf_min_window')} "
                  f"miscompares {e.get('miscompares')} temp steady {e.get('temp_steady_c')}")
    for fl in b.get("faults", []):
        print(f"   FAULT {fl.get('at_s', 0):.0f} s {fl.get('entity')} {fl.get('kind')}: "
              f"{fl.get('message')}")


def print_unit(name, u):
    print(f"== {name}: {u['id']}: {u['outcome']}: {u.get('summary', '')}")
    for fd in u.get("findings", []):
        print(f"   FINDING {fd.get('code')} {fd.get('entity')}: {fd.get('message')}")
    for t in u.get("tables", []):
        print(f"   # {t.get('title', '')}")
        print("   " + " | ".join(t.get("columns", [])))
        for row in t.get("rows", []):
            print("   " + " | ".join(str(c) for c in row))
    for m in u.get("measurements", []):
        p = m.get("params", {})
        keys = [k for k in ("device", "dtype", "shape", "method", "size", "ranks",
                            "gpus_per_process", "host_numa_node", "peer") if k in p]
        what = " ".join(f"{k}={p[k]}" for k in keys)
        print(f"   {m.get('name', ''):<28} {what:<60} {m.get('value', 0):>10.2f} "
              f"{m.get('unit', '')} {p.get('pct_of_peak', '-')}% of peak")


def figures(directory):
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        name = os.path.basename(path)
        if os.path.getsize(path) == 0:
            continue
        doc, err = load(path)
        if doc is None:
            # A step that prints text (capture, nvbandwidth, nccl-tests) is not meant as JSON; a
            # document cut short (a step timed out) is.
            with open(path, errors="replace") as f:
                if f.read(1) == "{":
                    print(f"{name}: not a complete run document ({err})")
            continue
        if isinstance(doc, dict) and isinstance(doc.get("burnin"), dict):
            print_burnin(doc["burnin"])
        for u in units(doc):
            print_unit(name, u)


def main(argv):
    if len(argv) == 4 and argv[1] == "nvml":
        compare_nvml(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "verdicts":
        compare_verdicts(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "figures":
        figures(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
