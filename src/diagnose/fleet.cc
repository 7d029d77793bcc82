#include "diagnose/fleet.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ys::diagnose {
namespace {

constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution = 0.6745 sigma

}  // namespace

double MedianErrorBound(const FleetOptions& o, double median) {
  return o.bin_relative_width * std::fabs(median) * (1 + 2 * o.bin_relative_width);
}

double MadErrorBound(const FleetOptions& o, double median, double mad) {
  double w = o.bin_relative_width;
  return w * (3 * std::fabs(median) + mad) * (1 + 3 * w);
}

double MedianStdev(size_t k) {
  if (k <= 1) return 1;
  return std::sqrt(std::numbers::pi / (2.0 * static_cast<double>(k)));
}

FigureScore ScoreFigure(const KeyStats& stats, double value) {
  FigureScore s;
  if (!stats.judged || stats.scale <= 0) return s;
  s.judged = true;
  s.z = (value - stats.median) / stats.scale;
  double worse_by = stats.better == Better::kHigher ? stats.median - value : value - stats.median;
  s.badness = stats.better == Better::kHigher ? -s.z : s.z;
  s.deficit = worse_by / std::fabs(stats.median);
  return s;
}

bool IsOutlier(const FigureScore& s, const FleetOptions& o, double deficit) {
  return s.judged && s.badness >= o.z_threshold && s.deficit >= deficit;
}

void FleetAccumulator::Add(const Measurement& m) {
  std::string key = ComparisonKey(m);
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    Accumulated a{.proto = {}, .values = SparseHistogram::Logarithmic(options_.bin_relative_width)};
    a.proto.key = key;
    a.proto.name = m.name;
    a.proto.unit = m.unit;
    a.proto.better = m.better;
    a.proto.params = KeyParams(m);
    it = keys_.emplace(key, std::move(a)).first;
  } else if (it->second.proto.better != m.better) {
    std::string line = key + ": both higher- and lower-is-better; judged as the first seen";
    if (std::find(conflicts_.begin(), conflicts_.end(), line) == conflicts_.end()) conflicts_.push_back(line);
  }
  it->second.values.Add(m.value);
  ++figures_;
}

std::map<std::string, KeyStats> FleetAccumulator::Finalize() const {
  std::map<std::string, KeyStats> out;
  for (const auto& [key, a] : keys_) {
    KeyStats s = a.proto;
    s.n = a.values.count();
    s.bins = a.values.bins();
    s.median = a.values.Median();
    // The deviations of the reconstructed values from the median, in linear bins as fine as the
    // median's own error: no third pass over the documents.
    double m = s.median;
    SparseHistogram deviations = m != 0 ? SparseHistogram::Linear(options_.bin_relative_width * std::fabs(m))
                                        : SparseHistogram::Logarithmic(options_.bin_relative_width);
    a.values.ForEachApproximateValue([&](double v) { deviations.Add(std::fabs(v - m)); });
    s.mad = deviations.Median();
    s.scale = std::max(kMadToSigma * s.mad, options_.noise_floor * std::fabs(m));
    s.median_error_bound = MedianErrorBound(options_, m);
    s.mad_error_bound = MadErrorBound(options_, m, s.mad);
    s.judged = static_cast<int64_t>(s.n) >= options_.min_peers && m != 0 && s.scale > 0;
    out.emplace(key, std::move(s));
  }
  return out;
}

struct FleetJudge::Scored {
  KeyStats* key;  // into stats_
  Entity entity;
  double value;
  FigureScore score;
};

struct FleetJudge::Verdict {
  bool slow = false;
  size_t figures = 0, low = 0;
  double median_deficit = 0, z = 0;
};

void FleetJudge::AddDocument(const RunDocument& doc, const std::string& source) {
  ++documents_;
  std::map<std::string, std::vector<Scored>> by_node;
  ForEachMeasurement(doc, [&](const Measurement& m, const std::string& node_name) {
    ++figures_;
    auto it = stats_.find(ComparisonKey(m));
    if (it == stats_.end()) return;  // not seen in pass 1: the document changed in between
    FigureScore score = ScoreFigure(it->second, m.value);
    if (!score.judged) return;
    by_node[NodeOf(m, node_name)].push_back({&it->second, EntityOf(m), m.value, score});
  });
  for (const auto& [node, figures] : by_node) JudgeNode(node, figures, source);
}

FleetJudge::Verdict FleetJudge::JudgeGroup(const std::vector<const Scored*>& group) const {
  Verdict v;
  std::vector<double> badness, deficit;
  for (const Scored* s : group) {
    badness.push_back(s->score.badness);
    deficit.push_back(s->score.deficit);
    if (s->score.deficit >= options_.min_deficit) ++v.low;
  }
  v.figures = group.size();
  v.median_deficit = MedianOf(deficit);
  double z = MedianOf(std::move(badness)) / MedianStdev(group.size());
  v.z = -z;
  // One figure alone is judged as a lone figure.
  double needed = group.size() == 1 ? options_.isolated_deficit : options_.min_deficit;
  v.slow = !group.empty() && z >= options_.z_threshold && v.median_deficit >= needed;
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

void FleetJudge::JudgeNode(const std::string& node, const std::vector<Scored>& figures, const std::string& source) {
  std::vector<const Scored*> all;
  std::map<std::string, std::vector<const Scored*>> by_entity;
  for (const Scored& s : figures) {
    all.push_back(&s);
    if (s.entity.kind != EntityKind::kNode) by_entity[s.entity.label].push_back(&s);
  }
  Verdict node_verdict = JudgeGroup(all);
  if (node_verdict.slow) RecordSlow(node, Entity{}, node_verdict, source);
  std::map<std::string, const char*> slow_entities;
  for (const auto& [label, group] : by_entity) {
    Verdict v = JudgeGroup(group);
    if (!v.slow) continue;
    // On a slow node, a device is news only when it is clearly worse than its node.
    if (node_verdict.slow && v.median_deficit - node_verdict.median_deficit < options_.min_deficit) {
      continue;
    }
    RecordSlow(node, group.front()->entity, v, source);
    slow_entities[label] = EntityKindName(group.front()->entity.kind);
  }
  for (const Scored& s : figures) {
    std::string attributed;
    if (auto it = slow_entities.find(s.entity.label); s.entity.kind != EntityKind::kNode && it != slow_entities.end()) {
      attributed = it->second;
    } else if (node_verdict.slow) {
      attributed = "node";
    }
    bool outlier = IsOutlier(s.score, options_, options_.min_deficit);
    bool reported = attributed.empty() ? IsOutlier(s.score, options_, options_.isolated_deficit)
                                       : s.score.deficit >= options_.min_deficit;
    if (!reported) continue;
    ++s.key->outliers;
    flagged_.push_back({.node = node, .entity = s.entity, .key = s.key->key, .value = s.value,
                        .median = s.key->median, .score = s.score, .outlier = outlier,
                        .attributed_to = attributed, .source = source});
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
  std::sort(flagged_.begin(), flagged_.end(), [](const FlaggedFigure& a, const FlaggedFigure& b) {
    return std::tie(a.node, a.entity.label, a.key, a.source) < std::tie(b.node, b.entity.label, b.key, b.source);
  });
  r.flagged = std::move(flagged_);
  r.keys = std::move(stats_);
  return r;
}

}  // namespace ys::diagnose
