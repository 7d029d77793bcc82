// The ranked list of fleet analysis besides the peers' rows (fleet/peers.cc): the spread of
// samples, and, where peers cannot judge, the spec.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fleet/actions.h"
#include "fleet/fleet.h"
#include "fleet/groups.h"
#include "fleet/impact.h"

namespace ys::fleet {
namespace {

// The kinds whose share of the spec peak says whether a device is healthy (the shares of
// workload.low_mfu and fabric.collective_bandwidth): GPU GEMM, HBM, NVLink, PCIe, collectives. A
// CPU GEMM or a proxy is far below its peak on a healthy node.
bool HasHealthyShare(FigureKind k) {
  return k == FigureKind::kGemm || k == FigureKind::kMemory || k == FigureKind::kNvlink ||
         k == FigureKind::kPcie || k == FigureKind::kCollective;
}

bool IsDevice(const Entity& e) { return e.kind == EntityKind::kGpu || e.kind == EntityKind::kNic; }

std::string Pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

}  // namespace

void FleetJudge::JudgeSpread(const std::string& node, const std::vector<Scored>& figures,
                             Findings& out) const {
  // Each figure's spread relative to its key's median spread (ratio, spread); pooled per node
  // and, sorted by label, per device.
  using Spread = std::pair<double, double>;
  std::vector<Spread> node_group;
  std::vector<std::pair<std::string_view, Spread>> device_members;
  for (const Scored& s : figures) {
    if (s.spread < 0) continue;
    double peers = s.key->spread_median;
    double ratio = peers > 0 ? s.spread / peers : (s.spread > 0 ? 1e9 : 0);
    node_group.emplace_back(ratio, s.spread);
    if (!IsDevice(s.entity)) continue;
    std::string_view label = BareLabelView(s.entity);
    if (label == "node") {
      node_group.emplace_back(ratio, s.spread);  // a device of that name pools with the node
    } else {
      device_members.push_back({label, {ratio, s.spread}});
    }
  }
  auto judge = [&](const std::vector<Spread>& g, double* ratio, double* spread) {
    if (g.size() < 3) return false;
    std::vector<double> r, s;
    r.reserve(g.size());
    for (const auto& pair : g) r.push_back(pair.first);
    *ratio = MedianOf(std::move(r));
    if (!(*ratio >= options_.spread_ratio))
      return false;  // *spread is read of a jittery group only
    s.reserve(g.size());
    for (const auto& pair : g) s.push_back(pair.second);
    *spread = MedianOf(std::move(s));
    return *spread >= options_.spread_floor;
  };
  auto row = [&](std::string_view label, size_t n, double ratio, double spread) {
    RankedFinding f;
    f.node = node;
    f.entity = std::string(label);
    f.kind = "spread";
    f.figures = n;
    f.evidence = fmt::format(
        "samples of {} figures spread {} (relative stdev, median), {:.1f}x their peers' median", n,
        Pct(spread), ratio);
    f.action = ActionFor(FigureKind::kOther, f.entity, "spread");
    f.drain = false;
    f.sources = {out.source};
    out.ranked.push_back(std::move(f));
  };
  double ratio = 0, spread = 0;
  if (judge(node_group, &ratio, &spread)) {
    row("node", node_group.size(), ratio, spread);  // a jittery node: its devices are not listed
    return;
  }
  std::stable_sort(device_members.begin(), device_members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Spread> group;
  for (size_t i = 0; i < device_members.size();) {
    group.clear();
    size_t j = i;
    for (; j < device_members.size() && device_members[j].first == device_members[i].first; ++j)
      group.push_back(device_members[j].second);
    if (judge(group, &ratio, &spread)) row(device_members[i].first, group.size(), ratio, spread);
    i = j;
  }
}

void FleetJudge::JudgeAgainstSpec(const std::string& node, const std::vector<Scored>& figures,
                                  Findings& out) const {
  for (const Scored& s : figures) {
    if (s.score.judged || s.pct_of_peak < 0 || !HasHealthyShare(s.key->kind)) continue;
    double floor =
        100 * (s.key->kind == FigureKind::kGemm ? options_.spec_gemm_share : options_.spec_share);
    if (s.pct_of_peak >= floor) continue;
    std::string entity = IsDevice(s.entity) ? BareLabel(s.entity) : "node";
    RankedFinding f;
    f.node = node;
    f.entity = entity;
    f.kind = FigureKindName(s.key->kind);
    f.deficit = f.deficit_low = f.deficit_high = (floor - s.pct_of_peak) / floor;
    f.figures = 1;
    f.evidence = fmt::format(
        "{} {:.4g} {} is {:.1f}% of its spec peak, below the {:.0f}% a healthy device reaches "
        "(too few peers to compare: {} figure{} of this key)",
        s.key->key, s.value, s.key->unit, s.pct_of_peak, floor, s.key->n, s.key->n == 1 ? "" : "s");
    f.action = ActionFor(s.key->kind, entity);
    f.sources = {out.source};
    DecideAction(f, s.key->kind, options_.drain_loss);
    out.ranked.push_back(std::move(f));
  }
}

}  // namespace ys::fleet
