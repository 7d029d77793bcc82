#include "diagnose/fleet_evidence.h"

#include <fmt/format.h>

#include <algorithm>

#include "diagnose/fleet_actions.h"

namespace ys::diagnose {
namespace {

struct NodeFacts {
  std::string node;
  std::map<std::string, const Finding*> codes;  // code -> its worst finding on the node
  std::map<std::string, Outcome> units;         // unit id -> outcome
  std::map<std::string, std::string> versions;  // field -> value
};

bool IsVersionParam(const std::string& k) {
  static const char* kNames[] = {"library", "nccl", "cuda", "cublaslt", "cudnn", "blas", "driver",
                                 "firmware", "vbios", "ofed", "version"};
  for (const char* n : kNames) {
    if (k == n) return true;
  }
  return k.ends_with("_version") || k.ends_with("_firmware");
}

bool IsVersionEvidence(const std::string& k) {
  return k.find("version") != std::string::npos || k.find("firmware") != std::string::npos ||
         k.find("vbios") != std::string::npos;
}

void AddUnit(NodeFacts& f, const CheckResult& u) {
  for (const Finding& x : u.findings) {
    auto [it, fresh] = f.codes.try_emplace(x.code, &x);
    if (!fresh && x.severity == Severity::kFail) it->second = &x;
  }
  auto [it, fresh] = f.units.try_emplace(u.unit_id, u.outcome);
  // A unit that ran on any rank of the node ran there.
  if (!fresh && (u.outcome == Outcome::kPass || u.outcome == Outcome::kWarn || u.outcome == Outcome::kFail)) {
    it->second = u.outcome;
  }
  for (const auto& [k, v] : u.evidence) {
    if (IsVersionEvidence(k) && !v.empty()) f.versions.try_emplace(u.unit_id + ": " + k, v);
  }
}

void AddBenchmark(NodeFacts& f, const BenchmarkResult& b) {
  AddUnit(f, b);
  for (const Measurement& m : b.measurements) {
    for (const auto& [k, v] : m.params) {
      if (IsVersionParam(k) && !v.empty()) f.versions.try_emplace(k, v);
    }
  }
}

std::vector<NodeFacts> FactsOf(const RunDocument& doc) {
  std::vector<NodeFacts> out;
  auto common = [&](NodeFacts& f) {
    if (!doc.host.gpu_driver.empty()) f.versions["gpu_driver"] = doc.host.gpu_driver;
    if (!doc.host.kernel.empty()) f.versions["kernel"] = doc.host.kernel;
    if (!doc.tool.version.empty()) f.versions["yardstick"] = doc.tool.version;
  };
  if (doc.nodes.size() <= 1) {
    NodeFacts f;
    f.node = doc.nodes.empty() ? doc.host.hostname : doc.nodes[0].hostname;
    for (const auto& c : doc.checks) AddUnit(f, c);
    for (const auto& b : doc.benchmarks) AddBenchmark(f, b);
    for (const auto& n : doc.nodes) {
      for (const auto& c : n.checks) AddUnit(f, c);
      for (const auto& b : n.benchmarks) AddBenchmark(f, b);
    }
    for (const auto& m : doc.measurements) {
      for (const auto& [k, v] : m.params) {
        if (IsVersionParam(k) && !v.empty()) f.versions.try_emplace(k, v);
      }
    }
    common(f);
    out.push_back(std::move(f));
    return out;
  }
  for (const auto& n : doc.nodes) {
    NodeFacts f;
    f.node = n.hostname;
    for (const auto& c : n.checks) AddUnit(f, c);
    for (const auto& b : n.benchmarks) AddBenchmark(f, b);
    common(f);
    out.push_back(std::move(f));
  }
  return out;
}

bool Ran(Outcome o) { return o == Outcome::kPass || o == Outcome::kWarn || o == Outcome::kFail; }

std::string Share(uint64_t k, uint64_t n) { return fmt::format("{:.1f}%", n ? 100.0 * k / n : 0.0); }

std::string FindingEntity(const std::string& e) {
  Measurement m;
  m.params["device"] = e.substr(0, e.find('/'));
  Entity x = EntityOf(m);
  return BareLabel(x);
}

}  // namespace

void FleetCensus::Add(const RunDocument& doc) {
  std::string model = GpuModelOf(doc);
  for (const NodeFacts& f : FactsOf(doc)) {
    ++nodes_;
    ++hosts_[f.node];
    for (const auto& [code, finding] : f.codes) ++codes_[code];
    for (const auto& [unit, outcome] : f.units) {
      if (Ran(outcome)) ++units_[unit];
    }
    for (const auto& [field, value] : f.versions) ++versions_[field][value];
    if (!model.empty()) ++models_[model];
  }
}

void FleetCensus::Judge(const RunDocument& doc, const std::string& source, FleetJudge& judge) const {
  std::string model = GpuModelOf(doc);
  std::vector<std::string> lost;  // nodes of lost ranks
  for (const RankStatus& r : doc.ranks) {
    if (r.state != "ok") lost.push_back(r.hostname);
  }
  for (const NodeFacts& f : FactsOf(doc)) {
    auto add = [&](const std::string& kind, const std::string& entity, std::string evidence, bool drain) {
      RankedFinding r;
      r.node = f.node;
      r.entity = entity;
      r.kind = kind;
      r.evidence = std::move(evidence);
      r.action = ActionFor(FigureKind::kOther, entity, kind);
      r.drain = drain;
      r.sources = {source};
      judge.AddRanked(std::move(r));
    };
    for (const auto& [code, finding] : f.codes) {
      uint64_t n = codes_.count(code) ? codes_.at(code) : 0;
      if (static_cast<double>(n) > kRareShare * static_cast<double>(nodes_)) continue;
      bool fail = finding->severity == Severity::kFail;
      add("check", FindingEntity(finding->entity),
          fmt::format("{} {} on {}: {} (on {} of {} nodes)", code, fail ? "fail" : "warn", finding->entity,
                      finding->message, n, nodes_),
          fail);
    }
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
    if (!missing.empty()) {
      std::string list;
      for (size_t i = 0; i < missing.size() && i < 8; ++i) list += (i ? ", " : "") + missing[i];
      if (missing.size() > 8) list += fmt::format(" and {} more", missing.size() - 8);
      add("missing_units", "node", fmt::format("{} unit{} that ran on {}+ of the nodes did not run here: {}",
                                               missing.size(), missing.size() == 1 ? "" : "s",
                                               Share(static_cast<uint64_t>(kCommonShare * 100), 100), list),
          true);
    }
    if (doc.incomplete && (lost.empty() || std::find(lost.begin(), lost.end(), f.node) != lost.end())) {
      add("incomplete", "node",
          "the document is marked incomplete" + (doc.incomplete_reason.empty() ? "" : ": " + doc.incomplete_reason),
          true);
    }
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
      add("version", "node",
          fmt::format("{} {} (the fleet: {} on {} of {} nodes)", field, value, top_value, top, total), true);
    }
    if (models_.size() > 1 && !model.empty()) {
      auto top = std::max_element(models_.begin(), models_.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
      if (top->first != model) {
        add("hardware", "node",
            fmt::format("GPU model {} (the fleet: {} on {} of {} nodes); judged only against its {} peer{} of "
                        "the same model",
                        model, top->first, top->second, nodes_, models_.at(model) - 1,
                        models_.at(model) == 2 ? "" : "s"),
            false);
      }
    }
    if (auto it = hosts_.find(f.node); it != hosts_.end() && it->second > 1) {
      add("duplicate", "node",
          fmt::format("host name {} is in {} documents (every one was judged; see the sources)", f.node, it->second),
          false);
    }
  }
}

std::vector<std::string> FleetCensus::Warnings() const {
  std::vector<std::string> out;
  if (models_.size() > 1) {
    std::string list;
    for (const auto& [model, n] : models_) list += fmt::format("{}{} on {} nodes", list.empty() ? "" : ", ", model, n);
    out.push_back("mixed GPU models (" + list +
                  "): the fleet is split by model and each node judged only against nodes of its own model");
  }
  std::vector<std::pair<std::string, uint64_t>> wide;
  for (const auto& [code, n] : codes_) {
    if (static_cast<double>(n) > kRareShare * static_cast<double>(nodes_)) wide.emplace_back(code, n);
  }
  std::sort(wide.begin(), wide.end());
  for (const auto& [code, n] : wide) {
    out.push_back(fmt::format("{} on {} of {} nodes: a fleet-wide condition, not ranked node by node", code, n, nodes_));
  }
  for (const auto& [field, values] : versions_) {
    uint64_t total = 0, top = 0;
    for (const auto& [v, n] : values) total += n, top = std::max(top, n);
    if (values.size() > 1 && 2 * top < total) {
      out.push_back(fmt::format("{}: {} values and none on most nodes (version skew across the fleet)", field,
                                values.size()));
    }
  }
  return out;
}

}  // namespace ys::diagnose
