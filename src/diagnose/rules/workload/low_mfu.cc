// workload.low_mfu: a workload's MFU far below the reference's at the same shape (or its score
// below the suite's threshold) while nothing below it is wrong: no failed finding, GEMMs at a
// healthy share of their peak, collectives not far below theirs. The gap is then in the
// workload's own tuning (parallelism, micro batch, activation recompute, communication overlap).
// Recovery, measured: reference MFU / MFU - 1 (or 1 / score - 1 without MFU).
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kDefaultThreshold = 0.95;  // the suites' pass rule (> 95% of the reference)
constexpr double kHealthyGemm = 0.6;        // GEMM at 60%+ of the dense peak
constexpr double kHealthyCollective = 0.5;  // as fabric.collective_bandwidth

// Why the micro-benchmarks are not healthy, or "" when they are (or were not measured).
std::string Unhealthy(const DiagnosisInput& in, int* measured) {
  if (in.run != nullptr) {
    for (const CheckResult* u : in.run->AllUnits()) {
      for (const auto& f : u->findings) {
        if (f.severity == Severity::kFail) return f.code + " on " + u->unit_id;
      }
    }
  }
  for (const PeakShare& p : GemmPeakShares(in)) {
    ++*measured;
    if (p.share < kHealthyGemm) return p.measurement->name + " at " + Percent(p.share) + " of peak";
  }
  for (const PeakShare& p : CollectivePeakShares(in)) {
    ++*measured;
    if (p.share < kHealthyCollective)
      return p.measurement->name + " at " + Percent(p.share) + " of peak";
  }
  return "";
}

class LowMfuRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    int measured = 0;
    std::string unhealthy = Unhealthy(in, &measured);
    if (!unhealthy.empty()) return {};  // the gap has a cause below the workload: other rules
    std::vector<Diagnosis> out;
    for (const auto& w : in.workloads) {
      double threshold = w.threshold.value_or(kDefaultThreshold);
      Diagnosis d;
      if (w.mfu && w.reference_mfu && *w.mfu > 0 && *w.mfu / *w.reference_mfu < threshold) {
        double r = *w.reference_mfu / *w.mfu - 1;
        d.cause = fmt::format("{} reaches MFU {} against the reference's {} at the same shape",
                              w.id, Percent(*w.mfu), Percent(*w.reference_mfu));
        d.recovery = Published(r, r,
                               fmt::format("measured: reference MFU / MFU - 1 = {} / {} - 1 = {}",
                                           Percent(*w.reference_mfu), Percent(*w.mfu), Percent(r)));
        d.evidence = {{w.id + " mfu", Percent(*w.mfu)},
                      {w.id + " reference mfu", Percent(*w.reference_mfu)}};
      } else if (w.score && *w.score > 0 && *w.score < threshold) {
        double r = 1 / *w.score - 1;
        d.cause = fmt::format("{} scores {:.3f} against the reference (threshold {:.2f})", w.id,
                              *w.score, threshold);
        d.recovery = Published(
            r, r,
            fmt::format("measured: 1 / score - 1 = 1 / {:.3f} - 1 = {}", *w.score, Percent(r)));
        d.evidence = {{w.id + " score", fmt::format("{:.3f}", *w.score)}};
      } else {
        continue;
      }
      d.rule = "workload.low_mfu";
      d.layer = "workload";
      d.entity = w.id;
      d.evidence.emplace_back("source", w.source);
      d.evidence.emplace_back(
          "micro-benchmarks",
          measured > 0
              ? fmt::format(
                    "{} GEMM/collective figures at healthy shares of peak, no failed finding",
                    measured)
              : "not measured in this document");
      // A suite's recipe is fixed: its parallelism is not the operator's to tune.
      d.fix =
          w.fixed_recipe
              ? "the suite fixes the recipe (parallelism, micro batch, recompute): compare this "
                "run's launch with the recipe's (container and framework versions, NCCL and "
                "environment settings, CPU and GPU binding, clocks) and run it again"
              : "tune the workload against the recipe: tensor/pipeline/context parallel sizes, "
                "micro batch size, activation recompute, communication overlap (the recipe's "
                "defaults for this chip and GPU count)";
      // Healthy micro-benchmarks are what point at the workload; unmeasured ones only do not
      // contradict it.
      d.confidence = measured > 0 ? Confidence::kMedium : Confidence::kLow;
      d.reference = "Exemplar suite pass rule (> 95% of the reference); MFU = TFLOPS/GPU / peak";
      out.push_back(std::move(d));
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(LowMfuRule,
            {.id = "workload.low_mfu",
             .summary = "MFU far below the reference (or score below threshold) with healthy "
                        "micro-benchmarks: the gap is in the workload's tuning"});

}  // namespace ys::diagnose
