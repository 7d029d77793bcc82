// The ranked list of fleet analysis (fleet.h "Pooling"): evidence pooled per entity and kind of
// figure, the spread of samples, and, where peers cannot judge, the spec.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "diagnose/fleet.h"
#include "diagnose/fleet_actions.h"
#include "diagnose/fleet_groups.h"

namespace ys::diagnose {
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

const FleetJudge::Scored* Worst(const std::vector<const FleetJudge::Scored*>& group) {
  const FleetJudge::Scored* worst = group.front();
  for (const auto* s : group) {
    if (s->score.deficit > worst->score.deficit) worst = s;
  }
  return worst;
}

}  // namespace

void FleetJudge::PoolNode(const std::string& node, const std::vector<Scored>& figures,
                          Findings& out) const {
  std::map<FigureKind, std::vector<const Scored*>> node_groups;
  using DeviceKey = std::pair<FigureKind, std::string_view>;  // the kind, the device's bare label
  GroupMembers<DeviceKey> device_members;
  for (const Scored& s : figures) {
    FigureKind kind = s.key->kind;
    node_groups[kind].push_back(&s);
    if (IsDevice(s.entity)) device_members.push_back({{kind, BareLabelView(s.entity)}, &s});
    if (s.peer && IsDevice(*s.peer)) device_members.push_back({{kind, BareLabelView(*s.peer)}, &s});
  }
  SortMembers(device_members);  // by kind, then label
  auto row = [&](const std::string& entity, FigureKind kind, const Verdict& v,
                 const std::vector<const Scored*>& group) {
    const Scored* worst = Worst(group);
    RankedFinding f;
    f.node = node;
    f.entity = entity;
    f.kind = FigureKindName(kind);
    f.deficit = v.median_deficit;
    f.deficit_low = v.low_bound;
    f.deficit_high = v.high_bound;
    f.z = -v.z;
    f.figures = v.figures;
    f.evidence = fmt::format(
        "{} {} figure{} {} below the peer median (scaled median z {:.1f}), {} of them {} or more; "
        "worst: {} "
        "{:.4g} vs median {:.4g} {}",
        v.figures, f.kind, v.figures == 1 ? "" : "s", Pct(v.median_deficit), -v.z, v.low,
        Pct(options_.min_deficit), worst->key->key, worst->value, worst->key->median,
        worst->key->unit);
    if (worst->key->bimodal) {
      f.evidence += fmt::format(
          "; part of a slow mode: {} of the fleet's figures of this key are {} below the rest",
          Pct(worst->key->slow_mode_share), Pct(worst->key->slow_mode_deficit));
    }
    f.action = ActionFor(kind, entity);
    f.sources = {out.source};
    out.ranked.push_back(std::move(f));
  };
  std::vector<const Scored*> buffer;
  auto devices = device_members.begin();
  for (const auto& entry : node_groups) {
    // Plain names, not a structured binding: clang 14 refuses a lambda capturing one.
    FigureKind kind = entry.first;
    const std::vector<const Scored*>& group = entry.second;
    Verdict node_v = JudgeGroup(group);
    if (node_v.slow) row("node", kind, node_v, group);
    auto end = std::find_if(devices, device_members.end(),
                            [&](const auto& m) { return m.first.first != kind; });
    ForEachGroup(devices, end, buffer, [&](const DeviceKey& key, const auto& device_group) {
      Verdict v = JudgeGroup(device_group);
      if (!v.slow) return;
      if (node_v.slow && v.median_deficit - node_v.median_deficit < options_.min_deficit) return;
      row(std::string(key.second), kind, v, device_group);
    });
    devices = end;
  }
}

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
    out.ranked.push_back(std::move(f));
  }
}

}  // namespace ys::diagnose
