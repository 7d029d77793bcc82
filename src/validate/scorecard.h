// The verdict (issue "Suite validation"): each workload of a suite scored against its reference,
// and the suite passed only when every workload is above the threshold. A workload that is
// missing, incomplete or invalid fails the verdict and says why; one without a comparable
// reference cannot be judged: the verdict is then INCONCLUSIVE unless another workload failed.
#ifndef YARDSTICK_VALIDATE_SCORECARD_H_
#define YARDSTICK_VALIDATE_SCORECARD_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/exit_codes.h"
#include "validate/reference.h"
#include "validate/serving_score.h"
#include "validate/suite.h"

namespace ys::validate {

// What ingestion measured for one workload, in the terms the verdict needs.
struct Measured {
  std::string status;  // "success", "incomplete", "no_data", "no_log", "invalid_grad_norm", ...
  std::string reason;  // human reason when not success
  std::string log_path;
  int window_samples = 0;
  double step_time_mean_s = 0;
  double step_time_stdev_s = 0;
  std::optional<double> tflops_per_gpu;  // nullopt: not reported (e.g. hybrid models print 0)
  // Every timed step from the window's first to the last the log printed (the window plus what
  // ran after it), in step order: what the step-time analysis and the diagnosis read.
  int64_t step_times_first_step = 0;
  std::vector<double> step_times_s;
};

enum class RowOutcome { kPass, kFail, kInconclusive };

struct ScoredWorkload {
  SuiteWorkload workload;
  RowOutcome outcome = RowOutcome::kFail;
  std::string reason;  // why it failed, or "" on pass
  std::optional<Measured> measured;
  std::optional<Reference> reference;
  std::optional<double> score;  // reference step time / measured step time
  std::optional<double> tokens_per_s_per_gpu;
  std::optional<double> mfu;
};

struct Scorecard {
  std::string chip;
  std::string recipe_release;
  double threshold = 0.95;
  std::vector<ScoredWorkload> rows;
  std::vector<ScoredPhase> phases;  // serving phases, judged beside the workloads
  bool pass = false;
  // No workload failed but some could not be judged (no reference for the suite's release).
  bool inconclusive = false;
  // one line: "PASS: 5 of 5 workloads above 95%" / "FAIL: ..." / "INCONCLUSIVE: ..."
  std::string verdict;
  // "pass", "fail", "inconclusive"
  const char* State() const { return pass ? "pass" : inconclusive ? "inconclusive" : "fail"; }
  // 0 pass, 1 fail, 2 inconclusive (core/exit_codes.h).
  int ExitCode() const { return pass ? kExitPass : inconclusive ? kExitInconclusive : kExitFail; }
};

// `measured` is keyed by suite workload id; `peak_tflops` by dtype (for MFU; may be empty).
// `phases`: the suite's serving phases, already scored (ScoreServingPhase); the suite passes only
// when every workload and every phase passes.
Scorecard ScoreSuite(const Suite& suite, const ReferenceSet& refs,
                     const std::map<std::string, Measured>& measured,
                     const std::map<std::string, double>& peak_tflops,
                     std::vector<ScoredPhase> phases = {});

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SCORECARD_H_
