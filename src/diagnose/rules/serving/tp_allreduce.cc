// serving.tp_allreduce: TPOT fails at a tensor-parallel size above 1 while the telemetry shows the
// GPUs' clocks normal. Each decode step all-reduces every layer's output across the TP group, so
// a slow NVLink or NCCL path shows in TPOT first. The confirming evidence is named: the bus
// bandwidth of coll.all_reduce on the serving node against NVLink's peak (fabric.collective_
// bandwidth judges it) and the NCCL and topology rules (fabric.nccl_qps, fabric.downtrained_link,
// container.topology_file). When a run document with coll.all_reduce is at hand, its share of
// the peak is quoted; at 90% or more the fabric is not the loss and the rule stays silent.
//
// Not quantified. Not evaluated, and said so: no telemetry that can show a held clock (the clocks
// cannot be ruled out), or clocks held down (serving.gpu_clocks explains the phase first).
#include <fmt/format.h>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kHealthyAllReduce = 0.9;

// The all-reduce bus bandwidth shares measured in the run document, if any.
std::vector<PeakShare> AllReduceShares(const DiagnosisInput& in) {
  std::vector<PeakShare> out;
  for (const PeakShare& s : CollectivePeakShares(in)) {
    if (StartsWith(s.measurement->name, "coll.all_reduce")) out.push_back(s);
  }
  return out;
}

class ServingTpAllReduceRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    const std::vector<PeakShare> shares = AllReduceShares(in);
    bool fabric_healthy = !shares.empty();
    for (const PeakShare& s : shares) fabric_healthy &= s.share >= kHealthyAllReduce;
    for (const ServingPhaseEvidence& e : in.serving) {
      const ValidationPhaseMetric* tpot = FailedMetric(e, "tpot_ms");
      const int tp = e.Disaggregated() ? e.row.decode_tp : e.LargestTp();
      if (tpot == nullptr || tp <= 1 || !TelemetryJudgesClocks(e) || !GpusHeldDown(e).empty() ||
          fabric_healthy) {
        continue;
      }
      Diagnosis d;
      d.rule = "serving.tp_allreduce";
      d.layer = "fabric";
      d.entity = PhaseEntity(e);
      d.evidence.emplace_back(tpot->name, DescribeMetric(*tpot));
      d.evidence.emplace_back("tensor parallel", std::to_string(tp));
      d.evidence.emplace_back("GPU clocks",
                              fmt::format("{} GPU(s) in {}; none held down", e.gpus.size(),
                                          Join(e.telemetry_files, ", ")));
      for (const PeakShare& s : shares) {
        d.evidence.emplace_back(s.measurement->name + " on " + s.node,
                                fmt::format("{} of peak ({})", Percent(s.share), s.peak_source));
      }
      d.evidence.emplace_back(
          "would confirm it",
          "yardstick bench coll.all_reduce on the serving node (fabric.collective_bandwidth "
          "judges its bus bandwidth against NVLink's peak); fabric.nccl_qps, "
          "fabric.downtrained_link and container.topology_file on the same run");
      d.cause = fmt::format(
          "TPOT fails at tensor-parallel size {} with the GPUs' clocks normal: the per-layer "
          "all-reduce of each decode step (NVLink, NCCL) is the likely loss",
          tp);
      d.recovery = NotQuantified("the all-reduce's share of a decode step is not in the evidence");
      d.confidence = shares.empty() ? Confidence::kLow : Confidence::kMedium;
      d.fix =
          "run yardstick bench coll.all_reduce and yardstick topo on the serving node; fix what "
          "the fabric rules name (NVLink down-trained, NCCL_* settings, the container's topology)";
      out.push_back(std::move(d));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      const int tp = e.Disaggregated() ? e.row.decode_tp : e.LargestTp();
      if (FailedMetric(e, "tpot_ms") == nullptr || tp <= 1) continue;
      if (!TelemetryJudgesClocks(e)) {
        out.push_back(fmt::format(
            "phase {}: TPOT fails at TP {} but no GPU telemetry shows the clocks: the all-reduce "
            "cannot be told from held clocks",
            e.row.id, tp));
      } else if (!GpusHeldDown(e).empty()) {
        out.push_back(fmt::format(
            "phase {}: TPOT fails at TP {} with GPU clocks held down (serving.gpu_clocks): the "
            "all-reduce not judged",
            e.row.id, tp));
      }
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingTpAllReduceRule,
            {.id = "serving.tp_allreduce",
             .summary = "TPOT fails at TP > 1 with GPU clocks normal: the per-layer all-reduce "
                        "(NVLink, NCCL) is the likely loss"});

}  // namespace ys::diagnose
