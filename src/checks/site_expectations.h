// Site expectations (`--expect site.toml`): what describes the site and what more than one unit
// holds its nodes to (the expected devices, the driver, the CPU policies several units judge),
// and the parameters of single units (UnitInfo::params), set in `[unit."<id>"]` tables or, for a
// site file written before units declared them, under their older flat keys (`[gpu] ecc`, see
// ParamSpec::site_table). Every field and parameter has a default that suits a bare-metal GPU
// training node, so a run without the file is meaningful. An unknown table, unit id or key, or a
// value of the wrong type or range, is an error naming the file, the line, the key and what was
// expected.
#ifndef YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_
#define YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/unit_params.h"

namespace ys::checks {

using ::ys::Policy;
using ::ys::PolicyName;

struct SiteExpectations {
  // CPU policies judged by several units (cpu.frequency.*, cpu.cstates.*).
  struct Cpu {
    Policy turbo = Policy::kOn;
    std::string governor = "performance";
    // kOn: deep C-states (C6 class) must be enabled; kOff: must be disabled; kAny: report only.
    Policy deep_cstates = Policy::kOn;
  } cpu;
  // What the node carries (gpu.count, pcie.links, ib.ports, env.runtime.ib_hca).
  struct Devices {
    std::optional<int> gpus;
    std::optional<int> nics;
    std::optional<double> min_link_rate_gbps;
    // NCCL_IB_HCA entries the site intends, e.g. {"mlx5_0", ..., "mlx5_7"}; empty = not checked.
    std::vector<std::string> intended_hcas;
  } devices;
  struct Gpu {
    std::string driver_version;  // exact driver the site runs, e.g. "550.127.05"; "" = any
  } gpu;
  // Parameters of single units, by unit id (the defaults are declared by the units).
  UnitParamValues params;

  std::string source = "defaults";  // the file it came from
};

Result<SiteExpectations> LoadSiteExpectations(const std::string& path);
Result<SiteExpectations> ParseSiteExpectations(std::string_view toml_text, const std::string& path);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_SITE_EXPECTATIONS_H_
