// serving.host_frontend: TTFT fails at low concurrency (1 to 8) while TPOT is within its
// reference. At that load nothing queues and the GPUs decode at the reference's pace, so the time
// before the first token is lost before the GPU's prefill or around it: tokenisation, scheduling,
// the server process's CPU. The node checks that bear on it are named (cpu.frequency.governor,
// cpu.cstates.*, numa.placement.*), with the evidence that would confirm it.
//
// The symptom alone: low confidence, not quantified (TTFT is a latency). Not evaluated, and said
// so: TTFT failing at low concurrency with TPOT not compared, or the point's concurrency unknown.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr int kLowConcurrency = 8;

class ServingHostFrontendRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    std::vector<Diagnosis> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      const ValidationPhaseMetric* ttft = FailedMetric(e, "ttft_ms");
      const ValidationPhaseMetric* tpot = PassedMetric(e, "tpot_ms");
      std::optional<int> c = e.Concurrency();
      if (ttft == nullptr || tpot == nullptr || !c || *c > kLowConcurrency) continue;
      Diagnosis d;
      d.rule = "serving.host_frontend";
      d.layer = "host";
      d.entity = PhaseEntity(e);
      d.evidence.emplace_back("concurrency", std::to_string(*c));
      d.evidence.emplace_back(ttft->name, DescribeMetric(*ttft));
      d.evidence.emplace_back(tpot->name, DescribeMetric(*tpot));
      for (const GpuRunReadings& g : e.gpus) {
        if (g.utilization_pct) {
          d.evidence.emplace_back(g.gpu, fmt::format("utilisation {:.0f}%", *g.utilization_pct));
        }
      }
      d.evidence.emplace_back(
          "would confirm it",
          "the server log's per-request queue and tokenisation times; the server process's CPU "
          "during the run (pidstat -u -p PID 1: one core at 100% is the frontend's limit); a "
          "preflight on the serving node failing cpu.frequency.governor, cpu.cstates.* or "
          "numa.placement.*");
      d.cause = fmt::format(
          "TTFT fails at concurrency {} while TPOT is within its reference: the time before the "
          "first token is lost on the host (tokenisation, scheduling, the server process's CPU), "
          "not in the GPUs' decode",
          *c);
      d.recovery = NotQuantified(
          "TTFT is a latency; what the host costs throughput at this load is not in the evidence");
      d.confidence = Confidence::kLow;
      d.fix =
          "run yardstick preflight on the serving node and fix what cpu.frequency.governor "
          "(performance), cpu.cstates.* (no deep C-states) and numa.placement.* (the server on "
          "the GPUs' NUMA node) report; pin the server process to the GPUs' NUMA node";
      out.push_back(std::move(d));
    }
    return out;
  }

  std::vector<std::string> Unjudged(const DiagnosisInput& in) const override {
    std::vector<std::string> out;
    for (const ServingPhaseEvidence& e : in.serving) {
      if (FailedMetric(e, "ttft_ms") == nullptr) continue;
      std::optional<int> c = e.Concurrency();
      if (!c) {
        out.push_back("phase " + e.row.id +
                      ": TTFT fails but the point's concurrency is not known: host latency not "
                      "judged");
      } else if (*c <= kLowConcurrency && e.row.Metric("tpot_ms") == nullptr) {
        out.push_back(fmt::format(
            "phase {}: TTFT fails at concurrency {} but TPOT was not compared: host latency "
            "cannot be told from a slow prefill",
            e.row.id, *c));
      }
    }
    return out;
  }
};

}  // namespace

YS_REGISTER(ServingHostFrontendRule,
            {.id = "serving.host_frontend",
             .summary = "TTFT fails at low concurrency while TPOT holds: latency lost on the host "
                        "(tokenisation, scheduling, the server's CPU)"});

}  // namespace ys::diagnose
