// gpu.driver: the driver NVML reports against the loaded kernel module (a mismatch is NVML's
// "Driver/library version mismatch": user space was upgraded and the old module is still
// loaded), against the site's driver, and the CUDA driver version against the driver's branch.
#include <array>
#include <optional>
#include <string>

#include "checks/gpu/internal/gpu_common.h"
#include "core/text.h"
#include "host/gpudirect.h"

namespace ys::checks {
namespace {

bool LooksLikeVersion(std::string_view v) {
  auto parts = Split(v, '.');
  if (parts.size() < 2) return false;
  for (auto p : parts) {
    if (!ParseUint(p)) return false;
  }
  return true;
}

struct ModuleVersion {
  std::string path;
  std::string version;
};

// The version of the loaded kernel module: /sys/module/nvidia/version, else the first line of
// /proc/driver/nvidia/version. nullopt with `*why` when neither is there; an error naming the
// file when one is present but malformed.
Result<std::optional<ModuleVersion>> KernelModuleVersion(const host::Host& h, std::string* why) {
  constexpr const char* kSys = "/sys/module/nvidia/version";
  constexpr const char* kProc = "/proc/driver/nvidia/version";
  // An empty file (a copy that could not read it) gives no version: the other one is read.
  if (auto v = h.ReadLine(kSys); v.ok() && !v->empty()) {
    if (!LooksLikeVersion(*v)) {
      return Status::Invalid(h.Resolve(kSys) +
                             ": expected a driver version like 550.127.05, got \"" +
                             v->substr(0, 60) + "\"");
    }
    return std::optional<ModuleVersion>(ModuleVersion{kSys, *v});
  }
  auto text = h.ReadFile(kProc);
  if (!text.ok()) {
    if (text.status().code() != StatusCode::kNotFound) return text.status();
    *why =
        std::string("no nvidia kernel module loaded (") + kSys + " and " + kProc + " are absent)";
    return std::optional<ModuleVersion>();
  }
  if (Trim(*text).empty()) {
    *why = std::string("no module version recorded (") + kProc + " is empty)";
    return std::optional<ModuleVersion>();
  }
  auto parsed = host::ParseNvidiaDriverVersion(*text);
  if (!parsed.ok()) return Status::Invalid(h.Resolve(kProc) + ": " + parsed.status().message());
  return std::optional<ModuleVersion>(ModuleVersion{kProc, parsed->version});
}

// The CUDA version each driver branch ships with ("CUDA Toolkit and Corresponding Driver
// Versions", CUDA release notes): CUDA 12.4 (12040) came with R550.
struct Branch {
  int branch;
  int cuda;
};
constexpr std::array kBranches = {
    Branch{450, 11000}, Branch{455, 11010}, Branch{460, 11020}, Branch{465, 11030},
    Branch{470, 11040}, Branch{495, 11050}, Branch{510, 11060}, Branch{515, 11070},
    Branch{520, 11080}, Branch{525, 12000}, Branch{530, 12010}, Branch{535, 12020},
    Branch{545, 12030}, Branch{550, 12040}, Branch{555, 12050}, Branch{560, 12060},
    Branch{565, 12070}, Branch{570, 12080}, Branch{575, 12090}, Branch{580, 13000},
};

std::optional<int> BranchCuda(const std::string& driver) {
  auto major = ParseInt(Split(driver, '.')[0]);
  if (!major) return std::nullopt;
  for (const auto& b : kBranches) {
    if (b.branch == *major) return b.cuda;
  }
  return std::nullopt;
}

std::string CudaText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

constexpr const char* kMismatchFix =
    "the loaded nvidia kernel module is not the installed driver: reboot, or with the GPUs idle "
    "unload and reload it (systemctl stop nvidia-persistenced nvidia-fabricmanager; rmmod "
    "nvidia_uvm nvidia_drm nvidia_modeset nvidia; modprobe nvidia; restart the services); in a "
    "container, let the NVIDIA container toolkit mount the host's driver libraries";

// YS-GPU-005: a CUDA driver (libcuda) older than the kernel driver's branch.
void CheckCudaDriver(const gpu::GpuSnapshot& s, const std::string& driver, CheckResult& r) {
  if (s.cuda_driver_version.has()) {
    int cuda = *s.cuda_driver_version;
    if (auto branch = BranchCuda(driver)) {
      if (cuda < *branch) {
        Finding f = MakeFinding("YS-GPU-005", "node",
                                "CUDA driver " + CudaText(cuda) + " is older than driver " +
                                    driver + "'s CUDA " + CudaText(*branch) +
                                    ": a stale libcuda.so.1 from another driver is loaded");
        f.evidence = {{"nvmlSystemGetCudaDriverVersion", std::to_string(cuda)},
                      {"nvmlSystemGetDriverVersion", driver}};
        f.fix =
            "ldconfig -p | grep libcuda.so.1: remove the stale copy (or the old cuda-compat "
            "package from LD_LIBRARY_PATH) so that the driver's own libcuda is loaded";
        f.reference = "CUDA release notes: CUDA Toolkit and Corresponding Driver Versions";
        r.Add(std::move(f));
      } else if (cuda > *branch) {
        r.Note("cuda_forward_compatibility", "CUDA " + CudaText(cuda) + " on an R" +
                                                 std::string(Split(driver, '.')[0]) + " driver");
      }
    }
  }
}

class GpuDriverCheck : public Check {
 public:
  // NVML itself refuses to start on a mismatch: that is this check's finding, not a skip.
  std::optional<CheckResult> Unmet(const CheckContext& ctx, const Status& why) const override {
    std::string module_why;
    auto module_read = KernelModuleVersion(ctx.host(), &module_why);
    if (!module_read.ok()) return CheckResult::Error(module_read.status());
    if (why.message().find("version mismatch") == std::string::npos &&
        why.message().find("RM_VERSION_MISMATCH") == std::string::npos) {
      return std::nullopt;
    }
    const std::optional<ModuleVersion>& module = *module_read;
    CheckResult r;
    Finding f =
        MakeFinding("YS-GPU-003", "node",
                    "NVML cannot start: driver/library version mismatch" +
                        (module ? " (kernel module " + module->version + ")" : std::string()));
    f.evidence = {{"NVML", why.message()}};
    if (module) f.evidence.emplace_back(module->path, module->version);
    f.fix = kMismatchFix;
    f.reference = "NVML NVML_ERROR_LIB_RM_VERSION_MISMATCH; dcgmi diag software plugin";
    r.Add(std::move(f));
    return r;
  }

  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    std::string module_why;
    auto module_read = KernelModuleVersion(h, &module_why);
    if (!module_read.ok()) return CheckResult::Error(module_read.status());
    const std::optional<ModuleVersion>& module = *module_read;

    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpu_state();

