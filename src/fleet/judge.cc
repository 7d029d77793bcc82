// Pass 2 of fleet analysis (fleet.h): each document's figures scored against their key, the slow
// nodes and devices over all their figures (SlowGroup, FlaggedFigure), and the ranked list,
// pooled by entity and kind of figure (fleet/pool.cc).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fleet/digest.h"
#include "fleet/fleet.h"
#include "fleet/groups.h"

namespace ys::fleet {

std::map<uint32_t, FleetJudge::NodeFigures> FleetJudge::ScoreDigest(
    const DocumentDigest& d, const std::vector<const KeyStats*>& resolve) const {
  std::map<uint32_t, NodeFigures> by_node;
  for (const DocumentDigest::Figure& f : d.figures) {
    const KeyStats* key = f.key < resolve.size() ? resolve[f.key] : nullptr;
    if (key == nullptr) continue;  // not seen in pass 1
    Scored s{key,
             Entity{static_cast<EntityKind>(f.entity_kind), d.labels[f.entity]},
             std::nullopt,
             f.value,
             ScoreFigure(*key, f.value),
             f.spread,
             f.pct_of_peak};
    if (f.peer != UINT32_MAX)
      s.peer = Entity{static_cast<EntityKind>(f.peer_kind), d.labels[f.peer]};
    NodeFigures& n = by_node[f.node];
    (s.score.judged ? n.judged : n.unjudged).push_back(std::move(s));
  }
  return by_node;
}

FleetJudge::Findings FleetJudge::Evaluate(const DocumentDigest& d,
                                          const std::vector<const KeyStats*>& resolve,
                                          PeerSamples* observe) const {
  Findings out;
  out.source = d.source;
  out.figures = d.figures.size();
  for (const auto& [node_id, figures] : ScoreDigest(d, resolve)) {
    const std::string& node = d.labels[node_id];
    JudgeNode(node, figures.judged, out);
    PoolNode(node, figures.judged, out, observe);
    JudgeSpread(node, figures.judged, out);
    JudgeAgainstSpec(node, figures.unjudged, out);  // it reads only the figures not judged
  }
  if (observe != nullptr) ++observe->documents;
  return out;
}

std::vector<const KeyStats*> FleetJudge::Resolve(const FleetAccumulator& accumulator) const {
  std::vector<const KeyStats*> out(accumulator.ids(), nullptr);
  for (uint32_t id = 0; id < out.size(); ++id) {
    if (auto it = stats_.find(accumulator.KeyName(id)); it != stats_.end()) out[id] = &it->second;
  }
  return out;
}

FleetJudge::Findings FleetJudge::Evaluate(const RunDocument& doc, const std::string& source) const {
  FleetAccumulator local(options_);
  DocumentDigest d = Digest(doc, source, local);
  return Evaluate(d, Resolve(local));
}

void FleetJudge::Record(Findings f) {
  ++documents_;
  figures_ += f.figures;
  for (const auto& s : f.slow) RecordSlow(s.node, s.entity, s.verdict, f.source);
  for (FlaggedFigure& x : f.flagged) {
    if (auto it = stats_.find(x.key); it != stats_.end()) ++it->second.outliers;
    flagged_.push_back(std::move(x));
  }
  for (RankedFinding& r : f.ranked) Rank(std::move(r));
}

// A group's figures and z are set whatever it is; the rest (low figures, median deficit and its
// interval) only when its z reaches z_threshold, the first condition of a slow group: every caller
// reads them of slow groups only, and most groups of a fleet are far from slow, so they cost one
// median instead of four.
FleetJudge::Verdict FleetJudge::JudgeGroup(const std::vector<const Scored*>& group) const {
  Verdict v;
  if (group.empty()) return v;
  size_t k = group.size();
  v.figures = k;
  // Two figures: their median is their mean, which one dip can carry past the threshold; each
  // must then be low on its own: both min_deficit worse, and both at least z_threshold / sqrt(2),
  // so that their combined z, (z1 + z2) / sqrt(2), reaches z_threshold with neither below an even
  // share of it (the smaller badness and deficit decide). Two healthy figures do that with
  // probability P(z >= 3.54)^2 = 4e-8, below the 3e-7 of one figure at z >= 5.
  double z;
  if (k == 2) {
    z = std::sqrt(2.0) * std::min(group[0]->score.badness, group[1]->score.badness);
  } else {
    std::vector<double> badness;
    badness.reserve(k);
    for (const Scored* s : group) badness.push_back(s->score.badness);
    z = MedianOf(std::move(badness)) / MedianStdev(k);
  }
  v.z = -z;
  if (!(z >= options_.z_threshold)) return v;
  std::vector<double> deficit, scale;
  deficit.reserve(k);
  scale.reserve(k);
  for (const Scored* s : group) {
    deficit.push_back(s->score.deficit);
    scale.push_back(s->key->scale / std::fabs(s->key->median));
    if (s->score.deficit >= options_.min_deficit) ++v.low;
  }
  v.median_deficit = MedianOf(deficit);
  std::vector<double> dev;
  dev.reserve(k);
  for (double d : deficit) dev.push_back(std::fabs(d - v.median_deficit));
  double s = std::max(1.4826 * MedianOf(std::move(dev)), MedianOf(std::move(scale)));
  double half = 1.96 * (k == 1 ? s : 1.2533 * s / std::sqrt(static_cast<double>(k)));
  v.low_bound = v.median_deficit - half;
  v.high_bound = v.median_deficit + half;
  double decisive = k == 2 ? std::min(deficit[0], deficit[1]) : v.median_deficit;
  double needed = k == 1 ? options_.isolated_deficit : options_.min_deficit;
  v.slow = decisive >= needed;
  return v;
}

void FleetJudge::RecordSlow(const std::string& node, const Entity& entity, const Verdict& v,
                            const std::string& source) {
  auto [it, fresh] = slow_.try_emplace({node, entity.label});
  SlowGroup& g = it->second;
  if (fresh || v.median_deficit > g.median_deficit) {
    g.node = node;
    g.entity = entity;
    g.figures = v.figures;
    g.low_figures = v.low;
    g.median_deficit = v.median_deficit;
    g.z = v.z;
  }
  g.sources.push_back(source);
}

void FleetJudge::JudgeNode(const std::string& node, const std::vector<Scored>& figures,
                           Findings& out) const {
  std::vector<const Scored*> all;
  all.reserve(figures.size());
  GroupMembers<std::string_view> by_entity;  // entity label -> its figures
  for (const Scored& s : figures) {
    all.push_back(&s);
    // A figure between two devices (a GPU-to-GPU copy) is the pair's, not its sender's: it counts
    // for the node here and for both ends in the ranked list.
    if (s.entity.kind != EntityKind::kNode && !s.peer) by_entity.push_back({s.entity.label, &s});
  }
  Verdict node_verdict = JudgeGroup(all);
  if (node_verdict.slow) out.slow.push_back({node, Entity{}, node_verdict});
  std::map<std::string, const char*> slow_entities;
  SortMembers(by_entity);
  ForEachGroup(by_entity.begin(), by_entity.end(), all,  // `all` is done with: its buffer is reused
               [&](std::string_view label, const std::vector<const Scored*>& group) {
                 Verdict v = JudgeGroup(group);
                 if (!v.slow) return;
                 if (node_verdict.slow &&
                     v.median_deficit - node_verdict.median_deficit < options_.min_deficit)
                   return;
                 out.slow.push_back({node, group.front()->entity, v});
                 slow_entities[std::string(label)] = EntityKindName(group.front()->entity.kind);
               });
  for (const Scored& s : figures) {
    std::string attributed;
    if (auto it = slow_entities.find(s.entity.label);
        s.entity.kind != EntityKind::kNode && it != slow_entities.end()) {
      attributed = it->second;
    } else if (node_verdict.slow) {
      attributed = "node";
    }
    bool outlier = IsOutlier(s.score, options_, options_.min_deficit);
    bool reported = attributed.empty() ? IsOutlier(s.score, options_, options_.isolated_deficit)
                                       : s.score.deficit >= options_.min_deficit;
    if (!reported) continue;
    out.flagged.push_back({.node = node,
                           .entity = s.entity,
                           .key = s.key->key,
                           .value = s.value,
                           .median = s.key->median,
                           .score = s.score,
                           .outlier = outlier,
                           .attributed_to = attributed,
                           .source = out.source});
  }
}

void FleetJudge::Rank(RankedFinding f) {
  auto [it, fresh] = ranked_.try_emplace({f.node, f.entity, f.kind});
  if (fresh || f.deficit > it->second.deficit) {
    std::vector<std::string> sources = std::move(it->second.sources);
    it->second = std::move(f);
    sources.insert(sources.end(), it->second.sources.begin(), it->second.sources.end());
    it->second.sources = std::move(sources);
  } else {
    it->second.sources.insert(it->second.sources.end(), f.sources.begin(), f.sources.end());
  }
}

FleetReport FleetJudge::Finish() {
  FleetReport r;
  r.options = options_;
  r.documents = documents_;
  r.figures = figures_;
  for (auto& [key, g] : slow_) {
    std::sort(g.sources.begin(), g.sources.end());
    r.slow.push_back(std::move(g));
  }
  // Slow nodes first, then GPUs, NICs, other devices; each by node and label.
  std::stable_sort(r.slow.begin(), r.slow.end(), [](const SlowGroup& a, const SlowGroup& b) {
    return a.entity.kind < b.entity.kind;
  });
  // Stable: the figures of one key, entity and document (a proxy's per-rank figures) keep the
  // document's order whatever order the reading threads recorded the documents in.
  std::stable_sort(flagged_.begin(), flagged_.end(),
                   [](const FlaggedFigure& a, const FlaggedFigure& b) {
                     return std::tie(a.node, a.entity.label, a.key, a.source) <
                            std::tie(b.node, b.entity.label, b.key, b.source);
                   });
  r.flagged = std::move(flagged_);
  for (auto& [where, f] : ranked_) {
    std::sort(f.sources.begin(), f.sources.end());
    f.sources.erase(std::unique(f.sources.begin(), f.sources.end()), f.sources.end());
    r.ranked.push_back(std::move(f));
  }
  for (const auto& [key, k] : stats_) {
    if (k.bimodal) r.slow_modes.push_back({key, k.kind, k.slow_mode_share, k.slow_mode_deficit});
  }
  for (const PeerSpread& p : peers_) {
    if (p.judged) r.peers.push_back(p);
  }
  r.entities = entities_;
  r.expected_false_alarms = options_.false_alarms / 1e4 * static_cast<double>(entities_);
  r.tests = tests_;
  r.keys = std::move(stats_);
  return r;
}

}  // namespace ys::fleet
