// `yardstick diagnose RUN [--validation FILE] [--data DIR] [--json]`: the diagnosis rules over a
// run document (run.json), a validation document (validation.json, "kind": "yardstick-validation")
// or a run directory holding either or both. Exit 0 when no cause is found, 1 when one is, 2 when
// an input cannot be read (the file, the field and what was expected).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/report_json.h"
#include "diagnose/engine.h"
#include "report/diagnosis_console.h"

namespace ys::cli {
namespace {

namespace fs = std::filesystem;

struct DiagnoseArgs {
  std::string run, validation, data;
  bool json = false;
};

struct Inputs {
  std::optional<RunDocument> run;
  std::optional<nlohmann::json> validation;
};

bool IsValidation(const nlohmann::json& j) {
  return j.is_object() && j.contains("kind") && j["kind"] == "yardstick-validation";
}

// One file into `inputs`: a validation document by its kind, else a run document.
Status AddFile(const std::string& path, Inputs& inputs) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (IsValidation(*j)) {
    inputs.validation = std::move(*j);
    return Status::Ok();
  }
  auto doc = RunDocumentFromJson(*j);
  if (!doc.ok()) {
    return Status::Invalid(path +
                           ": not a run document (nor a validation document, \"kind\": "
                           "\"yardstick-validation\"): " +
                           doc.status().message());
  }
  inputs.run = std::move(*doc);
  return Status::Ok();
}

Result<Inputs> ReadInputs(const DiagnoseArgs& a) {
  Inputs inputs;
  std::error_code ec;
  if (fs::is_directory(a.run, ec)) {
    bool any = false;
    for (const char* name : {"run.json", "validation.json"}) {
      std::string p = (fs::path(a.run) / name).string();
      if (!fs::exists(p, ec)) continue;
      YS_RETURN_IF_ERROR(AddFile(p, inputs));
      any = true;
    }
    if (!any)
      return Status::NotFound(a.run + ": a run directory needs run.json or validation.json");
  } else {
    YS_RETURN_IF_ERROR(AddFile(a.run, inputs));
  }
  if (!a.validation.empty()) {
    auto j = ReadJsonFile(a.validation);
    if (!j.ok()) return j.status();
    if (!IsValidation(*j)) {
      return Status::Invalid(a.validation +
                             ": --validation expects a validation document (\"kind\": "
                             "\"yardstick-validation\")");
    }
    inputs.validation = std::move(*j);
  }
  return inputs;
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<DiagnoseArgs>();
  sub.add_option("RUN", a->run,
                 "A run document (run.json), a validation document (validation.json) or a run "
                 "directory holding either or both")
      ->required();
  sub.add_option("--validation", a->validation, "A validation document to diagnose with the run");
  sub.add_option("--data", a->data, "Directory with specs/ (physical peaks) and models/");
  sub.add_flag("--json", a->json, "Print {\"diagnosis\": [...], \"not_evaluated\": [...]}");
  return [a] {
    auto inputs = ReadInputs(*a);
    if (!inputs.ok()) {
      Log(LogLevel::kError, "{}", inputs.status().message());
      return kExitCannotRun;
    }
    const RunDocument* run = inputs->run ? &*inputs->run : nullptr;
    const nlohmann::json* validation = inputs->validation ? &*inputs->validation : nullptr;
    auto in = diagnose::DiagnosisInputFor(run, validation, DataDir(a->data));
    if (!in.ok()) {
      Log(LogLevel::kError, "{}", in.status().message());
      return kExitCannotRun;
    }
    diagnose::DiagnosisReport report = diagnose::Diagnose(*in);
    if (a->json) {
      nlohmann::ordered_json j;
      j["diagnosis"] = nlohmann::ordered_json::array();
      for (const auto& d : report.ranked) j["diagnosis"].push_back(ToJson(d));
      j["not_evaluated"] = report.not_evaluated;
      std::cout << DumpJson(j) << "\n";
    } else {
      report::WriteDiagnosis(report.ranked, report.not_evaluated, ::isatty(1) != 0, std::cout);
    }
    return report.ranked.empty() ? kExitPass : kExitFail;
  };
}

}  // namespace

YS_REGISTER(
    CommandOf<Setup>,
    {.id = "diagnose",
     .summary = "Name the causes of a slow run: typed rules over findings, measurements and "
                "step times, ranked by what each fix is expected to recover"})

}  // namespace ys::cli
