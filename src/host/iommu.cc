#include "host/iommu.h"

#include <cctype>

#include "core/text.h"

namespace ys::host {

Result<IommuDomainType> ParseIommuDomainType(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "identity") return IommuDomainType::kIdentity;
  if (t == "DMA") return IommuDomainType::kDma;
  if (t == "DMA-FQ") return IommuDomainType::kDmaFq;
  if (t == "blocked") return IommuDomainType::kBlocked;
  if (t == "unmanaged") return IommuDomainType::kUnmanaged;
  return Status::Invalid("expected one of identity, DMA, DMA-FQ, blocked, unmanaged; got \"" +
                         std::string(t.substr(0, 40)) + "\"");
}

const char* IommuDomainTypeName(IommuDomainType t) {
  switch (t) {
    case IommuDomainType::kIdentity:
      return "identity";
    case IommuDomainType::kDma:
      return "DMA";
    case IommuDomainType::kDmaFq:
      return "DMA-FQ";
    case IommuDomainType::kBlocked:
      return "blocked";
    case IommuDomainType::kUnmanaged:
      return "unmanaged";
  }
  return "?";
}

Result<DeviceIommu> ReadDeviceIommu(const Host& host, const std::string& bdf) {
  DeviceIommu d;
  d.bdf = bdf;
  std::string link_path = "/sys/bus/pci/devices/" + bdf + "/iommu_group";
  auto link = host.ReadLink(link_path);
  if (!link.ok()) {
    if (link.status().code() == StatusCode::kNotFound) return d;
    return link.status();
  }
  std::string_view target = *link;
  size_t slash = target.rfind('/');
  std::string_view name = slash == std::string_view::npos ? target : target.substr(slash + 1);
  auto group = ParseInt(name);
  if (!group || *group < 0) {
    return Status::Invalid(host.Resolve(link_path) +
                           ": expected a link to iommu_groups/<N>, got \"" + std::string(target) +
                           "\"");
  }
  d.group = static_cast<int>(*group);
  d.type_path = "/sys/kernel/iommu_groups/" + std::to_string(*group) + "/type";
  auto text = host.ReadFile(d.type_path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return d;  // kernel before 5.11
    return text.status();
  }
  // The kernel always names the domain type; an empty file (a copy that could not read it)
  // leaves the type unknown, as on a kernel before 5.11.
  if (Trim(*text).empty()) return d;
  auto type = ParseIommuDomainType(*text);
  if (!type.ok())
    return Status::Invalid(host.Resolve(d.type_path) + ": " + type.status().message());
  d.type = *type;
  return d;
}

std::vector<std::string> ListIommuUnits(const Host& host) {
  return host.ListMatching("/sys/class/iommu", "*");
}

namespace {

// kstrtobool as the kernel applies it to iommu.passthrough= and iommu.strict=.
std::optional<bool> KernelBool(std::string_view v) {
  if (v.empty()) return std::nullopt;
  char c = static_cast<char>(std::tolower(static_cast<unsigned char>(v[0])));
  if (c == '1' || c == 'y') return true;
  if (c == '0' || c == 'n') return false;
  if (c == 'o' && v.size() > 1) {
    char c2 = static_cast<char>(std::tolower(static_cast<unsigned char>(v[1])));
    if (c2 == 'n') return true;
    if (c2 == 'f') return false;
  }
  return std::nullopt;
}

bool ListHas(std::string_view list, std::string_view item) {
  for (std::string_view part : Split(list, ',')) {
    if (Trim(part) == item) return true;
  }
  return false;
}

}  // namespace

IommuCmdline ParseIommuCmdline(const KernelCmdline& cmdline) {
  IommuCmdline c;
  for (const std::string& tok : cmdline.tokens()) {
    std::string_view t = tok;
    size_t eq = t.find('=');
    std::string_view key = t.substr(0, eq);
    std::string_view val = eq == std::string_view::npos ? std::string_view() : t.substr(eq + 1);
    if (key == "iommu") {
      c.tokens.push_back(tok);
      if (ListHas(val, "pt")) {
        c.passthrough = true;
        c.passthrough_token = tok;
      }
      if (ListHas(val, "nopt")) {
        c.passthrough = false;
        c.passthrough_token = tok;
      }
      if (ListHas(val, "off")) {
        c.disabled = true;
        c.disabled_token = tok;
      }
    } else if (key == "iommu.passthrough") {
      c.tokens.push_back(tok);
      if (auto b = KernelBool(val)) {
        c.passthrough = *b;
        c.passthrough_token = tok;
      }
    } else if (key == "iommu.strict") {
      c.tokens.push_back(tok);
      if (auto b = KernelBool(val)) {
        c.strict = *b;
        c.strict_token = tok;
      }
    } else if (key == "intel_iommu") {
      c.tokens.push_back(tok);
      if (ListHas(val, "off")) {
        c.disabled = true;
        c.disabled_token = tok;
      } else if (ListHas(val, "on")) {
        c.disabled = false;
      }
      if (ListHas(val, "strict")) {
        c.strict = true;
        c.strict_token = tok;
      }
    } else if (key == "amd_iommu") {
      c.tokens.push_back(tok);
      if (ListHas(val, "off")) {
        c.disabled = true;
        c.disabled_token = tok;
      }
      if (ListHas(val, "fullflush")) {
        c.strict = true;
        c.strict_token = tok;
      }
    }
  }
  return c;
}

Result<bool> ParseModuleBool(std::string_view text) {
  std::string_view t = Trim(text);
  if (t == "Y" || t == "y" || t == "1") return true;
  if (t == "N" || t == "n" || t == "0") return false;
  return Status::Invalid("expected a boolean module parameter (Y or N), got \"" +
                         std::string(t.substr(0, 40)) + "\"");
}

SmmuLogFacts ScanSmmuLog(const std::vector<KernelLogLine>& log) {
  SmmuLogFacts f;
  for (const auto& line : log) {
    const std::string& t = line.text;
    bool smmu = StartsWith(t, "arm-smmu-v3") || t.find("tegra241") != std::string::npos ||
                t.find("CMDQV") != std::string::npos;
    if (!smmu) continue;
    if (f.smmu_lines.size() < 64) f.smmu_lines.push_back(t);
    if (t.find("found companion CMDQV device") != std::string::npos) f.cmdqv_found = t;
    if (t.find("Falling back to standard SMMU CMDQ") != std::string::npos) f.cmdqv_fallback = t;
    if (t.find("disable_cmdqv=true") != std::string::npos) f.cmdqv_disabled = t;
  }
  return f;
}

}  // namespace ys::host
