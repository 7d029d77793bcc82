#include "cli/command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <utility>

#include "core/build_info.h"
#include "core/did_you_mean.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/progress.h"

namespace ys::cli {

int ExitCodeFor(const Status& status) { return status.ok() ? kExitPass : kExitCannotRun; }

int RunAction(const Action& action) {
  try {
    Result<int> code = action();
    Progress().Clear();
    if (code.ok()) return *code;
    Log(LogLevel::kError, "{}", code.status().message());
    return ExitCodeFor(code.status());
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "internal error: {}", e.what());
    return kExitCannotRun;
  }
}

Status Prefixed(std::string_view prefix, const Status& status) {
  return {status.code(), std::string(prefix) + ": " + status.message()};
}

Status RefuseOutOfRange(std::initializer_list<Status> checks) {
  for (const Status& s : checks) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

bool ColorOnStdout() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

std::string DataDir(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("YARDSTICK_DATA"); env != nullptr && *env != '\0') return env;
  // Installed (make install): the data beside the binary, PREFIX/share/yardstick.
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "yardstick";
    if (std::filesystem::is_directory(installed / "specs", ec)) return installed.string();
  }
  return kDataDir;
}

Result<std::string> OutDocumentPath(const std::string& command, const std::string& out,
                                    const std::string& name) {
  if (out.empty()) return std::string();
  if (out.ends_with(".json")) {
    Log(LogLevel::kWarn,
        "{} --out {}: --out names a directory now (the document is {}/{}); a .json path is "
        "still written as given",
        command, out,
        std::filesystem::path(out).parent_path().string().empty()
            ? "."
            : std::filesystem::path(out).parent_path().string(),
        name);
    return out;
  }
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec)) {
    return Status::Invalid(fmt::format(
        "{} --out {}: not a directory (--out names the directory the command writes its "
        "files into; this one writes {})",
        command, out, name));
  }
  std::filesystem::create_directories(out, ec);
  if (ec) {
    return Status::Io(
        fmt::format("{} --out {}: cannot create the directory ({})", command, out, ec.message()));
  }
  return out + "/" + name;
}

Result<std::string> ResolveDataName(const std::string& data, const std::string& folder,
                                    const std::string& flag, const std::string& value) {
  if (value.find('/') != std::string::npos || value.ends_with(".toml")) return value;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data + "/" + folder, ec)) {
    if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  if (std::string match = MatchName(value, names); !match.empty()) return match;
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound(flag + " " + value + ": no " + folder + "/" + value + ".toml in " + data +
                          DidYouMean(value, names) + " (known: " + known + ")");
}

void AddValidationOptions(CLI::App& sub, ValidationArgs& a) {
  sub.add_option("--suite", a.suite,
                 "Suite: a chip name (h100, h200, b200, b300, gb200, gb300) or a .toml")
      ->required();
  sub.add_option("--runs", a.runs,
                 "Runs directory: llmb-run's install (workloads/*/experiments) or one folder per "
                 "workload id")
      ->required();
  sub.add_option("--data", a.data, "Directory holding suites/, baselines/, specs/");
  sub.add_option("--baselines", a.baselines,
                 "Reference directory (default <data>/baselines/<chip>)");
  sub.add_option("--reference", a.references, "Additional reference file (repeatable)");
}

void AddCheckRunOptions(CLI::App& sub, CheckRunArgs& a, bool with_root, bool with_output) {
  if (with_root) {
    sub.add_option("--root", a.root,
                   "Read /proc and /sys under this directory (a recorded host tree)");
  }
  sub.add_option("--filter", a.filters, "Only checks whose ids match these globs (e.g. 'cpu.*')")
      ->delimiter(',');
  sub.add_option("--expect", a.expect, "Site expectations (TOML): thresholds and policy");
  sub.add_option("--nvml-state", a.nvml_state,
                 "Recorded NVML state (JSON, as `yardstick capture` writes it), or the output "
                 "of nvidia-smi -q or nvidia-smi -q -x, instead of this host's GPUs");
  sub.add_option("--pid", a.pid,
                 "Judge this process (placement, limits) instead of yardstick itself")
      ->check(CLI::PositiveNumber);
  sub.add_option("--kernel-log", a.kernel_log,
                 "Read the kernel log (XIDs) from this file (dmesg or /dev/kmsg format) instead "
                 "of /dev/kmsg");
  if (with_output) {
    sub.add_flag("--json", a.json, "Print the run document as JSON instead of the table");
    sub.add_option("--junit", a.junit, "Also write JUnit XML to this file");
    sub.add_flag("--failures-only", a.failures_only,
                 "List only the units that warned, failed or could not evaluate, then the verdict");
    sub.add_flag("-q,--quiet", a.quiet, "Print only the verdict line (the exit code says it too)");
  }
}

checks::PreflightOptions PreflightOptionsFor(const CheckRunArgs& a, std::string command) {
  checks::PreflightOptions o;
  o.command = std::move(command);
  o.root = a.root;
  o.filters = a.filters;
  o.expect_path = a.expect;
  o.nvml_state = a.nvml_state;
  if (a.pid > 0) o.pid = a.pid;
  o.kernel_log = a.kernel_log;
  o.bug_report = a.bug_report;
  return o;
}

}  // namespace ys::cli
