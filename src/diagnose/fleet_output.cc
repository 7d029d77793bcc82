#include "diagnose/fleet_output.h"

#include <fmt/format.h>

#include "core/report.h"
#include "core/text.h"

namespace ys::diagnose {
namespace {

using ojson = nlohmann::ordered_json;

const char* BetterName(Better b) { return b == Better::kHigher ? "higher" : "lower"; }

std::string SectionTitle(EntityKind kind) {
  switch (kind) {
    case EntityKind::kNode: return "slow nodes";
    case EntityKind::kGpu: return "slow GPUs";
    case EntityKind::kNic: return "slow NICs";
    case EntityKind::kOther: return "slow devices";
  }
  return "slow devices";
}

std::string Where(const std::string& node, const Entity& e) {
  return e.label.empty() ? node : node + " " + e.label;
}

}  // namespace

ojson ToJson(const FleetReport& r) {
  ojson j;
  j["schema_version"] = kFleetSchemaVersion;
  j["kind"] = "fleet";
  j["created_at"] = UtcNowIso8601();
  j["verdict"] = r.Healthy() ? "pass" : "fail";
  j["options"] = {{"z_threshold", r.options.z_threshold},
                  {"min_deficit_pct", 100 * r.options.min_deficit},
                  {"isolated_deficit_pct", 100 * r.options.isolated_deficit},
                  {"noise_floor_pct", 100 * r.options.noise_floor},
                  {"min_peers", r.options.min_peers},
                  {"bin_relative_width", r.options.bin_relative_width}};
  j["inputs"] = {{"documents", r.documents}, {"figures", r.figures}, {"keys", r.keys.size()}};
  j["skipped"] = ojson::array();
  for (const auto& s : r.skipped) j["skipped"].push_back({{"path", s.path}, {"error", s.error}});
  j["warnings"] = r.warnings;
  j["keys"] = ojson::array();
  for (const auto& [key, k] : r.keys) {
    j["keys"].push_back({{"key", key},
                         {"name", k.name},
                         {"unit", k.unit},
                         {"better", BetterName(k.better)},
                         {"params", k.params},
                         {"n", k.n},
                         {"median", k.median},
                         {"mad", k.mad},
                         {"scale", k.scale},
                         {"median_error_bound", k.median_error_bound},
                         {"mad_error_bound", k.mad_error_bound},
                         {"bins", k.bins},
                         {"judged", k.judged},
                         {"outliers", k.outliers}});
  }
  ojson slow = {{"nodes", ojson::array()}, {"gpus", ojson::array()}, {"nics", ojson::array()},
                {"devices", ojson::array()}};
  for (const auto& g : r.slow) {
    const char* section = g.entity.kind == EntityKind::kNode  ? "nodes"
                          : g.entity.kind == EntityKind::kGpu ? "gpus"
                          : g.entity.kind == EntityKind::kNic ? "nics"
                                                              : "devices";
    ojson e = {{"node", g.node}};
    if (!g.entity.label.empty()) e["entity"] = g.entity.label;
    e["figures"] = g.figures;
    e["low_figures"] = g.low_figures;
    e["median_deficit_pct"] = 100 * g.median_deficit;
    e["z"] = g.z;
    e["documents"] = g.sources;
    slow[section].push_back(std::move(e));
  }
  j["slow"] = std::move(slow);
  j["figures"] = ojson::array();
  for (const auto& f : r.flagged) {
    const KeyStats& k = r.keys.at(f.key);
    ojson e = {{"node", f.node},
               {"entity", f.entity.label.empty() ? "node" : f.entity.label},
               {"key", f.key},
               {"name", k.name},
               {"params", k.params},
               {"unit", k.unit},
               {"better", BetterName(k.better)},
               {"value", f.value},
               {"median", f.median},
               {"deficit_pct", 100 * f.score.deficit},
               {"z", f.score.z},
               {"outlier", f.outlier},
               {"attributed_to", f.attributed_to},
               {"document", f.source}};
    j["figures"].push_back(std::move(e));
  }
  return j;
}

void WriteFleetSummary(const FleetReport& r, std::ostream& out, size_t limit) {
  size_t judged = 0;
  for (const auto& [key, k] : r.keys) judged += k.judged ? 1 : 0;
  out << fmt::format("fleet: {} documents, {} figures, {} keys ({} judged: >= {} peers)\n", r.documents,
                     r.figures, r.keys.size(), judged, r.options.min_peers);
  out << fmt::format(
      "rule: {:.1f}% or more worse than the peer median AND robust z beyond {:.1f} ({:.1f}% for a lone figure)\n",
      100 * r.options.min_deficit, r.options.z_threshold, 100 * r.options.isolated_deficit);
  for (EntityKind kind : {EntityKind::kNode, EntityKind::kGpu, EntityKind::kNic, EntityKind::kOther}) {
    size_t count = 0;
    for (const auto& g : r.slow) count += g.entity.kind == kind ? 1 : 0;
    if (count == 0) continue;
    out << fmt::format("{} ({}):\n", SectionTitle(kind), count);
    size_t shown = 0;
    for (const auto& g : r.slow) {
      if (g.entity.kind != kind) continue;
      if (shown++ == limit) {
        out << fmt::format("  ... {} more in the JSON\n", count - limit);
        break;
      }
      out << fmt::format("  {:<28} {:6.1f}% below peers (z {:.1f}), {} of {} figures low\n", Where(g.node, g.entity),
                         100 * g.median_deficit, g.z, g.low_figures, g.figures);
    }
  }
  size_t isolated = 0;
  for (const auto& f : r.flagged) isolated += f.attributed_to.empty() ? 1 : 0;
  if (isolated > 0) {
    out << fmt::format("isolated outliers ({}):\n", isolated);
    size_t shown = 0;
    for (const auto& f : r.flagged) {
      if (!f.attributed_to.empty()) continue;
      if (shown++ == limit) {
        out << fmt::format("  ... {} more in the JSON\n", isolated - limit);
        break;
      }
      const KeyStats& k = r.keys.at(f.key);
      out << fmt::format("  {:<28} {}: {:.4g} vs median {:.4g} {}: {:.1f}% worse (z {:.1f})\n",
                         Where(f.node, f.entity), f.key, f.value, f.median, k.unit, 100 * f.score.deficit,
                         f.score.z);
    }
  }
  for (const auto& s : r.skipped) {
    std::string why = s.error.starts_with(s.path) ? s.error : s.path + ": " + s.error;
    out << "skipped: " << SanitizeForDisplay(why) << "\n";
  }
  for (const auto& w : r.warnings) out << "warning: " << SanitizeForDisplay(w) << "\n";
  std::string skipped = r.skipped.empty()
                            ? ""
                            : fmt::format("; {} input{} skipped, listed above", r.skipped.size(),
                                          r.skipped.size() == 1 ? "" : "s");
  out << (r.Healthy() ? "verdict: pass (no node or device below its peers" + skipped + ")\n"
                      : "verdict: fail (see the slow nodes and devices above" + skipped + ")\n");
}

}  // namespace ys::diagnose
