#include "burnin/burnin_document.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "burnin/analyser.h"
#include "burnin_report/burnin_section.h"
#include "core/atomic_file.h"
#include "core/run_document_json.h"
#include "host/host_info.h"

namespace ys::burnin {

RunDocument MakeBurninDocument(const BurninReport& report, const host::Host& host,
                               const std::string& gpu_source, double wall_s,
                               const std::string& incomplete_reason) {
  RunDocument doc = StartRunDocument("burnin");
  doc.started_at = report.started_at;
  doc.duration_ms = wall_s * 1000;
  doc.host = host::ReadHostInfo(host);
  doc.host.gpu_source = gpu_source;
  if (!report.planted.empty()) {
    doc.warnings.push_back("faults were planted by a recorded timeline (" +
                           report.telemetry_source +
                           "): a test of the burn-in, not an acceptance result");
  }
  doc.incomplete = !incomplete_reason.empty();
  doc.incomplete_reason = incomplete_reason;
  doc.checks.push_back(BurninCheckResult(report));
  for (const auto& e : report.entities) {
    if (e.metric.empty() || !e.perf_median) continue;
    Measurement m;
    m.name = "burnin." + e.metric;
    m.value = *e.perf_median;
    m.unit = e.unit;
    m.params = {{"device", e.entity}, {"host", e.node}, {"statistic", "median of window medians"}};
    if (e.perf_baseline) m.params["baseline"] = fmt::format("{:.6g}", *e.perf_baseline);
    for (const auto& w : e.windows) {
      if (w.perf) m.samples.push_back(*w.perf);
    }
    m.stats = ComputeStats(m.samples);
    doc.measurements.push_back(std::move(m));
  }
  SetBurnin(doc, report);
  return doc;
}

Status WriteBurninDocument(const std::string& dir, const RunDocument& doc) {
  return WriteFileAtomic(dir + "/run.json", DumpJson(ToJson(doc)) + "\n", {.durable = true});
}

}  // namespace ys::burnin
