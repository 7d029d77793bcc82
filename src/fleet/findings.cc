#include "fleet/findings.h"

#include <fmt/format.h>

#include "core/finding_codes.h"

namespace ys::fleet {

// Nodes and devices far below their peers (fleet.slow_node and fleet.slow_gpu read them).
YS_FINDING_CODES("fleet", {{"YS-FLEET-001", Severity::kFail, "node far below its peers' median"},
                           {"YS-FLEET-002", Severity::kFail,
                            "GPU, NIC or other device far below its peers' median"}})

FleetReport AnalyseDocument(const RunDocument& doc, const FleetOptions& options) {
  FleetAccumulator accumulator(options);
  ForEachMeasurement(doc, [&](const Measurement& m, const std::string&) { accumulator.Add(m); });
  FleetJudge judge(accumulator.Finalize(), options);
  PeerSamples samples;
  judge.Observe(doc, samples);
  judge.SetPeers(samples);
  judge.AddDocument(doc, "this run");
  FleetReport report = judge.Finish();
  report.warnings = accumulator.conflicts();
  return report;
}

CheckResult FleetOutliers(const RunDocument& doc, const FleetOptions& options) {
  if (static_cast<int64_t>(doc.nodes.size()) < options.min_peers) {
    return CheckResult::Skip(fmt::format("{} node{} in this run: fleet comparison needs {} or more",
                                         doc.nodes.size(), doc.nodes.size() == 1 ? "" : "s",
                                         options.min_peers));
  }
  FleetReport report = AnalyseDocument(doc, options);
  CheckResult r;
  for (const SlowGroup& g : report.slow) {
    bool node = g.entity.kind == EntityKind::kNode;
    std::string what =
        node ? "node " + g.node
             : fmt::format("{} {} on {}", EntityKindName(g.entity.kind), g.entity.label, g.node);
    Finding f = MakeFinding(
        node ? "YS-FLEET-001" : "YS-FLEET-002", node ? g.node : g.node + "/" + g.entity.label,
        fmt::format("{} is {:.1f}% below its peers' median over {} figures ({} of them at least "
                    "{:.0f}% low; scaled robust z {:.1f})",
                    what, 100 * g.median_deficit, g.figures, g.low_figures,
                    100 * options.min_deficit, g.z));
    f.evidence = {{"median deficit", fmt::format("{:.1f}%", 100 * g.median_deficit)},
                  {"figures judged", std::to_string(g.figures)},
                  {"z", fmt::format("{:.1f}", g.z)}};
    f.fix =
        node
            ? "take the node out of service (drain it) and compare its preflight with a healthy "
              "node's: clocks, C-states, NUMA placement, cpusets, PCIe and NIC links"
            : "reset or replace the device after checking its clocks, throttle reasons, link width "
              "and error counters (yardstick preflight --filter 'gpu.*,pcie.*,ib.*' on that node)";
    f.reference = "fleet median and MAD across the nodes and devices of this run";
    r.Add(std::move(f));
  }
  if (r.findings.empty()) {
    r.summary = fmt::format("{} nodes, {} figures compared: no node or device stands out",
                            doc.nodes.size(), report.figures);
  }
  r.Finalize();
  return r;
}

}  // namespace ys::fleet
