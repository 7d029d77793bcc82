#!/usr/bin/env python3
"""Scores a fleet document (`yardstick merge --json`) against gen_fleet.py's ground truth.

    score_fleet.py FLEET.json TRUTH.json [--max-false-alarm-rate R] [--allow-watch] [--quiet]

The fleet document's contract: a top-level "ranked" array of objects with at least "node",
"entity" (the bare label: "node", "gpu3", "mlx5_0"; a port suffix "/1" is ignored), "kind" and
"deficit". A row may carry "nodes" (a list) to report a group of nodes at once (a slow mode).

For every planted fault: found (a row of an accepted kind on its node and entity, and none of
those kinds on another entity of the node), wrong (rows of an accepted kind on the node, on
another entity: the fault misplaced or blamed on healthy peers too; for a node of another GPU
model or a duplicate, a row of any other kind on it), or missed. False alarms:
rows on nodes where nothing was planted; their rate = such nodes / healthy nodes.
Exit 0 when nothing is missed or wrong and the rate is at most R; 1 otherwise; 2 on bad input.
"""
import argparse
import json
import sys

# Planted kind -> the reported kinds that count as finding it. Adjust here when the engine's
# vocabulary changes.
ACCEPTED_KINDS = {
    "gemm": ("gemm",),
    "memory": ("memory",),
    "nvlink": ("nvlink",),
    "pcie": ("pcie",),
    "network": ("network",),
    "clock": ("clock", "check", "gemm"),  # SW thermal slowdown: the check's code, and GEMM low on that GPU
    "cpu_gemm": ("cpu_gemm",),
    "stream": ("stream",),
    "proxy": ("proxy",),
    "storage": ("storage",),
    "check": ("check",),
    "missing_units": ("missing_units",),
    "incomplete": ("incomplete", "missing_units"),
    "version": ("version",),
    "spread": ("spread",),
    "hardware": ("hardware",),
    "duplicate": ("duplicate",),
    "corrupt": ("corrupt", "incomplete"),  # a document that could not be read
}
# Planted kinds that explain everything else on their node: a node of another GPU model, or one
# given twice, is healthy as such, so a row of any other kind on it is a misdiagnosis (wrong).
EXCLUSIVE_KINDS = ("hardware", "duplicate")
KNOWN_KINDS = ("gemm", "memory", "nvlink", "pcie", "network", "collective", "clock", "cpu_gemm", "stream", "proxy",
               "storage", "launch", "check", "missing_units", "incomplete", "version", "hardware", "duplicate", "spread",
               "corrupt")


# For a fleet document without "ranked" (the schema before it, `slow` groups and flagged
# `figures`): the kind of a figure by its name's prefix, longest first.
KIND_OF_NAME = (("gemm.gpu", "gemm"), ("mem.gpu", "memory"), ("copy.d2d", "nvlink"), ("copy.h2d", "pcie"),
                ("copy.d2h", "pcie"), ("net.", "network"), ("coll.", "collective"), ("gemm.cpu", "cpu_gemm"),
                ("mem.stream", "stream"), ("proxy.", "proxy"), ("storage.", "storage"), ("host.busy_clock", "clock"),
                ("host.launch_latency", "launch"))


class BadInput(Exception):
    pass


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise BadInput("%s: cannot read the %s: %s" % (path, what, e.strerror))
    except ValueError as e:
        raise BadInput("%s: the %s is not JSON: %s" % (path, what, e))


def bare(entity):
    return str(entity).strip().split("/")[0].lower() or "node"


def kind_of_name(name):
    for prefix, kind in KIND_OF_NAME:
        if name.startswith(prefix):
            return kind
    return "other"


