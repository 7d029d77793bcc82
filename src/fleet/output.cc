#include "fleet/output.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/run_document.h"
#include "core/run_document_fields.h"
#include "core/text.h"
#include "core/text_table.h"
#include "fleet/node_action.h"

namespace ys::fleet {

// The field lists of the fleet document (core/json_fields.h); written only. Deficits and shares
// of the options are written in percent.
template <typename V>
void Fields(V& v, FleetOptions& o) {
  v("z_threshold", o.z_threshold);
  v.computed("min_deficit_pct", [&] { return 100 * o.min_deficit; });
  v.computed("isolated_deficit_pct", [&] { return 100 * o.isolated_deficit; });
  v.computed("noise_floor_pct", [&] { return 100 * o.noise_floor; });
  v("min_peers", o.min_peers);
  v("min_fleet", o.min_fleet);
  v("bin_relative_width", o.bin_relative_width);
  v("false_alarms_per_10000", o.false_alarms);
  v.computed("peer_noise_floor_pct", [&] { return 100 * o.peer_noise_floor; });
  v.computed("drain_loss_pct", [&] { return 100 * o.drain_loss; });
  v("drain_false_alarms", o.drain_false_alarms);
}

template <typename V>
void Fields(V& v, PeerSpread& p) {
  v.computed("level", [&] { return EntityKindName(p.level); });
  v.computed("kind", [&] { return FigureKindName(p.kind); });
  v("entities", p.n);
  v("center", p.center);
  v("scale", p.scale);
  v("z_threshold", p.threshold);
  v("drain_z", p.drain_threshold);
  v.computed("smallest_deficit", [&] { return p.Smallest(); });
}

template <typename V>
void Fields(V& v, RankedFinding& f) {
  v("node", f.node);
  v("entity", f.entity);
  v("kind", f.kind);
  v("deficit", f.deficit);
  v("deficit_low", f.deficit_low);
  v("deficit_high", f.deficit_high);
  v("z", f.z);
  v("figures", f.figures);
  v("evidence", f.evidence);
  v("action", f.action);
  v("drain", f.drain);
  v("watch", f.watch);
  v("loss", f.loss);
  v("documents", f.sources);
}

template <typename V>
void Fields(V& v, SlowMode& m) {
  v("key", m.key);
  v.computed("kind", [&] { return FigureKindName(m.kind); });
  v("share", m.share);
  v("deficit", m.deficit);
}

template <typename V>
void Fields(V& v, SkippedDocument& s) {
  v("path", s.path);
  v("error", s.error);
}

namespace fleet_output {

// A key's statistics under the key the report files them by.
struct KeyEntry {
  const std::string& key;
  const KeyStats& k;
};

template <typename V>
void Fields(V& v, KeyEntry& e) {
  const KeyStats& k = e.k;
  v("key", e.key);
  v("name", k.name);
  v("unit", k.unit);
  v("better", k.better);
  v("params", k.params);
  v("n", k.n);
  v("median", k.median);
  v("mad", k.mad);
  v("scale", k.scale);
  v("median_error_bound", k.median_error_bound);
  v("mad_error_bound", k.mad_error_bound);
  v("bins", k.bins);
  v("judged", k.judged);
  v.computed("kind", [&] { return FigureKindName(k.kind); });
  v("spread_median", k.spread_median);
  v("bimodal", k.bimodal);
  v("outliers", k.outliers);
}

struct SlowEntry {
  const SlowGroup& g;
};

template <typename V>
void Fields(V& v, SlowEntry& e) {
  const SlowGroup& g = e.g;
  v("node", g.node);
  v.optional("entity", g.entity.label);
  v("figures", g.figures);
  v("low_figures", g.low_figures);
  v.computed("median_deficit_pct", [&] { return 100 * g.median_deficit; });
  v("z", g.z);
  v("documents", g.sources);
}

// The slow groups by kind of entity.
struct SlowSections {
  std::vector<SlowEntry> nodes, gpus, nics, devices;
};

template <typename V>
void Fields(V& v, SlowSections& s) {
  v("nodes", s.nodes);
  v("gpus", s.gpus);
  v("nics", s.nics);
  v("devices", s.devices);
}

SlowSections Sections(const std::vector<SlowGroup>& slow) {
  SlowSections s;
  for (const SlowGroup& g : slow) {
    auto& section = g.entity.kind == EntityKind::kNode  ? s.nodes
                    : g.entity.kind == EntityKind::kGpu ? s.gpus
                    : g.entity.kind == EntityKind::kNic ? s.nics
                                                        : s.devices;
    section.push_back({g});
  }
  return s;
}

// A flagged figure with the statistics of its key.
struct FigureEntry {
  const FlaggedFigure& f;
  const KeyStats& k;
};

template <typename V>
void Fields(V& v, FigureEntry& e) {
  const FlaggedFigure& f = e.f;
  v("node", f.node);
  v.computed("entity", [&] { return f.entity.label.empty() ? "node" : f.entity.label.c_str(); });
  v("key", f.key);
  v("name", e.k.name);
  v("params", e.k.params);
  v("unit", e.k.unit);
  v("better", e.k.better);
  v("value", f.value);
  v("median", f.median);
  v.computed("deficit_pct", [&] { return 100 * f.score.deficit; });
  v("z", f.score.z);
  v("outlier", f.outlier);
  v("attributed_to", f.attributed_to);
  v("document", f.source);
}

}  // namespace fleet_output

template <typename V>
void Fields(V& v, FleetReport& r) {
  using namespace fleet_output;
  v.computed("schema_version", [] { return kFleetSchemaVersion; });
  v.computed("kind", [] { return "fleet"; });
  v.computed("created_at", [] { return UtcNowIso8601(); });
  v.computed("verdict", [&] { return r.Verdict(); });
  v("too_small", r.too_small);
  v("options", r.options);
  v.computed("inputs", [&] {
    return std::vector<std::pair<std::string, uint64_t>>{
        {"documents", r.documents}, {"figures", r.figures}, {"keys", r.keys.size()}};
  });
  v.computed("false_alarms", [&] {
    return std::vector<std::pair<std::string, double>>{
        {"per_10000", r.options.false_alarms},
        {"entities", static_cast<double>(r.entities)},
        {"expected", r.expected_false_alarms},
        {"tests", static_cast<double>(r.tests)},
        {"expected_drained", r.options.drain_false_alarms}};
  });
  v("peers", r.peers);
  v.computed("nodes", [&] { return r.nodes; });
  v("ranked", r.ranked);
  v("slow_modes", r.slow_modes);
  v("skipped", r.skipped);
  v("warnings", r.warnings);
  v.computed("keys", [&] {
    std::vector<KeyEntry> keys;
    keys.reserve(r.keys.size());
    for (const auto& [key, k] : r.keys) keys.push_back({key, k});
    return keys;
  });
  v.computed("slow", [&] { return Sections(r.slow); });
  v.computed("figures", [&] {
    std::vector<FigureEntry> figures;
    figures.reserve(r.flagged.size());
    for (const auto& f : r.flagged) figures.push_back({f, r.keys.at(f.key)});
    return figures;
  });
}

YS_DOCUMENT_SCHEMA("fleet", FleetReport, "yardstick fleet document (merge --json)",
                   "The fleet's run documents merged: each figure's statistics over its peers, "
                   "the ranked outliers with their evidence and the drain decisions.");

nlohmann::ordered_json ToJson(const FleetReport& r) { return json_fields::Write(r); }

namespace {

// The nodes of the ranked list, each with its action (fleet/node_action.h), the row coloured by it
// when asked (drain red, watch amber), and what each action shown means.
void WriteNodeActions(const FleetReport& r, std::ostream& out, size_t limit, bool color) {
  NodeActions actions;
  for (const RankedFinding& f : r.ranked)
    actions.Add(f.node, RowAction(f.drain, f.watch), f.entity + " " + f.kind + ": " + f.evidence);
  if (actions.nodes().empty()) return;
  out << fmt::format("nodes ({}; action: the most severe of the node's rows):\n",
                     actions.nodes().size());
  const TextTable table({{"node", Align::kLeft, 24},
                         {"action", Align::kLeft, 6, " "},
                         {"rows", Align::kRight, 4, " "},
                         {"evidence"}},
                        {.indent = "  "});
  out << table.HeaderLine();
  std::set<FleetAction> shown;
  for (size_t i = 0; i < actions.nodes().size(); ++i) {
    if (i == limit) {
      out << fmt::format("  ... {} more nodes in the JSON (\"ranked\")\n",
                         actions.nodes().size() - limit);
      break;
    }
    const NodeAction& n = actions.nodes()[i];
    shown.insert(n.action);
    std::string evidence = SanitizeForDisplay(n.evidence);
    if (evidence.size() > 140) evidence = evidence.substr(0, 137) + "...";
    std::string line = table.Row(
        {SanitizeForDisplay(n.node), FleetActionName(n.action), std::to_string(n.rows), evidence});
    const char* paint = n.action == FleetAction::kDrain   ? "\033[31m"
                        : n.action == FleetAction::kWatch ? "\033[33m"
                                                          : nullptr;
    out << (color && paint ? paint + line + "\033[0m" : line) << "\n";
  }
  for (auto a = shown.rbegin(); a != shown.rend(); ++a)
    out << "  " << FleetActionName(*a) << ": " << FleetActionMeaning(*a, r.options.drain_loss)
        << "\n";
}

}  // namespace

void WriteFleetSummary(const FleetReport& r, std::ostream& out, size_t limit, bool color) {
  size_t judged = 0;
  for (const auto& [key, k] : r.keys) judged += k.judged ? 1 : 0;
  out << fmt::format(
      "fleet: {} documents, {} figures, {} keys ({} judged: >= {} peers, >= {} nodes)\n",
      r.documents, r.figures, r.keys.size(), judged, r.options.min_peers, r.options.min_fleet);
  out << fmt::format(
      "rule: per node, and per GPU and NIC against the other devices of its node, each kind of "
      "figure's median deficit against the spread between peers; {:g} healthy entities in "
      "10,000 flagged ({:.1f} expected of {} judged); drain when the expected throughput loss "
      "reaches {:.1f}% and the evidence passes the family-wise bar ({:g} healthy drained "
      "expected in the fleet), else watch\n",
      r.options.false_alarms, r.expected_false_alarms, r.entities, 100 * r.options.drain_loss,
      r.options.drain_false_alarms);
  if (!r.ranked.empty()) {
    out << fmt::format("ranked ({}):\n", r.ranked.size());
    const TextTable table({{"#", Align::kRight, 4},
                           {"node", Align::kLeft, 24},
                           {"entity", Align::kLeft, 8, " "},
                           {"kind", Align::kLeft, 13, " "},
                           {"deficit", Align::kRight, 7, " "},
                           {"95% interval", Align::kRight, 17, " "},
                           {"action", Align::kLeft, 6, " "},
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
      FleetAction row = RowAction(f.drain, f.watch);
      std::string action = row == FleetAction::kNone ? "-" : FleetActionName(row);
      out << table.Line({std::to_string(shown), SanitizeForDisplay(f.node),
                         SanitizeForDisplay(f.entity), f.kind, deficit, interval, action,
                         evidence});
      // The next step, under the node column.
      out << table.Line({"", "next: " + SanitizeForDisplay(f.action)});
    }
  }
  WriteNodeActions(r, out, limit, color);
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
  if (verdict == "pass" && !r.ranked.empty()) {
    out << fmt::format("verdict: pass ({} row{} to watch, none to drain)\n", r.ranked.size(),
                       r.ranked.size() == 1 ? "" : "s");
  } else if (verdict == "pass") {
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

}  // namespace ys::fleet
