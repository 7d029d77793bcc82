#!/usr/bin/env bash
# How `yardstick predict` does on published tables it was never fitted on: the Megatron-Bridge
# performance archive's NeMo 25.09 and 25.11 pre-training tables (bench/data/
# megatron_bridge_perf_archive.tsv, one row per table row with a model file here, the table's own
# parallelism). The base calibration (calibration/step_model.toml) is fitted on dgxc-benchmarking
# v25.04.02/v25.05.05 rows only; each row is predicted with `--release` of its own release, whose
# constants (calibration/releases.toml) are fitted on that release's published rows, so a row of
# a calibrated release is in sample (the out-of-sample figure is predict --published's
# leave-one-model-out table). With an empty calibration/releases.toml it measures the base
# constants alone.
#
# Prints per row the published step time (GBS x seq / (tokens/s/GPU x GPUs)), the prediction and
# the error; then the median and 90th-percentile |error| over all rows, dense and MoE rows, per
# chip family and per release, and the median signed error; and, for every recipe the two
# releases both ran (same chip, model, precision, parallelism, dispatcher, token drop and
# all-to-all overlap), how far the published step time itself moved between releases: the part of
# the error no model of those fields can remove.
#
#   bench/predict_other_releases.sh [build/yardstick]        environment: DATA (the table file)
set -euo pipefail
bin=$(realpath "${1:-build/yardstick}")
src=$(cd "$(dirname "$0")/.." && pwd)
data=${DATA:-$src/bench/data/megatron_bridge_perf_archive.tsv}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

echo "yardstick: $("$bin" version 2>/dev/null | head -1)"
echo "calibration: $src/calibration/step_model.toml (fitted on dgxc-benchmarking v25.04.02 and v25.05.05)"
echo "release constants: $src/calibration/releases.toml, each row predicted with --release of its own"
echo "release (the nearest older calibrated one where its own is not): since those constants are"
echo "fitted on baselines/published/megatron_bridge.tsv, which holds these tables, rows of a"
echo "calibrated release are in sample; predict --published prints the leave-one-model-out errors"
echo "table: $data"
echo

while read -r rel chip model dtype gpus gbs mbs seq tp pp cp vp ep etp disp drop overlap tok; do
  [[ -z "$rel" || "$rel" == \#* ]] && continue
  args=(predict --json --data "$src" --release "$rel" --model "$model" --chip "$chip" --dtype "$dtype" --gpus "$gpus"
        --gbs "$gbs" --mbs "$mbs" --seq "$seq" --tp "$tp" --pp "$pp" --cp "$cp" --vp "$vp" --ep "$ep")
  [[ "$etp" != - ]] && args+=(--etp "$etp")
  [[ "$disp" != - ]] && args+=(--dispatcher "$disp")
  [[ "$drop" != - ]] && args+=(--token-drop "$drop")
  [[ "$overlap" != - ]] && args+=(--a2a-overlap "$overlap")
  if "$bin" "${args[@]}" >"$work/p.json" 2>"$work/err"; then
    pred=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$work/p.json")
  else
    pred="error:$(tr '\n' ' ' <"$work/err")"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$rel" "$chip" "$model" "$dtype" "$gpus" "$gbs" "$mbs" "$seq" "$tp/$pp/$cp/$vp/$ep" "$disp" "$drop" \
    "$overlap" "$tok" "$pred" "$ep" >>"$work/rows"
done <"$data"

python3 - "$work/rows" <<'PY'
import statistics as st, sys
rows = []
for line in open(sys.argv[1]):
    rel, chip, model, dtype, gpus, gbs, mbs, seq, par, disp, drop, overlap, tok, pred, ep = \
        line.rstrip("\n").split("\t")
    pub = int(gbs) * int(seq) / (float(tok) * int(gpus))
    r = dict(rel=rel, chip=chip, model=model, dtype=dtype, gpus=int(gpus), gbs=int(gbs), mbs=int(mbs),
             seq=int(seq), par=par, moe_fields=(disp, drop, overlap), pub=pub,
             moe=int(ep) > 1 or disp != "-")
    if pred.startswith("error:"):
        r["err"] = None; r["why"] = pred[6:]
    else:
        r["pred"] = float(pred); r["err"] = float(pred) / pub - 1
    rows.append(r)

print(f"{'release':7} {'chip':6} {'model':18} {'dtype':5} {'GPUs':>5} {'GBS':>5} {'tp/pp/cp/vp/ep':>15}"
      f" {'published':>10} {'predicted':>10} {'error':>8}")
for r in rows:
    tail = f"{r['pred']:10.3f} {100 * r['err']:+7.1f}%" if r["err"] is not None else "  not predicted: " + r["why"]
    print(f"{r['rel']:7} {r['chip']:6} {r['model']:18} {r['dtype']:5} {r['gpus']:5d} {r['gbs']:5d}"
          f" {r['par']:>15} {r['pub']:10.3f} {tail}")

def p90(xs):  # nearest rank, as the calibration's own statistics
    xs = sorted(xs); return xs[max(0, -(-9 * len(xs) // 10) - 1)]

def summary(name, sel):
    e = [r["err"] for r in sel if r["err"] is not None]
    if not e:
        return
    a = [abs(x) for x in e]
    print(f"  {name:28} {len(e):3d} rows   median |error| {100 * st.median(a):5.1f}%   "
          f"90th percentile {100 * p90(a):5.1f}%   median signed {100 * st.median(e):+6.1f}%")

print("\nerrors (rows of a calibrated release are in sample, see the header):")
summary("all", rows)
summary("dense", [r for r in rows if not r["moe"]])
summary("MoE", [r for r in rows if r["moe"]])
for fam, chips in (("Hopper (h100)", {"h100"}), ("Blackwell (b200, gb200, gb300)", {"b200", "gb200", "gb300"})):
    summary(fam, [r for r in rows if r["chip"] in chips])
    summary(fam + ", dense", [r for r in rows if r["chip"] in chips and not r["moe"]])
for rel in sorted({r["rel"] for r in rows}):
    summary("release " + rel, [r for r in rows if r["rel"] == rel])
missed = [r for r in rows if r["err"] is None]
if missed:
    print(f"  {len(missed)} row(s) not predicted (listed above)")

key = lambda r: (r["chip"], r["model"], r["dtype"], r["gpus"], r["gbs"], r["mbs"], r["seq"], r["par"],
                 r["moe_fields"])
by = {}
for r in rows:
    by.setdefault(key(r), []).append(r)
pairs = [v for v in by.values() if len({r["rel"] for r in v}) > 1]
if pairs:
    print("\nthe same recipe in two releases (every field of the table row the same: parallelism,"
          " dispatcher, token drop, all-to-all overlap; published step time, then the change):")
    moves = []
    for v in sorted(pairs, key=lambda v: key(v[0])):
        v = sorted(v, key=lambda r: r["rel"])
        a, b = v[0], v[-1]
        moves.append(b["pub"] / a["pub"] - 1)
        print(f"  {a['chip']:6} {a['model']:18} {a['dtype']:5} {a['gpus']:5d} GPUs {a['par']:>15}: "
              f"{a['rel']} {a['pub']:.3f} s, {b['rel']} {b['pub']:.3f} s ({100 * moves[-1]:+.1f}%)")
    print(f"  median |change| {100 * st.median(abs(m) for m in moves):.1f}%, largest "
          f"{100 * max(moves, key=abs):+.1f}%: a prediction from the recipe alone carries at least this")
PY
