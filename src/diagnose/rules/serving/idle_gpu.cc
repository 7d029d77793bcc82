// serving.idle_gpu: a serving phase fell short while one of its GPUs sat idle (utilisation under
// 5%) holding the model (memory used at least half the busy GPUs') and others worked (30% or
// more): a tensor-parallel group that lost a rank, or data-parallel replicas with unequal load.
// A GPU that holds no memory is not part of the deployment (a node's other GPUs, which an
// exporter lists too) and is left out; an idle GPU without memory readings is not judged, and
// said so.
//
// What it costs: the idle GPUs' share s of the loaded GPUs, recovering 1 / (1 - s) - 1 once
// they work as the others do.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kIdlePct = 5;
constexpr double kBusyPct = 30;
constexpr double kLoadedShare = 0.5;  // of the busy GPUs' largest memory use

struct IdleSplit {
  std::vector<const GpuRunReadings*> busy, idle_loaded, idle_unknown;
};

IdleSplit SplitIdle(const ServingPhaseEvidence& e) {
  IdleSplit s;
  double busy_memory = 0;
  for (const GpuRunReadings& g : e.gpus) {
    if (g.utilization_pct && *g.utilization_pct >= kBusyPct) {
      s.busy.push_back(&g);
      if (g.memory_used_mib) busy_memory = std::max(busy_memory, *g.memory_used_mib);
    }
  }
  if (s.busy.empty()) return s;
  for (const GpuRunReadings& g : e.gpus) {
    if (!g.utilization_pct || *g.utilization_pct >= kIdlePct) continue;
    if (!g.memory_used_mib || busy_memory <= 0) {
      s.idle_unknown.push_back(&g);
    } else if (*g.memory_used_mib >= kLoadedShare * busy_memory) {
      s.idle_loaded.push_back(&g);
    }
  }
  return s;
}

class ServingIdleGpuRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort()) continue;
      IdleSplit s = SplitIdle(e);
      if (s.idle_loaded.empty()) continue;
      Diagnosis d;
      d.rule = "serving.idle_gpu";
      d.layer = "gpu";
      d.entity = PhaseEntity(e);
      std::vector<std::string> names;
      for (const GpuRunReadings* g : s.idle_loaded) {
        names.push_back(g->gpu);
        d.evidence.emplace_back(
            g->gpu, fmt::format("utilisation {:.0f}%, {:.0f} MiB used ({})", *g->utilization_pct,
                                *g->memory_used_mib, g->source));
      }
      for (const GpuRunReadings* g : s.busy) {
        d.evidence.emplace_back(g->gpu, fmt::format("utilisation {:.0f}%", *g->utilization_pct));
      }
      d.cause = fmt::format(
          "{} of the phase's loaded GPUs sat idle while {} worked ({}): a tensor-parallel group "
          "that lost a rank, or data-parallel replicas with unequal load",
          s.idle_loaded.size(), s.busy.size(), Join(names, ", "));
      double share = static_cast<double>(s.idle_loaded.size()) /
                     static_cast<double>(s.idle_loaded.size() + s.busy.size());
      d.recovery = Published(RecoveryFromShare(share), RecoveryFromShare(share),
                             fmt::format("measured: {} of the loaded GPUs idle; running them as "
                                         "the others recovers 1 / (1 - s) - 1",
                                         Percent(share)));
      d.confidence = e.row.outcome == "fail" ? Confidence::kMedium : Confidence::kLow;
      d.fix =
          "read the server log of the idle GPUs' worker for a rank that stopped or restarted; "
          "check the router's load balance across data-parallel replicas; rerun the phase";
      out.push_back(std::move(d));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort()) continue;
      IdleSplit s = SplitIdle(e);
      if (s.idle_unknown.empty()) continue;
      out.push_back(fmt::format(
          "phase {}: {} GPU(s) idle while others worked, but without memory readings a lost "
          "rank cannot be told from a GPU the deployment does not use",
          e.row.id, s.idle_unknown.size()));
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingIdleGpuRule,
            {.id = "serving.idle_gpu",
             .summary = "a serving phase fell short while a GPU holding the model sat idle and "
                        "others worked (a lost TP rank, an imbalanced DP)"});

}  // namespace ys::diagnose
