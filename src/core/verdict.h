// The one verdict of a run (docs/verdict.md): PASS, WARN, FAIL or INCONCLUSIVE with the reason,
// judged from every unit, the diagnosis and whether the run finished. The console's summary
// line, the JSON document's "verdict" and "verdict_reason", the HTML banner and the exit code
// all come from JudgeRun, so they cannot disagree.
#ifndef YARDSTICK_CORE_VERDICT_H_
#define YARDSTICK_CORE_VERDICT_H_

#include <string>

#include "core/run_document.h"

namespace ys {

// Ordered by how much an operator must act: a higher value needs more.
enum class VerdictState { kPass = 0, kWarn = 1, kInconclusive = 2, kFail = 3 };
// "pass", "warn", "inconclusive", "fail"
const char* VerdictStateName(VerdictState s);
// "PASS", "WARN", "INCONCLUSIVE", "FAIL"
std::string VerdictStateLabel(VerdictState s);

struct RunVerdict {
  VerdictState state = VerdictState::kPass;
  std::string reason;  // one line: what decided it
};

// A diagnosed cause makes the verdict WARN when the fix is expected to recover at least this
// share of throughput (its range's low end) and the rule is at least of medium confidence;
// weaker causes stay advisory (shown, not judged).
inline constexpr double kMaterialRecovery = 0.05;
bool IsMaterial(const Diagnosis& d);
// "+12.0%", "+21.6% to +43.1%", or "not quantified".
std::string FormatRecovery(const Recovery& r);

// The evidence key by which a unit says that this node has no GPU to judge (no NVIDIA GPU on
// the PCI bus, none expected, NVML absent): the verdict's reason then says so.
inline constexpr const char* kNoGpuEvidence = "gpu.none";

// In order: a failed unit, or a section that fails acceptance (RunSection::FailReason: a burn-in
// fault) -> FAIL; a unit that could not evaluate (error) or a run cut short -> INCONCLUSIVE; a
// warning or a material diagnosed cause -> WARN; else PASS.
RunVerdict JudgeRun(const RunDocument& doc);

// 0 PASS and WARN, 1 FAIL, 2 INCONCLUSIVE (core/exit_codes.h).
int ExitCodeOf(VerdictState s);

}  // namespace ys

#endif  // YARDSTICK_CORE_VERDICT_H_
