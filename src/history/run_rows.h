// What the history stores of a document: the run row and one row per measurement, from a run
// document (run, bench, preflight) or a validation document (validate).
//
// A measurement's identity is (name, identity params, node). The identity params are its params
// minus those derived from the value or describing the reference (pct_of_peak, best,
// hbm_traffic_gb_per_s, peak*): those change with the value or with the spec file, not with
// what was measured, and would split one history into many.
#ifndef YARDSTICK_HISTORY_RUN_ROWS_H_
#define YARDSTICK_HISTORY_RUN_ROWS_H_

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "history/history.h"
#include "history/run_input.h"

namespace ys::history {

struct DocumentRows {
  RunRecord run;  // id 0; document_path empty (the caller knows it)
  std::vector<MeasurementRow> measurements;
};

// {"backend":"cpu","size":"1048576"}: the identity params, keys sorted.
std::string IdentityParams(const std::map<std::string, std::string>& params);
// A measurement's params that identify it: those its benchmark declares identity
// (core/figure_spec.h); for a figure no benchmark declares, IdentityParams(m.params).
std::string IdentityParamsOf(const Measurement& m);
// "backend=cpu size=1048576" for display; "" for "{}".
std::string DisplayParams(const std::string& identity_params);

// Every node's hostname sorted and joined by ","; the document's host for a single-node run.
std::string HostsOf(const RunDocument& doc);

// What a document read instead of this machine: "root=DIR" for a recorded tree (host.root other
// than "/"), "nvml-state=FILE" for recorded GPU state (host.gpu_source "recorded: FILE"), both
// separated by a space; "" for a live run.
std::string RecordedSourceOf(const RunDocument& doc);

// Job-wide measurements (doc.measurements, doc.benchmarks) have node ""; a multi-node run's
// per-node benchmarks carry their node's hostname. run.recorded is RecordedSourceOf(doc).
DocumentRows RowsFromRunDocument(const RunDocument& doc);

// A validation.json (validate/scorecard_json.cc): one row per workload for its score, MFU,
// tokens/s/GPU and step time (samples: the measured step times). Invalid names the field.
Result<DocumentRows> RowsFromValidationDocument(const nlohmann::json& doc, const std::string& host);

// The rows of a file read by ReadRunInput: its validation document when it has one, else its run
// document (a recorded run id has no rows here: the history holds them).
Result<DocumentRows> RowsFromInput(const RunInput& in);
// Reads RUN.json or validation.json (ReadRunInput): a validation document by its "kind", else a
// run document. Errors name the file and what was expected.
Result<DocumentRows> RowsFromFile(const std::string& path);

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_RUN_ROWS_H_
