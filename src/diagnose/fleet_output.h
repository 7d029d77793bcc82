// The fleet document (JSON, schemas/fleet.schema.json) and the console summary of a FleetReport.
#ifndef YARDSTICK_DIAGNOSE_FLEET_OUTPUT_H_
#define YARDSTICK_DIAGNOSE_FLEET_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <ostream>

#include "diagnose/fleet.h"

namespace ys::diagnose {

inline constexpr int kFleetSchemaVersion = 1;

// Deficits are in percent, positive = worse than the peer median; a figure's z is
// (x - median) / scale as measured (negative = below the median), a group's z is negative = worse.
nlohmann::ordered_json ToJson(const FleetReport& report);

// Slow nodes, slow GPUs, slow NICs, slow other devices, isolated outliers, skipped documents;
// at most `limit` lines per section.
void WriteFleetSummary(const FleetReport& report, std::ostream& out, size_t limit = 50);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_FLEET_OUTPUT_H_
