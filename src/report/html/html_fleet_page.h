// The fleet heat map of `yardstick merge --html`: one self-contained page drawn from the fleet
// document (schemas/fleet.schema.json, fleet/output.h), so that the page, the JSON and
// the console show the same ranked list. One row per node in the ranked list (most severe first,
// at most kMaxRows), its action (drain, watch, none: fleet/node_action.h) in a column of its own
// with the row coloured by it (class action-drain red, action-watch amber) and a legend of what
// each action means, then one column per kind of row; each cell the worst deficit of that kind on
// the node and the entity it was placed on, red in proportion (full at 20%); non-numeric kinds
// are marked. Then the ranked list itself, the slow modes, the skipped documents and the warnings.
// Everything from the document is escaped (a hostile host name stays text).
#ifndef YARDSTICK_REPORT_HTML_HTML_FLEET_PAGE_H_
#define YARDSTICK_REPORT_HTML_HTML_FLEET_PAGE_H_

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ys::report::html {

inline constexpr size_t kFleetHeatMapMaxRows = 500;

// A document without "ranked" (or not an object) draws an empty page that says so.
std::string FleetHeatMapPage(const nlohmann::ordered_json& fleet_document);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_HTML_FLEET_PAGE_H_
