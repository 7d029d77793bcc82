#!/usr/bin/env python3
"""The ratio yardstick / peer per key, with its run-to-run spread, for the bench/*_vs_*.sh scripts.

Each input line is "<round> <key column>... <value>": one figure of one tool in one round of
alternating runs. For every key measured by both tools in a round, that round gives one ratio
yardstick / peer. Printed per key: the median of each tool's figures, the median ratio, the
spread of the per-round ratios (min-max, and the interquartile range), and the verdict. A
difference is called ("differs") only when the median ratio lies further from 1.00 than the
spread: the IQR with 4 or more rounds, else the min-max range. Otherwise "same" (within noise).
The last line counts the keys that differ.
"""
import argparse
import collections
import statistics
import sys


def load(path, key_columns):
    """{key: {round: value}} from the lines of one tool."""
    out = collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) != key_columns + 2:
                continue
            key = tuple(fields[1:1 + key_columns])
            out[key][fields[0]] = float(fields[-1])
    return out


def quartiles(values):
    if len(values) < 2:
        return values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def summarise(ratios):
    """(median, low, high, q1, q3, spread, verdict) of the per-round ratios."""
    med = statistics.median(ratios)
    q1, q3 = quartiles(ratios)
    spread = (q3 - q1) if len(ratios) >= 4 else (max(ratios) - min(ratios))
    verdict = "differs" if abs(med - 1.0) > spread else "same"
    return med, min(ratios), max(ratios), q1, q3, spread, verdict


def sort_key(key):
    return tuple((0, int(k), "") if k.isdigit() else (1, 0, k) for k in key)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("yardstick")
    ap.add_argument("peer")
    ap.add_argument("--key-columns", type=int, required=True)
    ap.add_argument("--labels", required=True, help="comma-separated names of the key columns")
    ap.add_argument("--peer-name", default="peer")
    ap.add_argument("--digits", type=int, default=1, help="decimals of the tools' figures")
    a = ap.parse_args()
    labels = a.labels.split(",")
    ys, peer = load(a.yardstick, a.key_columns), load(a.peer, a.key_columns)
    widths = [max(len(l), 8) for l in labels]
    head = " ".join(f"{l:>{w}}" for l, w in zip(labels, widths))
    print(f"{head} {'yardstick':>10} {a.peer_name:>10} {'ratio':>6} {'min-max':>11} "
          f"{'IQR':>11} {'rounds':>6}  verdict")
    differs = total = 0
    for key in sorted(ys, key=sort_key):
        rounds = sorted(set(ys[key]) & set(peer.get(key, {})))
        ratios = [ys[key][r] / peer[key][r] for r in rounds if peer[key][r] > 0]
        if not ratios:
            continue
        med, lo, hi, q1, q3, _, verdict = summarise(ratios)
        total += 1
        differs += verdict == "differs"
        y = statistics.median(ys[key][r] for r in rounds)
        p = statistics.median(peer[key][r] for r in rounds)
        cols = " ".join(f"{k:>{w}}" for k, w in zip(key, widths))
        print(f"{cols} {y:>10.{a.digits}f} {p:>10.{a.digits}f} {med:>6.2f} {lo:>5.2f}-{hi:<5.2f} "
              f"{q1:>5.2f}-{q3:<5.2f} {len(ratios):>6}  {verdict}")
    if total == 0:
        print("no key was measured by both tools", file=sys.stderr)
        return 2
    print(f"# {differs} of {total} differ from 1.00 by more than their spread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
