// Site expectations (`--expect site.toml`): the thresholds and policies a site holds its nodes
// to. Every field has a default that suits a bare-metal GPU training node, so a run without the
// file is meaningful. An unknown table or key, or a value of the wrong type or range, is an
// error naming the file, the key and what was expected.
#ifndef YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_
#define YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ys::checks {

// "on" / "off" / "any" (no opinion).
enum class Policy { kAny, kOn, kOff };
const char* PolicyName(Policy p);

struct SiteExpectations {
  struct Cpu {
    Policy smt = Policy::kAny;
    // kOn: mitigations must be active; kOff: the site runs mitigations=off; kAny: report only.
    Policy mitigations = Policy::kAny;
    Policy turbo = Policy::kOn;
    std::string governor = "performance";
    // kOn: deep C-states (C6 class) must be enabled; kOff: must be disabled; kAny: report only.
    Policy deep_cstates = Policy::kOn;
    double min_busy_clock_ratio = 0.90;  // measured busy clock / rated maximum
    int busy_clock_cpus = 8;             // CPUs sampled by the busy-clock measurement
    int busy_clock_ms = 20;              // timed window per CPU
  } cpu;
  struct Numa {
    double max_remote_share = 0.10;  // of the process's resident pages
    Policy balancing = Policy::kOff;
  } numa;
  struct Memory {
    std::string thp = "any";  // "always" | "madvise" | "never" | "any"
    Policy swap = Policy::kOff;
    bool memlock_unlimited = true;
  } memory;
  struct Devices {
    std::optional<int> gpus;
    std::optional<int> nics;
    std::optional<double> min_link_rate_gbps;
    // NCCL_IB_HCA entries the site intends, e.g. {"mlx5_0", ..., "mlx5_7"}; empty = not checked.
    std::vector<std::string> intended_hcas;
  } devices;
  struct Virt {
    Policy iommu_passthrough = Policy::kOn;  // GPUs and NICs in identity domains
  } virt;
  struct Isolation {
    bool irqs_on_job_cores = false;  // true: the site accepts device IRQs on job cores
  } isolation;
  // GPU health policy (the gpu.* checks; the expected GPU count is devices.gpus).
  struct Gpu {
    Policy persistence = Policy::kOn;    // persistence mode (nvidia-persistenced)
    Policy ecc = Policy::kOn;            // ECC mode
    Policy mig = Policy::kOff;           // MIG mode
    std::string driver_version;          // exact driver the site runs, e.g. "550.127.05"; "" = any
    double min_power_limit_ratio = 1.0;  // enforced power limit / default limit
    int temperature_margin_c = 5;        // warn this close to the GPU's own slowdown threshold
    // XIDs that fail the node (DCGM's health-module fatal list by default); other XIDs of
    // DCGM's subsystem lists warn, application XIDs warn only when repeated on one GPU.
    std::vector<int> fatal_xids = {48, 64, 74, 79, 95, 119, 120, 140};
    std::vector<int> ignored_xids;           // never reported (noted only)
    std::optional<int> nvlinks_expected_up;  // active NVLinks per GPU; unset: every link NVML lists
    int max_pcie_replays = 80;  // since the driver loaded (DCGM pcie test: 80 per test)
  } gpu;

  std::string source = "defaults";  // the file it came from
};

Result<SiteExpectations> LoadSiteExpectations(const std::string& path);
Result<SiteExpectations> ParseSiteExpectations(std::string_view toml_text, const std::string& path);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_
