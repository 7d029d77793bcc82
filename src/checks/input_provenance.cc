#include "checks/input_provenance.h"

#include "core/text.h"

namespace ys::checks {

std::vector<RunInput> InputsOf(const PreflightOptions& o) {
  std::vector<RunInput> in;
  auto add = [&in](const char* flag, const std::string& value, Provenance p) {
    if (!value.empty()) in.push_back({flag, value, p});
  };
  // RunPreflight opens exactly "/" as the live host; any other root is a tree on disk.
  add("--root", o.root, o.root == "/" ? Provenance::kLive : Provenance::kRecorded);
  add("--nvml-state", o.nvml_state, Provenance::kRecorded);
  // A saved kernel log, even one copied from this machine a moment ago, is not /dev/kmsg now.
  add("--kernel-log", o.kernel_log, Provenance::kRecorded);
  add("--bug-report", o.bug_report, Provenance::kRecorded);
  return in;
}

std::vector<RunInput> RecordedInputsOf(const RunDocument& doc) {
  std::vector<RunInput> in;
  if (!doc.host.root.empty() && doc.host.root != "/")
    in.push_back({"--root", doc.host.root, Provenance::kRecorded});
  constexpr std::string_view kRecordedSource = "recorded: ";
  if (StartsWith(doc.host.gpu_source, kRecordedSource)) {
    in.push_back(
        {"GPU state", doc.host.gpu_source.substr(kRecordedSource.size()), Provenance::kRecorded});
  }
  return in;
}

std::string DescribeRecorded(const std::vector<RunInput>& inputs) {
  std::string out;
  for (const RunInput& i : inputs) {
    if (i.provenance != Provenance::kRecorded) continue;
    out += (out.empty() ? "" : ", ") + i.flag + " " + i.value;
  }
  return out;
}

}  // namespace ys::checks
