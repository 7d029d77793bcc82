// The check unit: a read-only look at one aspect of a node (docs/design.md §vocabulary).
//
// A check is one file that defines a class deriving from Check and registers it in one line:
//
//   YS_REGISTER(CstatesCheck, {.id = "cpu.cstates", .summary = "...", .needs = {}});
//
// What the check needs (Need::kGpu: the node's GPU state with at least one GPU; the live host;
// root ...) is declared there, and the runner skips the check with the reason, without calling
// it, when the context does not provide it (checks/runner.h).
//
// Run() must not change system state, must not throw across its boundary (the runner turns an
// exception into an error outcome for that check alone), and reads every path through
// ctx.host() so that it replays against a recorded tree.
#ifndef YARDSTICK_CHECKS_CHECK_H_
#define YARDSTICK_CHECKS_CHECK_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "checks/site_expectations.h"
#include "core/finding_codes.h"
#include "core/registry.h"
#include "core/run_document.h"
#include "gpu/gpu_snapshot.h"
#include "host/host.h"
#include "host/topology.h"

namespace ys::checks {

// Everything a check may look at. Borrowed references; the caller keeps them alive for the run.
// A copy shares what is loaded on first use (topology, GPU state) with the original; the runner
// hands each unit a copy that knows the unit (ForUnit), through which it reads its parameters.
class CheckContext {
 public:
  CheckContext(const host::Host& host, const SiteExpectations& expect, std::optional<int> pid = {})
      : host_(&host), expect_(&expect), pid_(pid), shared_(std::make_shared<Shared>()) {}

  const host::Host& host() const { return *host_; }
  const SiteExpectations& expect() const { return *expect_; }

  // This context for one unit: param() reads that unit's parameters.
  CheckContext ForUnit(const UnitInfo& unit) const;
  // The value in force of a parameter the unit declared (UnitInfo::params): the site file's,
  // else the declared default (core/unit_params.h UnitParamSource::Get).
  template <typename T>
  const T& param(std::string_view name) const {
    return params_.Get<T>(name);
  }
  // Whether the site file set that parameter (false: its declared default is in force).
  bool param_set(std::string_view name) const { return params_.IsSet(name); }
  // "/proc/self", or "/proc/<pid>" when the operator named a process with --pid.
  std::string ProcDir() const {
    return pid_ ? "/proc/" + std::to_string(*pid_) : std::string("/proc/self");
  }
  std::optional<int> pid() const { return pid_; }
  // Loaded on first use and shared by all checks of the run.
  const Result<host::Topology>& topology() const;

  // The node's GPUs: from --nvml-state FILE, else <root>/.yardstick/nvml.json on a recorded
  // tree, else live NVML on the live host (gpu/gpu_source.h). Loaded on first use, once, and
  // shared by all checks of the run. An error status says why there is none ("NVML not found:
  // libnvidia-ml.so.1: cannot open shared object file: ...") -> GPU units skip with it.
  const Result<gpu::GpuSnapshot>& gpu() const;
  // The snapshot, for a unit that declares Need::kGpu (the runner has checked that it loaded and
  // lists a GPU). Throws std::logic_error otherwise, which the runner reports as an error.
  const gpu::GpuSnapshot& gpus() const;
  // The snapshot, possibly without a GPU, for a unit that declares Need::kGpuState. Throws
  // std::logic_error when it did not load.
  const gpu::GpuSnapshot& gpu_state() const;
  // Set by the CLI (--nvml-state) before the checks run.
  void set_nvml_state_path(std::string path) { shared_->nvml_state_path = std::move(path); }
  // Use this snapshot (or this reason for having none) instead of loading one; tests, and the
  // preflight that has already loaded --nvml-state. Must come before the first gpu().
  void set_gpu(Result<gpu::GpuSnapshot> snapshot);
  // True once gpu() has been answered (a unit asked, or set_gpu): the run document then names
  // the GPU source. Call after the checks have run.
  bool gpu_loaded() const { return shared_->gpu != nullptr; }

  // --kernel-log FILE: the kernel log (XIDs) read from this file on the real file system instead
  // of /dev/kmsg under the root. Empty: /dev/kmsg.
  void set_kernel_log_path(std::string path) { shared_->kernel_log_path = std::move(path); }
  const std::string& kernel_log_path() const { return shared_->kernel_log_path; }

 private:
  // Loaded once per run and shared by every copy.
  struct Shared {
    std::once_flag topo_once;
    std::unique_ptr<Result<host::Topology>> topo;
    std::string nvml_state_path;
    std::once_flag gpu_once;
    std::unique_ptr<Result<gpu::GpuSnapshot>> gpu;
    std::string kernel_log_path;
  };

  const host::Host* host_;
  const SiteExpectations* expect_;
  std::optional<int> pid_;
  std::shared_ptr<Shared> shared_;
  UnitParamSource params_;  // set by ForUnit
};

class Check : public Unit {
 public:
  static constexpr UnitKind kKind = UnitKind::kCheck;
  // Returns the result with findings; the runner sets unit_id, timing and the final outcome.
  virtual CheckResult Run(const CheckContext& ctx) const = 0;
  // Called instead of Run when a declared need is unmet (`why` the context's answer, as for the
  // skip); a result here replaces the runner's skip or error. Most units keep the default.
  virtual std::optional<CheckResult> Unmet(const CheckContext& ctx, const Status& why) const {
    (void)ctx;
    (void)why;
    return std::nullopt;
  }
};

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_CHECK_H_