def legacy_rows(fleet):
    """Rows from the older fleet document: each slow group with the commonest kind of its flagged
    figures, each lone outlier figure, each skipped document (kind corrupt)."""
    figs = fleet.get("figures") or []
    kinds = {}
    for f in figs:
        kinds.setdefault((f.get("node"), f.get("entity") or "node"), []).append(kind_of_name(f.get("name", "")))
    rows = []
    for section in ("nodes", "gpus", "nics", "devices"):
        for g in (fleet.get("slow") or {}).get(section, []):
            entity = g.get("entity") or "node"
            ks = kinds.get((g.get("node"), entity)) or [kind_of_name(f.get("name", "")) for f in figs
                                                        if f.get("node") == g.get("node")] or ["other"]
            kind = max(sorted(set(ks)), key=ks.count)
            rows.append({"node": g.get("node"), "entity": entity, "kind": kind,
                         "deficit": (g.get("median_deficit_pct") or 0) / 100})
    seen = {(r["node"], bare(r["entity"])) for r in rows}
    for f in figs:
        entity = f.get("entity") or "node"
        if f.get("outlier") and not f.get("attributed_to") and (f.get("node"), bare(entity)) not in seen:
            rows.append({"node": f.get("node"), "entity": entity, "kind": kind_of_name(f.get("name", "")),
                         "deficit": (f.get("deficit_pct") or 0) / 100})
    for s in fleet.get("skipped") or []:
        rows.append({"node": s.get("path", ""), "entity": "node", "kind": "corrupt", "deficit": None})
    return rows


def rows_of(fleet, path):
    if isinstance(fleet, dict) and "ranked" not in fleet and isinstance(fleet.get("slow"), dict):
        print('(%s has no "ranked" list: rows derived from its "slow" groups and flagged "figures")' % path)
        fleet = {"ranked": legacy_rows(fleet)}
    if not isinstance(fleet, dict) or not isinstance(fleet.get("ranked"), list):
        raise BadInput('%s: expected a top-level "ranked" array (the ranked list of the fleet document)' % path)
    rows = []
    for i, r in enumerate(fleet["ranked"]):
        if not isinstance(r, dict) or not all(k in r for k in ("node", "entity", "kind")):
            raise BadInput('%s: ranked[%d]: expected an object with "node", "entity", "kind", "deficit"' % (path, i))
        nodes = r.get("nodes") if isinstance(r.get("nodes"), list) else []
        rows.append({"node": str(r["node"]), "nodes": [str(n) for n in nodes], "entity": bare(r["entity"]),
                     "kind": str(r["kind"]), "deficit": r.get("deficit"), "row": i,
                     "watch": r.get("watch") is True})
    return rows


def matches_node(row, fault):
    """A row names the fault's node: by host name, in a group's node list, or (for a document that
    could not be read) by the file it came from."""
    node = fault["node"]
    if row["node"] == node or node in row["nodes"]:
        return True
    return fault["kind"] == "corrupt" and (node + ".run.json") in row["node"]


def score(rows, truth, allow_watch=False):
    faults = truth.get("faults")
    names = truth.get("node_names")
    if not isinstance(faults, list) or not isinstance(names, list):
        raise BadInput('truth: expected "faults" and "node_names" arrays (gen_fleet.py truth.json)')
    faulty = set(truth.get("faulty_nodes", [f["node"] for f in faults]))
    healthy = set(names) - faulty
    results = []
    for f in faults:
        kinds = ACCEPTED_KINDS.get(f["kind"], (f["kind"],))
        want = {f["entity"]} | set(f.get("accept_entities", ()))
        on_node = [r for r in rows if matches_node(r, f) and r["kind"] in kinds]
        right = [r for r in on_node if r["entity"] in want]
        wrong = [r for r in on_node if r["entity"] not in want]
        if f["kind"] in EXCLUSIVE_KINDS:
            wrong += [r for r in rows if matches_node(r, f) and r["kind"] not in kinds]
        verdict = "wrong" if wrong else "found" if right else "missed"
        results.append({"fault": f, "verdict": verdict, "right": right, "wrong": wrong})
    alarms = [r for r in rows if r["node"] in healthy and not (allow_watch and r["watch"])]
    alarms += [dict(r, node=n) for r in rows for n in r["nodes"] if n in healthy and n != r["node"]]
    fleet_level = [r for r in rows if r["node"] not in healthy and r["node"] not in faulty and not r["nodes"]
                   and not any(matches_node(r, f) for f in faults if f["kind"] == "corrupt")]
    claimed = {(id(r)) for res in results for r in res["right"] + res["wrong"]}
    others = [r for r in rows if r["node"] in faulty and id(r) not in claimed]
    return results, alarms, healthy, fleet_level, others


