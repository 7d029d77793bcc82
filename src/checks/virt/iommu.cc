// virt.iommu: virtual-machine detection, the IOMMU mode of the GPUs' and NICs' groups, the base
// page size, and on NVIDIA Grace with an Arm SMMUv3 whether the CMDQV/VCMDQ command-queue path
// is active (reference: linux-node-knobs.md §8).
//
// Policy choices:
// - A VM is evidence, never a fault.
// - YS-VIRT-001 (translated GPU/NIC domains) applies on bare metal only, under site policy
//   virt.iommu_passthrough. In a guest the IOMMU the guest sees is a virtual one the cloud
//   configured (for device assignment, nested translation or the accelerated SMMU that CMDQV
//   needs); the expensive translation is the host's stage 2, invisible and unchangeable from
//   inside. There the domain types are reported as evidence, and the costs the guest can act on
//   are flagged instead: strict invalidation (YS-VIRT-005) and, on Grace, the missing CMDQV
//   path (YS-VIRT-002) through which the guest's invalidations would otherwise trap.
// - The Grace part runs only on aarch64 Grace systems; elsewhere the evidence says why it was
//   skipped, and an x86 node never gets a YS-VIRT-002/003/004 finding.
#include "host/iommu.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "checks/check.h"
#include "core/text.h"
#include "host/interrupts.h"
#include "host/kernel_config.h"
#include "host/kernel_log.h"
#include "host/page_size.h"
#include "host/procfs.h"
#include "host/virt.h"

namespace ys::checks {
namespace {

constexpr const char* kReference =
    "linux-node-knobs.md §8; Documentation/ABI/testing/sysfs-kernel-iommu_groups";
constexpr const char* kCmdqvParams = "/sys/module/arm_smmu_v3/parameters/";

struct Device {
  std::string kind;  // "GPU", "NIC"
  host::DeviceIommu iommu;
};

// Evidence that this aarch64 machine is an NVIDIA Grace (Neoverse V2 cores, SoC id 0x241).
std::vector<std::string> GraceSignals(const host::Host& h,
                                      const std::vector<host::CpuInfoEntry>& cpus,
                                      bool nvidia_gpu) {
  std::vector<std::string> out;
  if (auto soc = h.ReadLine("/sys/devices/soc0/soc_id"); soc.ok() && *soc == "jep106:036b:0241") {
    out.push_back("/sys/devices/soc0/soc_id=" + *soc);
  }
  auto acpi = h.ListMatching("/sys/bus/acpi/devices", "NVDA200C:*");
  if (!acpi.empty()) out.push_back("/sys/bus/acpi/devices/" + acpi.front() + " (CMDQV companion)");
  if (!cpus.empty() && nvidia_gpu) {
    const auto& f = cpus.front().fields;
    auto impl = f.find("CPU implementer"), part = f.find("CPU part");
    if (impl != f.end() && part != f.end() && impl->second == "0x41" && part->second == "0xd4f") {
      out.push_back("Neoverse V2 cores (CPU part 0xd4f) with an NVIDIA GPU");
    }
  }
  return out;
}

class VirtIommuCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    if (!h.Exists("/proc/cpuinfo") && !h.IsDirectory("/sys/class")) {
      return CheckResult::Skip(h.Resolve("/proc/cpuinfo") + " and " + h.Resolve("/sys/class") +
                               " are absent: not a Linux host tree");
    }
    CheckResult r;
    std::vector<host::CpuInfoEntry> cpus;
    if (auto text = h.ReadFile("/proc/cpuinfo"); text.ok() && Trim(*text).empty()) {
      // The kernel lists every online CPU; an empty copy tells neither the architecture nor the
      // hypervisor flag, the other signals still count.
      r.Note("/proc/cpuinfo", "empty file: architecture and hypervisor flag unknown");
    } else if (text.ok()) {
      auto parsed = host::ParseCpuInfo(*text);
      if (!parsed.ok()) {
        return CheckResult::Error(
            Status::Invalid(h.Resolve("/proc/cpuinfo") + ": " + parsed.status().message()));
      }
      cpus = std::move(*parsed);
    } else if (text.status().code() != StatusCode::kNotFound) {
      return CheckResult::Error(text.status());
    }
    host::CpuArch arch = host::CpuArchOf(cpus);
    r.Note("arch", host::CpuArchName(arch));

