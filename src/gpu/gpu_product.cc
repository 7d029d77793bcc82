#include "gpu/gpu_product.h"

#include <array>

#include "core/text.h"

namespace ys::gpu {
namespace {

// A product line: its chip token in the lower-cased name, a marker that tells the board (empty:
// any board of the chip), its form factor and its links (see the header for the sources).
struct Family {
  const char* chip;
  const char* marker;
  FormFactor form;
  int nvlinks;
  const char* name;
};

// First match wins: the markers before the bare chip, "gh200"/"gb200" before "h200"/"b200".
constexpr std::array kFamilies = {
    Family{"v100", "sxm", FormFactor::kSxm, 6, "V100 SXM"},
    Family{"v100", "pcie", FormFactor::kPcie, 0, "V100 PCIe"},
    Family{"a100", "sxm", FormFactor::kSxm, 12, "A100 SXM4"},
    Family{"a100", "pcie", FormFactor::kPcie, 12, "A100 PCIe"},
    Family{"h100", "nvl", FormFactor::kPcie, 12, "H100 NVL"},
    Family{"h100", "pcie", FormFactor::kPcie, 12, "H100 PCIe"},
    Family{"h100", "sxm", FormFactor::kSxm, 18, "H100 SXM"},
    // "NVIDIA H100 80GB HBM3" is the SXM5 module (the PCIe card has HBM2e).
    Family{"h100", "hbm3", FormFactor::kSxm, 18, "H100 SXM"},
    Family{"gh200", "", FormFactor::kSxm, 18, "GH200"},
    Family{"h200", "nvl", FormFactor::kPcie, 18, "H200 NVL"},
    Family{"h200", "", FormFactor::kSxm, 18, "H200 SXM"},
    Family{"gb200", "", FormFactor::kSxm, 18, "GB200"},
    Family{"gb300", "", FormFactor::kSxm, 18, "GB300"},
    Family{"b200", "", FormFactor::kSxm, 18, "B200"},
    Family{"b300", "", FormFactor::kSxm, 18, "B300"},
};

// H100 modules default to 700 W, H100 PCIe cards to 300-350 W, H100 NVL to 350-400 W.
constexpr uint32_t kSxmPowerFloorW = 500;

bool Has(const std::string& s, std::string_view token) {
  return s.find(token) != std::string::npos;
}

ProductClass ClassOf(const std::string& n) {
  if (Has(n, "geforce") || Has(n, "titan")) return ProductClass::kGeForce;
  if (Has(n, "server edition")) return ProductClass::kDataCentre;  // RTX PRO 6000 Server Edition
  if (Has(n, "quadro") || Has(n, "rtx")) return ProductClass::kWorkstation;
  return ProductClass::kDataCentre;
}

}  // namespace

const char* ProductClassName(ProductClass c) {
  switch (c) {
    case ProductClass::kDataCentre:
      return "data centre";
    case ProductClass::kWorkstation:
      return "workstation";
    case ProductClass::kGeForce:
      return "GeForce";
  }
  return "data centre";
}

const char* FormFactorName(FormFactor f) {
  switch (f) {
    case FormFactor::kSxm:
      return "SXM";
    case FormFactor::kPcie:
      return "PCIe";
    case FormFactor::kUnknown:
      break;
  }
  return "unknown form factor";
}

GpuProduct IdentifyGpuProduct(std::string_view name,
                              std::optional<uint32_t> default_power_limit_w) {
  const std::string n = ToLower(name);
  GpuProduct p;
  p.product_class = ClassOf(n);
  p.basis = "name \"" + std::string(name) + "\"";
  for (const Family& f : kFamilies) {
    if (!Has(n, f.chip) || (*f.marker && !Has(n, f.marker))) continue;
    p.form = f.form;
    p.nvlinks = f.nvlinks;
    p.family = f.name;
    return p;
  }
  if (Has(n, "h100") && default_power_limit_w) {
    // "NVIDIA H100" alone: the default power limit tells the module from the card.
    const bool sxm = *default_power_limit_w >= kSxmPowerFloorW;
    p.form = sxm ? FormFactor::kSxm : FormFactor::kPcie;
    p.nvlinks = sxm ? 18 : 12;
    p.family = sxm ? "H100 SXM" : "H100 PCIe";
    p.basis += ", default power limit " + std::to_string(*default_power_limit_w) + " W";
    return p;
  }
  if (Has(n, "sxm")) {
    p.form = FormFactor::kSxm;
  } else if (Has(n, "pcie") || p.product_class != ProductClass::kDataCentre) {
    p.form = FormFactor::kPcie;  // workstation and GeForce cards are PCIe cards
  }
  return p;
}

NvlinkExpectation ExpectNvlinks(const GpuProduct& p, std::optional<int> site_links_up) {
  using Kind = NvlinkExpectation::Kind;
  if (site_links_up) {
    return {Kind::kCount, *site_links_up, "the site expects " + std::to_string(*site_links_up)};
  }
  const std::string links = p.nvlinks ? std::to_string(*p.nvlinks) : std::string();
  if (p.form == FormFactor::kSxm && p.nvlinks) {
    return {
        Kind::kCount, *p.nvlinks,
        "the " + p.family + " module has " + links + " NVLinks, all connected on its baseboard"};
  }
  if (p.form == FormFactor::kPcie && p.nvlinks && *p.nvlinks > 0) {
    return {Kind::kBridge, *p.nvlinks,
            p.family + ": an NVLink bridge connects " + links +
                " links; without a bridge none is active"};
  }
  if (p.form == FormFactor::kPcie) {
    return {Kind::kAny, 0,
            p.nvlinks ? p.family + ": a PCIe card without NVLink"
                      : std::string("a ") + ProductClassName(p.product_class) +
                            " PCIe card whose NVLink bridge links are not known here: set "
                            "nvlinks_expected_up to judge them"};
  }
  return {Kind::kEveryListed, 0,
          "every listed link (" + p.basis + " does not say which links are connected)"};
}

std::optional<std::string> NvlinkShortfall(const NvlinkExpectation& e, int known, int active,
                                           int unknown) {
  using Kind = NvlinkExpectation::Kind;
  const std::string a = std::to_string(active), c = std::to_string(e.count);
  switch (e.kind) {
    case Kind::kEveryListed:
      if (active < known) return a + " of " + std::to_string(known) + " listed links active";
      return std::nullopt;
    case Kind::kCount:
      if (active + unknown < e.count) return a + " NVLinks active, " + e.basis;
      return std::nullopt;
    case Kind::kBridge:
      if (active > 0 && active + unknown < e.count) {
        return a + " of the " + c + " links an NVLink bridge connects are active (" + e.basis + ")";
      }
      return std::nullopt;
    case Kind::kAny:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string DescribeNvlinkState(const NvlinkExpectation& e, int listed, int active) {
  using Kind = NvlinkExpectation::Kind;
  std::string s = std::to_string(active) + " of " + std::to_string(listed) + " links active";
  if (e.kind == Kind::kBridge && active == 0) return s + ": no NVLink bridge (" + e.basis + ")";
  if (e.kind == Kind::kBridge || e.kind == Kind::kAny) s += " (" + e.basis + ")";
  return s;
}

}  // namespace ys::gpu
