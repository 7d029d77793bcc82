// serving.gpu_clocks: a serving phase fell short while its GPUs' clocks were held down, as the
// telemetry recorded during the run shows (serving_evidence.h GpusHeldDown): a slowdown reason
// (power cap, HW slowdown, thermal, power brake) in at least 10% of a busy GPU's samples with its
// SM clock below its maximum, DCGM's power or thermal violation counters over 10% of the run, or
// power at its limit with the clock below its maximum.
//
// What it costs: with the SM clock and its maximum, a compute-bound prefill recovers
// max / clock - 1 and a memory-bound decode less, so half that .. that; else not quantified.
// Not evaluated, and said so: a phase with no telemetry, or telemetry that cannot show a held
// clock (no maximum clock, no throttle reasons, no violation counters), or a telemetry file that
// could not be read.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

Diagnosis HeldClocksDiagnosis(const ServingPhaseEvidence& e, const std::vector<HeldGpu>& held) {
  Diagnosis d;
  d.rule = "serving.gpu_clocks";
  d.layer = "gpu";
  d.entity = PhaseEntity(e);
  std::vector<std::string> names;
  double loss = 0;
  for (const HeldGpu& h : held) {
    names.push_back(h.gpu->gpu);
    d.evidence.emplace_back(h.gpu->gpu, h.why + " (" + h.gpu->source + ")");
    if (h.clock_loss) loss = std::max(loss, *h.clock_loss);
  }
  for (std::string_view key : {"output_tokens_per_s_per_gpu", "ttft_ms", "tpot_ms"}) {
    if (const ValidationPhaseMetric* m = e.row.Metric(key)) {
      d.evidence.emplace_back(m->name, DescribeMetric(*m));
    }
  }
  d.cause = fmt::format("GPU clocks held down while phase {} ran: {} of {} GPU(s) ({}): {}",
                        e.row.id, held.size(), e.gpus.size(), Join(names, ", "), held.front().why);
  if (loss > 0) {
    d.recovery = Published(loss / 2, loss,
                           fmt::format("measured: the SM clock ran {} below its maximum; a "
                                       "compute-bound prefill recovers max / clock - 1 = {}, a "
                                       "memory-bound decode less",
                                       Percent(1 - 1 / (1 + loss)), Percent(loss)));
  } else {
    d.recovery = NotQuantified("the telemetry states no maximum SM clock to measure the loss");
  }
  const bool failed = e.row.outcome == "fail";
  const bool most = std::any_of(held.begin(), held.end(),
                                [](const HeldGpu& h) { return h.gpu->slowdown_share >= 0.5; });
  d.confidence = failed && most ? Confidence::kHigh
                 : failed       ? Confidence::kMedium
                                : Confidence::kLow;
  d.fix =
      "check cooling, power capping and the power supply of the GPUs named (nvidia-smi -q -d "
      "PERFORMANCE,POWER,TEMPERATURE); yardstick preflight judges them (gpu.clocks, gpu.power, "
      "gpu.thermal)";
  return d;
}

class ServingGpuClocksRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort()) continue;
      std::vector<HeldGpu> held = GpusHeldDown(e);
      if (!held.empty()) out.push_back(HeldClocksDiagnosis(e, held));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (!e.FellShort()) continue;
      for (const std::string& p : e.problems) out.push_back("phase " + e.row.id + ": " + p);
      if (e.dir.empty()) {
        out.push_back("phase " + e.row.id + ": no runs folder given: GPU clocks not judged");
      } else if (e.gpus.empty()) {
        out.push_back(fmt::format(
            "phase {}: no GPU telemetry in {} (an nvidia-smi --query-gpu CSV, or an AIPerf "
            "export with --gpu-telemetry): GPU clocks not judged",
            e.row.id, e.dir));
      } else if (!TelemetryJudgesClocks(e)) {
        out.push_back(fmt::format(
            "phase {}: the telemetry has no maximum SM clock, throttle reasons or violation "
            "counters (add clocks.max.sm,clocks_event_reasons.active,power.limit to the "
            "nvidia-smi query): GPU clocks not judged",
            e.row.id));
      }
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingGpuClocksRule,
            {.id = "serving.gpu_clocks",
             .summary = "a serving phase fell short while its GPUs' clocks were held down by "
                        "power, thermal or hardware slowdown (telemetry recorded in the run)"});

}  // namespace ys::diagnose
