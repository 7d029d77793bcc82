#include "checks/preflight.h"

#include <unistd.h>

#include <any>
#include <chrono>
#include <ctime>
#include <optional>

#include "checks/bug_report_input.h"
#include "checks/runner.h"
#include "checks/site_expectations.h"
#include "checks/unit_aliases.h"
#include "core/did_you_mean.h"
#include "core/format_registry.h"
#include "core/registry.h"
#include "gpu/smi_dump.h"
#include "host/host_info.h"

namespace ys::checks {

std::map<std::string, std::string> RecordedMeasurements(const RunDocument& doc) {
  std::map<std::string, std::string> out;
  for (const auto& c : doc.checks) out.insert(c.recordings.begin(), c.recordings.end());
  return out;
}

namespace {

// "; did you mean 'cpu.cstates'?" for a filter that selects nothing: the nearest check id or
// family of ids (a dotted prefix, bare or with ".*").
std::string FilterSuggestion(const std::vector<std::string>& filters) {
  std::vector<std::string> names;
  for (const RegisteredUnit* unit : UnitRegistry::Global().List(UnitKind::kCheck)) {
    std::string id(unit->info.id);
    names.push_back(id);
    for (size_t dot = id.find('.'); dot != std::string::npos; dot = id.find('.', dot + 1)) {
      names.push_back(id.substr(0, dot));
      names.push_back(id.substr(0, dot) + ".*");
    }
  }
  for (const std::string& f : filters) {
    if (std::string near = DidYouMean(f, names); !near.empty()) return near;
  }
  return "";
}

// What the checks read: the caller's host and site when it gives them, else opened here.
struct PreflightInputs {
  std::optional<host::Host> opened;
  const host::Host* host = nullptr;
  SiteExpectations loaded;
  const SiteExpectations* expect = nullptr;
};

Status OpenInputs(const PreflightOptions& o, PreflightInputs& in) {
  auto step = [&o](const std::string& name) {
    if (o.on_step) o.on_step(name);
  };
  in.host = o.host;
  if (in.host == nullptr || o.recorder) {
    step("opening the host root");
    auto host = o.root == "/" ? Result<host::Host>(host::Host::Live()) : host::Host::AtRoot(o.root);
    if (!host.ok()) return host.status();
    in.opened = std::move(*host);
    if (o.recorder) in.opened->set_recorder(o.recorder);
    in.host = &*in.opened;
  }
  in.expect = o.expect != nullptr ? o.expect : &in.loaded;
  if (o.expect == nullptr && !o.expect_path.empty()) {
    step("reading the site expectations " + o.expect_path);
    auto loaded = LoadSiteExpectations(o.expect_path);
    if (!loaded.ok()) return loaded.status();
    in.loaded = std::move(*loaded);
  }
  return Status::Ok();
}

// The preflight itself; `gpu_absent`, when set, is why there is no GPU state to judge (a bug
// report without nvidia-smi output): the GPU units skip with it instead of opening this host's
// NVML.
Result<RunDocument> RunChecksOf(const PreflightOptions& o, const Status* gpu_absent) {
  auto t0 = std::chrono::steady_clock::now();
  RunDocument doc = StartRunDocument(o.command);
  auto step = [&o](const std::string& name) {
    if (o.on_step) o.on_step(name);
  };

  PreflightInputs in;
  YS_RETURN_IF_ERROR(OpenInputs(o, in));
  const host::Host* host = in.host;
  const SiteExpectations& expect = *in.expect;
  if (o.pid) {
    std::string dir = "/proc/" + std::to_string(*o.pid);
    if (!host->IsDirectory(dir)) {
      return Status::NotFound("--pid " + std::to_string(*o.pid) + ": no such process (" +
                              host->Resolve(dir) + " is absent)");
    }
  }
  // A retired id (cpu.cstates) selects the units that replaced it.
  const std::vector<std::string> filters = ExpandAliasFilters(o.filters);
  bool any = false;
  for (const auto* unit : UnitRegistry::Global().List(UnitKind::kCheck)) {
    if (MatchesFilters(unit->info.id, filters)) any = true;
  }
  if (!any) {
    std::string f;
    for (const auto& x : o.filters) f += (f.empty() ? "" : ", ") + x;
    return Status::Invalid("--filter " + f + " selects no check (see `yardstick list`)" +
                           FilterSuggestion(o.filters));
  }

  step("reading the host identity");
  doc.host = host::ReadHostInfo(*host);
  if (!host->live()) {
    doc.warnings.push_back("read from the recorded host tree " + doc.host.root +
                           ", not from this machine");
  } else if (::geteuid() != 0) {
    doc.warnings.push_back(
        "not running as root: some files (MSRs, other users' processes) may be unreadable");
  }

  CheckContext ctx(*host, expect, o.pid);
  if (!o.nvml_state.empty()) {
    step("reading the NVML state " + o.nvml_state);
    auto snapshot = gpu::LoadGpuStateFile(o.nvml_state);
    if (!snapshot.ok()) return Status::Invalid("--nvml-state: " + snapshot.status().message());
    doc.warnings.push_back("GPU state read from the recorded NVML file " + o.nvml_state +
                           ", not from this machine's GPUs");
    ctx.set_gpu(std::move(snapshot));
  } else if (gpu_absent != nullptr) {
    ctx.set_gpu(*gpu_absent);
  }
  if (!o.kernel_log.empty()) ctx.set_kernel_log_path(o.kernel_log);
  RunOptions ro;
  ro.filters = filters;
  ro.on_result = o.on_result;
  if (o.on_step) ro.on_start = [&o](std::string_view id) { o.on_step("check " + std::string(id)); };
  doc.checks = RunChecks(ctx, ro);
  if (ctx.gpu_loaded()) {
    const auto& gpus = ctx.gpu();
    if (gpus.ok()) {
      doc.host.gpu_source = gpus->source;
      doc.host.gpu_driver = gpus->driver_version.value.value_or("");
    } else {
      doc.host.gpu_source = "none: " + gpus.status().message();
    }
  }
  doc.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return doc;
}

// The format that reads `nvidia-smi nvlink -s/-e` (src/formats/nvidia_smi_nvlink.cc).
constexpr std::string_view kNvlinkFormatName = "nvidia-smi-nvlink";

// The gpu.nvlink result of `output` (named `source`) read by `format`.
Result<CheckResult> ReadNvlinkCheck(const RegisteredFormat& format, const std::string& output,
                                    const std::string& source) {
  auto read =
      format.read(FormatRequest{.path = source, .text = std::string_view(output), .forced = true});
  if (!read.ok()) return read.status();
  if (auto* judged = std::any_cast<RunDocument>(&*read)) {
    for (CheckResult& c : judged->checks) {
      if (c.unit_id == "gpu.nvlink") return std::move(c);
    }
  }
  return Status::Internal(source + ": format " + std::string(kNvlinkFormatName) +
                          " gave no gpu.nvlink result");
}

// The report's `nvidia-smi nvlink` output (`source` names it) judged by the format room's reader:
// its gpu.nvlink result replaces the one of the dump, which cannot see links. A room without the
// format leaves the dump's result and says, there and in the warnings, that it went unjudged.
Status JudgeReportNvlink(const FormatRegistry& formats, const std::string& output,
                         const std::string& source, RunDocument& doc) {
  const RegisteredFormat* format = formats.Find(kNvlinkFormatName);
  for (CheckResult& c : doc.checks) {
    if (c.unit_id != "gpu.nvlink") continue;
    if (format == nullptr) {
      const std::string why = source + " was not judged: this yardstick has no " +
                              std::string(kNvlinkFormatName) +
                              " format (built without the format units)";
      c.summary += (c.summary.empty() ? "" : "; ") + why;
      c.Note("nvidia-smi nvlink", why);
      doc.warnings.push_back(why);
      continue;
    }
    auto judged = ReadNvlinkCheck(*format, output, source);
    if (!judged.ok()) return judged.status();
    c = std::move(*judged);
  }
  return Status::Ok();
}

}  // namespace

Result<RunDocument> RunPreflight(const PreflightOptions& o) {
  if (o.bug_report.empty()) return RunChecksOf(o, nullptr);
  if (o.root != "/" || !o.nvml_state.empty() || !o.kernel_log.empty()) {
    return Status::Invalid(
        "--bug-report " + o.bug_report +
        ": the report gives the host files, the GPU state and the kernel log; it cannot be "
        "combined with --root, --nvml-state or --kernel-log");
  }
  if (o.on_step) o.on_step("reading the bug report " + o.bug_report);
  auto staged = StageBugReport(o.bug_report);
  if (!staged.ok()) return staged.status();
  PreflightOptions inner = o;
  inner.bug_report.clear();
  inner.root = staged->root;
  inner.host = nullptr;  // the report's files, not the caller's host
  inner.nvml_state = staged->nvml_state;
  inner.kernel_log = staged->kernel_log;
  if (inner.filters.empty()) inner.filters = {"gpu.*"};
  const Status absent = Status::NotFound(staged->no_gpu_state_reason);
  auto doc = RunChecksOf(inner, staged->nvml_state.empty() ? &absent : nullptr);
  if (!doc.ok()) return doc.status();
  AttributeToBugReport(*staged, *doc);
  if (!staged->nvlink_output.empty()) {
    YS_RETURN_IF_ERROR(JudgeReportNvlink(o.formats ? *o.formats : FormatRegistry::Global(),
                                         staged->nvlink_output,
                                         o.bug_report + " [nvidia-smi nvlink]", *doc));
  }
  return doc;
}

}  // namespace ys::checks
