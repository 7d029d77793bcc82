// `yardstick list`: every registered unit with its id, kind, summary and needs.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "checks/runner.h"
#include "checks/unit_aliases.h"
#include "cli/command.h"
#include "core/registry.h"
#include "core/text_table.h"

namespace ys::cli::cmd_list {
namespace {

struct ListArgs {
  bool json = false;
  std::vector<std::string> filters;
};

Action Setup(CLI::App& sub) {
  auto args = std::make_shared<ListArgs>();
  sub.add_flag("--json", args->json, "Print as JSON");
  sub.add_option("--filter", args->filters, "Only ids matching these globs (e.g. 'cpu.*')")
      ->delimiter(',');
  return [args]() -> Result<int> {
    // The units that run on a node; rules and subcommands have their own listings.
    auto units = UnitRegistry::Global().List({UnitKind::kCheck, UnitKind::kBenchmark});
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    size_t width = 2;
    for (const auto* u : units) width = std::max(width, u->info.id.size());
    // The id column is as wide as the longest id of all units, filtered or not.
    const TextTable table(
        {{"", Align::kLeft, width}, {"", Align::kLeft, 9}, {"", Align::kLeft, 12}, {""}});
    // A retired id (cpu.cstates) lists the units that replaced it.
    const std::vector<std::string> filters = checks::ExpandAliasFilters(args->filters);
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
        fmt::print("{}", table.Line({std::string(u->info.id), UnitKindName(u->kind),
                                     needs.empty() ? "-" : needs, std::string(u->info.summary)}));
      }
    }
    if (args->json) fmt::print("{}\n", j.dump(2));
    return 0;
  };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>,
            {.id = "list", .summary = "List every unit: id, kind, needs, summary"})

}  // namespace ys::cli::cmd_list
