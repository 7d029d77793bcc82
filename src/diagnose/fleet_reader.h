// A lean reader of run documents for fleet analysis: it reads the text once, without building a
// JSON tree, and keeps only what the fleet uses: the host and tool, `incomplete`, the ranks'
// states, every check and benchmark (id, outcome, summary, findings' code, severity and entity,
// evidence), every measurement (name, value, unit, better, params, stats) and each node of a
// multi-rank document; samples, tables, diagnosis and burn-in are skipped, and of a measurement's
// params only those fleet analysis reads are kept: the identity (fleet_key.h), the entity-naming
// ones, pct_of_peak and versions (IsVersionParam). It is several times faster than the full reader
// (core/report_json.h), which is what bounds `merge` at 10,000 nodes.
//
// It accepts only what the full reader accepts of those fields (the same required fields and
// types); on anything else it says no without a message, and the caller asks the full reader
// (ReadRunDocument), whose message names the file and field. A test checks that both readers
// give the same document on the fixtures. Thread-safe: no shared state.
#ifndef YARDSTICK_DIAGNOSE_FLEET_READER_H_
#define YARDSTICK_DIAGNOSE_FLEET_READER_H_

#include <optional>
#include <string_view>

#include "core/report.h"

namespace ys::diagnose {

// The document, or nullopt when the text is not a run document this reader can vouch for.
std::optional<RunDocument> ReadFleetDocument(std::string_view text);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_FLEET_READER_H_
