#include "report/html/html_fleet_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "fleet/node_action.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

using ojson = nlohmann::ordered_json;

constexpr char kCss[] = R"css(
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}
td.cell{text-align:center;min-width:5em}table{max-width:100%}td{overflow-wrap:anywhere}
.verdict-pass{color:#070}.verdict-fail{color:#b00}.verdict-incomplete,.verdict-inconclusive{color:#a60}
.scroll{overflow:auto;max-height:70vh}
.fleet{display:flex;flex-wrap:wrap;gap:2px;margin:8px 0 16px;max-width:100%}
.fleet span{width:14px;height:14px;border:1px solid #bbb;box-sizing:border-box}
.fleet span.ok{background:#cfe8d2}.fleet span.flag{border-color:#900}
.legend span{display:inline-block;width:12px;height:12px;border:1px solid #bbb;vertical-align:middle;margin:0 4px 0 12px}
tr.action-drain td.node,tr.action-drain td.action{background:#f5b7b1;color:#7b0000}
tr.action-watch td.node,tr.action-watch td.action{background:#ffe08a;color:#6b4a00}
tr.action-drain{border-left:4px solid #c0392b}tr.action-watch{border-left:4px solid #e0a800}
dl.actions dt{font-weight:bold;display:inline-block;padding:0 6px;margin-top:4px}
dl.actions dd{margin:0 0 4px 1.5em}
dt.action-drain{background:#f5b7b1;color:#7b0000}dt.action-watch{background:#ffe08a;color:#6b4a00}
)css";

std::string Str(const ojson& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

double Num(const ojson& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

std::string Red(double deficit) {
  double d = std::clamp(deficit / 0.20, 0.0, 1.0);
  int fade = static_cast<int>(std::lround(255 * (1 - d)));
  return fmt::format("rgb(255,{},{})", fade, fade);
}

struct Cell {
  double deficit = -1;
  std::string entity, evidence;
  bool numeric = false;
};

// The whole fleet, one square per node: the flagged nodes first, most severe first (the ranked
// list's order), coloured by their worst deficit; then every other node merged, in green. Hover
// for the node and what was found. From the document's `nodes` (every node merged) and `ranked`.
std::string FleetGrid(const ojson& doc) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<double, std::string>> worst;  // node -> deficit, what
  for (const ojson& r : doc["ranked"]) {
    if (!r.is_object()) continue;
    std::string node = Str(r, "node");
    bool numeric = Num(r, "figures") > 0 && Str(r, "kind") != "spread";
    double d = numeric ? Num(r, "deficit") : 0.2;  // a non-numeric finding: full colour
    std::string what = Str(r, "kind") + " " + Str(r, "entity") +
                       (numeric ? fmt::format(" {:.1f}%", 100 * Num(r, "deficit")) : "");
    auto [it, fresh] = worst.try_emplace(node, d, what);
    if (fresh) {
      order.push_back(node);
    } else {
      if (d > it->second.first) it->second.first = d;
      it->second.second += "; " + what;
    }
  }
  size_t healthy = 0;
  std::string squares;
  for (const std::string& n : order) {
    squares += "<span class=\"flag\" style=\"background:" + Red(worst[n].first) + "\" title=\"" +
               EscapeHtml(n + ": " + worst[n].second) + "\"></span>";
  }
  if (doc.contains("nodes") && doc["nodes"].is_array()) {
    for (const ojson& n : doc["nodes"]) {
      if (!n.is_string() || worst.count(n.get<std::string>()) > 0) continue;
      ++healthy;
      squares += "<span class=\"ok\" title=\"" +
                 EscapeHtml(n.get<std::string>() + ": nothing found") + "\"></span>";
    }
  }
  std::string b =
      "<h2>The fleet</h2>\n<p class=\"legend\">" +
      EscapeHtml(fmt::format("{} node{}: {} flagged (first, most severe first), {} "
                             "with nothing found.",
                             order.size() + healthy, order.size() + healthy == 1 ? "" : "s",
                             order.size(), healthy)) +
      "<span style=\"background:" + Red(0.2) + "\"></span>flagged (deeper red: worse)" +
      "<span class=\"ok\" style=\"background:#cfe8d2\"></span>nothing found</p>\n";
  return b + "<div class=\"fleet\" id=\"fleet-grid\" data-nodes=\"" +
         std::to_string(order.size() + healthy) + "\" data-flagged=\"" +
         std::to_string(order.size()) + "\">" + squares + "</div>\n";
}

// The ranked list: each entry with its deficit and interval, evidence and next action.
std::string RankedList(const ojson& doc) {
  std::string b =
      "<h2>Ranked "
      "list</h2>\n<table><tr><th>#</th><th>node</th><th>entity</th><th>kind</th><th>deficit</th>"
      "<th>evidence</th><th>next</th></tr>\n";
  int i = 0;
  for (const ojson& r : doc["ranked"]) {
    if (!r.is_object() || i >= static_cast<int>(kFleetHeatMapMaxRows)) break;
    bool numeric = Num(r, "figures") > 0 && Str(r, "kind") != "spread";
    std::string d = numeric ? fmt::format("{:.1f}% [{:.1f}, {:.1f}]", 100 * Num(r, "deficit"),
                                          100 * Num(r, "deficit_low"), 100 * Num(r, "deficit_high"))
                            : "-";
    b += fmt::format("<tr><td>{}</td>", ++i) + "<td>" + EscapeHtml(Str(r, "node")) + "</td><td>" +
         EscapeHtml(Str(r, "entity")) + "</td><td>" + EscapeHtml(Str(r, "kind")) + "</td><td>" +
         EscapeHtml(d) + "</td><td>" + EscapeHtml(Str(r, "evidence")) + "</td><td>" +
         EscapeHtml(Str(r, "action")) + "</td></tr>\n";
  }
  b += "</table>\n";
  return b;
}

// A node's cell of one kind: the worst deficit and where, red in proportion; a non-numeric "!".
std::string HeatCell(const Cell& c) {
  std::string text =
      c.numeric ? fmt::format("{} {:.1f}%", c.entity, 100 * c.deficit) : c.entity + " !";
  return "<td class=\"cell\" style=\"background:" +
         (c.numeric ? Red(c.deficit) : std::string("rgb(255,230,160)")) + "\" title=\"" +
         EscapeHtml(c.evidence) + "\">" + EscapeHtml(text) + "</td>";
}

// Each flagged node's action (fleet/node_action.h) from the ranked rows' drain and watch.
std::map<std::string, fleet::NodeAction> ActionsOf(const ojson& doc) {
  fleet::NodeActions actions;
  for (const ojson& r : doc["ranked"]) {
    if (!r.is_object()) continue;
    bool drain = r.contains("drain") && r["drain"].is_boolean() && r["drain"].get<bool>();
    bool watch = r.contains("watch") && r["watch"].is_boolean() && r["watch"].get<bool>();
    actions.Add(Str(r, "node"), fleet::RowAction(drain, watch),
                Str(r, "entity") + " " + Str(r, "kind") + ": " + Str(r, "evidence"));
  }
  std::map<std::string, fleet::NodeAction> by_node;
  for (const fleet::NodeAction& n : actions.nodes()) by_node[n.node] = n;
  return by_node;
}

// The legend of the action column: what each action means and the evidence behind it.
std::string ActionLegend(const ojson& doc) {
  const ojson& options =
      doc.contains("options") && doc["options"].is_object() ? doc["options"] : ojson::object();
  const double drain_loss = Num(options, "drain_loss_pct") / 100;
  std::string b = "<dl class=\"actions\" id=\"action-legend\">";
  for (fleet::FleetAction a :
       {fleet::FleetAction::kDrain, fleet::FleetAction::kWatch, fleet::FleetAction::kNone}) {
    const std::string name = fleet::FleetActionName(a);
    b += "<dt class=\"action-" + name + "\">" + name + "</dt><dd>" +
         EscapeHtml(fleet::FleetActionMeaning(a, drain_loss)) + "</dd>";
  }
  return b + "</dl>\n";
}

// The flagged nodes as a table, one column per kind (the worst deficit of that kind and where),
// then the ranked list.
std::string FlaggedNodes(const ojson& doc) {
  std::string b;
  std::vector<std::string> nodes;
  std::set<std::string> kinds;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  for (const ojson& r : doc["ranked"]) {
    if (!r.is_object()) continue;
    std::string node = Str(r, "node"), kind = Str(r, "kind");
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
      if (nodes.size() == kFleetHeatMapMaxRows) continue;
      nodes.push_back(node);
    }
    kinds.insert(kind);
    Cell& c = cells[{node, kind}];
    bool numeric = Num(r, "figures") > 0 && kind != "spread";
    double d = numeric ? Num(r, "deficit") : 0;
    if (c.deficit < 0 || d > c.deficit) {
      c = {d, Str(r, "entity"), Str(r, "evidence"), numeric};
    } else if (c.entity.find(Str(r, "entity")) == std::string::npos) {
      c.entity += ", " + Str(r, "entity");
    }
  }
  if (nodes.empty()) {
    b += "<p>Nothing ranked: no node, GPU or NIC stands out from its peers.</p>\n";
  } else {
    b += "<h2>Flagged nodes</h2>\n<p>" +
         EscapeHtml(fmt::format(
             "{} node{} with something ranked; each cell the worst deficit of that kind and where "
             "it was placed (red: worse, full colour at 20%). Hover for the evidence. Each row is "
             "coloured by the node's action, the most severe of its rows': red drain, amber watch, "
             "none uncoloured.",
             nodes.size(), nodes.size() == 1 ? "" : "s")) +
         "</p>\n" + ActionLegend(doc) +
         "<div class=\"scroll\"><table class=\"heat\"><tr><th>node</th><th>action</th>";
    for (const std::string& k : kinds) b += "<th>" + EscapeHtml(k) + "</th>";
    b += "</tr>\n";
    const std::map<std::string, fleet::NodeAction> actions = ActionsOf(doc);
    for (const std::string& n : nodes) {
      const fleet::NodeAction& a = actions.at(n);
      const std::string action = fleet::FleetActionName(a.action);
      b += "<tr class=\"action-" + action + "\"><td class=\"node\">" + EscapeHtml(n) +
           "</td><td class=\"action\" title=\"" + EscapeHtml(a.evidence) + "\">" + action + "</td>";
      for (const std::string& k : kinds) {
        auto it = cells.find({n, k});
        b += it == cells.end() ? "<td class=\"cell\"></td>" : HeatCell(it->second);
      }
      b += "</tr>\n";
    }
    b += "</table></div>\n";
    b += RankedList(doc);
  }
  return b;
}

}  // namespace

std::string FleetHeatMapPage(const ojson& doc) {
  std::string b =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>yardstick fleet</title><style>";
  b += kCss;
  b += "</style></head><body>\n<h1>Fleet heat map</h1>\n";
  if (!doc.is_object() || !doc.contains("ranked") || !doc["ranked"].is_array()) {
    return b + "<p>No ranked list in this document.</p></body></html>\n";
  }
  std::string verdict = Str(doc, "verdict");
  const ojson& inputs =
      doc.contains("inputs") && doc["inputs"].is_object() ? doc["inputs"] : ojson::object();
  b += "<p>verdict: <b class=\"verdict-" + EscapeHtml(verdict) + "\">" + EscapeHtml(verdict) +
       "</b>; " +
       EscapeHtml(fmt::format("{:.0f} documents, {:.0f} figures, {:.0f} keys",
                              Num(inputs, "documents"), Num(inputs, "figures"),
                              Num(inputs, "keys"))) +
       "</p>\n";
  b += FleetGrid(doc);
  b += FlaggedNodes(doc);
  for (const char* section : {"skipped", "warnings"}) {
    if (!doc.contains(section) || !doc[section].is_array() || doc[section].empty()) continue;
    b += std::string("<h2>") + section + "</h2>\n<ul>\n";
    for (const ojson& w : doc[section]) {
      std::string text =
          w.is_string() ? w.get<std::string>() : Str(w, "path") + ": " + Str(w, "error");
      b += "<li>" + EscapeHtml(text) + "</li>\n";
    }
    b += "</ul>\n";
  }
  // The page's width against the window's, for a test to check that nothing runs off the page.
  b += "<script>(function(){var d=document.documentElement;"
       "document.body.dataset.layout=d.scrollWidth+' '+d.clientWidth;})();</script>\n";
  return b + "</body></html>\n";
}

}  // namespace ys::report::html
