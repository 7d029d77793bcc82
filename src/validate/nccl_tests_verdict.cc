#include "validate/nccl_tests_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/finding_codes.h"
#include "core/text.h"

namespace ys::validate {

YS_FINDING_CODES("validate.nccl_tests_bandwidth",
                 {{"YS-BENCH-004", Severity::kWarn,
                   "collective bus bandwidth far below what the GPUs' link class delivers"},
                  {"YS-BENCH-005", Severity::kWarn,
                   "collective bus bandwidth collapses at the largest sizes"}})

// Named, not anonymous: the library is built in unity batches.
namespace nccl_tests_verdict_impl {

// Below half of the class's low end is "far below": a slower generation or a narrower link
// than the name implies still reaches half, a path through host memory does not.
constexpr double kFarBelow = 0.5;
// The largest size under half of the peak is a collapse, not noise.
constexpr double kCollapse = 0.5;
// Where the curve counts: below 1 MiB busbw is latency-bound; the link rate is judged only
// from a sweep that reaches 64 MiB.
constexpr uint64_t kCurveFrom = uint64_t{1} << 20;
constexpr uint64_t kJudgeFrom = uint64_t{64} << 20;

struct ClassRow {
  const char* pattern;  // a substring of the GPU name, first match wins
  const char* name;
  double low, high;
  const char* source;
};

constexpr const char* kPcieSource =
    "PCI Express Base Specification 3.0/4.0/5.0: 8/16/32 GT/s per lane, 128b/130b encoding, "
    "x16 = 15.75/31.5/63 GB/s each way; about three quarters of it is reached by busbw";
constexpr const char* kNvlink5Source =
    "NVIDIA Blackwell datasheets: NVLink 5 1.8 TB/s per GPU (900 GB/s each way); measured "
    "all_reduce busbw 685 GB/s on 4 x GB300 (oracle-quickstart/oci-gpu-quickstarts "
    "nvidia/GB300/README-GB300.md) and 835 GB/s on 72 x GB200 (coreweave/nccl-tests PR #43)";

// Order matters: "A100-PCIE" before "A10", "H200 NVL" (bridged pairs) before "H200".
constexpr ClassRow kClasses[] = {
    {"V100-SXM", "NVLink 2 (V100 SXM)", 110, 150,
     "NVIDIA Tesla V100 datasheet: NVLink 300 GB/s (150 GB/s each way); "
     "Azure/azurehpc-health-checks conf/nd40rs_v2.conf: check_nccl_allreduce 110 GB/s, 8 x V100"},
    {"A100-SXM", "NVLink 3 (A100 SXM)", 228, 300,
     "NVIDIA A100 datasheet: NVLink 600 GB/s (300 GB/s each way); "
     "Azure/azurehpc-health-checks conf/nd96asr_v4.conf: check_nccl_allreduce 228 GB/s, 8 x A100"},
    {"H100 80GB HBM3", "NVLink 4 (H100 SXM)", 360, 450,
     "NVIDIA H100 datasheet: NVLink 900 GB/s (450 GB/s each way); "
     "Azure/azurehpc-health-checks conf/nd96isr_h100_v5.conf: check_nccl_allreduce 460 GB/s "
     "(16 GiB, NVLS), 8 x H100"},
    {"H100 SXM", "NVLink 4 (H100 SXM)", 360, 450, "as for NVIDIA H100 80GB HBM3"},
    {"H200 NVL", nullptr, 0, 0, ""},
    {"H200", "NVLink 4 (H200 SXM)", 360, 450,
     "NVIDIA H200 datasheet: NVLink 900 GB/s (450 GB/s each way); "
     "Azure/azurehpc-health-checks conf/nd96isr_h200_v5.conf: check_nccl_allreduce 431 GB/s"},
    {"GB300", "NVLink 5 (GB300)", 680, 900, kNvlink5Source},
    {"GB200", "NVLink 5 (GB200)", 680, 900, kNvlink5Source},
    {"B300", "NVLink 5 (B300)", 680, 900, kNvlink5Source},
    {"B200", "NVLink 5 (B200)", 680, 900, kNvlink5Source},
    {"GeForce RTX 50", "PCIe Gen5 x16", 48, 63, kPcieSource},
    {"RTX PRO", "PCIe Gen5 x16", 48, 63, kPcieSource},
    {"H100 PCIe", "PCIe Gen5 x16", 48, 63, kPcieSource},
    {"A100-PCIE", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"A100 80GB PCIe", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"GeForce RTX 40", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"GeForce RTX 30", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"RTX A", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"Ada Generation", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"NVIDIA A10", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"NVIDIA A16", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"NVIDIA A30", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"NVIDIA A40", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"NVIDIA L4", "PCIe Gen4 x16", 24, 31.5, kPcieSource},
    {"GeForce RTX 20", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"GeForce GTX", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"TITAN", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"Quadro", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"Tesla T4", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"P100-SXM", nullptr, 0, 0, ""},
    {"Tesla P", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"Tesla K", "PCIe Gen3 x16", 12, 15.75, kPcieSource},
    {"V100-PCIE", "PCIe Gen3 x16", 12, 15.75, kPcieSource}};

struct Point {
  uint64_t size;
  double busbw;
};

// Per row from 1 MiB, the better of the plausible placements' busbw.
std::vector<Point> Curve(const NcclTestsTable& t) {
  std::vector<Point> out;
  for (const NcclTestsRow& r : t.rows) {
    if (r.size_bytes < kCurveFrom) continue;
    double best = -1;
    if (PlausibleNcclTestsPlace(r.out_of_place)) best = r.out_of_place.busbw_gbps;
    if (r.in_place && PlausibleNcclTestsPlace(*r.in_place)) {
      best = std::max(best, r.in_place->busbw_gbps);
    }
    if (best >= 0) out.push_back({r.size_bytes, best});
  }
  std::sort(out.begin(), out.end(), [](Point a, Point b) { return a.size < b.size; });
  return out;
}

std::optional<Finding> Collapse(const std::vector<Point>& curve, const std::string& id) {
  if (curve.size() < 3) return std::nullopt;
  auto peak = *std::max_element(curve.begin(), curve.end(),
                                [](Point a, Point b) { return a.busbw < b.busbw; });
  const Point& last = curve.back();
  if (peak.busbw <= 0 || last.busbw >= kCollapse * peak.busbw) return std::nullopt;
  Finding f = MakeFinding(
      "YS-BENCH-005", id,
      fmt::format("{}: busbw falls to {:.3g} GB/s at {} B from {:.3g} GB/s at {} B (below {:.0f}% "
                  "of its peak)",
                  id, last.busbw, last.size, peak.busbw, peak.size, 100 * kCollapse));
  f.evidence = {{"peak", fmt::format("{:.4g} GB/s at {} B", peak.busbw, peak.size)},
                {"largest_size", fmt::format("{:.4g} GB/s at {} B", last.busbw, last.size)}};
  f.fix =
      "Rerun the largest sizes with NCCL_DEBUG=INFO: look for a transport falling back (NET/Socket "
      "instead of IB, SHM instead of P2P), PCIe or NIC errors and throttling (yardstick "
      "preflight); check GPU memory left for the buffers";
  f.reference = "the log's own curve: busbw should hold its plateau at large sizes";
  return f;
}

// Why the link between the ranks cannot be told from the device list; "" when it can.
std::string UnknownLink(const NcclTestsLog& log, std::string* gpu) {
  if (log.ranks.empty()) return "the log has no device list: the GPU model is not shown";
  std::set<std::string> hosts, gpus, devices;
  for (const NcclTestsRank& r : log.ranks) {
    hosts.insert(r.host);
    gpus.insert(r.gpu);
    devices.insert(r.host + "/" + (r.bus_id.empty() ? std::to_string(r.device) : r.bus_id));
  }
  if (hosts.size() > 1) {
    return fmt::format(
        "the ranks span {} nodes: the network between them is not in the log (compare with a "
        "known-good run: yardstick compare)",
        log.rank_list_elided ? "several" : std::to_string(hosts.size()));
  }
  if (log.rank_list_elided) return "the device list is shortened ('...'): not every rank is shown";
  if (devices.size() < log.ranks.size()) {
    return "ranks share a GPU: their traffic crosses no link between GPUs";
  }
  if (gpus.size() != 1) return "the ranks are on different GPU models";
  *gpu = *gpus.begin();
  return "";
}

Finding FarBelow(const std::string& id, const NcclTestsLinkClass& c, const std::string& gpu,
                 int nranks, const Point& peak) {
  Finding f = MakeFinding(
      "YS-BENCH-004", id,
      fmt::format("{}: busbw peaks at {:.3g} GB/s on {} x {} in one node, far below the {:g}-{:g} "
                  "GB/s of {}",
                  id, peak.busbw, nranks, gpu, c.low_gbps, c.high_gbps, c.name));
  f.evidence = {{"peak_busbw", fmt::format("{:.4g} GB/s at {} B", peak.busbw, peak.size)},
                {"link_class", c.name},
                {"expected", fmt::format("{:g}-{:g} GB/s", c.low_gbps, c.high_gbps)},
                {"expected_source", c.source}};
  f.fix =
      "Check P2P between the GPUs (nvidia-smi topo -p2p r; 'NS' means traffic staged through "
      "host memory), the link generation and width (nvidia-smi -q: PCIe Generation, Link Width; "
      "nvidia-smi nvlink -s), ACS/IOMMU settings that block P2P, NCCL_P2P_DISABLE or "
      "NCCL_P2P_LEVEL in the environment; NCCL_DEBUG=INFO names the transport used";
  f.reference = c.source;
  return f;
}

}  // namespace nccl_tests_verdict_impl

bool PlausibleNcclTestsPlace(const NcclTestsPlace& p) {
  return p.time_us > 0 && p.algbw_gbps <= kMaxPlausibleGBps && p.busbw_gbps <= kMaxPlausibleGBps;
}

std::optional<NcclTestsLinkClass> NcclTestsLinkClassOf(std::string_view gpu) {
  for (const auto& c : nccl_tests_verdict_impl::kClasses) {
    if (gpu.find(c.pattern) == std::string_view::npos) continue;
    if (c.name == nullptr) return std::nullopt;
    return NcclTestsLinkClass{c.name, c.low, c.high, c.source};
  }
  return std::nullopt;
}

NcclTestsBandwidthVerdict JudgeNcclTestsBandwidth(const NcclTestsLog& log, const NcclTestsTable& t,
                                                  const std::string& id, int nranks) {
  using namespace nccl_tests_verdict_impl;
  NcclTestsBandwidthVerdict v;
  if (nranks == 1) {
    v.reason = "1 rank: no data moved between GPUs (nccl-tests timed a copy within one GPU)";
    return v;
  }
  if (nranks <= 0) {
    v.reason = "the log does not say how many ranks ran";
    return v;
  }
  std::vector<Point> curve = Curve(t);
  if (auto f = Collapse(curve, id)) v.findings.push_back(std::move(*f));
  std::string gpu;
  v.reason = UnknownLink(log, &gpu);
  if (!v.reason.empty()) return v;
  auto c = NcclTestsLinkClassOf(gpu);
  if (!c) {
    v.reason = "no known link class for " + gpu + " (a board sold with and without NVLink)";
    return v;
  }
  if (curve.empty() || curve.back().size < kJudgeFrom) {
    v.reason = "the sweep stops below 64 MiB, before busbw reaches the link's rate";
    return v;
  }
  auto peak = *std::max_element(curve.begin(), curve.end(),
                                [](Point a, Point b) { return a.busbw < b.busbw; });
  v.judged = true;
  if (peak.busbw < kFarBelow * c->low_gbps) {
    v.findings.push_back(FarBelow(id, *c, gpu, nranks, peak));
  }
  v.reason = fmt::format("busbw peak {:.4g} GB/s against {} ({:g}-{:g} GB/s; {})", peak.busbw,
                         c->name, c->low_gbps, c->high_gbps, c->source);
  return v;
}

}  // namespace ys::validate
