// Fleet analysis of one gathered run document (a multi-rank `yardstick run` or `bench`): its
// nodes compared with each other, the way `yardstick merge` compares many documents, turned into
// findings (YS-FLEET-001 a slow node, YS-FLEET-002 a slow GPU, NIC or other device), so the run
// itself names the node or device far below its peers.
#ifndef YARDSTICK_FLEET_FINDINGS_H_
#define YARDSTICK_FLEET_FINDINGS_H_

#include "core/run_document.h"
#include "fleet/fleet.h"

namespace ys::fleet {

// The fleet report of one document, in memory (the document is already loaded).
FleetReport AnalyseDocument(const RunDocument& doc, const FleetOptions& options = {});

// The result of the pseudo-unit "fleet.outliers": pass when no node or device stands out, skip
// (with the reason) when the document has fewer than `options.min_peers` nodes, a finding per
// slow node or device otherwise.
CheckResult FleetOutliers(const RunDocument& doc, const FleetOptions& options = {});

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_FINDINGS_H_
