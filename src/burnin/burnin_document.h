// The run document a burn-in writes (run.json in --out, rewritten at every checkpoint): the
// burn-in's check result (analyser.h), one measurement per loaded entity (the median of its
// window medians, the windows its samples), a warning when a recorded timeline planted faults,
// and the burn-in report as the document's "burnin" section (burnin_report/burnin_section.h).
#ifndef YARDSTICK_BURNIN_BURNIN_DOCUMENT_H_
#define YARDSTICK_BURNIN_BURNIN_DOCUMENT_H_

#include <string>

#include "burnin_report/burnin_report.h"
#include "core/run_document.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::burnin {

// The document of the burn-in so far: `wall_s` of wall time; incomplete, and why, when
// `incomplete_reason` is not empty (stopped before its duration).
RunDocument MakeBurninDocument(const BurninReport& report, const host::Host& host,
                               const std::string& gpu_source, double wall_s,
                               const std::string& incomplete_reason);
// Writes `doc` to <dir>/run.json atomically and durably (it survives a power cut once returned).
Status WriteBurninDocument(const std::string& dir, const RunDocument& doc);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_BURNIN_DOCUMENT_H_
