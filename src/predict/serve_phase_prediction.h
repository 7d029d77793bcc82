// A serving phase predicted before its run (`validate --predict` on a serving suite,
// predict/suite/phase_predictions.h), as the console and the documents carry it: the
// serving model's figures at the phase's point, the expected error of its chip and precision,
// and, where the phase's reference gives figures, each metric's predicted score against the
// suite's threshold. A phase the model cannot serve (no model file, no rate for the precision,
// weights that do not fit) has a reason and no figure.
//
// The field lists (core/json_fields.h) are here so that validation.json's phases[].prediction
// (validate/scorecard_json.cc), `validate --predict --json` (report/prediction_report.h) and
// `predict --serve --json` (expected_error) write the same keys.
//
// Thread safety: values only.
#ifndef YARDSTICK_PREDICT_SERVE_PHASE_PREDICTION_H_
#define YARDSTICK_PREDICT_SERVE_PHASE_PREDICTION_H_

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "predict/serve_calibration.h"

namespace ys::predict {

// One figure of the phase's reference, predicted. The score is the serving model's ratio at this
// cluster's rates to the same at the reference rates (throughput here / there, a latency there /
// here, as the rule scores a run), so that the model's own error cancels; without --measured or
// --set the rates are the reference's and the score is 1 by construction.
struct PredictedServeMetric {
  std::string key;   // the reference's key: "output_tokens_per_s_per_gpu", "ttft_ms", "tpot_ms"
  std::string name;  // "output throughput", "TTFT mean", "TPOT p50"
  std::string unit;  // "tok/s/GPU", "ms"
  double reference = 0;
  double model = 0;      // the model's own figure at this cluster's rates, in the reference's unit
  double score = 0;      // predicted score by the rule
  double predicted = 0;  // the reference's figure carried by the score
  bool under = false;    // score below the suite's threshold
};

struct PhasePrediction {
  std::string id;      // the suite's phase id
  std::string point;   // "concurrency 1024", "max throughput"
  std::string reason;  // non-empty: no prediction, and why; every figure below is then unset
  // The model at this cluster's rates; per GPU over `gpu_denominator` (the reference's, else the
  // phase's).
  std::optional<double> output_tokens_per_s_per_gpu, output_tokens_per_s, tokens_per_s_per_user,
      ttft_s, tpot_s;
  std::string gpu_denominator;
  int batch_per_instance = 0, instances = 0;
  std::optional<ServeExpectedError> expected_error;
  std::vector<PredictedServeMetric> metrics;  // empty: no reference figure to score against
  std::optional<double> predicted_score;      // the lowest metric score
  bool under = false;                         // some metric under the threshold
  std::string why;        // the costliest term, and what the prediction rests on
  std::string constants;  // the serving constants' file
};

inline auto JsonNames(ServeSituation) {
  using S = ServeSituation;
  return std::array{
      std::pair{S::kCalibratedChip, ServeSituationName(S::kCalibratedChip)},
      std::pair{S::kUncalibrated, ServeSituationName(S::kUncalibrated)},
      std::pair{S::kNoServingCalibration, ServeSituationName(S::kNoServingCalibration)}};
}

// {situation, median, p90, rows, source}: median and p90 null when unknown.
template <typename V>
void Fields(V& v, ServeExpectedError& e) {
  v("situation", e.situation);
  v("median", e.median);
  v("p90", e.p90);
  v("rows", e.rows);
  v("source", e.source);
}

template <typename V>
void Fields(V& v, PredictedServeMetric& m) {
  v("key", m.key);
  v("name", m.name);
  v("unit", m.unit);
  v("reference", m.reference);
  v("model", m.model);
  v("score", m.score);
  v("predicted", m.predicted);
  v("under", m.under);
}

template <typename V>
void Fields(V& v, PhasePrediction& p) {
  v("id", p.id);
  v("point", p.point);
  v.optional("reason", p.reason);
  v("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu);
  v("output_tokens_per_s", p.output_tokens_per_s);
  v("tokens_per_s_per_user", p.tokens_per_s_per_user);
  v("ttft_s", p.ttft_s);
  v("tpot_s", p.tpot_s);
  v("gpu_denominator", p.gpu_denominator);
  v("batch_per_instance", p.batch_per_instance);
  v("instances", p.instances);
  v("expected_error", p.expected_error);
  v("metrics", p.metrics);
  v("predicted_score", p.predicted_score);
  v("under", p.under);
  v("why", p.why);
  v("constants", p.constants);
}

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_SERVE_PHASE_PREDICTION_H_
