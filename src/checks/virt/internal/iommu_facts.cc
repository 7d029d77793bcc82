#include "checks/virt/internal/iommu_facts.h"

#include <algorithm>
#include <utility>

#include "core/text.h"

namespace ys::checks::iommu {
namespace {

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

Status ReadCpus(const host::Host& h, IommuFacts& f) {
  auto text = h.ReadFile("/proc/cpuinfo");
  if (text.ok() && Trim(*text).empty()) {
    // The kernel lists every online CPU; an empty copy tells neither the architecture nor the
    // hypervisor flag, the other signals still count.
    f.notes.emplace_back("/proc/cpuinfo", "empty file: architecture and hypervisor flag unknown");
  } else if (text.ok()) {
    auto parsed = host::ParseCpuInfo(*text);
    if (!parsed.ok()) {
      return Status::Invalid(h.Resolve("/proc/cpuinfo") + ": " + parsed.status().message());
    }
    f.cpus = std::move(*parsed);
  } else if (text.status().code() != StatusCode::kNotFound) {
    return text.status();
  }
  return Status::Ok();
}

// The IOMMU domain of every GPU and NIC.
Status ReadDevices(const CheckContext& ctx, IommuFacts& f) {
  const host::Host& h = ctx.host();
  const auto& topo = ctx.topology();
  if (!topo.ok()) {
    f.notes.emplace_back("iommu.devices",
                         "unknown: topology unreadable (" + topo.status().message() + ")");
    return Status::Ok();
  }
  for (const auto* d : topo->Gpus()) {
    f.nvidia_gpu = true;
    auto io = host::ReadDeviceIommu(h, d->bdf);
    if (!io.ok()) return io.status();
    f.devices.push_back({"GPU", *io});
  }
  for (const auto* d : topo->NetworkDevices()) {
    auto io = host::ReadDeviceIommu(h, d->bdf);
    if (!io.ok()) return io.status();
    f.devices.push_back({"NIC", *io});
  }
  return Status::Ok();
}

void ClassifyDomains(const host::Host& h, IommuFacts& f) {
  std::vector<std::string> domain_notes;
  f.all_identity = !f.devices.empty();
  for (size_t i = 0; i < f.devices.size(); ++i) {
    const Device& d = f.devices[i];
    std::string type = !d.iommu.group ? "no IOMMU group"
                       : d.iommu.type
                           ? host::IommuDomainTypeName(*d.iommu.type)
                           : "group " + std::to_string(*d.iommu.group) +
                                 (h.Exists(d.iommu.type_path) ? ", type unknown (empty type file)"
                                                              : ", type unknown (kernel < 5.11)");
    domain_notes.push_back(d.kind + " " + d.iommu.bdf + ": " + type);
    bool identity =
        !d.iommu.group || (d.iommu.type && *d.iommu.type == host::IommuDomainType::kIdentity);
    if (!identity) f.all_identity = false;
    if (d.iommu.type && host::IsTranslated(*d.iommu.type)) {
      f.translated.push_back(i);
      if (*d.iommu.type == host::IommuDomainType::kDma) f.strict_domains.push_back(i);
    }
  }
  if (!f.devices.empty()) f.notes.emplace_back("iommu.domains", Join(domain_notes, "; "));
}

// The base page size and the kernel configuration.
Status ReadPageSize(const CheckContext& ctx, IommuFacts& f) {
  const host::Host& h = ctx.host();
  auto page = host::ReadBasePageSize(h, ctx.ProcDir());
  if (!page.ok()) return page.status();
  f.page = *page;
  if (f.page) {
    f.notes.emplace_back("page_size", std::to_string(f.page->kb) + " kB (" + f.page->source + ")");
  } else {
    f.notes.emplace_back("page_size",
                         "unknown (no smaps or numa_maps in " + h.Resolve(ctx.ProcDir()) + ")");
  }
  f.config = host::ReadKernelConfig(h);
  if (f.config.ok()) {
    f.notes.emplace_back("kernel_config", f.config->path);
    for (const char* opt :
         {"CONFIG_ARM64_4K_PAGES", "CONFIG_ARM64_16K_PAGES", "CONFIG_ARM64_64K_PAGES"}) {
      if (f.config->Get(opt) == "y") {
        f.notes.emplace_back("kernel_config.page_size", std::string(opt) + "=y");
      }
    }
  } else if (f.config.status().code() == StatusCode::kNotFound ||
             f.config.status().code() == StatusCode::kPermissionDenied) {
    f.notes.emplace_back("kernel_config", "unreadable: " + f.config.status().message());
  } else {
    return f.config.status();
  }
  return Status::Ok();
}

}  // namespace

std::variant<IommuFacts, CheckResult> ReadIommu(const CheckContext& ctx) {
  const host::Host& h = ctx.host();
  if (!h.Exists("/proc/cpuinfo") && !h.IsDirectory("/sys/class")) {
    return CheckResult::Skip(h.Resolve("/proc/cpuinfo") + " and " + h.Resolve("/sys/class") +
                             " are absent: not a Linux host tree");
  }
  IommuFacts f;
  if (Status s = ReadCpus(h, f); !s.ok()) return CheckResult::Error(s);
  f.arch = host::CpuArchOf(f.cpus);
  f.notes.emplace_back("arch", host::CpuArchName(f.arch));

  // Virtual machine or bare metal.
  f.virt = host::DetectVirtualization(h, f.cpus);
  std::vector<std::string> why;
  for (const auto& s : f.virt.signals) why.push_back(s.source + "=" + s.value);
  f.notes.emplace_back("virtualization",
                       f.virt.vm ? f.virt.hypervisor + " guest (" + Join(why) + ")"
                                 : std::string("bare metal (no DMI, cpuinfo, /sys/hypervisor or "
                                               "device-tree hypervisor signal)"));
  for (const auto& [path, value] : f.virt.dmi) f.notes.emplace_back(path, value);

  // IOMMU units and the command line.
  auto cmdline_text = h.ReadFile("/proc/cmdline");
  f.ic = host::ParseIommuCmdline(
      host::KernelCmdline::Parse(cmdline_text.ok() ? *cmdline_text : std::string()));
  f.units = host::ListIommuUnits(h);
  f.notes.emplace_back("iommu.units",
                       f.units.empty() ? "none (/sys/class/iommu empty or absent)" : Join(f.units));
  f.notes.emplace_back("iommu.cmdline",
                       f.ic.tokens.empty() ? "no IOMMU parameters" : Join(f.ic.tokens, " "));
  if (Status s = ReadDevices(ctx, f); !s.ok()) return CheckResult::Error(s);
  ClassifyDomains(h, f);
  if (Status s = ReadPageSize(ctx, f); !s.ok()) return CheckResult::Error(s);
  return f;
}

std::optional<CheckResult> GraceGate(const CheckContext& ctx, const IommuFacts& f,
                                     Evidence& notes) {
  std::string why;
  if (f.arch != host::CpuArch::kArm64) {
    why = std::string("not applicable: ") + host::CpuArchName(f.arch) +
          " host (CMDQV is an extension of the Arm SMMUv3 on NVIDIA Grace)";
  } else if (auto grace = GraceSignals(ctx.host(), f.cpus, f.nvidia_gpu); grace.empty()) {
    why =
        "not applicable: aarch64 but no Grace signal (soc_id jep106:036b:0241, "
        "NVDA200C ACPI device, or Neoverse V2 cores with an NVIDIA GPU)";
  } else {
    notes.emplace_back("grace", Join(grace));
    return std::nullopt;
  }
  CheckResult skip = CheckResult::Skip(why);
  skip.evidence = notes;
  skip.Note("grace", why);
  return skip;
}

CheckResult StartResult(const IommuFacts& f) {
  CheckResult r;
  r.evidence = f.notes;
  return r;
}

void Conclude(const IommuFacts& f, CheckResult& r) {
  if (!r.findings.empty()) return;
  r.summary = std::string(f.virt.vm ? f.virt.hypervisor + " guest" : "bare metal") + ", " +
              (f.devices.empty() ? "no GPU/NIC"
               : f.all_identity  ? "GPUs/NICs untranslated"
                                 : "IOMMU as policy allows") +
              (f.page ? ", " + std::to_string(f.page->kb) + " kB pages" : "");
}

}  // namespace ys::checks::iommu
