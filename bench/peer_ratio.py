#!/usr/bin/env python3
"""The ratio yardstick / peer per key, with its run-to-run spread, for the bench/*_vs_*.sh scripts.

Each input line is "<round> <key column>... <value>": one figure of one tool in one round of
alternating runs. For every key measured by both tools in a round, that round gives one ratio
yardstick / peer. Printed per key: the median of each tool's figures, the median ratio, the
spread of the per-round ratios (min-max and the interquartile range), the 95% confidence interval
of the median ratio, and the verdict.

The verdict asks two things. Is the difference real? A sign test, which assumes nothing about
the shape of the noise: the 95% interval runs from the k-th smallest to the k-th largest ratio,
with k the largest order for which two tools that agree (per-round ratios as likely above 1.00 as
below) put 1.00 outside it in at most 5% of runs (binomial tails; 6 rounds: min-max, 3.1%; 10:
the 2nd of each end, 2.1%). Is it larger than the run-to-run spread (the IQR's width)? A harness
whose difference is smaller than what two runs of the same tool differ by does not change a
verdict drawn from one run. So: "same" when 1.00 lies inside the interval; "differs" when outside
and the median ratio is further from 1.00 than the spread; "within spread" when outside but
closer than the spread (a consistent difference smaller than the noise: the interval column shows
it). Fewer than 6 rounds reach no 95% interval: "too few rounds". The last line counts each
verdict and states how many "differs" tools that agree would show by chance (at most the sign
test's rate). (The IQR rule alone, median further from 1.00 than the IQR, called 9% of keys
different at 6 rounds with normal noise and no difference: two runs of 21 keys showed 1 and 5.)
"""
import argparse
import collections
import math
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


MIN_COVERAGE = 0.95


def median_interval(n):
    """(k, false_alarm): the order k (1-based, from each end) of the widest-k interval around the
    median of n ratios whose chance of leaving out the true median is at most 1 - MIN_COVERAGE,
    and that chance (two binomial(n, 1/2) tails below k); (0, 1.0) when no k reaches it."""
    best = (0, 1.0)
    for k in range(1, n // 2 + 1):
        tail = sum(math.comb(n, i) for i in range(k)) / 2**n
        if 2 * tail <= 1 - MIN_COVERAGE:
            best = (k, 2 * tail)
    return best


def summarise(ratios):
    """(median, low, high, q1, q3, ci_low, ci_high, false_alarm, verdict) of the per-round ratios."""
    med = statistics.median(ratios)
    q1, q3 = quartiles(ratios)
    s = sorted(ratios)
    k, alpha = median_interval(len(s))
    if k == 0:
        return med, s[0], s[-1], q1, q3, None, None, None, "too few rounds"
    lo, hi = s[k - 1], s[-k]
    if lo <= 1.0 <= hi:
        verdict = "same"
    else:
        verdict = "differs" if abs(med - 1.0) > q3 - q1 else "within spread"
    return med, s[0], s[-1], q1, q3, lo, hi, alpha, verdict


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
          f"{'IQR':>11} {'95% CI':>11} {'rounds':>6}  verdict")
    differs = small = total = judged = 0
    chance = 0.0
    for key in sorted(ys, key=sort_key):
        rounds = sorted(set(ys[key]) & set(peer.get(key, {})))
        ratios = [ys[key][r] / peer[key][r] for r in rounds if peer[key][r] > 0]
        if not ratios:
            continue
        med, lo, hi, q1, q3, ci_lo, ci_hi, alpha, verdict = summarise(ratios)
        total += 1
        differs += verdict == "differs"
        small += verdict == "within spread"
        if alpha is not None:
            judged += 1
            chance += alpha
        ci = f"{ci_lo:>5.2f}-{ci_hi:<5.2f}" if ci_lo is not None else f"{'-':>11}"
        y = statistics.median(ys[key][r] for r in rounds)
        p = statistics.median(peer[key][r] for r in rounds)
        cols = " ".join(f"{k:>{w}}" for k, w in zip(key, widths))
        print(f"{cols} {y:>10.{a.digits}f} {p:>10.{a.digits}f} {med:>6.2f} {lo:>5.2f}-{hi:<5.2f} "
              f"{q1:>5.2f}-{q3:<5.2f} {ci} {len(ratios):>6}  {verdict}")
    if total == 0:
        print("no key was measured by both tools", file=sys.stderr)
        return 2
    print(f"# {differs} of {total} differ: 1.00 outside the 95% confidence interval of the median "
          f"ratio and the median further from 1.00 than the spread; tools that agree would show "
          f"{chance:.1f} of the {judged} judged by chance; {small} within spread (a consistent "
          f"difference smaller than the run-to-run spread)"
          + (f"; {total - judged} with too few rounds to judge (6 needed)" if judged < total else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
