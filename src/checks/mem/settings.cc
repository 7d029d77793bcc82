// mem.settings: transparent hugepages, hugetlb reservations, swap and the locked-memory limit
// (reference: docs/node-checks.md §memory).
#include <cstdint>
#include <string>
#include <string_view>

#include "checks/check.h"
#include "core/text.h"
#include "host/procfs.h"

namespace ys::checks {
namespace {

constexpr const char* kThpDir = "/sys/kernel/mm/transparent_hugepage";

class MemorySettingsCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    const host::Host& h = ctx.host();
    const std::string& thp = ctx.param<std::string>("thp");
    CheckResult r;

    // Transparent hugepages.
    auto thp_line = h.ReadLine(std::string(kThpDir) + "/enabled");
    if (thp_line.ok() && thp_line->empty()) {
      r.Note("thp.enabled", "empty file: not judged");
    } else if (h.Exists(std::string(kThpDir) + "/enabled")) {
      auto enabled = ReadSelector(h, std::string(kThpDir) + "/enabled");
      if (!enabled.ok()) return CheckResult::Error(enabled.status());
      // An empty defrag file (a copy that could not read it) is not judged; `enabled` still is.
      auto defrag_line = h.ReadLine(std::string(kThpDir) + "/defrag");
      Result<std::string> defrag = defrag_line.ok() && defrag_line->empty()
                                       ? Result<std::string>(std::string("empty file: not judged"))
                                       : ReadSelector(h, std::string(kThpDir) + "/defrag");
      if (!defrag.ok()) return CheckResult::Error(defrag.status());
      r.Note("thp.enabled", *enabled);
      r.Note("thp.defrag", *defrag);
      if (*defrag == "always") {
        Finding f = MakeFinding("YS-MEM-001", "node",
                                "THP defrag is \"always\": page faults stall in direct compaction");
        f.evidence = {{std::string(kThpDir) + "/defrag", *defrag}};
        f.fix = "echo madvise > /sys/kernel/mm/transparent_hugepage/defrag (or defer+madvise)";
        f.reference = "Documentation/admin-guide/mm/transhuge.rst";
        r.Add(std::move(f));
      }
      if (thp != "any" && *enabled != thp) {
        Finding f = MakeFinding("YS-MEM-002", "node",
                                "THP is \"" + *enabled + "\", the site expects \"" + thp + "\"");
        f.evidence = {{std::string(kThpDir) + "/enabled", *enabled}, {"site.memory.thp", thp}};
        f.fix = "echo " + thp +
                " > /sys/kernel/mm/transparent_hugepage/enabled, or "
                "transparent_hugepage=" +
                thp + " on the kernel command line";
        r.Add(std::move(f));
      }
    } else {
      r.Note("thp.enabled", "not built into this kernel");
    }

    // Hugetlb and swap, from /proc/meminfo.
    auto meminfo_text = h.ReadFile("/proc/meminfo");
    if (!meminfo_text.ok()) {
      if (meminfo_text.status().code() == StatusCode::kNotFound) {
        return CheckResult::Skip(h.Resolve("/proc/meminfo") + " is absent: not a Linux /proc");
      }
      return CheckResult::Error(meminfo_text.status());
    }
    if (Trim(*meminfo_text).empty()) {
      // The kernel always lists MemTotal; an empty copy records no hugetlb or swap figures.
      r.Note("meminfo", h.Resolve("/proc/meminfo") + ": empty file: hugetlb and swap not judged");
    } else if (Status st = JudgeMeminfo(ctx, *meminfo_text, r); !st.ok()) {
      return CheckResult::Error(st);
    }

    // Locked-memory limit of the process (RDMA registration needs it unlimited).
    std::string limits_path = ctx.ProcDir() + "/limits";
    auto limits_text = h.ReadFile(limits_path);
    if (!limits_text.ok()) return CheckResult::Error(limits_text.status());  // --pid of no process
    if (Trim(*limits_text).empty()) {
      // The kernel always prints the limits table; an empty copy records no memlock limit.
      r.Note("memlock.soft", h.Resolve(limits_path) + ": empty file: not judged");
    } else if (Status st = JudgeMemlock(ctx, limits_path, *limits_text, r); !st.ok()) {
      return CheckResult::Error(st);
    }

    if (r.findings.empty()) r.summary = "THP, hugetlb, swap and memlock as expected";
    return r;
  }

 private:
  // The locked-memory limit from the text of <proc>/limits (RDMA registration needs it
  // unlimited).
  static Status JudgeMemlock(const CheckContext& ctx, const std::string& limits_path,
                             std::string_view text, CheckResult& r) {
    const host::Host& h = ctx.host();
    const bool memlock_unlimited = ctx.param<std::string>("memlock") == "unlimited";
    auto memlock = host::ParseLimit(text, "Max locked memory");
    if (!memlock.ok()) {
      return Status::Invalid(h.Resolve(limits_path) + ": " + memlock.status().message());
    }
    auto show = [](const std::optional<uint64_t>& v) {
      return v ? std::to_string(*v) + " bytes" : std::string("unlimited");
    };
    r.Note("memlock.soft", show(memlock->soft));
    bool rdma = !h.ListMatching("/sys/class/infiniband", "*").empty();
    r.Note("rdma_devices", rdma ? "present" : "none");
    if (memlock_unlimited && rdma && memlock->soft.has_value()) {
      Finding f = MakeFinding("YS-MEM-005", "process",
                              "locked-memory limit is " + show(memlock->soft) +
                                  ": RDMA memory registration (NCCL, UCX) fails or falls back");
      f.evidence = {{limits_path + " Max locked memory (soft)", show(memlock->soft)},
                    {limits_path + " Max locked memory (hard)", show(memlock->hard)}};
      f.fix =
          "memlock unlimited: '* soft memlock unlimited' and '* hard memlock unlimited' in "
          "/etc/security/limits.d/, LimitMEMLOCK=infinity for slurmd and the container runtime, "
          "PropagateResourceLimitsExcept=MEMLOCK in slurm.conf, docker run --ulimit memlock=-1";
      f.reference = "Red Hat, Configuring InfiniBand and RDMA networks: memory users may pin";
      r.Add(std::move(f));
    }
    return Status::Ok();
  }

