// Exemplar case 2: the host's CPUs in the way of the GPUs. Two causes, each its own diagnosis:
// - placement: the job's cpuset shared with another job or step, or its CPUs or memory off the
//   GPUs' NUMA node. In the case, cpusets plus NUMA binding took the gap to the reference from
//   12% to 3%: a speed-up of 0.97 / 0.88 - 1 = 10.2%.
// - C-states: deep idle states disabled (or a busy-core clock below the rated maximum), so busy
//   cores cannot turbo. In the case, allowing C6 recovered about 4% of step time.
// Periodic stalls in a workload's step times (the case's 50-100 ms spikes) raise the confidence.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

// (1 - 0.03) / (1 - 0.12) - 1: the case's gap closed from 12% to 3%.
constexpr double kPlacementRecovery = 0.97 / 0.88 - 1;
constexpr double kCstateRecovery = 0.04;

struct Cause {
  std::vector<std::string_view> codes;
  const char* cause;
  double recovery;
  const char* basis;
};

const Cause kCauses[] = {
    {{"YS-ISO-003", "YS-NUMA-001", "YS-NUMA-003", "YS-NUMA-004"},
     "the job's CPUs and memory are not placed for its GPUs: cpuset shared with other work or "
     "CPUs/memory off the GPUs' NUMA node",
     kPlacementRecovery,
     "Exemplar case 2: cpusets plus NUMA binding took the gap to the reference from 12% to 3% "
     "(0.97 / 0.88 - 1 = 10.2% faster)"},
    {{"YS-CPU-001", "YS-CPU-002", "YS-CPU-003", "YS-CPU-004", "YS-CPU-016"},
     "deep C-states are disabled (or the busy-core clock is held below its rating): busy cores "
     "cannot reach their turbo clock",
     kCstateRecovery,
     "Exemplar case 2: with C6 disabled in BIOS busy cores stayed at 3.0 GHz on a 3.8 GHz part; "
     "allowing C6 recovered about 4% of step time"},
};

class CpuPlacementRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto stalled = WorkloadsWhere(in, [](const auto& a) { return a.stalls.periodic; });
    std::vector<Diagnosis> out;
    for (const Cause& c : kCauses) {
      auto found = FindingsWithAnyCode(in, c.codes);
      if (found.empty()) continue;
      Diagnosis d = DiagnosisFromFindings("host.cpu_placement", "host", found);
      d.cause = c.cause;
      d.recovery = Published(c.recovery, c.recovery, c.basis);
      d.confidence = Confidence::kMedium;
      for (const WorkloadEvidence* w : stalled) {
        d.evidence.emplace_back(w->id + " periodic stalls", DescribeStalls(*w->analysis));
        d.confidence = Confidence::kHigh;  // the symptom the case showed
      }
      if (d.reference.empty()) d.reference = "Exemplar case 2";
      out.push_back(std::move(d));
    }
    return out;
  }
};

}  // namespace

YS_REGISTER_RULE(CpuPlacementRule,
                 {.id = "host.cpu_placement",
                  .summary = "C-states, NUMA placement and shared cpusets slow the host side of "
                             "the step (Exemplar case 2: gap 12% -> 3%, C6 about 4%)"});

}  // namespace ys::diagnose
