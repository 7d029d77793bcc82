// `yardstick validate --suite h100 --runs DIR`: the Exemplar verdict. Finds each workload's log,
// ingests it, scores it against its reference and passes the suite only when every workload is
// above the threshold. `--record-baseline FILE` turns a golden run into a reference.
// `--predict [--measured RUN.json ...] [--set KEY=VALUE ...]`: beside each workload, the step the
// step-time model predicts on this cluster and whether it would land under the threshold, and
// why (predict/suite/suite_prediction.h); with --json and in validation.json the same rows as the
// document's "prediction" (predicted step and score, under, why: the costliest term); without
// --runs, only the prediction (exit 0), before any run is booked.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/history_options.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/log.h"
#include "core/run_document_json.h"
#include "core/text.h"
#include "diagnose/diagnosis_json.h"
#include "diagnose/engine.h"
#include "predict/suite/phase_predictions.h"
#include "predict/suite/suite_prediction.h"
#include "report/diagnosis_console.h"
#include "report/output.h"
#include "report/phase_prediction_console.h"
#include "report/prediction_report.h"
#include "report/scorecard_reporter.h"
#include "validate/scorecard_json.h"
#include "validate/validation.h"

namespace ys::cli::cmd_validate {
namespace {

struct ValidateArgs {
  ValidationArgs inputs;
  std::string out, record, by, hardware, software;
  bool json = false;
  bool predict = false;
  std::vector<std::string> measured, sets;
  HistoryArgs history;
};

// What validate --predict predicts: each workload's step and each serving phase.
struct SuitePredicted {
  std::vector<predict::WorkloadPrediction> workloads;
  std::vector<predict::PhasePrediction> phases;
};

// The predicted column (validate --predict); the error when an input is bad.
Result<SuitePredicted> Predicted(const ValidateArgs& a, const validate::Suite& suite,
                                 const validate::ReferenceSet& refs) {
  predict::SuitePredictionInputs in;
  in.data_dir = DataDir(a.inputs.data);
  for (const std::string& path : a.measured) {
    auto j = ReadJsonFile(path);
    if (!j.ok()) return j.status();
    auto doc = RunDocumentFromJson(*j);
    if (!doc.ok()) return Prefixed(path, doc.status());
    in.measured.emplace_back(path, std::move(*doc));
  }
  in.sets = a.sets;
  SuitePredicted out;
  if (!suite.workloads.empty() || suite.phases.empty()) {
    auto rows = predict::PredictSuite(suite, refs, in);
    if (!rows.ok()) return rows.status();
    out.workloads = std::move(*rows);
  }
  auto phases = predict::PredictServingSuite(suite, refs, in);
  if (!phases.ok()) return phases.status();
  out.phases = std::move(*phases);
  return out;
}

// validate --predict without --runs: the prediction alone.
Result<int> PredictOnly(const ValidateArgs& a) {
  const std::string data = DataDir(a.inputs.data);
  auto suite = validate::LoadSuiteByName(a.inputs.suite, data);
  if (!suite.ok()) return suite.status();
  validate::ReferenceSet refs;
  // A serving suite's chip may have no shipped baselines (its references come from the site).
  const std::string dir =
      a.inputs.baselines.empty() ? data + "/baselines/" + suite->chip : a.inputs.baselines;
  const bool none_shipped =
      a.inputs.baselines.empty() && !suite->phases.empty() && !std::filesystem::exists(dir);
  Status st = none_shipped ? Status::Ok() : refs.AddDirectory(dir);
  for (const std::string& r : a.inputs.references) {
    if (st.ok()) st = refs.AddFile(r);
  }
  YS_RETURN_IF_ERROR(st);
  auto predicted = Predicted(a, *suite, refs);
  if (!predicted.ok()) return predicted.status();
  if (a.json) {
    std::cout << report::SuitePredictionJson(predicted->workloads, suite->threshold,
                                             predicted->phases)
                     .dump(2)
              << "\n";
    return kExitPass;
  }
  if (!suite->workloads.empty() || suite->phases.empty())
    std::cout << report::SuitePredictionConsole(predicted->workloads, suite->threshold);
  if (!suite->phases.empty()) {
    std::cout << report::ServingPredictionConsole(predicted->phases, suite->threshold,
                                                  a.measured.empty() && a.sets.empty());
  }
  return kExitPass;
}

// Where the validation document goes.
void AddValidateOutputOptions(CLI::App& sub, ValidateArgs& a) {
  sub.add_flag("--json", a.json, "Print the validation document as JSON");
  sub.add_option("--out", a.out, "Also write validation.json into this directory");
}

// Recording a reference from a golden run, and what it says about itself.
void AddValidateBaselineOptions(CLI::App& sub, ValidateArgs& a) {
  sub.add_option("--record-baseline", a.record,
                 "Write a reference recorded from this (golden) run to FILE");
  sub.add_option("--by", a.by, "With --record-baseline: who made the reference");
  sub.add_option("--hardware", a.hardware, "With --record-baseline: the golden system");
  sub.add_option("--software", a.software, "With --record-baseline: software versions");
}

// The step-time model's predicted column and the rates it is computed from.
void AddValidatePredictOptions(CLI::App& sub, ValidateArgs& a) {
  sub.add_flag("--predict", a.predict,
               "Add the step-time model's predicted step and score beside each workload (without "
               "--runs: the prediction alone)");
  sub.add_option("--measured", a.measured,
                 "With --predict: a run document whose gemm.gpu and coll.* rates are this "
                 "cluster's (repeatable)");
  sub.add_option("--set", a.sets, "With --predict: override a rate, as predict --set");
}

// This machine's host name, as gethostname gives it ("" when it fails).
std::string ValidateHostName() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// Why a workload is slow, from what its log shows (step-time analysis, MFU, scores).
Result<diagnose::DiagnosisReport> DiagnoseValidation(const ValidateArgs& a,
                                                     const validate::ValidationResult& result) {
  const nlohmann::json validation_doc = nlohmann::json(*result.document);
  auto din =
      diagnose::DiagnosisInputFor(nullptr, &validation_doc, DataDir(a.inputs.data), a.inputs.runs);
  if (!din.ok()) return din.status();
  return diagnose::Diagnose(*din);
}

// With --predict: the predicted column, also put into the document (validation.json, --json) as
// "prediction", and each serving phase's into its phases[].prediction; nullopt without --predict.
Result<std::optional<std::vector<predict::WorkloadPrediction>>> AddPredictionColumn(
    const ValidateArgs& a, validate::ValidationResult& result) {
  std::optional<std::vector<predict::WorkloadPrediction>> predicted;
  if (!a.predict) return predicted;
  auto rows = Predicted(a, result.suite, result.references);
  if (!rows.ok()) return rows.status();
  predicted = std::move(rows->workloads);
  for (validate::ScoredPhase& phase : result.card.phases) {
    for (predict::PhasePrediction& p : rows->phases) {
      if (p.id == phase.phase.id) phase.prediction = p;
    }
  }
  const nlohmann::ordered_json prediction(
      report::SuitePredictionJson(*predicted, result.suite.threshold));
  const bool serving_only = result.suite.workloads.empty() && !result.suite.phases.empty();
  result.document =
      validate::ToJson(result.suite, result.card, serving_only ? nullptr : &prediction);
  return predicted;
}

// validation.json and diagnosis.json into the --out directory, created when missing.
Status WriteValidationOut(const std::string& out, const validate::ValidationResult& result,
                          const diagnose::DiagnosisReport& diagnosis) {
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  Status s = WriteFileAtomic(out + "/validation.json", DumpJson(*result.document) + "\n");
  if (s.ok()) {
    s = WriteFileAtomic(out + "/diagnosis.json", DumpJson(diagnose::ToJson(diagnosis)) + "\n");
  }
  return s;
}

// --record-baseline: a reference recorded from this run, never over an existing file.
Status RecordValidationBaseline(const ValidateArgs& a, const validate::ValidationResult& result) {
  if (std::filesystem::exists(a.record)) {
    return Status::Invalid(
        fmt::format("--record-baseline {}: exists; a reference is never overwritten", a.record));
  }
  std::string by = a.by;
  if (by.empty()) {
    const std::string host = ValidateHostName();
    const char* user = std::getenv("USER");
    by = std::string(user ? user : "unknown") + "@" + host;
  }
  std::string text =
      validate::RecordBaseline(result, by, a.hardware.empty() ? "not stated" : a.hardware,
                               a.software.empty() ? "not stated" : a.software);
  YS_RETURN_IF_ERROR(WriteFileAtomic(a.record, text));
  Log(LogLevel::kWarn, "recorded a reference from this run into {}", a.record);
  return Status::Ok();
}

// The console form: the scorecard, the logs superseded or ignored, the predicted column, the
// diagnosis.
void PrintValidationConsole(
    const validate::ValidationResult& result,
    const std::optional<std::vector<predict::WorkloadPrediction>>& predicted,
    const diagnose::DiagnosisReport& diagnosis) {
  report::WriteScorecard(result.card, ColorOnStdout(), std::cout);
  for (const auto& [id, run] : result.discovery.runs) {
    for (const auto& s : run.superseded)
      std::cout << "superseded: " << SanitizeForDisplay(s.path) << " (" << SanitizeForDisplay(s.why)
                << ")\n";
  }
  for (const auto& i : result.discovery.ignored)
    std::cout << "ignored: " << SanitizeForDisplay(i) << "\n";
  std::cout << "\n";
  // A serving phase's prediction is printed in its block of the scorecard.
  if (predicted && (!result.suite.workloads.empty() || result.suite.phases.empty())) {
    std::cout << report::SuitePredictionConsole(*predicted, result.suite.threshold) << "\n";
  }
  report::WriteDiagnosis(diagnosis.ranked, diagnosis.not_evaluated, ColorOnStdout(), std::cout);
}

// Scores the runs, writes and prints what was asked for; the scorecard's exit code.
Result<int> RunValidate(const ValidateArgs& a) {
  if (a.inputs.runs.empty()) {
    if (a.predict) return PredictOnly(a);
    Log(LogLevel::kError, "validate: --runs is required (or --predict for the prediction alone)");
    return kExitUsage;
  }
  if ((!a.measured.empty() || !a.sets.empty()) && !a.predict) {
    Log(LogLevel::kError, "validate: --measured and --set go with --predict");
    return kExitUsage;
  }
  auto in = validate::ResolveInputs(a.inputs.suite, DataDir(a.inputs.data), a.inputs.baselines,
                                    a.inputs.references, a.inputs.runs);
  if (!in.ok()) return in.status();
  auto result = validate::RunValidation(*in);
  if (!result.ok()) return result.status();
  auto diagnosis = DiagnoseValidation(a, *result);
  if (!diagnosis.ok()) return diagnosis.status();
  auto predicted = AddPredictionColumn(a, *result);
  if (!predicted.ok()) return predicted.status();
  if (!a.out.empty()) YS_RETURN_IF_ERROR(WriteValidationOut(a.out, *result, *diagnosis));
  if (!a.record.empty()) YS_RETURN_IF_ERROR(RecordValidationBaseline(a, *result));
  if (a.json) {
    std::cout << DumpJson(*result->document) << "\n";
  } else {
    PrintValidationConsole(*result, *predicted, *diagnosis);
  }
  std::cout.flush();
  RecordInHistory(
      a.history,
      [&] {
        return history::RowsFromValidationDocument(nlohmann::json(*result->document),
                                                   ValidateHostName());
      },
      a.out.empty() ? "" : a.out + "/validation.json", a.json ? std::cerr : std::cout);
  return result->card.ExitCode();
}

Action Setup(CLI::App& sub) {
  auto a = std::make_shared<ValidateArgs>();
  AddValidationOptions(sub, a->inputs);
  AddValidateOutputOptions(sub, *a);
  AddValidateBaselineOptions(sub, *a);
  AddHistoryOptions(sub, a->history, /*record=*/true);
  AddValidatePredictOptions(sub, *a);
  sub.get_option("--runs")->required(false);
  return [a]() -> Result<int> { return RunValidate(*a); };
}

}  // namespace

YS_REGISTER(CommandOf<Setup>, {.id = "validate",
                               .summary = "Score a suite's runs against their references: pass "
                                          "only when every workload is above 95%"})

}  // namespace ys::cli::cmd_validate
