#include "checks/bug_report_input.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/format_registry.h"
#include "host/bug_report.h"

namespace ys::checks {
namespace {

namespace fs = std::filesystem;

Status WriteStagedFile(const fs::path& path, const std::string& content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return Status::Io(path.parent_path().string() + ": " + ec.message());
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.close();
  if (!out) return Status::Io(path.string() + ": cannot write");
  return Status::Ok();
}

void ReplaceEvery(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
}

}  // namespace

Result<StagedBugReport> StageBugReport(const std::string& path) {
  auto report = ReadFormatAs<host::BugReport>(path, FormatProduct::kBugReport);
  if (!report.ok()) return report.status();
  auto scratch = ScratchDir::Make("yardstick-bug-report");
  if (!scratch.ok()) return scratch.status();
  StagedBugReport s{.report_path = path, .scratch = std::move(*scratch)};
  const fs::path dir = s.scratch.path();
  s.root = (dir / "root").string();
  std::error_code ec;
  fs::create_directories(s.root, ec);
  if (ec) return Status::Io(s.root + ": " + ec.message());
  // The host's name and kernel release from the prologue's `uname -a`, when the report did not
  // copy the files that hold them.
  const size_t copied = report->files.size();
  std::istringstream uname(report->uname);
  std::string sysname, nodename, release;
  uname >> sysname >> nodename >> release;
  if (!nodename.empty()) report->files.emplace("/proc/sys/kernel/hostname", nodename + "\n");
  if (!release.empty()) report->files.emplace("/proc/sys/kernel/osrelease", release + "\n");
  for (const auto& [file, content] : report->files) {
    YS_RETURN_IF_ERROR(WriteStagedFile(fs::path(s.root) / file.substr(1), content));
  }
  if (!report->smi_query.empty()) {
    s.nvml_state = (dir / "nvidia-smi-query.txt").string();
    YS_RETURN_IF_ERROR(WriteStagedFile(s.nvml_state, report->smi_query));
  } else {
    s.no_gpu_state_reason = path + " holds no `nvidia-smi --query` output";
  }
  s.nvlink_output = report->nvlink_status + report->nvlink_errors;
  if (!report->kernel_log_source.empty()) {
    s.kernel_log = (dir / "kernel.log").string();
    YS_RETURN_IF_ERROR(WriteStagedFile(s.kernel_log, report->kernel_log));
  }
  std::string what = "read offline from the nvidia-bug-report log " + path;
  if (!report->date.empty()) what += " (taken " + report->date + ")";
  what += ": ";
  what += s.nvml_state.empty() ? "no GPU state" : "GPU state from its nvidia-smi --query section";
  what += s.kernel_log.empty() ? ", no kernel log"
                               : ", the kernel log from " + report->kernel_log_source;
  what += ", " + std::to_string(copied) + " /proc, /sys and /etc files";
  s.warnings.push_back(what);
  for (const auto& n : report->notes) s.warnings.push_back(path + ": " + n);
  return s;
}

void AttributeToBugReport(const StagedBugReport& staged, RunDocument& doc) {
  const std::string& p = staged.report_path;
  auto fix = [&](std::string& s) {
    ReplaceEvery(s, staged.nvml_state, p + " [nvidia-smi --query]");
    ReplaceEvery(s, staged.kernel_log, p + " [kernel log]");
    ReplaceEvery(s, staged.root, p + " [files]");
  };
  std::vector<std::string> warnings = staged.warnings;
  for (auto& w : doc.warnings) {
    // preflight's own words about a recorded tree and a recorded NVML file: said better above.
    if (w.find(staged.scratch.path()) != std::string::npos) continue;
    warnings.push_back(w);
  }
  doc.warnings = std::move(warnings);
  fix(doc.host.root);
  fix(doc.host.gpu_source);
  for (auto& c : doc.checks) {
    fix(c.summary);
    for (auto& [k, v] : c.evidence) fix(k), fix(v);
    for (auto& f : c.findings) {
      fix(f.message);
      for (auto& [k, v] : f.evidence) fix(k), fix(v);
    }
  }
}

}  // namespace ys::checks
