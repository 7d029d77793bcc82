#include "diagnose/fleet_output.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>

#include "core/report.h"
#include "core/text.h"
#include "core/text_table.h"

namespace ys::diagnose {
namespace {

using ojson = nlohmann::ordered_json;

const char* BetterName(Better b) { return b == Better::kHigher ? "higher" : "lower"; }

}  // namespace

ojson ToJson(const FleetReport& r) {
  ojson j;
  j["schema_version"] = kFleetSchemaVersion;
  j["kind"] = "fleet";
  j["created_at"] = UtcNowIso8601();
  j["verdict"] = r.Verdict();
  j["too_small"] = r.too_small;
  j["options"] = {{"z_threshold", r.options.z_threshold},
                  {"min_deficit_pct", 100 * r.options.min_deficit},
                  {"isolated_deficit_pct", 100 * r.options.isolated_deficit},
                  {"noise_floor_pct", 100 * r.options.noise_floor},
                  {"min_peers", r.options.min_peers},
                  {"min_fleet", r.options.min_fleet},
                  {"bin_relative_width", r.options.bin_relative_width}};
  j["inputs"] = {{"documents", r.documents}, {"figures", r.figures}, {"keys", r.keys.size()}};
  j["ranked"] = ojson::array();
  for (const RankedFinding& f : r.ranked) {
    j["ranked"].push_back({{"node", f.node},
                           {"entity", f.entity},
                           {"kind", f.kind},
                           {"deficit", f.deficit},
                           {"deficit_low", f.deficit_low},
                           {"deficit_high", f.deficit_high},
                           {"z", f.z},
                           {"figures", f.figures},
                           {"evidence", f.evidence},
                           {"action", f.action},
                           {"drain", f.drain},
                           {"documents", f.sources}});
  }
  j["slow_modes"] = ojson::array();
  for (const SlowMode& m : r.slow_modes) {
    j["slow_modes"].push_back({{"key", m.key},
                               {"kind", FigureKindName(m.kind)},
                               {"share", m.share},
                               {"deficit", m.deficit}});
  }
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
                         {"kind", FigureKindName(k.kind)},
                         {"spread_median", k.spread_median},
                         {"bimodal", k.bimodal},
                         {"outliers", k.outliers}});
  }
  ojson slow = {{"nodes", ojson::array()},
                {"gpus", ojson::array()},
                {"nics", ojson::array()},
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
  out << fmt::format(
      "fleet: {} documents, {} figures, {} keys ({} judged: >= {} peers, >= {} nodes)\n",
      r.documents, r.figures, r.keys.size(), judged, r.options.min_peers, r.options.min_fleet);
  out << fmt::format(
      "rule: per node, GPU and NIC and kind of figure, the median of the figures {:.1f}% or more "
      "worse than the peer "
      "median AND their scaled median robust z beyond {:.1f} ({:.1f}% for a lone figure)\n",
      100 * r.options.min_deficit, r.options.z_threshold, 100 * r.options.isolated_deficit);
  if (!r.ranked.empty()) {
    out << fmt::format("ranked ({}):\n", r.ranked.size());
    const TextTable table({{"#", Align::kRight, 4},
                           {"node", Align::kLeft, 24},
                           {"entity", Align::kLeft, 8, " "},
                           {"kind", Align::kLeft, 13, " "},
                           {"deficit", Align::kRight, 7, " "},
                           {"95% interval", Align::kRight, 17, " "},
                           {"evidence"}},
                          {.indent = "  "});
    out << table.HeaderLine();
    size_t shown = 0;
    for (const RankedFinding& f : r.ranked) {
      if (shown++ == limit) {
        out << fmt::format("  ... {} more in the JSON (\"ranked\")\n", r.ranked.size() - limit);
        break;
      }
      bool numeric = f.figures > 0 && f.kind != "spread";
      std::string deficit = numeric ? fmt::format("{:.1f}%", 100 * f.deficit) : "-";
      std::string interval =
          numeric ? fmt::format("[{:.1f}, {:.1f}]%", 100 * f.deficit_low, 100 * f.deficit_high)
                  : "-";
      std::string evidence = SanitizeForDisplay(f.evidence);
      if (evidence.size() > 140) evidence = evidence.substr(0, 137) + "...";
      out << table.Line({std::to_string(shown), SanitizeForDisplay(f.node),
                         SanitizeForDisplay(f.entity), f.kind, deficit, interval, evidence});
      // The next step, under the node column.
      out << table.Line({"", "next: " + SanitizeForDisplay(f.action)});
    }
  }
  for (const auto& s : r.skipped) {
    std::string why = s.error.starts_with(s.path) ? s.error : s.path + ": " + s.error;
    out << "skipped: " << SanitizeForDisplay(why) << "\n";
  }
  for (const auto& w : r.warnings) out << "warning: " << SanitizeForDisplay(w) << "\n";
  std::string verdict = r.Verdict();
  std::string skipped = r.skipped.empty()
                            ? ""
                            : fmt::format("; {} input{} skipped, listed above", r.skipped.size(),
                                          r.skipped.size() == 1 ? "" : "s");
  if (verdict == "pass") {
    out << "verdict: pass (no node or device below its peers)\n";
  } else if (verdict == "fail") {
    out << "verdict: fail (see the ranked list above" + skipped + ")\n";
  } else if (verdict == "incomplete") {
    out << "verdict: incomplete (nothing below its peers among the documents read" + skipped +
               ")\n";
  } else {
    out << "verdict: inconclusive (too few nodes to compare peers; nothing below its spec)\n";
  }
}

namespace {

bool SafeNodeName(const std::string& n) {
  if (n.empty() || n.size() > 255 || n[0] == '-') return false;
  for (char c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  }
  return true;
}

// A reason Slurm and a shell both take inside double quotes: printable ASCII without quotes,
// backslashes, dollars or backticks, at most 250 characters.
std::string DrainReason(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '$' || c == '`') c = ' ';
    out.push_back(c);
  }
  if (out.size() > 250) out = out.substr(0, 247) + "...";
  return out;
}

}  // namespace

void WriteSlurmDrain(const FleetReport& r, std::ostream& out) {
  std::vector<std::string> order;
  std::map<std::string, std::string> reasons;
  for (const RankedFinding& f : r.ranked) {
    if (!f.drain) continue;
    std::string what = f.entity + " " + f.kind;
    if (f.figures > 0) what += fmt::format(" {:.1f}% low", 100 * f.deficit);
    if (f.kind == "check") what = f.entity + " " + f.evidence.substr(0, f.evidence.find(':'));
    auto [it, fresh] = reasons.try_emplace(f.node, "yardstick merge: " + what);
    if (fresh) {
      order.push_back(f.node);
    } else {
      it->second += "; " + what;
    }
  }
  out << fmt::format("# yardstick merge: {} node{} to drain (verdict {})\n", order.size(),
                     order.size() == 1 ? "" : "s", r.Verdict());
  for (const std::string& node : order) {
    if (!SafeNodeName(node)) {
      out << "# not listed, the name is not a plain host name: " << SanitizeForDisplay(node)
          << "\n";
      continue;
    }
    out << "scontrol update nodename=" << node << " state=drain reason=\""
        << DrainReason(reasons[node]) << "\"\n";
  }
}

}  // namespace ys::diagnose
