// The ranked list's performance rows (fleet.h "Peers"): each node's and device's aggregate of
// one kind of figure, the between-peer spread of those aggregates across the fleet, and the rows
// of the entities beyond the threshold the false-alarm rate sets, with their expected loss.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "fleet/actions.h"
#include "fleet/digest.h"
#include "fleet/fleet.h"
#include "fleet/groups.h"
#include "fleet/impact.h"

namespace ys::fleet {
namespace {

using PeerScored = FleetJudge::Scored;
using PeerDeviceKey = std::tuple<FigureKind, EntityKind, std::string_view>;

bool IsPeerDevice(const Entity& e) {
  return e.kind == EntityKind::kGpu || e.kind == EntityKind::kNic;
}

// One entity's aggregate of one kind of figure.
struct PeerAggregate {
  EntityKind level = EntityKind::kNode;
  FigureKind kind = FigureKind::kOther;
  std::string_view label;  // the device's bare label; empty for the node
  double value = 0;        // the node's aggregate, or the device's contrast with its node's
  bool judgeable = true;   // a device alone of its kind on its node has no contrast
  std::vector<const PeerScored*> group;
};

// The median deficit of a group; of two figures the smaller (one dip cannot carry it).
double PeerAggregateOf(const std::vector<const PeerScored*>& g) {
  if (g.size() == 1) return g[0]->score.deficit;
  if (g.size() == 2) return std::min(g[0]->score.deficit, g[1]->score.deficit);
  std::vector<double> d;
  d.reserve(g.size());
  for (const PeerScored* s : g) d.push_back(s->score.deficit);
  return MedianOf(std::move(d));
}

bool PeerInvolves(const PeerScored& s, std::string_view label) {
  return BareLabelView(s.entity) == label || (s.peer && BareLabelView(*s.peer) == label);
}

// The contrasts of a block of devices [i, j) whose figures are all between two devices (a
// GPU-to-GPU copy counts for both ends): each device's aggregate less the median of the node's
// figures of that kind that do not involve it. Its aggregate less the other devices' aggregates
// would not do: theirs share its pairs, which squeezes their spread around it and gives the
// contrast tails longer than normal (healthy GPUs at z 4 twenty times more often).
void PeerPairContrasts(std::vector<PeerAggregate>& out, size_t i, size_t j) {
  std::vector<const PeerScored*> all;
  for (size_t k = i; k < j; ++k) all.insert(all.end(), out[k].group.begin(), out[k].group.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<double> others;
  for (size_t k = i; k < j; ++k) {
    others.clear();
    for (const PeerScored* s : all) {
      if (!PeerInvolves(*s, out[k].label)) others.push_back(s->score.deficit);
    }
    out[k].judgeable = !others.empty();
    out[k].value = others.empty() ? 0 : out[k].value - MedianOf(others);
  }
}

bool PeerAllPairs(const std::vector<PeerAggregate>& out, size_t i, size_t j) {
  for (size_t k = i; k < j; ++k) {
    for (const PeerScored* s : out[k].group) {
      if (!s->peer) return false;
    }
  }
  return true;
}

// Each device aggregate less the median of the other devices of its node of the same kind and
// level (contiguous in `out` from `first`: sorted by kind, then level). Leaving the device out
// keeps a healthy device's contrast centered and as spread as its peers' (a median that
// includes it is pulled toward it, and the pooled distances would understate the spread).
void PeerContrasts(std::vector<PeerAggregate>& out, size_t first) {
  std::vector<double> own, others;
  for (size_t i = first; i < out.size();) {
    size_t j = i;
    while (j < out.size() && out[j].kind == out[i].kind && out[j].level == out[i].level) ++j;
    if (PeerAllPairs(out, i, j)) {
      PeerPairContrasts(out, i, j);
      i = j;
      continue;
    }
    own.clear();
    for (size_t k = i; k < j; ++k) own.push_back(out[k].value);
    for (size_t k = i; k < j; ++k) {
      others.clear();
      for (size_t m = i; m < j; ++m) {
        if (m != k) others.push_back(own[m - i]);
      }
      out[k].judgeable = !others.empty();
      out[k].value = others.empty() ? 0 : own[k - i] - MedianOf(others);
    }
    i = j;
  }
}

std::vector<PeerAggregate> PeerAggregates(const std::vector<PeerScored>& figures) {
  GroupMembers<FigureKind> node_members;
  GroupMembers<PeerDeviceKey> device_members;
  for (const PeerScored& s : figures) {
    node_members.push_back({s.key->kind, &s});
    if (IsPeerDevice(s.entity))
      device_members.push_back(
          {PeerDeviceKey{s.key->kind, s.entity.kind, BareLabelView(s.entity)}, &s});
    if (s.peer && IsPeerDevice(*s.peer))
      device_members.push_back(
          {PeerDeviceKey{s.key->kind, s.peer->kind, BareLabelView(*s.peer)}, &s});
  }
  SortMembers(node_members);
  SortMembers(device_members);
  std::vector<PeerAggregate> out;
  std::vector<const PeerScored*> buffer;
  ForEachGroup(node_members.begin(), node_members.end(), buffer,
               [&out](FigureKind kind, const std::vector<const PeerScored*>& g) {
                 out.push_back({EntityKind::kNode, kind, {}, PeerAggregateOf(g), true, g});
               });
  size_t first_device = out.size();
  ForEachGroup(device_members.begin(), device_members.end(), buffer,
               [&out](const PeerDeviceKey& key, const std::vector<const PeerScored*>& g) {
                 out.push_back({std::get<1>(key), std::get<0>(key), std::get<2>(key),
                                PeerAggregateOf(g), true, g});
               });
  PeerContrasts(out, first_device);
  return out;
}

// z with P(Z > z) = p for a standard normal Z (bisection; p in (0, 0.5]).
double PeerUpperNormalQuantile(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

size_t PeerLevelOf(EntityKind level) {
  return level == EntityKind::kNode ? 0 : level == EntityKind::kGpu ? 1 : 2;
}

// The center and raised scale of one slot's aggregates (fleet.h "Peers").
PeerSpread PeerSpreadOf(std::vector<float> values, bool center_at_zero, const FleetOptions& o) {
  PeerSpread p;
  p.n = values.size();
  p.judged = static_cast<int64_t>(p.n) >= o.min_peers && p.n > 0;
  if (p.n == 0) return p;
  std::vector<double> v(values.begin(), values.end());
  p.center = center_at_zero ? 0 : MedianOf(v);
  std::vector<double> good;
  for (double x : v) {
    if (x < p.center) good.push_back(p.center - x);
  }
  double scale = good.empty() ? 0 : 1.4826 * MedianOf(good);
  // The tail: a normal distance exceeds 2.326 sd 2% of the time. With 250 distances, 5 lie
  // beyond their 98th percentile: enough to see a tail longer than normal.
  if (good.size() >= 250) {
    auto at = good.begin() + static_cast<std::ptrdiff_t>(0.98 * static_cast<double>(good.size()));
    std::nth_element(good.begin(), at, good.end());
    scale = std::max(scale, *at / 2.326);
  }
  double n_good = static_cast<double>(std::max<size_t>(1, good.size()));
  p.scale = std::max(scale, o.peer_noise_floor) * (1 + 1.645 * 1.167 / std::sqrt(n_good));
  return p;
}

}  // namespace

size_t PeerSamples::Slot(EntityKind level, FigureKind kind) {
  return PeerLevelOf(level) * kKinds + static_cast<size_t>(kind);
}

void PeerSamples::Merge(PeerSamples&& other) {  // not the marks: see fleet.h
  for (size_t i = 0; i < kSlots; ++i) {
    values[i].insert(values[i].end(), other.values[i].begin(), other.values[i].end());
    std::vector<float>().swap(other.values[i]);
  }
}

void FleetJudge::Observe(const DocumentDigest& d, const std::vector<const KeyStats*>& resolve,
                         PeerSamples& out) const {
  Evaluate(d, resolve, &out);
}

void FleetJudge::Observe(const RunDocument& doc, PeerSamples& out) const {
  FleetAccumulator local(options_);
  DocumentDigest d = Digest(doc, "", local);
  Observe(d, Resolve(local), out);
}

void FleetJudge::SetPeers(const PeerSamples& samples) {
  std::set<FigureKind> bimodal;  // kinds with a two-mode key: the better mode is the center
  for (const auto& [key, k] : stats_) {
    if (k.bimodal) bimodal.insert(k.kind);
  }
  peers_.assign(PeerSamples::kSlots, PeerSpread{});
  double weights[3] = {0, 0, 0};  // the impacts of the kinds judged at each level
  uint64_t entities[3] = {0, 0, 0};
  for (size_t slot = 0; slot < PeerSamples::kSlots; ++slot) {
    size_t level = slot / PeerSamples::kKinds;
    auto kind = static_cast<FigureKind>(slot % PeerSamples::kKinds);
    PeerSpread& p = peers_[slot];
    p = PeerSpreadOf(samples.values[slot], level == 0 && bimodal.count(kind) > 0, options_);
    p.level = level == 0 ? EntityKind::kNode : level == 1 ? EntityKind::kGpu : EntityKind::kNic;
    p.kind = kind;
    if (!p.judged) continue;
    weights[level] += FalseAlarmWeight(kind);
    entities[level] = std::max(entities[level], p.n);
  }
  double rate = std::clamp(options_.false_alarms / 1e4, 1e-12, 0.5);
  tests_ = 0;
  for (const PeerSpread& p : peers_) tests_ += p.judged ? p.n : 0;
  double family = std::clamp(options_.drain_false_alarms / std::max<double>(1, tests_), 1e-15, 0.5);
  for (PeerSpread& p : peers_) {
    size_t level = PeerLevelOf(p.level);
    if (!p.judged) continue;
    p.threshold = PeerUpperNormalQuantile(rate * FalseAlarmWeight(p.kind) / weights[level]);
    p.drain_threshold = std::max(p.threshold, PeerUpperNormalQuantile(family));
  }
  entities_ = entities[0] + entities[1] + entities[2];
}

std::vector<uint32_t> FleetJudge::PeerDocuments(const PeerSamples& samples) const {
  std::vector<uint32_t> out;
  if (peers_.empty()) return out;
  for (const PeerSamples::Mark& m : samples.marks) {
    const PeerSpread& p = peers_[m.slot];
    // float: a hair below the double it was made from
    if (p.judged && m.value >= p.Smallest() - 1e-6) out.push_back(m.document);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<RankedFinding> FleetJudge::PeerRows(const DocumentDigest& d,
                                                const std::vector<const KeyStats*>& resolve) const {
  Findings out;
  out.source = d.source;
  for (const auto& [node_id, figures] : ScoreDigest(d, resolve))
    PoolNode(d.labels[node_id], figures.judged, out);
  return std::move(out.ranked);
}

const PeerSpread* FleetJudge::PeerOf(EntityKind level, FigureKind kind) const {
  if (peers_.empty()) return nullptr;
  const PeerSpread& p = peers_[PeerSamples::Slot(level, kind)];
  return p.judged ? &p : nullptr;
}

namespace {

// Each aggregate's value into its slot, and the document's largest per slot into the marks.
void PeerObserve(const std::vector<PeerAggregate>& aggregates, PeerSamples& out) {
  size_t first = out.marks.size();
  for (const PeerAggregate& a : aggregates) {
    if (!a.judgeable) continue;
    size_t slot = PeerSamples::Slot(a.level, a.kind);
    auto value = static_cast<float>(a.value);
    out.values[slot].push_back(value);
    auto it = std::find_if(out.marks.begin() + static_cast<std::ptrdiff_t>(first), out.marks.end(),
                           [slot](const PeerSamples::Mark& m) { return m.slot == slot; });
    if (it == out.marks.end()) {
      out.marks.push_back({out.documents, static_cast<uint16_t>(slot), value});
    } else {
      it->value = std::max(it->value, value);
    }
  }
}

std::string PeerPct(double x) { return fmt::format("{:.1f}%", 100 * x); }

const PeerScored* WorstOfGroup(const std::vector<const PeerScored*>& group) {
  const PeerScored* worst = group.front();
  for (const PeerScored* s : group) {
    if (s->score.deficit > worst->score.deficit) worst = s;
  }
  return worst;
}

std::string PeerEvidence(const PeerAggregate& a, const PeerSpread& p, double z, double rate) {
  const PeerScored* worst = WorstOfGroup(a.group);
  size_t k = a.group.size();
  std::string where = a.level == EntityKind::kNode
                          ? "below the fleet's nodes"
                          : fmt::format("below the other {}s of its node", EntityKindName(a.level));
  std::string s = fmt::format(
      "{} {} figure{}: {} {} {} (their spread {}, z {:.1f} >= {:.1f}: {:g} healthy {} in 10,000 "
      "flagged); worst: {} {:.4g} vs median {:.4g} {}",
      k, FigureKindName(a.kind), k == 1 ? "" : "s", k <= 2 ? "at least" : "median",
      PeerPct(a.value), where, PeerPct(p.scale), z, p.threshold, rate, EntityKindName(a.level),
      worst->key->key, worst->value, worst->key->median, worst->key->unit);
  if (worst->key->bimodal) {
    s += fmt::format(
        "; part of a slow mode: {} of the fleet's figures of this key are {} below the rest",
        PeerPct(worst->key->slow_mode_share), PeerPct(worst->key->slow_mode_deficit));
  }
  return s;
}

}  // namespace

void FleetJudge::PoolNode(const std::string& node, const std::vector<PeerScored>& figures,
                          Findings& out, PeerSamples* observe) const {
  if (peers_.empty() && observe == nullptr) return;
  std::vector<PeerAggregate> aggregates = PeerAggregates(figures);
  if (observe != nullptr) PeerObserve(aggregates, *observe);
  if (peers_.empty()) return;
  for (const PeerAggregate& a : aggregates) {
    const PeerSpread* p = a.judgeable ? PeerOf(a.level, a.kind) : nullptr;
    if (p == nullptr) continue;
    double z = (a.value - p->center) / p->scale;
    if (!(z >= p->threshold)) continue;
    // A lone figure has no corroboration and single measurements have long tails.
    if (a.group.size() == 1 && a.group[0]->score.deficit < options_.isolated_deficit) continue;
    RankedFinding f;
    f.node = node;
    f.entity = a.level == EntityKind::kNode ? "node" : std::string(a.label);
    f.kind = FigureKindName(a.kind);
    f.deficit = a.value - p->center;
    f.deficit_low = f.deficit - 1.96 * p->scale;
    f.deficit_high = f.deficit + 1.96 * p->scale;
    f.z = z;
    f.figures = a.group.size();
    f.evidence = PeerEvidence(a, *p, z, options_.false_alarms);
    f.action = ActionFor(a.kind, f.entity);
    f.sources = {out.source};
    std::string weak;
    if (z < p->drain_threshold)
      weak = fmt::format(
          "z {:.1f} is below the {:.1f} that drains ({:g} healthy drained expected "
          "in the fleet)",
          z, p->drain_threshold, options_.drain_false_alarms);
    DecideAction(f, a.kind, options_.drain_loss, weak);
    out.ranked.push_back(std::move(f));
  }
}

}  // namespace ys::fleet
