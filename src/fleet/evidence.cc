#include "fleet/evidence.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "fleet/actions.h"
#include "fleet/digest.h"

namespace ys::fleet {
namespace {

bool Ran(Outcome o) { return o == Outcome::kPass || o == Outcome::kWarn || o == Outcome::kFail; }

std::string Share(uint64_t k, uint64_t n) {
  return fmt::format("{:.1f}%", n ? 100.0 * k / n : 0.0);
}

std::string FindingEntity(const std::string& e) {
  Measurement m;
  m.params["device"] = e.substr(0, e.find('/'));
  Entity x = EntityOf(m);
  return BareLabel(x);
}

}  // namespace

void FleetCensus::Count(const Seen& s) {
  if (!seen_.insert(s).second) return;  // this node counted already (another of its documents)
  const auto& [kind, key, node] = s;
  if (kind == "node") ++nodes_;
  if (kind == "code") ++codes_[key];
  if (kind == "unit") ++units_[key];
  if (kind == "model") ++models_[key];
  if (kind.rfind("version:", 0) == 0) ++versions_[kind.substr(8)][key];
}

void FleetCensus::Add(const DocumentDigest& doc) {
  for (const NodeFacts& f : doc.facts) {
    ++hosts_[f.node];
    Count({"node", "", f.node});
    for (const auto& [code, finding] : f.codes) Count({"code", code, f.node});
    for (const auto& [unit, outcome] : f.units) {
      if (Ran(outcome)) Count({"unit", unit, f.node});
    }
    for (const auto& [field, value] : f.versions) Count({"version:" + field, value, f.node});
    if (!doc.model.empty()) Count({"model", doc.model, f.node});
  }
}

void FleetCensus::Merge(const FleetCensus& o) {
  for (const Seen& s : o.seen_) Count(s);
  for (const auto& [k, n] : o.hosts_) hosts_[k] += n;
}

// A node's rows of the ranked list: each names the node and the document it came from.
struct FleetCensus::NodeRows {
  const std::string& node;
  const std::string& source;
  std::vector<RankedFinding>& out;
  // Appends a row of `kind` on `entity`, with the kind's action.
  void Add(const std::string& kind, const std::string& entity, std::string evidence,
           bool drain) const {
    RankedFinding r;
    r.node = node;
    r.entity = entity;
    r.kind = kind;
    r.evidence = std::move(evidence);
    r.action = ActionFor(FigureKind::kOther, entity, kind);
    r.drain = drain;
    r.sources = {source};
    out.push_back(std::move(r));
  }
};

void FleetCensus::Judge(const DocumentDigest& doc, std::vector<RankedFinding>& out) const {
  const std::vector<std::string>& lost = doc.lost;
  for (const NodeFacts& f : doc.facts) {
    const NodeRows rows{f.node, doc.source, out};
    JudgeRareCodes(f, rows);
    JudgeMissingUnits(f, rows);
    if (doc.incomplete &&
        (lost.empty() || std::find(lost.begin(), lost.end(), f.node) != lost.end())) {
      rows.Add("incomplete", "node",
               "the document is marked incomplete" +
                   (doc.incomplete_reason.empty() ? "" : ": " + doc.incomplete_reason),
               true);
    }
    JudgeVersions(f, rows);
    JudgeModel(doc.model, rows);
    if (auto it = hosts_.find(f.node); it != hosts_.end() && it->second > 1) {
      rows.Add(
          "duplicate", "node",
          fmt::format("host name {} is in {} documents (every one was judged; see the sources)",
                      f.node, it->second),
          false);
    }
  }
}

void FleetCensus::JudgeRareCodes(const NodeFacts& f, const NodeRows& rows) const {
  for (const auto& [code, finding] : f.codes) {
    uint64_t n = codes_.count(code) ? codes_.at(code) : 0;
    if (static_cast<double>(n) > kRareShare * static_cast<double>(nodes_)) continue;
    bool fail = finding.severity == Severity::kFail;
    rows.Add("check", FindingEntity(finding.entity),
             fmt::format("{} {} on {}: {} (on {} of {} nodes)", code, fail ? "fail" : "warn",
                         finding.entity, finding.message, n, nodes_),
             fail);
  }
}

void FleetCensus::JudgeMissingUnits(const NodeFacts& f, const NodeRows& rows) const {
  std::vector<std::string> missing;
  for (const auto& [unit, n] : units_) {
    if (static_cast<double>(n) < kCommonShare * static_cast<double>(nodes_)) continue;
    auto it = f.units.find(unit);
    if (it == f.units.end()) {
      missing.push_back(unit + " (absent)");
    } else if (!Ran(it->second)) {
      missing.push_back(unit + " (" + OutcomeName(it->second) + ")");
    }
  }
  std::sort(missing.begin(), missing.end());
  if (missing.empty()) return;
  std::string list;
  for (size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
  if (missing.size() > 8) list += fmt::format(" and {} more", missing.size() - 8);
  rows.Add("missing_units", "node",
           fmt::format("{} unit{} that ran on {}+ of the nodes did not run here: {}",
                       missing.size(), missing.size() == 1 ? "" : "s",
                       Share(static_cast<uint64_t>(kCommonShare * 100), 100), list),
           true);
}

void FleetCensus::JudgeVersions(const NodeFacts& f, const NodeRows& rows) const {
  for (const auto& [field, value] : f.versions) {
    const auto& values = versions_.at(field);
    uint64_t mine = values.at(value), total = 0, top = 0;
    std::string top_value;
    for (const auto& [v, n] : values) {
      total += n;
      if (n > top) top = n, top_value = v;
    }
    if (top_value == value || static_cast<double>(mine) > kRareShare * static_cast<double>(total) ||
        2 * top < total) {
      continue;
    }
    rows.Add(
        "version", "node",
        fmt::format("{} {} (the fleet: {} on {} of {} nodes)", field, value, top_value, top, total),
        true);
  }
}

void FleetCensus::JudgeModel(const std::string& model, const NodeRows& rows) const {
  if (models_.size() <= 1 || model.empty()) return;
  auto top = std::max_element(models_.begin(), models_.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
  if (top->first == model) return;
  rows.Add("hardware", "node",
           fmt::format("GPU model {} (the fleet: {} on {} of {} nodes); judged only against its "
                       "{} peer{} of "
                       "the same model",
                       model, top->first, top->second, nodes_, models_.at(model) - 1,
                       models_.at(model) == 2 ? "" : "s"),
           false);
}

std::vector<std::string> FleetCensus::Warnings() const {
  std::vector<std::string> out;
  if (models_.size() > 1) {
    std::string list;
    for (const auto& [model, n] : models_)
      list += fmt::format("{}{} on {} nodes", list.empty() ? "" : ", ", model, n);
    out.push_back(
        "mixed GPU models (" + list +
        "): the fleet is split by model and each node judged only against nodes of its own model");
  }
  std::vector<std::pair<std::string, uint64_t>> wide;
  for (const auto& [code, n] : codes_) {
    if (static_cast<double>(n) > kRareShare * static_cast<double>(nodes_))
      wide.emplace_back(code, n);
  }
  std::sort(wide.begin(), wide.end());
  for (const auto& [code, n] : wide) {
    out.push_back(fmt::format(
        "{} on {} of {} nodes: a fleet-wide condition, not ranked node by node", code, n, nodes_));
  }
  for (const auto& [field, values] : versions_) {
    uint64_t total = 0, top = 0;
    for (const auto& [v, n] : values) total += n, top = std::max(top, n);
    if (values.size() > 1 && 2 * top < total) {
      out.push_back(
          fmt::format("{}: {} values and none on most nodes (version skew across the fleet)", field,
                      values.size()));
    }
  }
  return out;
}

}  // namespace ys::fleet