    const std::string* driver = s->driver_version.has() ? &*s->driver_version : nullptr;
    r.Note("nvml.driver_version", driver ? *driver : "unavailable: " + s->driver_version.error);
    r.Note("nvml.cuda_driver_version", s->cuda_driver_version.has()
                                           ? CudaText(*s->cuda_driver_version)
                                           : "unavailable: " + s->cuda_driver_version.error);
    if (s->nvml_version.has()) r.Note("nvml.version", *s->nvml_version);
    r.Note("kernel_module",
           module ? module->version + " (" + module->path + ")" : "unavailable: " + module_why);
    if (!driver) {
      CheckResult skip =
          CheckResult::Skip("NVML gave no driver version: " + s->driver_version.error);
      skip.evidence = r.evidence;
      return skip;
    }

    // A recording read on this machine is not compared with this machine's kernel module.
    const bool foreign = RecordingOfAnotherMachine(ctx, *s);
    if (module && foreign) {
      r.Note("kernel_module.compared", std::string("no: ") + kNotThisMachine);
    } else if (module && module->version != *driver) {
      Finding f = MakeFinding("YS-GPU-003", "node",
                              "kernel module " + module->version + " is loaded, NVML is " +
                                  *driver + ": driver/library version mismatch");
      f.evidence = {{module->path, module->version}, {"nvmlSystemGetDriverVersion", *driver}};
      f.fix = kMismatchFix;
      f.reference = "NVML NVML_ERROR_LIB_RM_VERSION_MISMATCH; dcgmi diag software plugin";
      r.Add(std::move(f));
    }
    const std::string& want = ctx.expect().gpu.driver_version;
    if (!want.empty() && *driver != want) {
      Finding f =
          MakeFinding("YS-GPU-004", "node", "driver " + *driver + ", the site runs " + want);
      f.evidence = {{"nvmlSystemGetDriverVersion", *driver}, {"site.gpu.driver_version", want}};
      f.fix = "install driver " + want + " (the site's validated driver) and reboot";
      r.Add(std::move(f));
    }
    CheckCudaDriver(*s, *driver, r);
    if (r.findings.empty()) {
      r.summary =
          "driver " + *driver +
          (s->cuda_driver_version.has() ? ", CUDA " + CudaText(*s->cuda_driver_version) : "") +
          (module && !foreign ? ", kernel module matches" : "");
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuDriverCheck,
            {.id = "gpu.driver",
             .summary = "NVML's driver version against the loaded kernel module and the "
                        "site's driver; the CUDA driver version against the driver branch.",
             .needs = {Need::kGpuState},
             .codes = {
                 {"YS-GPU-003", Severity::kFail,
                  "kernel module and NVML driver versions differ (driver/library mismatch)"},
                 {"YS-GPU-004", Severity::kWarn, "driver version differs from site expectation"},
                 {"YS-GPU-005", Severity::kWarn,
                  "CUDA driver library older than the kernel driver's branch"}}})

}  // namespace ys::checks
