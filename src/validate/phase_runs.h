// A serving phase's outputs in a runs directory: every file under <runs>/<phase id>/ that a
// serving format of the format room claims (an AIPerf or GenAI-Perf export, a vLLM or SGLang
// result, a trtllm-bench report, an MLPerf LoadGen summary ...), read into one list of points.
// The same run exported twice in one folder (AIPerf's JSON and CSV) is read once. Files no
// serving format claims (the server's log, telemetry, the job's own output) are left to the
// diagnosis; a folder with none is "no serving output", naming what it holds.
#ifndef YARDSTICK_VALIDATE_PHASE_RUNS_H_
#define YARDSTICK_VALIDATE_PHASE_RUNS_H_

#include <string>

#include "core/status.h"
#include "validate/serving_phase.h"
#include "validate/serving_score.h"

namespace ys::validate {

// Errors only for a file a serving format claims but cannot read (exit 2: the file and what is
// wrong); a missing folder or one without serving output gives a PhaseRun with its problem.
Result<PhaseRun> ReadPhaseRun(const std::string& runs_dir, const ServingPhase& phase);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_PHASE_RUNS_H_
