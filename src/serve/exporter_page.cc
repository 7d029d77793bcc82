// The exporter's page at / (exporter_server.h): self-contained, no network needed.
#include <fmt/format.h>

#include "serve/exporter_server.h"

namespace ys::serve {

namespace {

// A <script> body must not contain "</script": Chart.js's minified text never does, but guard
// anyway (an inline script ends at the first one).
std::string SafeInlineScript(std::string_view js) {
  std::string out(js);
  for (size_t at = out.find("</script"); at != std::string::npos; at = out.find("</script", at)) {
    out.replace(at, 2, "<\\/");
  }
  return out;
}

constexpr const char* kPage = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>yardstick exporter</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; }}
.grid {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1.5em; }}
.note {{ color: #a33; }}
</style>
<script>{chart_js}</script>
</head><body>
<h1>yardstick exporter</h1>
<p>Live GPU telemetry of this node, polled from <code>/api/telemetry</code> every {poll} s;
the full metrics are at <a href="/metrics">/metrics</a>.</p>
<p id="status"></p>
<div class="grid">
<div><canvas id="util"></canvas></div><div><canvas id="temp"></canvas></div>
<div><canvas id="power"></canvas></div><div><canvas id="fb_used"></canvas></div>
</div>
<script>
const KEEP = 300;
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
                '#7f7f7f'];
const PANELS = {{util: 'GPU utilisation (%)', temp: 'GPU temperature (C)',
                power: 'Power (W)', fb_used: 'Framebuffer used (MiB)'}};
const status = document.getElementById('status');
const charts = {{}};
const haveChart = typeof Chart !== 'undefined';
if (!haveChart) {{
  status.className = 'note';
  status.textContent = 'Chart.js was not found when the exporter started (install libjs-chart.js); ' +
                       'no curves, the latest values are below.';
}}
function chartFor(key) {{
  if (!charts[key]) {{
    charts[key] = new Chart(document.getElementById(key), {{
      type: 'line', data: {{labels: [], datasets: []}},
      options: {{animation: false, plugins: {{title: {{display: true, text: PANELS[key]}}}},
                scales: {{x: {{ticks: {{maxTicksLimit: 8}}}}}}}}}});
  }}
  return charts[key];
}}
async function poll() {{
  try {{
    const r = await fetch('/api/telemetry', {{cache: 'no-store'}});
    const t = await r.json();
    const label = new Date(t.time * 1000).toLocaleTimeString();
    if (!haveChart) {{
      status.textContent += ' ' + JSON.stringify(t.gpus);
      return;
    }}
    status.textContent = t.gpus.length ? '' : 'No GPU readings yet.';
    for (const key of Object.keys(PANELS)) {{
      const c = chartFor(key);
      c.data.labels.push(label);
      for (const g of t.gpus) {{
        let ds = c.data.datasets.find(d => d.label === 'gpu ' + g.gpu);
        if (!ds) {{
          const color = COLORS[c.data.datasets.length % COLORS.length];
          ds = {{label: 'gpu ' + g.gpu, data: new Array(c.data.labels.length - 1).fill(null),
                pointRadius: 0, borderColor: color, backgroundColor: color}};
          c.data.datasets.push(ds);
        }}
        ds.data.push(g[key] === undefined ? null : g[key]);
      }}
      if (c.data.labels.length > KEEP) {{
        c.data.labels.shift();
        for (const ds of c.data.datasets) ds.data.shift();
      }}
      c.update();
    }}
  }} catch (e) {{
    status.className = 'note';
    status.textContent = 'Cannot reach the exporter: ' + e;
  }}
}}
poll();
setInterval(poll, {poll_ms});
</script>
</body></html>
)HTML";

}  // namespace

std::string ExporterPage(std::string_view chart_js, double poll_s) {
  return fmt::format(kPage, fmt::arg("chart_js", SafeInlineScript(chart_js)),
                     fmt::arg("poll", poll_s),
                     fmt::arg("poll_ms", static_cast<int>(poll_s * 1000)));
}

}  // namespace ys::serve
