// One validation: a suite, its references, the logs of a runs directory, ingested and scored into
// a scorecard and a validation document. `yardstick validate` runs it on the operator's runs;
// `yardstick verify` runs it again on an archive's copy and compares.
#ifndef YARDSTICK_VALIDATE_VALIDATION_H_
#define YARDSTICK_VALIDATE_VALIDATION_H_

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/json_box.h"
#include "core/status.h"
#include "validate/reference.h"
#include "validate/run_discovery.h"
#include "validate/scorecard.h"
#include "validate/suite.h"
#include "validate/workload_run.h"

namespace ys::validate {

struct ValidationInputs {
  std::string suite_path;                    // a suite .toml
  std::vector<std::string> reference_paths;  // .toml files or directories of them
  std::string spec_path;                     // specs/<chip>.toml for MFU; empty: no MFU
  std::string runs_dir;
};

struct ValidationResult {
  Suite suite;
  ReferenceSet references;
  Discovery discovery;
  std::map<std::string, WorkloadRun> runs;  // by workload id: the ingested logs
  Scorecard card;
  JsonBox<nlohmann::ordered_json> document;  // validation.json
};

// The inputs as the CLI names them: a suite by chip name or .toml path, the data directory with
// suites/, baselines/<chip>/ and specs/<chip>.toml, an optional reference directory replacing
// baselines/<chip>, extra reference files, and the runs directory.
Result<ValidationInputs> ResolveInputs(const std::string& suite, const std::string& data_dir,
                                       const std::string& baselines_dir,
                                       const std::vector<std::string>& extra_references,
                                       const std::string& runs_dir);

// Errors (exit 2) for unreadable or malformed inputs: the suite, a reference file, the runs
// directory, or a log that is not text. A workload that is missing, incomplete or invalid is
// not an error: it fails its row, with the reason.
Result<ValidationResult> RunValidation(const ValidationInputs& in);

// Peak dense TFLOPS per dtype from specs/<chip>.toml.
Result<std::map<std::string, double>> LoadPeakTflops(const std::string& spec_path);

// A reference file recorded from a successful validation (kind "recorded"): one [[reference]]
// per workload that ingested successfully. `made_by`, `hardware`, `software` describe the
// golden system; `date` is UTC today.
std::string RecordBaseline(const ValidationResult& r, const std::string& made_by,
                           const std::string& hardware, const std::string& software);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_VALIDATION_H_
