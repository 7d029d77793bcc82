// virt.iommu.grace_cmdqv: on NVIDIA Grace with an Arm SMMUv3, whether the CMDQV/VCMDQ
// command-queue path is active, or disabled by an arm_smmu_v3 parameter, or missing (a kernel
// without CONFIG_TEGRA241_CMDQV, firmware or a hypervisor that exposes no NVDA200C device).
// Skips off Grace and without an SMMUv3.
#include "checks/check.h"
#include "checks/virt/internal/iommu_facts.h"
#include "core/text.h"
#include "host/interrupts.h"
#include "host/kernel_log.h"

namespace ys::checks::iommu {
namespace {

constexpr const char* kCmdqvParams = "/sys/module/arm_smmu_v3/parameters/";

// Positive and negative evidence for CMDQV.
struct Cmdqv {
  Result<std::vector<host::KernelLogLine>> log = Status::NotFound("not read");
  host::SmmuLogFacts facts;
  std::vector<std::string> acpi;   // NVDA200C devices
  std::optional<std::string> cfg;  // CONFIG_TEGRA241_CMDQV
  std::optional<bool> irq;         // a tegra241-cmdqv interrupt
  Evidence params;                 // disable_cmdqv, bypass_vcmdq, the log's "disabled" line
  bool disabled_by_param = false;
};

Status ReadParams(const host::Host& h, Cmdqv& c, CheckResult& r) {
  for (const char* name : {"disable_cmdqv", "bypass_vcmdq"}) {
    std::string path = std::string(kCmdqvParams) + name;
    auto text = h.ReadFile(path);
    if (!text.ok()) continue;  // absent: a kernel without the option, or an older one
    auto b = host::ParseModuleBool(*text);
    if (!b.ok()) return Status::Invalid(h.Resolve(path) + ": " + b.status().message());
    c.params.emplace_back(path, *b ? "Y" : "N");
    r.Note(path, *b ? "Y" : "N");
    c.disabled_by_param = c.disabled_by_param || *b;
  }
  if (c.facts.cmdqv_disabled) {
    c.params.emplace_back("kernel log", *c.facts.cmdqv_disabled);
    c.disabled_by_param = true;
  }
  return Status::Ok();
}

void ReadSignals(const host::Host& h, const IommuFacts& g, Cmdqv& c, CheckResult& r) {
  c.acpi = h.ListMatching("/sys/bus/acpi/devices", "NVDA200C:*");
  r.Note("cmdqv.acpi",
         c.acpi.empty() ? "no NVDA200C device" : "/sys/bus/acpi/devices/" + Join(c.acpi));
  c.cfg = g.config.ok() ? g.config->Get("CONFIG_TEGRA241_CMDQV") : std::nullopt;
  if (g.config.ok())
    r.Note("cmdqv.config", g.config->path + " CONFIG_TEGRA241_CMDQV=" + c.cfg.value_or("(absent)"));
  if (auto table = host::ReadInterrupts(h); table.ok()) {
    c.irq = table->HasName("tegra241-cmdqv");
    r.Note("cmdqv.interrupt",
           *c.irq ? "tegra241-cmdqv present in /proc/interrupts" : "no tegra241-cmdqv interrupt");
  } else if (table.status().code() != StatusCode::kNotFound) {
    r.Note("cmdqv.interrupt", "unreadable: " + table.status().message());
  }
}

Finding Disabled(const Cmdqv& c) {
  Finding f =
      MakeFinding("YS-VIRT-003", "node",
                  "Grace CMDQV is disabled or bypassed by an arm_smmu_v3 module parameter: SMMU "
                  "invalidations go through the single shared command queue");
  f.evidence = c.params;
  f.fix =
      "remove arm_smmu_v3.disable_cmdqv / arm_smmu_v3.bypass_vcmdq from the kernel command "
      "line and "
      "/etc/modprobe.d, then reboot; the parameters should read N";
  f.expected_recovery = "SMMU invalidation cost: about 12% on MoE training in a VM (Exemplar case)";
  f.reference = "drivers/iommu/arm/arm-smmu-v3/tegra241-cmdqv.c; docs/node-checks.md §iommu";
  return f;
}

// Why CMDQV is not active, with the evidence; no causes when nothing could be read.
std::vector<std::string> Causes(const IommuFacts& q, const IommuFacts& g, const Cmdqv& c,
                                Evidence& ev) {
  std::vector<std::string> causes;
  if (g.config.ok() && (!c.cfg || *c.cfg == "n")) {
    causes.push_back("the kernel is built without CONFIG_TEGRA241_CMDQV");
    ev.emplace_back(g.config->path, c.cfg ? "# CONFIG_TEGRA241_CMDQV is not set"
                                          : "no CONFIG_TEGRA241_CMDQV (kernel before 6.12)");
  } else if (!g.config.ok()) {
    ev.emplace_back("kernel config", "unreadable: " + g.config.status().message());
  }
  if (c.facts.cmdqv_fallback) {
    causes.push_back("the driver fell back to the standard command queue");
    ev.emplace_back("kernel log", *c.facts.cmdqv_fallback);
  }
  if (c.acpi.empty()) {
    causes.push_back(q.virt.vm
                         ? "the hypervisor does not expose VCMDQ (no NVDA200C device in the guest)"
                         : "the firmware exposes no NVDA200C CMDQV device");
    ev.emplace_back("/sys/bus/acpi/devices/NVDA200C:*", "absent");
  } else {
    ev.emplace_back("/sys/bus/acpi/devices/" + c.acpi.front(), "present");
  }
  if (c.irq.has_value()) ev.emplace_back("/proc/interrupts tegra241-cmdqv", "absent");
  if (c.log.ok() && !c.facts.smmu_lines.empty()) {
    ev.emplace_back("kernel log", "arm-smmu-v3 probed without \"found companion CMDQV device\"");
  }
  if (causes.empty() && c.irq.has_value() && c.log.ok()) {
    causes.push_back(
        "CMDQV was not probed (no tegra241-cmdqv interrupt, no companion line in the log)");
  }
  return causes;
}

Finding Missing(const IommuFacts& q, const std::vector<std::string>& causes, Evidence ev) {
  Finding f =
      MakeFinding("YS-VIRT-002", "node", "Grace SMMUv3 runs without CMDQV: " + Join(causes, "; "));
  if (q.all_identity) {
    f.severity = Severity::kWarn;  // passthrough domains issue few invalidations
    f.message += " (GPUs/NICs are in identity domains, so fewer invalidations reach it)";
  }
  f.evidence = std::move(ev);
  if (q.virt.vm) f.evidence.emplace_back("virtualization", q.virt.hypervisor + " guest");
  f.fix =
      "run a kernel with CONFIG_TEGRA241_CMDQV=y (upstream 6.12 or later, or NVIDIA's kernel for "
      "Grace)" +
      std::string(q.virt.vm ? ", and have the hypervisor expose VCMDQ to the guest (NVDA200C "
                              "ACPI device, accelerated nested SMMUv3)"
                            : "");
  f.expected_recovery =
      "SMMU command-queue invalidations took 24% of host CPU cycles and cost about 12% "
      "on MoE training in a VM (Exemplar case)";
  f.reference =
      "upstream commit 918eb5c856f6 (Tegra241 CMDQV, Linux 6.12); docs/node-checks.md §iommu";
  return f;
}

// The CMDQV judgement once Grace is established; an error for an unparsable parameter file.
Status Judge(const CheckContext& ctx, const IommuFacts& q, const IommuFacts& g, CheckResult& r) {
  const host::Host& h = ctx.host();
  Cmdqv c;
  c.log = host::ReadKernelLog(h);
  if (c.log.ok()) {
    c.facts = host::ScanSmmuLog(*c.log);
    r.Note("kernel_log.smmu",
           c.facts.smmu_lines.empty()
               ? "no arm-smmu-v3 lines"
               : std::to_string(c.facts.smmu_lines.size()) + " arm-smmu-v3 lines");
  } else {
    r.Note("kernel_log", "unreadable: " + c.log.status().message());
  }
  bool smmu3 = !c.facts.smmu_lines.empty();
  for (const auto& u : q.units) smmu3 = smmu3 || StartsWith(u, "smmu3.");
  if (!smmu3) {
    r.Note("grace.cmdqv",
           "not applicable: no SMMUv3 (/sys/class/iommu/smmu3.* absent, no arm-smmu-v3 log lines)");
    return Status::Ok();
  }
  ReadSignals(h, g, c, r);
  if (Status s = ReadParams(h, c, r); !s.ok()) return s;
  if (c.facts.cmdqv_found) r.Note("cmdqv.log", *c.facts.cmdqv_found);
  if (c.disabled_by_param) {
    r.Add(Disabled(c));
  } else if (c.facts.cmdqv_found.has_value() || c.irq.value_or(false)) {
    r.Note("grace.cmdqv", "active");
  } else {
    Evidence ev;
    std::vector<std::string> causes = Causes(q, g, c, ev);
    if (causes.empty()) {
      r.Note("grace.cmdqv", "unknown: no positive or negative evidence readable");
    } else {
      r.Add(Missing(q, causes, std::move(ev)));
    }
  }
  return Status::Ok();
}

class GraceCmdqvCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadIommu(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const IommuFacts& q = std::get<IommuFacts>(read);
    CheckResult r = StartResult(q);
    if (auto skip = GraceGate(ctx, q, r.evidence)) return std::move(*skip);
    if (Status s = Judge(ctx, q, q, r); !s.ok()) {
      return CheckResult::Error(s);
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(GraceCmdqvCheck,
            {.id = "virt.iommu.grace_cmdqv",
             .summary = "On NVIDIA Grace with an SMMUv3, the CMDQV command-queue path "
                        "active (not disabled, not missing from kernel or firmware).",
             .needs = {},
             .codes = {{"YS-VIRT-002", Severity::kFail,
                        "Grace SMMUv3 without CMDQV (command-queue virtualisation)"},
                       {"YS-VIRT-003", Severity::kFail,
                        "CMDQV disabled or bypassed by module parameter"}}})

}  // namespace ys::checks::iommu
