// Exemplar case 2: the host's CPUs in the way of the GPUs. Two causes, each its own diagnosis:
// - placement: the job's cpuset shared with another job or step, or its CPUs or memory off the
//   GPUs' NUMA node. In the case, cpusets plus NUMA binding took the gap to the reference from
//   12% to 3%: a speed-up of 0.97 / 0.88 - 1 = 10.2%.
// - busy-core clock: deep idle states disabled, turbo off or the frequency capped, so busy cores
//   cannot reach their rated clock. In the case (C6 disabled, busy cores at 3.0 GHz on a 3.8 GHz
//   part) allowing C6 recovered about 4% of step time. The measured busy-core clock below its
//   rating (YS-CPU-016) is the case's symptom: with it the confidence is medium, without it (a
//   setting that may or may not hold the clock down under this load) low.
// Periodic stalls in a workload's step times (the case's 50-100 ms spikes, from housekeeping
// threads on the job's cores) raise the confidence in the placement cause.
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
  // The finding that shows the symptom itself, not only a setting that can cause it ("" if none).
  std::string_view symptom;
  bool stalls_strengthen;  // periodic step-time stalls point at this cause
};

const Cause kCauses[] = {
    {{"YS-ISO-003", "YS-NUMA-001", "YS-NUMA-003", "YS-NUMA-004"},
     "the job's CPUs and memory are not placed for its GPUs: cpuset shared with other work or "
     "CPUs/memory off the GPUs' NUMA node",
     kPlacementRecovery,
     "Exemplar case 2: cpusets plus NUMA binding took the gap to the reference from 12% to 3% "
     "(0.97 / 0.88 - 1 = 10.2% faster)",
     "",
     true},
    {{"YS-CPU-001", "YS-CPU-002", "YS-CPU-003", "YS-CPU-004", "YS-CPU-010", "YS-CPU-011",
      "YS-CPU-012", "YS-CPU-014", "YS-CPU-016"},
     "busy cores cannot reach their rated clock: deep C-states disabled, turbo off or the "
     "frequency capped",
     kCstateRecovery,
     "Exemplar case 2: with C6 disabled in BIOS busy cores stayed at 3.0 GHz on a 3.8 GHz part; "
     "allowing C6 recovered about 4% of step time",
     "YS-CPU-016",
     false},
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
      bool symptom = c.symptom.empty() || !FindingsWithCode(in, c.symptom).empty();
      d.confidence = symptom ? Confidence::kMedium : Confidence::kLow;
      for (const WorkloadEvidence* w : c.stalls_strengthen ? stalled : decltype(stalled){}) {
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

YS_REGISTER(CpuPlacementRule,
            {.id = "host.cpu_placement",
             .summary = "Shared cpusets, NUMA placement and a held-down busy-core clock slow "
                        "the host side of the step (Exemplar case 2: gap 12% -> 3%, C6 "
                        "about 4%)"});

}  // namespace ys::diagnose