  // Hugetlb reservations and swap use from the text of /proc/meminfo.
  static Status JudgeMeminfo(const CheckContext& ctx, std::string_view text, CheckResult& r) {
    const host::Host& h = ctx.host();
    const Policy swap = ctx.param<Policy>("swap");
    auto meminfo = host::ParseMeminfo(text);
    if (!meminfo.ok()) {
      return Status::Invalid(h.Resolve("/proc/meminfo") + ": " + meminfo.status().message());
    }
    auto field = [&](const char* k) -> uint64_t {
      auto it = meminfo->find(k);
      return it == meminfo->end() ? 0 : it->second;
    };
    uint64_t huge_total = field("HugePages_Total"), huge_free = field("HugePages_Free");
    uint64_t huge_size_kb = field("Hugepagesize");
    r.Note("hugetlb.pages", std::to_string(huge_total) + " total, " + std::to_string(huge_free) +
                                " free, " + std::to_string(huge_size_kb) + " kB each");
    if (huge_total > 0 && huge_free == huge_total) {
      uint64_t gib = huge_total * huge_size_kb / (1024 * 1024);
      Finding f = MakeFinding("YS-MEM-006", "node",
                              std::to_string(huge_total) + " hugetlb pages (" +
                                  std::to_string(gib) + " GiB) are reserved and none is in use");
      f.evidence = {{"HugePages_Total", std::to_string(huge_total)},
                    {"HugePages_Free", std::to_string(huge_free)},
                    {"Hugepagesize", std::to_string(huge_size_kb) + " kB"}};
      f.fix = "sysctl vm.nr_hugepages=0 unless a component of the job uses hugetlbfs";
      r.Add(std::move(f));
    }

    uint64_t swap_total = field("SwapTotal"), swap_free = field("SwapFree");
    uint64_t swap_used = swap_total > swap_free ? swap_total - swap_free : 0;
    r.Note("swap", std::to_string(swap_total / 1024) + " MiB total, " +
                       std::to_string(swap_used / 1024) + " MiB used");
    if (swap_total > 0 && swap == Policy::kOff) {
      auto swappiness = h.ReadInt("/proc/sys/vm/swappiness");
      if (swappiness.ok()) r.Note("vm.swappiness", std::to_string(*swappiness));
      if (swap_used > 0) {
        Finding f = MakeFinding("YS-MEM-003", "node",
                                std::to_string(swap_used / 1024) +
                                    " MiB of swap in use: host memory of "
                                    "loaders and optimisers can be paged out mid-step");
        f.evidence = {{"SwapTotal", std::to_string(swap_total) + " kB"},
                      {"SwapFree", std::to_string(swap_free) + " kB"}};
        f.fix = "swapoff -a (and remove swap from /etc/fstab), or sysctl vm.swappiness=1";
        r.Add(std::move(f));
      } else if (swappiness.ok() && *swappiness > 10) {
        Finding f =
            MakeFinding("YS-MEM-004", "node",
                        "swap is enabled with vm.swappiness=" + std::to_string(*swappiness));
        f.evidence = {{"SwapTotal", std::to_string(swap_total) + " kB"},
                      {"/proc/sys/vm/swappiness", std::to_string(*swappiness)}};
        f.fix = "swapoff -a, or sysctl vm.swappiness=1";
        r.Add(std::move(f));
      }
    }
    return Status::Ok();
  }

  static Result<std::string> ReadSelector(const host::Host& h, const std::string& path) {
    auto text = h.ReadFile(path);
    if (!text.ok()) return text.status();
    auto sel = host::ParseSelector(*text);
    if (!sel.ok()) return Status::Invalid(h.Resolve(path) + ": " + sel.status().message());
    return sel;
  }
};

}  // namespace

YS_REGISTER(
    MemorySettingsCheck,
    {.id = "mem.settings",
     .summary = "Transparent hugepages, hugetlb reservations, swap and the "
                "locked-memory limit RDMA needs.",
     .needs = {},
     .codes = {{"YS-MEM-001", Severity::kWarn, "transparent hugepage defrag set to always"},
               {"YS-MEM-002", Severity::kWarn, "transparent hugepages differ from site policy"},
               {"YS-MEM-003", Severity::kWarn, "swap in use"},
               {"YS-MEM-004", Severity::kWarn, "swap enabled with high swappiness"},
               {"YS-MEM-005", Severity::kFail,
                "locked-memory limit not unlimited (RDMA registration)"},
               {"YS-MEM-006", Severity::kWarn, "hugetlb pages reserved but unused"}},
     .params = {{.name = "thp",
                 .type = ParamType::kString,
                 .default_value = std::string("any"),
                 .choices = {"always", "madvise", "never", "any"},
                 .meaning = "transparent hugepage mode the site runs (any: report only)",
                 .site_table = "memory"},
                {.name = "swap",
                 .type = ParamType::kPolicy,
                 .default_value = Policy::kOff,
                 .meaning = "off: swap in use is reported",
                 .site_table = "memory"},
                {.name = "memlock",
                 .type = ParamType::kString,
                 .default_value = std::string("unlimited"),
                 .choices = {"unlimited", "any"},
                 .meaning = "unlimited: a finite locked-memory limit with RDMA devices is reported",
                 .site_table = "memory"}}})

}  // namespace ys::checks
