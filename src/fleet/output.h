// The fleet document (JSON, schemas/fleet.schema.json) and the console summary of a FleetReport.
#ifndef YARDSTICK_FLEET_OUTPUT_H_
#define YARDSTICK_FLEET_OUTPUT_H_

#include <nlohmann/json_fwd.hpp>
#include <ostream>

#include "fleet/fleet.h"

namespace ys::fleet {

inline constexpr int kFleetSchemaVersion = 1;

// Deficits are in percent, positive = worse than the peer median; a figure's z is
// (x - median) / scale as measured (negative = below the median), a group's z is negative = worse.
nlohmann::ordered_json ToJson(const FleetReport& report);

// The ranked list as a table (node, entity, kind, deficit and its 95% interval, evidence, the next
// step), at most `limit` rows; the nodes with their action (drain, watch, none:
// fleet/node_action.h), at most `limit`, each row coloured by it when `color` (drain red, watch
// amber), and what each action shown means; skipped documents, warnings, the verdict.
void WriteFleetSummary(const FleetReport& report, std::ostream& out, size_t limit = 50,
                       bool color = false);

// `--format slurm`: one `scontrol update nodename=X state=drain reason="..."` line per node with a
// row to drain (RankedFinding::drain), in ranked order, the reason naming its rows. Host names
// that are not plain (letters, digits, '-', '_', '.') are listed as comments, never as commands.
void WriteSlurmDrain(const FleetReport& report, std::ostream& out);

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_OUTPUT_H_
