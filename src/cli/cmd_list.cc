// `yardstick list`: every registered unit with its id, kind, summary and needs; `--params`: the
// parameters the units declare (id, name, type, default, range, meaning); `--codes`: the finding
// code catalogue (code, severity, the units that declare it, title); `--formats`: every file
// format yardstick reads (cli/list_formats.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>
#include <variant>

#include "checks/runner.h"
#include "checks/unit_aliases.h"
#include "cli/command.h"
#include "cli/list_formats.h"
#include "core/document_schemas.h"
#include "core/finding_codes.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/registry.h"
#include "core/text_table.h"

namespace ys::cli::cmd_list {
namespace {

struct ListArgs {
  bool json = false;
  bool params = false;
  bool codes = false;
  bool formats = false;
  std::vector<std::string> filters;
};

nlohmann::ordered_json ParamJson(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> nlohmann::ordered_json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Policy>) {
          return PolicyName(x);
        } else {
          return x;
        }
      },
      v);
}

// `list --params --json`: one declared parameter of a unit. Only written.
struct ParamRow {
  std::string id;
  const ParamSpec& p;
};

template <typename V>
void Fields(V& v, ParamRow& r) {
  const ParamSpec& p = r.p;
  v("id", r.id);
  v.computed("name", [&] { return std::string(p.name); });
  v.computed("type", [&] { return ParamTypeName(p.type); });
  v.computed("default", [&] { return ParamJson(p.default_value); });
  v.computed("range", [&] {
    std::string range = DescribeParamRange(p);
    return range.empty() ? std::nullopt : std::optional<std::string>(range);
  });
  if (p.type == ParamType::kDouble) {
    v("min", p.lo);
    v("max", p.hi);
  } else if (p.type == ParamType::kInt || p.type == ParamType::kInts) {
    v.computed("min", [&] { return static_cast<long long>(p.lo); });
    v.computed("max", [&] { return static_cast<long long>(p.hi); });
  }
  v.computed("meaning", [&] { return std::string(p.meaning); });
}

// The schema walks a parameter of each kind of range: a number, an integer, none.
std::vector<ParamRow> JsonSchemaSamples(const ParamRow*) {
  static const ParamSpec kDouble{.type = ParamType::kDouble}, kInt{.type = ParamType::kInt},
      kString{.type = ParamType::kString};
  return {ParamRow{"", kDouble}, ParamRow{"", kInt}, ParamRow{"", kString}};
}

YS_DOCUMENT_SCHEMA("list_params", std::vector<ParamRow>, "yardstick list --params --json",
                   "Every parameter the units declare: its type, default, range and meaning.");

// `list --json`: one unit. Only written.
struct UnitRow {
  std::string id;
  std::string kind;
  std::string summary;
  std::vector<std::string> needs;
  bool disruptive = false;
};

template <typename V>
void Fields(V& v, UnitRow& u) {
  v("id", u.id);
  v("kind", u.kind);
  v("summary", u.summary);
  v("needs", u.needs);
  v("disruptive", u.disruptive);
}

YS_DOCUMENT_SCHEMA("list", std::vector<UnitRow>, "yardstick list --json",
                   "Every unit: its id, kind, summary, needs and whether it is disruptive.");

// One row per declared parameter of the selected units.
int ListParams(const std::vector<const RegisteredUnit*>& units, bool json) {
  std::vector<ParamRow> rows;
  TextTable table({{"ID"}, {"NAME"}, {"TYPE"}, {"DEFAULT"}, {"RANGE"}, {"MEANING"}}, {.fit = true});
  for (const auto* u : units) {
    for (const ParamSpec& p : u->info.params) {
      const std::string range = DescribeParamRange(p);
      if (json) {
        rows.push_back(ParamRow{std::string(u->info.id), p});
      } else {
        table.AddRow({std::string(u->info.id), std::string(p.name), ParamTypeName(p.type),
                      FormatParamValue(p.default_value), range.empty() ? "-" : range,
                      std::string(p.meaning)});
      }
    }
  }
  if (json) {
    fmt::print("{}\n", json_fields::Write(rows).dump(2));
    return 0;
  }
  fmt::print("{}", table.Render());
  return 0;
}

// `list --codes --json`: one finding code. Only written.
struct CodeRow {
  std::string code, severity, title;
  std::vector<std::string> units;
};

template <typename V>
void Fields(V& v, CodeRow& c) {
  v("code", c.code);
  v("severity", c.severity);
  v("units", c.units);
  v("title", c.title);
}

