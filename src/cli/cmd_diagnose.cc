// `yardstick diagnose RUN [--validation FILE] [--data DIR] [--json]`: the diagnosis rules over a
// run document (run.json), a validation document (validation.json, "kind": "yardstick-validation")
// or a run directory holding either or both. Exit 0 when no cause is found, 1 when one is, 2 when
// an input cannot be read (the file, the field and what was expected).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/command.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "diagnose/diagnosis_json.h"
#include "diagnose/engine.h"
#include "history/run_input.h"
#include "report/diagnosis_console.h"

namespace ys::cli::cmd_diagnose {
namespace {

struct DiagnoseArgs {
  std::string run, validation, data;
  bool json = false;
};

// RUN (a file or a run directory), then --validation, which replaces RUN's validation document.
Result<history::RunInput> ReadInputs(const DiagnoseArgs& a) {
  auto inputs = history::ReadRunInput(a.run, {.directory = true});
  if (!inputs.ok() || a.validation.empty()) return inputs;
  auto j = history::ReadValidationInput(a.validation, "--validation");
  if (!j.ok()) return j.status();
  inputs->validation = std::move(*j);
  inputs->validation_path = a.validation;
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
  return [a]() -> Result<int> {
    auto inputs = ReadInputs(*a);
    if (!inputs.ok()) return inputs.status();
    const RunDocument* run = inputs->run ? &*inputs->run : nullptr;
    const nlohmann::json* validation = inputs->validation ? &*inputs->validation : nullptr;
    auto in = diagnose::DiagnosisInputFor(run, validation, DataDir(a->data));
    if (!in.ok()) return in.status();
    diagnose::DiagnosisReport report = diagnose::Diagnose(*in);
    if (a->json) {
      std::cout << DumpJson(diagnose::ToJson(report)) << "\n";
    } else {
      report::WriteDiagnosis(report.ranked, report.not_evaluated, ColorOnStdout(), std::cout);
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

}  // namespace ys::cli::cmd_diagnose
