// A noisy neighbour: processes outside the job take CPU time on the job's cores.
//
// Two kinds of evidence, each enough on its own:
// - measured: a proxy's foreign_cpu_share s (the share of the job cores' CPU time that other
//   processes took while it ran) at or above kMinShare. A CPU-bound step that loses a share s of
//   its cores runs at (1 - s) of its speed and recovers 1 / (1 - s) - 1 once the cores are its own.
// - seen by the preflight: YS-ISO-001 (other processes pinned to or running on the job's cores),
//   quantified by Exemplar case 2 when no proxy measured the share.
// Confidence rises when the step times show what stolen time does to a synchronous step: a tail
// (p99 / median, CV) or a gap to the proxy's roofline prediction. A gap larger than the share's
// 1 / (1 - s) - 1 raises the top of the recovery range to it: a step whose threads synchronise
// waits for the thread that shares its core, and so can lose more than the share.
#include <fmt/format.h>

#include "diagnose/rule.h"

namespace ys::diagnose {
namespace {

constexpr double kMinShare = 0.05;         // below this the loss is within run-to-run noise
constexpr double kMinPredictionGap = 0.1;  // measured median at least 10% over the prediction
constexpr double kCase2Recovery = 0.97 / 0.88 - 1;

constexpr const char* kFix =
    "move the other processes off the job's cores: systemctl set-property system.slice "
    "AllowedCPUs=<housekeeping cores> (or taskset -acp <housekeeping cores> <pid>), and reserve "
    "those cores from jobs with Slurm CpuSpecList= / CoreSpecCount=";

// "pid 4242 (stress) on cpus 0-1: 46%" -> "cpu0-1"; "" when the text has no "on cpus".
std::string CoresOf(const std::string& process) {
  size_t at = process.find("on cpus ");
  if (at == std::string::npos) return "";
  size_t start = at + 8;
  size_t end = process.find_first_of(": ", start);
  return "cpu" + process.substr(start, end == std::string::npos ? end : end - start);
}

class CoreSharingRule : public Rule {
 public:
  std::vector<Diagnosis> Evaluate(const DiagnosisInput& in) const override {
    auto iso = FindingsWithCode(in, "YS-ISO-001");
    const WorkloadEvidence* worst = nullptr;
    for (const auto& w : in.workloads) {
      if (w.foreign_cpu_share && *w.foreign_cpu_share >= kMinShare &&
          (worst == nullptr || *w.foreign_cpu_share > *worst->foreign_cpu_share)) {
        worst = &w;
      }
    }
    if (worst == nullptr && iso.empty()) return {};

    Diagnosis d =
        iso.empty() ? Diagnosis{} : DiagnosisFromFindings("host.core_sharing", "host", iso);
    d.rule = "host.core_sharing";
    d.layer = "host";
    d.fix = kFix;
    d.reference = "Exemplar case 2; docs/node-checks.md §isolation (housekeeping threads, cpusets)";
    int symptoms = 0;
    if (worst != nullptr) {
      double s = *worst->foreign_cpu_share;
      d.cause = fmt::format(
          "processes outside the job took {} of the job cores' CPU time while "
          "{} ran{}",
          Percent(s), worst->id,
          worst->foreign_processes.empty() ? ""
                                           : "; the largest: " + worst->foreign_processes.front());
      if (!worst->foreign_processes.empty()) {
        std::string cores = CoresOf(worst->foreign_processes.front());
        d.entity = cores.empty() ? "node" : cores;
        // The first process, by pid, in the fix: the command the operator runs now.
        const std::string& p = worst->foreign_processes.front();
        if (p.rfind("pid ", 0) == 0) {
          d.fix = fmt::format("{}; now: taskset -acp <housekeeping cores> {}", kFix,
                              p.substr(4, p.find(' ', 4) - 4));
        }
      } else if (d.entity.empty()) {
        d.entity = "node";
      }
      d.evidence.emplace_back(worst->id + " foreign_cpu_share", Percent(s));
      for (const auto& p : worst->foreign_processes) d.evidence.emplace_back("foreign process", p);
      double r = RecoveryFromShare(s);
      d.recovery = Published(r, r,
                             fmt::format("measured: other processes took {} of the job cores' CPU "
                                         "time; a CPU-bound step that loses a share s of its cores "
                                         "recovers 1 / (1 - s) - 1 = {} (less where the step waits "
                                         "on the GPUs)",
                                         Percent(s), Percent(r)));
      if (worst->analysis) {
        d.evidence.emplace_back(worst->id + " step times", DescribeSpread(*worst->analysis));
        if (HasTail(*worst->analysis)) ++symptoms;
        if (worst->predicted_step_s && *worst->predicted_step_s > 0) {
          double gap = worst->analysis->median_s / *worst->predicted_step_s - 1;
          d.evidence.emplace_back(
              worst->id + " gap to prediction",
              fmt::format("median {:.4g} s vs predicted {:.4g} s ({:+.1f}%)",
                          worst->analysis->median_s, *worst->predicted_step_s, 100 * gap));
          if (gap >= kMinPredictionGap) ++symptoms;
          // Threads that synchronise every step wait for the one sharing its core, so a step can
          // lose more than the share: the measured gap to the prediction bounds what it loses.
          if (gap > r) {
            d.recovery.high = gap;
            d.recovery.basis += fmt::format(
                "; up to the measured gap to the roofline prediction, {}: threads that "
                "synchronise every step wait for the one that shares its core",
                Percent(gap));
          }
        }
      }
    } else {
      d.cause = "processes outside the job are pinned to or run on its cores: " +
                iso.front().finding->message;
      d.recovery = Published(kCase2Recovery, kCase2Recovery,
                             "Exemplar case 2: moving housekeeping threads off the job's cores "
                             "(cpusets plus NUMA binding) took the gap from 12% to 3% (10.2% "
                             "faster); no proxy measured the share stolen here");
    }
    if (!iso.empty() && worst != nullptr) ++symptoms;  // seen by the preflight as well as measured
    d.confidence = symptoms >= 1 ? Confidence::kHigh : Confidence::kMedium;
    return {d};
  }
};

}  // namespace

YS_REGISTER(CoreSharingRule,
            {.id = "host.core_sharing",
             .summary = "A noisy neighbour: processes outside the job take CPU time on its "
                        "cores (measured share or YS-ISO-001)"});

}  // namespace ys::diagnose
