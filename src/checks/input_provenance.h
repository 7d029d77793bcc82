// Where each input of a run of checks comes from: LIVE (this machine, now: root "/", its NVML,
// its /dev/kmsg) or RECORDED (a host tree under --root, --nvml-state, --kernel-log, --bug-report,
// a run document). Judging a recording is fine; acting on a machine (draining or resuming it in
// Slurm) is not, unless every input is that machine's live state: a fixture or another node's
// dump replayed on a live node must never drain it.
#ifndef YARDSTICK_CHECKS_INPUT_PROVENANCE_H_
#define YARDSTICK_CHECKS_INPUT_PROVENANCE_H_

#include <string>
#include <vector>

#include "checks/preflight.h"
#include "core/run_document.h"

namespace ys::checks {

enum class Provenance { kLive, kRecorded };

struct RunInput {
  std::string flag;   // "--root", "--nvml-state", "--kernel-log", "--bug-report", "run document"
  std::string value;  // as the operator gave it
  Provenance provenance = Provenance::kLive;
};

// Every input the options name, the live ones included (root "/" is live, as RunPreflight opens
// it: Host::Live()); an option left empty is not listed.
std::vector<RunInput> InputsOf(const PreflightOptions& options);

// The recorded inputs a finished run document shows: a host root other than "/", GPU state whose
// source is a recording ("recorded: FILE"). A second opinion on InputsOf for a caller that got the
// document from elsewhere (a child process).
std::vector<RunInput> RecordedInputsOf(const RunDocument& doc);

// "--root DIR, --nvml-state FILE": the recorded ones among `inputs`, as the operator typed them;
// "" when every input is live.
std::string DescribeRecorded(const std::vector<RunInput>& inputs);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_INPUT_PROVENANCE_H_
