// What the HTML report reads from a validation document (validation.json, "kind":
// "yardstick-validation", written by validate/scorecard_json.cc), read by its one reader
// (core/validation_document.h) so that a malformed document gets an error naming the field and
// what was expected.
#ifndef YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_
#define YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/validation_document.h"
#include "cost/throughput.h"

namespace ys::report::html {

// The report reads the one typed model of the document (core/validation_document.h).
using ValidationWorkload = ys::ValidationWorkload;
using ValidationView = ys::ValidationDocument;
using ys::IsValidationDocument;

// The document, with what the report cannot do without: the kind, suite.chip, suite.threshold,
// verdict.pass, verdict.text and each row's outcome. `where` names the document in errors
// ("run/validation.json").
Result<ValidationView> ValidationViewFromJson(const nlohmann::json& j, const std::string& where);

// The measured workloads' throughput, GPUs and score, in document order, for the cost arithmetic
// (`yardstick cost --validation` and the report's Cost section). `where` names the document.
std::vector<cost::WorkloadThroughput> ValidationThroughputs(const ValidationView& v,
                                                            const std::string& where);

}  // namespace ys::report::html

#endif  // YARDSTICK_REPORT_HTML_VALIDATION_VIEW_H_
