// Old unit ids that a split retired, and the units that now carry their findings. Site files,
// --filter globs, run documents and history name units by id; an id once published keeps
// working: `--filter cpu.cstates` selects every cpu.cstates.* unit, and a result of an old run
// document stays comparable with the merged results of the new units.
#ifndef YARDSTICK_CHECKS_UNIT_ALIASES_H_
#define YARDSTICK_CHECKS_UNIT_ALIASES_H_

#include <string>
#include <string_view>
#include <vector>

#include "checks/check.h"
#include "core/run_document.h"

namespace ys::checks {

struct UnitAlias {
  std::string_view old_id;
  std::vector<std::string_view> ids;  // the units that replaced it, in the order they run
};

// Every alias, sorted by old id.
const std::vector<UnitAlias>& UnitAliases();
// The alias of `old_id`, or nullptr when it is no retired id.
const UnitAlias* FindUnitAlias(std::string_view old_id);

// The filters with every glob that matches a retired id followed by the ids that replaced it
// ("cpu.cstates" -> "cpu.cstates", "cpu.cstates.idle_framework", ...). Other globs unchanged.
std::vector<std::string> ExpandAliasFilters(const std::vector<std::string>& filters);

// One result for a retired id from the results of the units that replaced it, as the old unit
// would have reported: an error if any errored, a skip (the first reason) if all skipped, else
// the findings of all in order (outcome from their severities) with the first pass's summary.
// Evidence is the union, in order. unit_id is the old id.
CheckResult MergeAliasResults(std::string_view old_id, const std::vector<CheckResult>& results);

// RunCheck for a current id; for a retired id, every unit that replaced it, merged.
CheckResult RunCheckOrAlias(const CheckContext& ctx, std::string_view id);

}  // namespace ys::checks

#endif  // YARDSTICK_CHECKS_UNIT_ALIASES_H_
