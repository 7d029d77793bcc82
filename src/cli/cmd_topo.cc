// `yardstick topo`: the GPU-GPU, GPU-NIC and GPU-CPU/NUMA affinity matrix, as
// `nvidia-smi topo -m` shows it, from the PCI tree under the root and the NVML state; flags a
// GPU whose nearest NIC is across the CPU interconnect. --expect FILE compares it cell by cell with
// a saved `nvidia-smi topo -m` (report/topo_expect.h) and exits 1 when a cell differs. --from FILE
// judges a saved `nvidia-smi topo -m` on its own (report/topo_judge.h), reading nothing of this
// machine; its verdict gives the exit code (docs/verdict.md).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "checks/check.h"
#include "checks/site_expectations.h"
#include "cli/command.h"
#include "cli/command_watchdog.h"
#include "core/document_file.h"
#include "core/exit_codes.h"
#include "core/format_registry.h"
#include "core/log.h"
#include "core/verdict.h"
#include "report/topo_expect.h"
#include "report/topo_judge.h"
#include "report/topo_matrix.h"

namespace ys::cli::cmd_topo {
namespace {

struct TopoArgs {
  std::string root = "/";
  std::string nvml_state;
  std::string expect;
  std::string from;
  bool json = false;
  bool strict = false;
  double timeout_s = kDefaultCommandTimeoutS;
};

// --from: the saved matrix judged alone. PASS and WARN exit 0 (WARN 1 with --strict when a GPU's
// nearest NIC is across the CPU interconnect), FAIL 1, INCONCLUSIVE 2.
Result<int> JudgeSaved(const TopoArgs& a) {
  // Through the format room (src/formats/nvidia_smi_topo.cc).
  auto parsed = ReadFormatAs<report::SmiTopo>(a.from, FormatProduct::kTopology);
  if (!parsed.ok()) return parsed.status();
  report::TopoJudgeResult r = report::JudgeSmiTopo(*parsed);
  fmt::print("{}", report::TopoJudgeText(r, a.from));
  bool placement = false;
  for (const auto& j : r.judgements) {
    placement = placement || (j.area == "nic placement" && j.state == VerdictState::kWarn);
  }
  if (r.state == VerdictState::kWarn && a.strict && placement) return kExitFail;
  return ExitCodeOf(r.state);
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<TopoArgs>();
  sub.add_option("--root", a->root, "Read /sys under this directory (a recorded host tree)");
  sub.add_option("--nvml-state", a->nvml_state,
                 "Recorded NVML state (JSON) instead of <root>/.yardstick/nvml.json or live NVML");
  sub.add_flag("--json", a->json, "Print the matrix as JSON");
  sub.add_flag("--strict", a->strict,
               "Exit 1 when a GPU's nearest NIC is across the CPU interconnect (SYS)");
  sub.add_option("--expect", a->expect,
                 "A saved `nvidia-smi topo -m` of this machine: list the cells that differ (exit "
                 "1 when one does)");
  sub.add_option("--from", a->from,
                 "Judge a saved `nvidia-smi topo -m` (or -mp) on its own, without this machine: "
                 "missing NVLinks, NICs across the CPU interconnect, GPUs without NUMA affinity "
                 "(exit 1 FAIL, 2 INCONCLUSIVE)")
      ->excludes(sub.get_option("--root"))
      ->excludes(sub.get_option("--nvml-state"))
      ->excludes(sub.get_option("--expect"))
      ->excludes(sub.get_option("--json"));
  AddTimeoutOption(sub, a->timeout_s, "topo");
  return [a]() -> Result<int> {
    CommandWatchdog dog("topo", a->timeout_s);
    if (!a->from.empty()) return JudgeSaved(*a);
    std::optional<report::SmiTopo> expected;
    if (!a->expect.empty()) {
      // Through the format room (src/formats/nvidia_smi_topo.cc).
      auto parsed = ReadFormatAs<report::SmiTopo>(a->expect, FormatProduct::kTopology);
      if (!parsed.ok()) return parsed.status();
      expected = std::move(*parsed);
    }
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
    int code = a->strict && !m.flags.empty() ? kExitFail : kExitPass;
    if (expected) {
      report::TopoComparison c = report::CompareTopo(m, *expected);
      // The JSON keeps its schema: with --json the comparison goes to stderr.
      std::string text = report::TopoComparisonText(c, a->expect);
      if (a->json) {
        fmt::print(stderr, "{}", text);
      } else {
        fmt::print("\n{}", text);
      }
      if (!c.differences.empty()) code = kExitFail;
    }
    return code;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "topo",
     .summary = "GPU-GPU, GPU-NIC and GPU-CPU/NUMA affinity matrix (as nvidia-smi topo -m); "
                "flags GPUs whose nearest NIC is across the CPU interconnect"})

}  // namespace ys::cli::cmd_topo