    // Virtual machine or bare metal.
    host::VirtDetection virt = host::DetectVirtualization(h, cpus);
    std::vector<std::string> why;
    for (const auto& s : virt.signals) why.push_back(s.source + "=" + s.value);
    r.Note("virtualization", virt.vm
                                 ? virt.hypervisor + " guest (" + Join(why) + ")"
                                 : std::string("bare metal (no DMI, cpuinfo, /sys/hypervisor or "
                                               "device-tree hypervisor signal)"));
    for (const auto& [path, value] : virt.dmi) r.Note(path, value);

    // IOMMU units and the command line.
    auto cmdline_text = h.ReadFile("/proc/cmdline");
    host::IommuCmdline ic = host::ParseIommuCmdline(
        host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : std::string()));
    std::vector<std::string> units = host::ListIommuUnits(h);
    r.Note("iommu.units", units.empty() ? "none (/sys/class/iommu empty or absent)" : Join(units));
    r.Note("iommu.cmdline", ic.tokens.empty() ? "no IOMMU parameters" : Join(ic.tokens, " "));

    // The IOMMU domain of every GPU and NIC.
    std::vector<Device> devices;
    bool nvidia_gpu = false;
    const auto& topo = ctx.topology();
    if (topo.ok()) {
      for (const auto* d : topo->Gpus()) {
        nvidia_gpu = true;
        auto io = host::ReadDeviceIommu(h, d->bdf);
        if (!io.ok()) return CheckResult::Error(io.status());
        devices.push_back({"GPU", *io});
      }
      for (const auto* d : topo->NetworkDevices()) {
        auto io = host::ReadDeviceIommu(h, d->bdf);
        if (!io.ok()) return CheckResult::Error(io.status());
        devices.push_back({"NIC", *io});
      }
    } else {
      r.Note("iommu.devices", "unknown: topology unreadable (" + topo.status().message() + ")");
    }
    std::vector<const Device*> translated, strict_domains;
    std::vector<std::string> domain_notes;
    bool all_identity = !devices.empty();
    for (const auto& d : devices) {
      std::string type = !d.iommu.group ? "no IOMMU group"
                         : d.iommu.type
                             ? host::IommuDomainTypeName(*d.iommu.type)
                             : "group " + std::to_string(*d.iommu.group) +
                                   (h.Exists(d.iommu.type_path) ? ", type unknown (empty type file)"
                                                                : ", type unknown (kernel < 5.11)");
      domain_notes.push_back(d.kind + " " + d.iommu.bdf + ": " + type);
      bool identity =
          !d.iommu.group || (d.iommu.type && *d.iommu.type == host::IommuDomainType::kIdentity);
      if (!identity) all_identity = false;
      if (d.iommu.type && host::IsTranslated(*d.iommu.type)) {
        translated.push_back(&d);
        if (*d.iommu.type == host::IommuDomainType::kDma) strict_domains.push_back(&d);
      }
    }
    if (!devices.empty()) r.Note("iommu.domains", Join(domain_notes, "; "));

    if (!translated.empty() && !virt.vm && ctx.expect().virt.iommu_passthrough == Policy::kOn) {
      Finding f =
          MakeFinding("YS-VIRT-001", translated.size() == 1 ? translated[0]->iommu.bdf : "node",
                      std::to_string(translated.size()) + " of " + std::to_string(devices.size()) +
                          " GPUs/NICs sit in translated IOMMU domains on bare metal: every DMA "
                          "is translated and RDMA registration pays IOTLB misses");
      for (const auto* d : translated) {
        f.evidence.emplace_back(d->iommu.type_path + " (" + d->kind + " " + d->iommu.bdf + ")",
                                host::IommuDomainTypeName(*d->iommu.type));
      }
      f.evidence.emplace_back("/proc/cmdline IOMMU parameters",
                              ic.tokens.empty() ? "none" : Join(ic.tokens, " "));
      f.evidence.emplace_back("site.virt.iommu_passthrough", "on");
      f.fix =
          std::string(arch == host::CpuArch::kArm64 ? "iommu.passthrough=1" : "iommu=pt") +
          " on the kernel command line (GRUB_CMDLINE_LINUX, then update-grub and reboot); or, "
          "per group with the device unbound: echo identity > /sys/kernel/iommu_groups/<N>/type";
      f.reference = kReference;
      r.Add(std::move(f));
    } else if (virt.vm) {
      r.Note("iommu.policy",
             "passthrough policy not applied in a VM: the guest's IOMMU is the one the "
             "hypervisor gives it; the host's translation cannot be seen from inside");
    }

