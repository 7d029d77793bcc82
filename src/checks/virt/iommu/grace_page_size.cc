// virt.iommu.grace_page_size: on NVIDIA Grace, the base page size: NVIDIA recommends 64K
// kernels; 4 KiB pages cost 16 times the TLB entries and page faults. Skips off Grace.
#include "checks/check.h"
#include "checks/virt/internal/iommu_facts.h"

namespace ys::checks::iommu {
namespace {

class GracePageSizeCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    auto read = ReadIommu(ctx);
    if (auto* early = std::get_if<CheckResult>(&read)) return std::move(*early);
    const IommuFacts& q = std::get<IommuFacts>(read);
    CheckResult r = StartResult(q);
    if (auto skip = GraceGate(ctx, q, r.evidence)) return std::move(*skip);
    const IommuFacts& g = q;
    std::optional<std::string> cfg4k =
        g.config.ok() ? g.config->Get("CONFIG_ARM64_4K_PAGES") : std::nullopt;
    bool four_k = g.page ? g.page->kb == 4 : (cfg4k && *cfg4k == "y");
    if (four_k) {
      Finding f = MakeFinding(
          "YS-VIRT-004", "node",
          "4 KiB base pages on Grace: 16 times the TLB entries and page faults of 64 KiB "
          "pages for the same memory");
      if (g.page)
        f.evidence.emplace_back(g.page->source + " KernelPageSize",
                                std::to_string(g.page->kb) + " kB");
      if (cfg4k) f.evidence.emplace_back(g.config->path + " CONFIG_ARM64_4K_PAGES", *cfg4k);
      f.fix =
          "boot a 64K-page kernel (CONFIG_ARM64_64K_PAGES=y, e.g. Ubuntu's linux-nvidia-64k "
          "flavour); "
          "check that the job's software does not assume 4 KiB pages";
      f.reference =
          "NVIDIA Grace Performance Tuning Guide, Operating System Settings; docs/node-checks.md "
          "§iommu";
      r.Add(std::move(f));
    }
    Conclude(q, r);
    return r;
  }
};

}  // namespace

YS_REGISTER(GracePageSizeCheck,
            {.id = "virt.iommu.grace_page_size",
             .summary = "On NVIDIA Grace, 64 KiB base pages rather than 4 KiB.",
             .needs = {},
             .codes = {{"YS-VIRT-004", Severity::kWarn, "4 KiB base pages on Grace"}}})

}  // namespace ys::checks::iommu
