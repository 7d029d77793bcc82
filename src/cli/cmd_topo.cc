// `yardstick topo`: the GPU-GPU, GPU-NIC and GPU-CPU/NUMA affinity matrix, as
// `nvidia-smi topo -m` shows it, from the PCI tree under the root and the NVML state; flags a
// GPU whose nearest NIC is across the CPU interconnect.
#include <fmt/format.h>

#include <memory>

#include "checks/check.h"
#include "checks/site_expectations.h"
#include "cli/command.h"
#include "cli/command_watchdog.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "report/topo_matrix.h"

namespace ys::cli::cmd_topo {
namespace {

struct TopoArgs {
  std::string root = "/";
  std::string nvml_state;
  bool json = false;
  bool strict = false;
  double timeout_s = kDefaultCommandTimeoutS;
};

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<TopoArgs>();
  sub.add_option("--root", a->root, "Read /sys under this directory (a recorded host tree)");
  sub.add_option("--nvml-state", a->nvml_state,
                 "Recorded NVML state (JSON) instead of <root>/.yardstick/nvml.json or live NVML");
  sub.add_flag("--json", a->json, "Print the matrix as JSON");
  sub.add_flag("--strict", a->strict,
               "Exit 1 when a GPU's nearest NIC is across the CPU interconnect (SYS)");
  AddTimeoutOption(sub, a->timeout_s, "topo");
  return [a]() -> Result<int> {
    CommandWatchdog dog("topo", a->timeout_s);
    dog.Step("opening the host root " + a->root);
    auto host =
        a->root == "/" ? Result<host::Host>(host::Host::Live()) : host::Host::AtRoot(a->root);
    if (!host.ok()) return host.status();
    checks::SiteExpectations expect;
    checks::CheckContext ctx(*host, expect);
    if (!a->nvml_state.empty()) ctx.set_nvml_state_path(a->nvml_state);
    dog.Step("reading the topology (CPUs, NUMA nodes, PCI devices)");
    const auto& topo = ctx.topology();
    if (!topo.ok()) {
      return Prefixed("topology", topo.status());
    }
    dog.Step("reading the GPU state");
    const auto& gpus = ctx.gpu();
    // State the operator named, or recorded state that is malformed, is bad input; NVML that is
    // simply absent leaves the PCI matrix, which says so.
    if (!gpus.ok() &&
        (!a->nvml_state.empty() || gpus.status().code() == StatusCode::kInvalidInput)) {
      return Prefixed("NVML state", gpus.status());
    }
    dog.Step("building the matrix");
    report::TopoMatrix m = report::BuildTopoMatrix(*host, *topo, gpus);
    fmt::print("{}", a->json ? report::TopoMatrixJson(m) : report::TopoMatrixText(m));
    return a->strict && !m.flags.empty() ? kExitFail : kExitPass;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "topo",
     .summary = "GPU-GPU, GPU-NIC and GPU-CPU/NUMA affinity matrix (as nvidia-smi topo -m); "
                "flags GPUs whose nearest NIC is across the CPU interconnect"})

}  // namespace ys::cli::cmd_topo
