// What a user means by "a run" on the command line: a run document (run.json), a validation
// document (validation.json, "kind": "yardstick-validation"), a run directory holding either or
// both, or the id of a run recorded in the history. One reader for diagnose, compare and cost, so
// that the same argument means the same to each; the command says which forms it takes.
//
// Messages name the file and what was expected:
//   "x.json: not a run document (nor a validation document, \"kind\": \"yardstick-validation\"):
//    run.schema_version: expected 1, got 7".
//
// Thread safety: pure functions over the files they read.
#ifndef YARDSTICK_HISTORY_RUN_INPUT_H_
#define YARDSTICK_HISTORY_RUN_INPUT_H_

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/json_box.h"
#include "core/run_document.h"
#include "core/status.h"

namespace ys::history {

struct RunInput {
  std::optional<RunDocument> run;  // a run document, read and checked
  std::string run_path;
  JsonBox<nlohmann::json> validation;  // a validation document, by its "kind"
  std::string validation_path;
  // A recorded run's id: the caller reads the run from the history (HistoryDb::GetRun).
  std::optional<int64_t> recorded_id;
};

struct RunInputForms {
  bool directory = false;    // a directory holding run.json and/or validation.json
  bool recorded_id = false;  // digits that name no file: a run id in the history
};

// Whether `what` is written as a recorded run's id (digits only, at most 17 of them).
bool IsRecordedRunId(const std::string& what);

// Reads what `what` names, in the forms the command takes (a file always). NotFound for a
// directory with neither document; Invalid for a file that is neither document, naming it.
Result<RunInput> ReadRunInput(const std::string& what, const RunInputForms& forms = {});

// A file that must be a validation document (a --validation option): Invalid, naming `flag`,
// when it is another document.
Result<nlohmann::json> ReadValidationInput(const std::string& path, const std::string& flag);

}  // namespace ys::history

#endif  // YARDSTICK_HISTORY_RUN_INPUT_H_
