// `yardstick list`: every registered unit with its id, kind, summary and needs; `--params`: the
// parameters the units declare (id, name, type, default, range, meaning).
#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <variant>

#include "checks/runner.h"
#include "checks/unit_aliases.h"
#include "cli/command.h"
#include "core/registry.h"

namespace ys::cli {
namespace {

struct ListArgs {
  bool json = false;
  bool params = false;
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

// One row per declared parameter of the selected units.
int ListParams(const std::vector<const RegisteredUnit*>& units, bool json) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  std::vector<std::array<std::string, 6>> rows;
  for (const auto* u : units) {
    for (const ParamSpec& p : u->info.params) {
      const std::string range = DescribeParamRange(p);
      if (json) {
        nlohmann::ordered_json o = {
            {"id", u->info.id},
            {"name", p.name},
            {"type", ParamTypeName(p.type)},
            {"default", ParamJson(p.default_value)},
            {"range", range.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(range)}};
        if (p.type == ParamType::kDouble) {
          o["min"] = p.lo;
          o["max"] = p.hi;
        } else if (p.type == ParamType::kInt || p.type == ParamType::kInts) {
          o["min"] = static_cast<long long>(p.lo);
          o["max"] = static_cast<long long>(p.hi);
        }
        o["meaning"] = p.meaning;
        j.push_back(std::move(o));
      } else {
        rows.push_back({std::string(u->info.id), std::string(p.name), ParamTypeName(p.type),
                        FormatParamValue(p.default_value), range.empty() ? "-" : range,
                        std::string(p.meaning)});
      }
    }
  }
  if (json) {
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  std::array<size_t, 5> width{};
  for (const auto& r : rows) {
    for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  for (const auto& r : rows) {
    fmt::print("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r[0], width[0], r[1], width[1], r[2],
               width[2], r[3], width[3], r[4], width[4], r[5]);
  }
  return 0;
}

Action Setup(CLI::App& sub) {
  auto args = std::make_shared<ListArgs>();
  sub.add_flag("--json", args->json, "Print as JSON");
  sub.add_flag("--params", args->params,
               "List the units' parameters (set in the site file's [unit.\"<id>\"] tables)");
  sub.add_option("--filter", args->filters, "Only ids matching these globs (e.g. 'cpu.*')")
      ->delimiter(',');
  return [args] {
    // The units that run on a node; rules and subcommands have their own listings.
    auto units = UnitRegistry::Global().List({UnitKind::kCheck, UnitKind::kBenchmark});
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
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
        j.push_back({{"id", u->info.id},
                     {"kind", UnitKindName(u->kind)},
                     {"summary", u->info.summary},
                     {"needs", need_list},
                     {"disruptive", u->info.disruptive}});
      } else {
        fmt::print("{:<{}}  {:<9}  {:<12}  {}\n", u->info.id, width, UnitKindName(u->kind),
                   needs.empty() ? "-" : needs, u->info.summary);
      }
    }
    if (args->json) fmt::print("{}\n", j.dump(2));
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "list", .summary = "List every unit: id, kind, needs, summary"})

}  // namespace ys::cli
