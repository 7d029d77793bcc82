// gpu.nvlink: NVLink link state and error counters. Fewer active links than the GPU has connected
// cuts its NVLink bandwidth: what is connected comes from the site (nvlinks_expected_up), else
// from the product (gpu/gpu_product.h): every link of an SXM module; a PCIe card's bridge links
// (12 of the 18 NVML lists on an H100 PCIe), or none when no bridge is fitted; every listed link
// of a product the table does not know. Replay errors mean the link retransmits,
// recovery errors mean it retrained - DCGM's health watch flags any increase of either. CRC
// counts are reported: DCGM judges them only as a rate (100 per second), which one snapshot
// cannot give.
#include <optional>
#include <string>
#include <vector>

#include "checks/gpu/internal/gpu_common.h"
#include "gpu/gpu_product.h"

namespace ys::checks {
namespace {

struct LinkCounts {
  uint64_t total = 0;
  std::string per_link;  // "link 7: 1843"
  void Add(int link, uint64_t v) {
    if (v == 0) return;
    total += v;
    per_link += (per_link.empty() ? "" : ", ") + std::string("link ") + std::to_string(link) +
                ": " + std::to_string(v);
  }
};

std::string Links(const std::vector<int>& links) {
  std::string s;
  for (int l : links) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return s;
}

constexpr const char* kNvlinkReference =
    "DCGM health watch (NVLink: link down, any replay or recovery increase); NVML "
    "nvmlDeviceGetNvLinkState / nvmlDeviceGetNvLinkErrorCounter";

// What the NVLinks of one GPU say.
struct LinkSurvey {
  std::vector<int> inactive;
  int active = 0, known = 0;
  LinkCounts replay, recovery;
  uint64_t crc_total = 0;
  std::string crc_links;  // "link 7: 412 flit, 96 data"
  bool counters = false;  // some error counter answered
};

LinkSurvey SurveyLinks(const gpu::GpuDevice& d, Unanswered& un) {
  LinkSurvey k;
  for (const auto& l : d.nvlinks) {
    k.counters = k.counters || l.replay_errors.has() || l.recovery_errors.has();
    std::string what = "nvlink.active";
    if (const bool* a = un.Get(d, l.active, what)) {
      ++k.known;
      if (*a) {
        ++k.active;
      } else {
        k.inactive.push_back(l.link);
      }
    }
    if (l.replay_errors.has()) k.replay.Add(l.link, *l.replay_errors);
    if (l.recovery_errors.has()) k.recovery.Add(l.link, *l.recovery_errors);
    uint64_t flit = l.crc_flit_errors.has() ? *l.crc_flit_errors : 0;
    uint64_t data = l.crc_data_errors.has() ? *l.crc_data_errors : 0;
    if (flit + data > 0) {
      k.crc_total += flit + data;
      k.crc_links += (k.crc_links.empty() ? "" : ", ") + std::string("link ") +
                     std::to_string(l.link) + ": " + std::to_string(flit) + " flit, " +
                     std::to_string(data) + " data";
    }
  }
  return k;
}

// The YS-GPU-045 fix: an SXM module's links run through its baseboard (and NVSwitches, managed by
// the fabric manager); a PCIe card's through the NVLink bridges on top of it.
std::string LinkDownFix(const gpu::NvlinkExpectation& e, const std::string& i) {
  if (e.kind == gpu::NvlinkExpectation::Kind::kBridge) {
    return "nvidia-smi nvlink -s -i " + i +
           "; power the node off and reseat every NVLink bridge of the pair (all of them must be "
           "fitted); replace the bridge if the links stay down";
  }
  return "nvidia-smi nvlink -s -i " + i +
         "; check the fabric manager (systemctl status "
         "nvidia-fabricmanager, /var/log/fabricmanager.log) and NVSwitch SXIDs in the kernel "
         "log; drain the node and reset the GPUs or reboot; RMA the baseboard if the link "
         "stays down";
}

// YS-GPU-045 for one GPU: fewer links active than the product (or the site) has connected.
void JudgeLinksDown(const gpu::GpuDevice& d, const LinkSurvey& k, const gpu::NvlinkExpectation& e,
                    bool site, CheckResult& r) {
  const int unknown = static_cast<int>(d.nvlinks.size()) - k.known;
  auto shortfall = gpu::NvlinkShortfall(e, k.known, k.active, unknown);
  if (!shortfall) return;
  const bool by_link = !k.inactive.empty() && e.kind != gpu::NvlinkExpectation::Kind::kBridge;
  std::string msg = by_link ? "NVLink " + std::string(k.inactive.size() > 1 ? "links " : "link ") +
                                  Links(k.inactive) + " inactive (" + std::to_string(k.active) +
                                  " of " + std::to_string(d.nvlinks.size()) + " active)"
                            : *shortfall;
  Finding f = MakeFinding("YS-GPU-045", GpuEntity(d), msg);
  f.evidence = GpuIdentity(d);
  f.evidence.emplace_back("active links",
                          std::to_string(k.active) + " of " + std::to_string(d.nvlinks.size()));
  if (!k.inactive.empty()) f.evidence.emplace_back("inactive links", Links(k.inactive));
  if (site) f.evidence.emplace_back("site.gpu.nvlinks_expected_up", std::to_string(e.count));
  f.evidence.emplace_back("expected", e.basis);
  if (k.replay.total || k.recovery.total) {
    f.evidence.emplace_back("replay errors", k.replay.per_link.empty() ? "0" : k.replay.per_link);
    f.evidence.emplace_back("recovery errors",
                            k.recovery.per_link.empty() ? "0" : k.recovery.per_link);
  }
  f.fix = LinkDownFix(e, std::to_string(d.index));
  f.reference = kNvlinkReference;
  r.Add(std::move(f));
}

// YS-GPU-046/047 for one GPU: replay errors, recovery errors.
void JudgeLinkErrors(const gpu::GpuDevice& d, const LinkSurvey& k, CheckResult& r) {
  std::string i = std::to_string(d.index);
  auto identity = [&] {
    Evidence e = GpuIdentity(d);
    e.emplace_back("active links",
                   std::to_string(k.active) + " of " + std::to_string(d.nvlinks.size()));
    return e;
  };
  if (k.replay.total > 0) {
    Finding f = MakeFinding(
        "YS-GPU-046", GpuEntity(d),
        std::to_string(k.replay.total) + " NVLink replay errors (" + k.replay.per_link + ")");
    f.evidence = identity();
    f.evidence.emplace_back("nvmlDeviceGetNvLinkErrorCounter DL_REPLAY", k.replay.per_link);
    if (k.crc_total) f.evidence.emplace_back("CRC errors", k.crc_links);
    f.fix = "watch nvidia-smi nvlink -e -i " + i +
            ": counts that keep rising mark a bad link; "
            "run dcgmi diag -r 2; reseat or RMA the baseboard if they do";
    f.reference = kNvlinkReference;
    r.Add(std::move(f));
  }
  if (k.recovery.total > 0) {
    Finding f = MakeFinding("YS-GPU-047", GpuEntity(d),
                            std::to_string(k.recovery.total) + " NVLink recovery errors (" +
                                k.recovery.per_link + "): the link retrained");
    f.evidence = identity();
    f.evidence.emplace_back("nvmlDeviceGetNvLinkErrorCounter DL_RECOVERY", k.recovery.per_link);
    f.fix = "drain the node; nvidia-smi nvlink -e -i " + i + " and nvidia-smi nvlink -s -i " + i +
            "; run dcgmi diag -r 2; reset the GPUs or reboot; RMA the baseboard if recoveries "
            "return";
    f.reference = kNvlinkReference;
    r.Add(std::move(f));
  }
}

gpu::GpuProduct ProductOf(const gpu::GpuDevice& d) {
  std::optional<uint32_t> watts;
  if (d.default_power_limit_mw.has()) watts = *d.default_power_limit_mw / 1000;
  return gpu::IdentifyGpuProduct(d.name, watts);
}

class GpuNvlinkCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    CheckResult r;
    const gpu::GpuSnapshot* s = &ctx.gpus();
    const int want_up = ctx.param<int>("nvlinks_expected_up");
    const std::optional<int> expected = want_up < 0 ? std::nullopt : std::optional<int>(want_up);
    Unanswered un;
    int judged = 0, links_up = 0;
    for (const auto& d : s->devices) {
      LinkSurvey k = SurveyLinks(d, un);
      if (k.known == 0 && !expected && !k.counters) {
        if (d.nvlinks.empty()) r.Note(GpuEntity(d), "no NVLink");
        continue;  // no NVLink on this GPU (or NVML gave no link state: noted)
      }
      ++judged;
      links_up += k.active;
      const gpu::NvlinkExpectation e = gpu::ExpectNvlinks(ProductOf(d), expected);
      r.Note(GpuEntity(d), gpu::DescribeNvlinkState(e, k.known, k.active) +
                               (k.crc_total ? "; CRC errors " + k.crc_links : std::string()));
      JudgeLinksDown(d, k, e, expected.has_value(), r);
      JudgeLinkErrors(d, k, r);
    }
    if (judged == 0) {
      CheckResult skip = un.empty() ? CheckResult::Skip("no NVLink on any GPU")
                                    : SkipNoneJudged("NVLink state", un);
      skip.evidence = r.evidence;
      un.NoteInto(skip);
      return skip;
    }
    un.NoteInto(r);
    if (r.findings.empty()) {
      r.summary = std::to_string(links_up) + " NVLinks active on " + std::to_string(judged) +
                  " GPUs, no replay or recovery errors";
    }
    return r;
  }
};

}  // namespace

YS_REGISTER(GpuNvlinkCheck,
            {.id = "gpu.nvlink",
             .summary = "NVLink links inactive, replay and recovery errors, CRC counts.",
             .needs = {Need::kGpu},
             .codes = {{"YS-GPU-045", Severity::kFail, "NVLink link inactive"},
                       {"YS-GPU-046", Severity::kWarn, "NVLink replay errors"},
                       {"YS-GPU-047", Severity::kFail, "NVLink recovery errors"}},
             .params = {{.name = "nvlinks_expected_up",
                         .type = ParamType::kInt,
                         .default_value = -1,
                         .lo = -1,
                         .hi = 64,
                         .meaning = "active NVLinks expected per GPU (-1: every link NVML lists)",
                         .site_table = "gpu"}}})

}  // namespace ys::checks
