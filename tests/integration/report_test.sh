#!/usr/bin/env bash
# `yardstick report` the way an operator opens it: the fixture run directory (3 nodes, a
# validation, a diagnosis) rendered to one HTML file, opened in headless Chromium without a
# network; every chart must have drawn, the page must have logged no error, and the page must
# reference nothing outside itself. A screenshot is taken and kept when REPORT_SCREENSHOT names
# a path. Also: a serving suite's validation gets its phases' tables and plots; a hostile
# hostname and finding message stay text; --prices adds a Cost section;
# bad inputs exit 2 with the file named.
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
fixture=$src/tests/fixtures/runs/report-3node

if ! command -v chromium >/dev/null; then
  echo "SKIP: chromium is not installed (scripts/install-deps.sh installs it)"; exit 0
fi
if [ ! -f /usr/share/javascript/chart.js/chart.min.js ]; then
  echo "SKIP: Chart.js is not installed (libjs-chart.js; scripts/install-deps.sh installs it)"; exit 0
fi

browse() {  # browse HTML OUT_DOM [extra chromium args...]: the DOM after the page's scripts ran
  local html=$1 out=$2; shift 2
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/ud" --virtual-time-budget=5000 --dump-dom "$@" "file://$html" >"$out" 2>>"$tmp/chromium.log"
}
charts_drew() {  # charts_drew DOM WHAT: every canvas drawn, as many as the page holds, no errors
  local dom=$1 what=$2 want canvases drawn
  want=$(grep -o 'data-charts="[0-9]*"' "$dom" | grep -o '[0-9]*')
  canvases=$(grep -o '<canvas ' "$dom" | wc -l)
  drawn=$(grep -o '<canvas [^>]*data-drawn="1"' "$dom" | wc -l)
  if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$canvases" -eq "$want" ] && [ "$drawn" -eq "$want" ]; then
    passes=$((passes + 1))
  else
    echo "FAIL: $what: $drawn of $canvases canvases drawn, page says $want charts"; fails=$((fails + 1))
  fi
  if grep -q '<pre id="ys-errors" hidden=""></pre>' "$dom"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $what: the page logged errors:"; grep -A5 'id="ys-errors"' "$dom" | head -10; fails=$((fails + 1))
  fi
}

chart_count() {  # chart_count DOM N: the page holds exactly N charts
  local n
  n=$(grep -o 'data-charts="[0-9]*"' "$1" | grep -o '[0-9]*')
  [ "$n" -eq "$2" ] && passes=$((passes + 1)) || { echo "FAIL: $2 charts expected in $1, page has $n"; fails=$((fails + 1)); }
}

# The fixture: every section present, every chart drawn, no error.
expect_rc 0 "report of the fixture run directory" -- "$bin" report "$fixture" -o "$tmp/report.html"
expect_in "$tmp/out" "report: $tmp/report.html" "report says where"
browse "$tmp/report.html" "$tmp/dom.html"
charts_drew "$tmp/dom.html" "fixture report"
for id in verdict scores collectives rates step-times fleet findings versions; do
  expect_in "$tmp/dom.html" "<section id=\"$id\">" "section $id"
done
expect_in "$tmp/dom.html" 'data-verdict="fail"' "banner: the validation failed (one workload at 94%)"
expect_in "$tmp/dom.html" "host.core_sharing" "the run's diagnosis"
expect_in "$tmp/dom.html" "workload.low_mfu" "diagnosis.json's diagnosis"
expect_in "$tmp/dom.html" "YS-CPU-022" "a finding with its code"
expect_in "$tmp/dom.html" "<th>node03</th>" "the heat map has the third node"
# The scores, 7 collectives, the rates, 1 proxy + 5 workload histograms.
chart_count "$tmp/dom.html" 15

# Self-contained: no external URL outside the embedded data and Chart.js's own source (its
# licence header names its home page), no src= or href= but in-page anchors.
python3 - "$tmp/report.html" >"$tmp/external" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
page = re.sub(r'<script type="application/json" id="ys-data">.*?</script>', '', page, flags=re.S)
page = re.sub(r'<script id="ys-chartjs">.*?</script>', '', page, flags=re.S)
for m in re.finditer(r'https?://|\bsrc\s*=|\bhref\s*=\s*"(?!#)', page):
    print(page[max(0, m.start() - 60):m.end() + 60].replace('\n', ' '))
