#include "history/run_input.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/run_document_json.h"
#include "core/validation_document.h"

namespace ys::history {
namespace {

namespace fs = std::filesystem;

// One file into `in`: a validation document by its kind, else a run document.
Status AddFile(const std::string& path, RunInput& in) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (IsValidationDocument(*j)) {
    in.validation = std::move(*j);
    in.validation_path = path;
    return Status::Ok();
  }
  auto doc = RunDocumentFromJson(*j);
  if (!doc.ok()) {
    return Status::Invalid(path +
                           ": not a run document (nor a validation document, \"kind\": "
                           "\"yardstick-validation\"): " +
                           doc.status().message());
  }
  in.run = std::move(*doc);
  in.run_path = path;
  return Status::Ok();
}

}  // namespace

bool IsRecordedRunId(const std::string& what) {
  return !what.empty() && what.size() < 18 &&
         what.find_first_not_of("0123456789") == std::string::npos;
}

Result<RunInput> ReadRunInput(const std::string& what, const RunInputForms& forms) {
  RunInput in;
  std::error_code ec;
  if (forms.recorded_id && IsRecordedRunId(what) && !fs::exists(what, ec)) {
    in.recorded_id = std::stoll(what);
    return in;
  }
  if (forms.directory && fs::is_directory(what, ec)) {
    bool any = false;
    for (const char* name : {"run.json", "validation.json"}) {
      std::string p = (fs::path(what) / name).string();
      if (!fs::exists(p, ec)) continue;
      YS_RETURN_IF_ERROR(AddFile(p, in));
      any = true;
    }
    if (!any) return Status::NotFound(what + ": a run directory needs run.json or validation.json");
    return in;
  }
  YS_RETURN_IF_ERROR(AddFile(what, in));
  return in;
}

Result<nlohmann::json> ReadValidationInput(const std::string& path, const std::string& flag) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (!IsValidationDocument(*j)) {
    return Status::Invalid(path + ": " + flag +
                           " expects a validation document (\"kind\": "
                           "\"yardstick-validation\")");
  }
  return j;
}

}  // namespace ys::history