    bool iommu_present =
        !units.empty() || std::any_of(devices.begin(), devices.end(),
                                      [](const Device& d) { return d.iommu.group.has_value(); });
    if (iommu_present && !ic.disabled && !all_identity && (ic.strict || !strict_domains.empty())) {
      Finding f =
          MakeFinding("YS-VIRT-005", "node",
                      ic.strict ? "IOMMU in strict mode (" + ic.strict_token +
                                      "): every DMA unmap waits for an IOTLB invalidation"
                                : std::to_string(strict_domains.size()) +
                                      " GPU/NIC domains are strict \"DMA\": every unmap waits "
                                      "for an IOTLB invalidation");
      if (ic.strict) f.evidence.emplace_back("/proc/cmdline", ic.strict_token);
      for (const auto* d : strict_domains) f.evidence.emplace_back(d->iommu.type_path, "DMA");
      if (virt.vm)
        f.evidence.emplace_back("virtualization",
                                virt.hypervisor + " guest: invalidations trap to the host");
      f.fix = "remove " + (ic.strict ? ic.strict_token : std::string("the strict default")) +
              ": iommu.strict=0 (lazy invalidation, DMA-FQ), or passthrough (iommu=pt / "
              "iommu.passthrough=1) where the site allows it";
      f.reference = "kernel-parameters.txt iommu.strict; linux-node-knobs.md §8";
      r.Add(std::move(f));
    }

    // Base page size and the kernel configuration.
    auto page = host::ReadBasePageSize(h, ctx.ProcDir());
    if (!page.ok()) return CheckResult::Error(page.status());
    if (*page) {
      r.Note("page_size", std::to_string((*page)->kb) + " kB (" + (*page)->source + ")");
    } else {
      r.Note("page_size", "unknown (no smaps or numa_maps in " + h.Resolve(ctx.ProcDir()) + ")");
    }
    auto config = host::ReadKernelConfig(h);
    if (config.ok()) {
      r.Note("kernel_config", config->path);
      for (const char* opt :
           {"CONFIG_ARM64_4K_PAGES", "CONFIG_ARM64_16K_PAGES", "CONFIG_ARM64_64K_PAGES"}) {
        if (config->Get(opt) == "y") r.Note("kernel_config.page_size", std::string(opt) + "=y");
      }
    } else if (config.status().code() == StatusCode::kNotFound ||
               config.status().code() == StatusCode::kPermissionDenied) {
      r.Note("kernel_config", "unreadable: " + config.status().message());
    } else {
      return CheckResult::Error(config.status());
    }

    // NVIDIA Grace: CMDQV and page size.
    if (arch != host::CpuArch::kArm64) {
      r.Note("grace", std::string("not applicable: ") + host::CpuArchName(arch) +
                          " host (CMDQV is an extension of the Arm SMMUv3 on NVIDIA Grace)");
    } else if (auto grace = GraceSignals(h, cpus, nvidia_gpu); grace.empty()) {
      r.Note("grace",
             "not applicable: aarch64 but no Grace signal (soc_id jep106:036b:0241, "
             "NVDA200C ACPI device, or Neoverse V2 cores with an NVIDIA GPU)");
    } else {
      r.Note("grace", Join(grace));
      Status s = CheckGrace(ctx, units, *page, config, virt, all_identity, r);
      if (!s.ok()) return CheckResult::Error(s);
    }

