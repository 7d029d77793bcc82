// The diagnosis engine: runs every registered rule over one input and ranks what they conclude.
//
// Ranking: by expected recovery (midpoint of the range), largest first; ties by confidence, then
// by rule id, so the order is deterministic. A rule that throws is reported in `not_evaluated`
// and the others still run.
//
// Input assembly: DiagnosisInputFor() turns a run document (proxies' step-time measurements) and
// optionally a validation document (validation.json: ingested logs, scores, MFU) into the rules'
// input, and analyses every step series once (workloads/step_time.h).
#ifndef YARDSTICK_DIAGNOSE_ENGINE_H_
#define YARDSTICK_DIAGNOSE_ENGINE_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "diagnose/rule.h"

namespace ys::diagnose {

struct DiagnosisReport {
  std::vector<Diagnosis> ranked;
  std::vector<std::string> not_evaluated;  // "rule.id: why"
  int rules_run = 0;
};

DiagnosisReport Diagnose(const DiagnosisInput& in);

// The rules' input from a run document (may be null) and a validation document (may be null).
// Proxy measurements "proxy.<model>.step_time" (samples in step order; per-rank series in
// "proxy.<model>.rank_step_time" with param "rank") become workloads; so do the validation's
// ingested runs with their window step times, scores and MFU. Its serving phases that did not
// pass become `serving`, each read with its folder <runs_dir>/<phase id>/ (serving_evidence.h;
// runs_dir empty: the rows alone). Invalid names the field of a validation document that is not
// as expected.
Result<DiagnosisInput> DiagnosisInputFor(const RunDocument* run, const nlohmann::json* validation,
                                         std::string data_dir, const std::string& runs_dir = {});

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_ENGINE_H_