PY
[ ! -s "$tmp/external" ] && passes=$((passes + 1)) || { echo "FAIL: external references:"; cat "$tmp/external"; fails=$((fails + 1)); }
# And in the live DOM, after the scripts ran, no element loads anything (src=, or href= other
# than an in-page anchor). The page's Content-Security-Policy (default-src 'none') would block a
# load anyway; this checks that the page does not try.
if grep -qE '<[a-z]+ [^>]*(src="|href="[^#])' "$tmp/dom.html"; then
  echo "FAIL: the drawn page references something outside itself:"; grep -oE '<[a-z]+ [^>]*(src="|href="[^#])[^>]*' "$tmp/dom.html" | head -3; fails=$((fails + 1))
else
  passes=$((passes + 1))
fi

# A screenshot: a PNG of real size (a blank page compresses to a few KB).
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
  --user-data-dir="$tmp/ud" --virtual-time-budget=5000 --window-size=1280,3000 \
  --screenshot="$tmp/report.png" "file://$tmp/report.html" >/dev/null 2>>"$tmp/chromium.log"
size=$(stat -c %s "$tmp/report.png" 2>/dev/null || echo 0)
if [ "$(head -c 8 "$tmp/report.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$size" -gt 50000 ]; then
  passes=$((passes + 1))
else
  echo "FAIL: screenshot missing or trivial ($size bytes)"; fails=$((fails + 1))
fi
[ -n "$REPORT_SCREENSHOT" ] && cp "$tmp/report.png" "$REPORT_SCREENSHOT"

# With a price model: a Cost section (no chart of its own), every chart still drawn.
expect_rc 0 "report with --prices" -- "$bin" report "$fixture" -o "$tmp/cost.html" --prices "$src/examples/prices.toml" --tokens 15T
browse "$tmp/cost.html" "$tmp/cost-dom.html"
charts_drew "$tmp/cost-dom.html" "report with prices"
expect_in "$tmp/cost-dom.html" '<section id="cost">' "the cost section"
expect_in "$tmp/cost-dom.html" "blended 2.25 USD/GPU-h" "the blended price"
expect_in "$tmp/cost-dom.html" "gpt_oss_120b_bf16 in" "a validated workload priced"
expect_in "$tmp/cost-dom.html" "(estimate: a proxy of one training step" "a proxy's price marked as an estimate"
expect_not_in "$tmp/dom.html" '<section id="cost">' "no cost section without --prices"
expect_not_in "$tmp/dom.html" '<section id="burnin">' "no burn-in section for a run that is not one"
expect_rc 2 "bad price model" -- "$bin" report "$fixture" -o "$tmp/x.html" --prices "$tmp/no-prices.toml"
expect_in "$tmp/err" "$tmp/no-prices.toml" "the price model named"

# A burn-in's document (a recorded one, tests/fixtures/runs/burnin): its section and its two
# charts (rate against baseline, temperature) drawn, the planted-faults warning shown.
expect_rc 0 "report of a burn-in" -- "$bin" report "$src/tests/fixtures/runs/burnin/run.json" -o "$tmp/burnin.html"
browse "$tmp/burnin.html" "$tmp/burnin-dom.html"
charts_drew "$tmp/burnin-dom.html" "burn-in report"
expect_in "$tmp/burnin-dom.html" '<section id="burnin">' "the burn-in section"
expect_in "$tmp/burnin-dom.html" 'id="burnin-planted"' "the planted-faults warning"
expect_in "$tmp/burnin-dom.html" "miscompare" "the miscompare fault"
expect_in "$tmp/burnin-dom.html" "signal 15" "the clean stop"
chart_count "$tmp/burnin-dom.html" 2  # rate against baseline, temperature

# At 1400 px (a laptop's browser) nothing runs off the page, and no legend has one entry twice
# (the mixed profile loads cpu0 with sgemm and with triad: two rate series, one temperature).
fits_and_legible() {  # fits_and_legible DOM WHAT
  python3 - "$1" "$2" <<'PY' && passes=$((passes + 1)) || fails=$((fails + 1))
import html, json, re, sys
dom, what = open(sys.argv[1]).read(), sys.argv[2]
ok = True
m = re.search(r'<body[^>]*data-layout="(\d+) (\d+)"', dom)
if not m:
    print(f"FAIL: {what}: the page recorded no layout"); ok = False
elif int(m.group(1)) > int(m.group(2)):
    print(f"FAIL: {what}: the page is {m.group(1)} px wide in a {m.group(2)} px window"); ok = False
for canvas in re.findall(r'<canvas [^>]*>', dom):
    legend = re.search(r'data-legend="([^"]*)"', canvas)
    if not legend:
        print(f"FAIL: {what}: a chart without its legend recorded: {canvas[:120]}"); ok = False; continue
    entries = json.loads(html.unescape(legend.group(1)))
    twice = sorted({e for e in entries if entries.count(e) > 1})
    if twice:
        print(f"FAIL: {what}: legend entries shown twice: {twice}"); ok = False
sys.exit(0 if ok else 1)
PY
}
browse "$tmp/burnin.html" "$tmp/burnin-1400.html" --window-size=1400,900
fits_and_legible "$tmp/burnin-1400.html" "burn-in report at 1400 px"
expect_in "$tmp/burnin-1400.html" "cpu0@vm sgemm" "the two loads of cpu0 told apart in the legend"
expect_not_in "$tmp/burnin-1400.html" 'id="burnin-too-short"' "a burn-in past its baseline is not called too short"
browse "$tmp/report.html" "$tmp/report-1400.html" --window-size=1400,900
fits_and_legible "$tmp/report-1400.html" "run report at 1400 px"
# A burn-in shorter than its warm-up and baseline: drawn, and saying it is too short to judge.
python3 - "$src/tests/fixtures/runs/burnin/run.json" "$tmp/short.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["burnin"]
b["elapsed_s"] = 20.0
for e in b["entities"]:
    e["windows"] = e["windows"][:1]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "report of a too-short burn-in" -- "$bin" report "$tmp/short.json" -o "$tmp/short.html"
browse "$tmp/short.html" "$tmp/short-dom.html" --window-size=1400,900
expect_in "$tmp/short-dom.html" 'id="burnin-too-short"' "a too-short burn-in says so"
expect_in "$tmp/short-dom.html" "Too short to judge stability: 0:00:20 of load" "with how long it ran"
charts_drew "$tmp/short-dom.html" "too-short burn-in"
fits_and_legible "$tmp/short-dom.html" "too-short burn-in at 1400 px"

# A serving suite's validation, made the way an operator makes it: `yardstick validate` over a
# runs folder holding a real AIPerf export per phase (tests/fixtures/runs/serving-phases: one phase
# passes, one fails, one is inconclusive, one has no run folder), then reported. Each phase has
# its table and verdict; the three with a reference have a plot (measured point, reference,
# frontier), drawn, legible and on the page at 1400 px.
serving=$src/tests/fixtures/runs/serving-phases
mkdir -p "$tmp/serving/out"
for phase in qwen_chat_pass qwen_chat_fail qwen_reasoning_other_lengths; do
  mkdir -p "$tmp/serving/runs/$phase"
  cp "$src/tests/fixtures/real/serving/aiperf/aiperf_plot_fixture_qwen3_0.6b_c8.json" "$tmp/serving/runs/$phase/profile_export_aiperf.json"
done
expect_rc 1 "validate a serving suite (two phases fail)" -- "$bin" validate --suite "$serving/suite.toml" \
  --runs "$tmp/serving/runs" --reference "$serving/reference.toml" --out "$tmp/serving/out" --no-history -q
expect_rc 0 "report of a serving validation" -- "$bin" report "$tmp/serving/out" -o "$tmp/serving.html"
browse "$tmp/serving.html" "$tmp/serving-dom.html" --window-size=1400,900
charts_drew "$tmp/serving-dom.html" "serving report"
fits_and_legible "$tmp/serving-dom.html" "serving report at 1400 px"
expect_in "$tmp/serving-dom.html" '<section id="serving">' "the serving section"
chart_count "$tmp/serving-dom.html" 3  # a plot per phase with a reference
python3 - "$tmp/serving-dom.html" <<'PY' && passes=$((passes + 1)) || fails=$((fails + 1))
import html, json, re, sys
dom = open(sys.argv[1]).read()
ok = True
want = {"qwen_chat_pass": "pass", "qwen_chat_fail": "fail",
        "qwen_reasoning_other_lengths": "inconclusive", "qwen_chat_missing": "fail"}
got = dict(re.findall(r'<div class="serving-phase" data-phase="([^"]*)" data-outcome="([^"]*)"', dom))
if got != want:
    print(f"FAIL: serving report: phases and verdicts {got}, expected {want}"); ok = False
tables = re.findall(r'<table class="serving-metrics" data-phase="([^"]*)">(.*?)</table>', dom, re.S)
if [t[0] for t in tables] != ["qwen_chat_pass", "qwen_chat_fail"]:
    print(f"FAIL: serving report: metric tables for {[t[0] for t in tables]}"); ok = False
for phase, body in tables:
    if body.count("<tr") != 4 or "<th>measured</th><th>reference</th><th>score</th>" not in body:
        print(f"FAIL: serving report: {phase}'s table is not a header and three metrics"); ok = False
section = dom[dom.find('<section id="serving">'):]
section = section[:section.find('</section>')]
legends = [json.loads(html.unescape(l)) for l in re.findall(r'<canvas [^>]*data-drawn="1"[^>]*data-legend="([^"]*)"', section)]
if legends[:1] != [["measured (concurrency 8)", "reference", "95% frontier"]] or len(legends) != 3 \
        or any("95% frontier" not in l for l in legends):
    print(f"FAIL: serving report: plots drawn with legends {legends}"); ok = False
sys.exit(0 if ok else 1)
PY
expect_in "$tmp/serving-dom.html" "1 of 4 serving phases above 95% of the reference" "the banner counts serving phases"

# The fleet page (merge --html) at 1400 px: every node merged as one square, the flagged ones
# first, and nothing running off the page.
python3 "$src/tests/fixtures/fleet/make_fleet.py" --nodes 64 --seed 5 --slow-nodes 2 --slow-gpus 2 \
  --slow-nics 1 --out "$tmp/fleet" >/dev/null
expect_rc 1 "merge a fleet with planted faults" -- "$bin" merge "$tmp/fleet/nodes" -o "$tmp/fleet.json" --html "$tmp/fleet.html"
browse "$tmp/fleet.html" "$tmp/fleet-dom.html" --window-size=1400,900
python3 - "$tmp/fleet-dom.html" "$tmp/fleet.json" <<'PY' && passes=$((passes + 1)) || fails=$((fails + 1))
import json, re, sys
dom, doc = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
ok = True
m = re.search(r'<body[^>]*data-layout="(\d+) (\d+)"', dom)
if not m or int(m.group(1)) > int(m.group(2)):
    print("FAIL: fleet page: wider than the window or no layout recorded:", m and m.groups()); ok = False
grid = re.search(r'<div class="fleet" id="fleet-grid" data-nodes="(\d+)" data-flagged="(\d+)">(.*?)</div>', dom, re.S)
if not grid:
    print("FAIL: fleet page: no fleet grid"); sys.exit(1)
nodes, flagged = int(grid.group(1)), int(grid.group(2))
classes = re.findall(r'<span class="(flag|ok)"', grid.group(3))
ranked_nodes = list(dict.fromkeys(r["node"] for r in doc["ranked"]))
if nodes != 64 or len(classes) != 64:
    print(f"FAIL: fleet page: {nodes} nodes said, {len(classes)} drawn, 64 merged"); ok = False
if flagged != len(ranked_nodes) or classes[:flagged] != ["flag"] * flagged or "flag" in classes[flagged:]:
    print(f"FAIL: fleet page: the {len(ranked_nodes)} flagged nodes are not drawn first: {classes[:8]}"); ok = False
titles = re.findall(r'<span class="flag"[^>]*title="([^":]*):', grid.group(3))
if titles != ranked_nodes:
    print(f"FAIL: fleet page: flagged nodes not in the ranked order: {titles} vs {ranked_nodes}"); ok = False
sys.exit(0 if ok else 1)
PY

# HTML injection from a hostname and a finding message stays text.
python3 - "$fixture/run.json" "$tmp/evil.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
evil = '<img src=x onerror="console.error(\'pwned\')"><script>console.error("pwned")</script>'
d["host"]["hostname"] = evil
d["nodes"][1]["hostname"] = evil
for n in d["nodes"]:
    for c in n["checks"]:
        for f in c.get("findings", []):
            f["message"] = evil
d["warnings"].append("</script><script>console.error('pwned')</script>")
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 0 "report of a hostile document" -- "$bin" report "$tmp/evil.json" -o "$tmp/evil.html"
browse "$tmp/evil.html" "$tmp/evil-dom.html"
charts_drew "$tmp/evil-dom.html" "hostile document"
expect_not_in "$tmp/evil-dom.html" "<img src=" "no injected element"
expect_in "$tmp/evil-dom.html" "&lt;img src=x" "the hostname shown as text"

# Bad inputs: exit 2 naming the file and what was expected.
expect_rc 2 "missing input" -- "$bin" report "$tmp/nope.json" -o "$tmp/x.html"
expect_in "$tmp/err" "$tmp/nope.json" "missing input named"
echo '{"kind": "yardstick-validation", "suite": {"chip": "h100", "threshold": "high"}}' >"$tmp/badv.json"
expect_rc 2 "malformed validation" -- "$bin" report "$tmp/badv.json" -o "$tmp/x.html"
expect_in "$tmp/err" "suite.threshold" "the field named"
expect_rc 2 "Chart.js missing" -- "$bin" report "$fixture" -o "$tmp/x.html" --chartjs "$tmp/no-chart.js"
expect_in "$tmp/err" "libjs-chart.js" "the package named"
test ! -e "$tmp/x.html" && passes=$((passes + 1)) || { echo "FAIL: a page written on error"; fails=$((fails + 1)); }
expect_rc 64 "no -o" -- "$bin" report "$fixture"
finish