YS_DOCUMENT_SCHEMA("list_codes", std::vector<CodeRow>, "yardstick list --codes --json",
                   "Every finding code: its default severity, the units that declare it and its "
                   "title.");

// Every finding code, in code order: its default severity, the units (or other producers: burn-in,
// validate's tool runs, fleet merging) that declare it (core/finding_codes.h) and its title.
int ListCodes(bool json) {
  std::map<std::string, std::vector<std::string>> declared_by;
  for (const FindingCodeDeclaration& d : FindingCodeDeclarations()) {
    declared_by[std::string(d.info.code)].emplace_back(d.by);
  }
  std::vector<CodeRow> rows;
  for (const FindingCodeInfo& c : AllFindingCodes()) {
    rows.push_back({.code = std::string(c.code),
                    .severity = SeverityName(c.severity),
                    .title = std::string(c.title),
                    .units = declared_by[std::string(c.code)]});
  }
  std::sort(rows.begin(), rows.end(),
            [](const CodeRow& a, const CodeRow& b) { return a.code < b.code; });
  if (json) {
    fmt::print("{}\n", json_fields::Write(rows).dump(2));
    return 0;
  }
  // The units last: a code the seven collectives share lists them all.
  TextTable table({{"CODE"}, {"SEVERITY"}, {"TITLE"}, {"UNITS"}}, {.fit = true});
  for (const CodeRow& r : rows) {
    std::string units;
    for (const std::string& u : r.units) units += (units.empty() ? "" : ",") + u;
    table.AddRow({r.code, r.severity, r.title, units.empty() ? "-" : units});
  }
  fmt::print("{}", table.Render());
  return 0;
}

Action Setup(CLI::App& sub) {
  auto args = std::make_shared<ListArgs>();
  sub.add_flag("--json", args->json, "Print as JSON");
  sub.add_flag("--params", args->params,
               "List the units' parameters (set in the site file's [unit.\"<id>\"] tables)");
  sub.add_flag("--codes", args->codes,
               "List the finding codes: code, default severity, title, declaring units");
  sub.add_flag("--formats", args->formats,
               "List the file formats yardstick reads: name, product, command, example line");
  sub.add_option("--filter", args->filters, "Only ids matching these globs (e.g. 'cpu.*')")
      ->delimiter(',');
  return [args]() -> Result<int> {
    if (args->codes) return ListCodes(args->json);
    if (args->formats) return ListFormats(args->json);
    // The units that run on a node; rules and subcommands have their own listings.
    auto units = UnitRegistry::Global().List({UnitKind::kCheck, UnitKind::kBenchmark});
    std::vector<UnitRow> rows;
    // A retired id (cpu.cstates) lists the units that replaced it.
    const std::vector<std::string> filters = checks::ExpandAliasFilters(args->filters);
    if (args->params) {
      std::vector<const RegisteredUnit*> selected;
      for (const auto* u : units) {
        if (checks::MatchesFilters(u->info.id, filters)) selected.push_back(u);
      }
      return ListParams(selected, args->json);
    }
    size_t width = 2;
    for (const auto* u : units) width = std::max(width, u->info.id.size());
    // The id column is as wide as the longest id of all units, filtered or not.
    const TextTable table(
        {{"", Align::kLeft, width}, {"", Align::kLeft, 9}, {"", Align::kLeft, 12}, {""}});
    for (const auto* u : units) {
      if (!checks::MatchesFilters(u->info.id, filters)) continue;
      std::string needs;
      std::vector<std::string> need_list;
      std::vector<Need> declared = u->info.needs;
      declared.insert(declared.end(), u->info.uses.begin(), u->info.uses.end());
      for (Need n : declared) {
        needs += (needs.empty() ? "" : ",") + std::string(NeedName(n));
        need_list.emplace_back(NeedName(n));
      }
      if (args->json) {
        rows.push_back({.id = std::string(u->info.id),
                        .kind = UnitKindName(u->kind),
                        .summary = std::string(u->info.summary),
                        .needs = std::move(need_list),
                        .disruptive = u->info.disruptive});
      } else {
        fmt::print("{}", table.Line({std::string(u->info.id), UnitKindName(u->kind),
                                     needs.empty() ? "-" : needs, std::string(u->info.summary)}));
      }
    }
    if (args->json) fmt::print("{}\n", json_fields::Write(rows).dump(2));
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "list", .summary = "List every unit: id, kind, needs, summary"})

}  // namespace ys::cli::cmd_list