    if (r.findings.empty()) {
      r.summary = std::string(virt.vm ? virt.hypervisor + " guest" : "bare metal") + ", " +
                  (devices.empty() ? "no GPU/NIC"
                   : all_identity  ? "GPUs/NICs untranslated"
                                   : "IOMMU as policy allows") +
                  (*page ? ", " + std::to_string((*page)->kb) + " kB pages" : "");
    }
    return r;
  }

 private:
  static Status CheckGrace(const CheckContext& ctx, const std::vector<std::string>& units,
                           const std::optional<host::PageSize>& page,
                           const Result<host::KernelConfig>& config,
                           const host::VirtDetection& virt, bool all_identity, CheckResult& r) {
    const host::Host& h = ctx.host();

    // Page size: NVIDIA recommends 64K kernels on Grace.
    std::optional<std::string> cfg4k =
        config.ok() ? config->Get("CONFIG_ARM64_4K_PAGES") : std::nullopt;
    bool four_k = page ? page->kb == 4 : (cfg4k && *cfg4k == "y");
    if (four_k) {
      Finding f = MakeFinding(
          "YS-VIRT-004", "node",
          "4 KiB base pages on Grace: 16 times the TLB entries and page faults of 64 KiB "
          "pages for the same memory");
      if (page)
        f.evidence.emplace_back(page->source + " KernelPageSize", std::to_string(page->kb) + " kB");
      if (cfg4k) f.evidence.emplace_back(config->path + " CONFIG_ARM64_4K_PAGES", *cfg4k);
      f.fix =
          "boot a 64K-page kernel (CONFIG_ARM64_64K_PAGES=y, e.g. Ubuntu's linux-nvidia-64k "
          "flavour); "
          "check that the job's software does not assume 4 KiB pages";
      f.reference =
          "NVIDIA Grace Performance Tuning Guide, Operating System Settings; linux-node-knobs.md "
          "§8";
      r.Add(std::move(f));
    }

    // CMDQV needs an SMMUv3.
    auto log = host::ReadKernelLog(h);
    host::SmmuLogFacts facts;
    if (log.ok()) {
      facts = host::ScanSmmuLog(*log);
      r.Note("kernel_log.smmu", facts.smmu_lines.empty() ? "no arm-smmu-v3 lines"
                                                         : std::to_string(facts.smmu_lines.size()) +
                                                               " arm-smmu-v3 lines");
    } else {
      r.Note("kernel_log", "unreadable: " + log.status().message());
    }
    bool smmu3 = !facts.smmu_lines.empty();
    for (const auto& u : units) smmu3 = smmu3 || StartsWith(u, "smmu3.");
    if (!smmu3) {
      r.Note(
          "grace.cmdqv",
          "not applicable: no SMMUv3 (/sys/class/iommu/smmu3.* absent, no arm-smmu-v3 log lines)");
      return Status::Ok();
    }

    // Positive and negative evidence for CMDQV.
    auto acpi = h.ListMatching("/sys/bus/acpi/devices", "NVDA200C:*");
    r.Note("cmdqv.acpi",
           acpi.empty() ? "no NVDA200C device" : "/sys/bus/acpi/devices/" + Join(acpi));
    std::optional<std::string> cfg =
        config.ok() ? config->Get("CONFIG_TEGRA241_CMDQV") : std::nullopt;
    if (config.ok())
      r.Note("cmdqv.config", config->path + " CONFIG_TEGRA241_CMDQV=" + cfg.value_or("(absent)"));
    std::optional<bool> irq;
    if (auto table = host::ReadInterrupts(h); table.ok()) {
      irq = table->HasName("tegra241-cmdqv");
      r.Note("cmdqv.interrupt",
             *irq ? "tegra241-cmdqv present in /proc/interrupts" : "no tegra241-cmdqv interrupt");
    } else if (table.status().code() != StatusCode::kNotFound) {
      r.Note("cmdqv.interrupt", "unreadable: " + table.status().message());
    }
    Evidence params;
    bool disabled_by_param = false;
    for (const char* name : {"disable_cmdqv", "bypass_vcmdq"}) {
      std::string path = std::string(kCmdqvParams) + name;
      auto text = h.ReadFile(path);
      if (!text.ok()) continue;  // absent: a kernel without the option, or an older one
      auto b = host::ParseModuleBool(*text);
      if (!b.ok()) return Status::Invalid(h.Resolve(path) + ": " + b.status().message());
      params.emplace_back(path, *b ? "Y" : "N");
      r.Note(path, *b ? "Y" : "N");
      disabled_by_param = disabled_by_param || *b;
    }
    if (facts.cmdqv_disabled) {
      params.emplace_back("kernel log", *facts.cmdqv_disabled);
      disabled_by_param = true;
    }
    bool active = facts.cmdqv_found.has_value() || irq.value_or(false);
    if (facts.cmdqv_found) r.Note("cmdqv.log", *facts.cmdqv_found);

    if (disabled_by_param) {
      Finding f = MakeFinding(
          "YS-VIRT-003", "node",
          "Grace CMDQV is disabled or bypassed by an arm_smmu_v3 module parameter: SMMU "
          "invalidations go through the single shared command queue");
      f.evidence = params;
      f.fix =
          "remove arm_smmu_v3.disable_cmdqv / arm_smmu_v3.bypass_vcmdq from the kernel command "
          "line and "
          "/etc/modprobe.d, then reboot; the parameters should read N";
      f.expected_recovery =
          "SMMU invalidation cost: about 12% on MoE training in a VM (Exemplar case)";
      f.reference = "drivers/iommu/arm/arm-smmu-v3/tegra241-cmdqv.c; linux-node-knobs.md §8";
      r.Add(std::move(f));
      return Status::Ok();
    }
    if (active) {
      r.Note("grace.cmdqv", "active");
      return Status::Ok();
    }
    Evidence ev;
    std::vector<std::string> causes;
    if (config.ok() && (!cfg || *cfg == "n")) {
      causes.push_back("the kernel is built without CONFIG_TEGRA241_CMDQV");
      ev.emplace_back(config->path, cfg ? "# CONFIG_TEGRA241_CMDQV is not set"
                                        : "no CONFIG_TEGRA241_CMDQV (kernel before 6.12)");
    } else if (!config.ok()) {
      ev.emplace_back("kernel config", "unreadable: " + config.status().message());
    }
    if (facts.cmdqv_fallback) {
      causes.push_back("the driver fell back to the standard command queue");
      ev.emplace_back("kernel log", *facts.cmdqv_fallback);
    }
    if (acpi.empty()) {
      causes.push_back(
          virt.vm ? "the hypervisor does not expose VCMDQ (no NVDA200C device in the guest)"
                  : "the firmware exposes no NVDA200C CMDQV device");
      ev.emplace_back("/sys/bus/acpi/devices/NVDA200C:*", "absent");
    } else {
      ev.emplace_back("/sys/bus/acpi/devices/" + acpi.front(), "present");
    }
    if (irq.has_value()) ev.emplace_back("/proc/interrupts tegra241-cmdqv", "absent");
    if (log.ok() && !facts.smmu_lines.empty()) {
      ev.emplace_back("kernel log", "arm-smmu-v3 probed without \"found companion CMDQV device\"");
    }
    if (causes.empty() && irq.has_value() && log.ok()) {
      causes.push_back(
          "CMDQV was not probed (no tegra241-cmdqv interrupt, no companion line in the log)");
    }
    if (causes.empty()) {
      r.Note("grace.cmdqv", "unknown: no positive or negative evidence readable");
      return Status::Ok();
    }
    Finding f = MakeFinding("YS-VIRT-002", "node",
                            "Grace SMMUv3 runs without CMDQV: " + Join(causes, "; "));
    if (all_identity) {
      f.severity = Severity::kWarn;  // passthrough domains issue few invalidations
      f.message += " (GPUs/NICs are in identity domains, so fewer invalidations reach it)";
    }
    f.evidence = ev;
    if (virt.vm) f.evidence.emplace_back("virtualization", virt.hypervisor + " guest");
    f.fix =
        "run a kernel with CONFIG_TEGRA241_CMDQV=y (upstream 6.12 or later, or NVIDIA's kernel for "
        "Grace)" +
        std::string(virt.vm ? ", and have the hypervisor expose VCMDQ to the guest (NVDA200C "
                              "ACPI device, accelerated nested SMMUv3)"
                            : "");
    f.expected_recovery =
        "SMMU command-queue invalidations took 24% of host CPU cycles and cost about 12% "
        "on MoE training in a VM (Exemplar case)";
    f.reference =
        "upstream commit 918eb5c856f6 (Tegra241 CMDQV, Linux 6.12); linux-node-knobs.md §8";
    r.Add(std::move(f));
    return Status::Ok();
  }
};

}  // namespace

YS_REGISTER(VirtIommuCheck,
            {.id = "virt.iommu",
             .summary = "VM detection, the IOMMU mode of GPUs and NICs, page size, and on Grace "
                        "whether the SMMUv3 CMDQV command-queue path is active.",
             .needs = {}})

}  // namespace ys::checks