def fault_label(f):
    return f["kind"] + (" (bimodal)" if f.get("group") == "bimodal" else
                        " (exact %g)" % f["size"] if f.get("exact") else "")


def describe(f):
    extra = " size %.3g" % f["size"] if f.get("size") else ""
    detail = f.get("detail")
    if detail:
        extra += " (%s)" % (", ".join(detail) if isinstance(detail, list) else detail)
    return "%s %s %s%s" % (f["node"], f["entity"], f["kind"], extra)


def report(results, alarms, healthy, fleet_level, others, rows, max_rate, quiet):
    table = {}
    for res in results:
        t = table.setdefault(fault_label(res["fault"]), {"planted": 0, "found": 0, "wrong": 0, "missed": 0})
        t["planted"] += 1
        t[res["verdict"]] += 1
    print("%-20s %8s %8s %8s %8s" % ("planted kind", "planted", "right", "wrong", "missed"))
    tot = {"planted": 0, "found": 0, "wrong": 0, "missed": 0}
    for kind in sorted(table):
        t = table[kind]
        print("%-20s %8d %8d %8d %8d" % (kind, t["planted"], t["found"], t["wrong"], t["missed"]))
        for k in tot:
            tot[k] += t[k]
    print("%-20s %8d %8d %8d %8d" % ("total", tot["planted"], tot["found"], tot["wrong"], tot["missed"]))
    alarm_nodes = sorted({r["node"] for r in alarms})
    rate = len(alarm_nodes) / len(healthy) if healthy else 0.0
    print("false alarms: %d rows on %d of %d healthy nodes (rate %.4f, allowed %.4f)"
          % (len(alarms), len(alarm_nodes), len(healthy), rate, max_rate))
    print("other rows: %d on faulty nodes beside their planted fault, %d fleet-level; %d ranked rows in all"
          % (len(others), len(fleet_level), len(rows)))
    unknown = sorted({r["kind"] for r in rows} - set(KNOWN_KINDS))
    if unknown:
        print("kinds outside the contract: " + ", ".join(unknown))
    if not quiet:
        for res in results:
            if res["verdict"] == "missed":
                print("  missed: " + describe(res["fault"]))
            elif res["verdict"] == "wrong":
                placed = ", ".join(sorted({"%s %s" % (r["entity"], r["kind"]) for r in res["wrong"]}))
                print("  wrong: %s -> reported on %s%s" % (describe(res["fault"]), placed,
                                                          " (and on the right entity)" if res["right"] else ""))
        for r in alarms[:30]:
            print("  false alarm: %s %s %s deficit %s" % (r["node"], r["entity"], r["kind"], r["deficit"]))
        if len(alarms) > 30:
            print("  ... %d more false alarms" % (len(alarms) - 30))
    failed = tot["missed"] + tot["wrong"] > 0 or rate > max_rate
    print("verdict: %s" % ("FAIL" if failed else "ok"))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fleet")
    ap.add_argument("truth")
    ap.add_argument("--max-false-alarm-rate", type=float, default=0.002, metavar="R",
                    help="largest allowed share of healthy nodes with a ranked row (default 0.002)")
    ap.add_argument("--quiet", action="store_true", help="only the table")
    ap.add_argument("--allow-watch", action="store_true",
                    help='rows marked "watch": true (below the loss that drains) are not false alarms')
    a = ap.parse_args()
    try:
        rows = rows_of(load(a.fleet, "fleet document"), a.fleet)
        truth = load(a.truth, "ground truth")
        if not isinstance(truth, dict):
            raise BadInput("%s: expected an object (gen_fleet.py truth.json)" % a.truth)
        results, alarms, healthy, fleet_level, others = score(rows, truth, a.allow_watch)
    except BadInput as e:
        print("score_fleet.py: %s" % e, file=sys.stderr)
        return 2
    return report(results, alarms, healthy, fleet_level, others, rows, a.max_false_alarm_rate, a.quiet)


if __name__ == "__main__":
    sys.exit(main())
