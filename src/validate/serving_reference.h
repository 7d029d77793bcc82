// Serving references: a phase's expected figures with provenance, from a reference file whose
// [provenance] metric is "serving" ([[serving_reference]] tables). Exemplar publishes no serving
// table: NVIDIA's figures come to a site under its own agreement and are supplied as kind "site";
// a golden run of the site is "recorded"; public figures (MLPerf Inference, TensorRT-LLM's
// performance tables, NVIDIA recipe READMEs) may only be kind "proxy" and every verdict against
// one says so.
#ifndef YARDSTICK_VALIDATE_SERVING_REFERENCE_H_
#define YARDSTICK_VALIDATE_SERVING_REFERENCE_H_

#include <optional>
#include <string>

#include "core/status.h"
#include "core/toml_reader.h"
#include "validate/provenance.h"

namespace ys::validate {

struct ServingReference {
  std::string phase;  // suite phase id
  std::string model, precision;
  int isl = 0, osl = 0;
  int gpus = 0;
  int concurrency = 0;          // the point the figures were taken at (0: offline)
  std::string mode;             // "serving", "offline", "latency"
  std::string gpu_denominator;  // "all GPUs" or "decode GPUs"
  double output_tokens_per_s_per_gpu = 0;
  // Latencies at the statistic the reference uses ("mean", "p50", "p99").
  std::optional<double> ttft_ms, tpot_ms;
  std::string ttft_stat = "mean", tpot_stat = "mean";
  // Interactivity (output tokens/s per user) at the reference point: where the run is a sweep,
  // throughput is compared at this interactivity, interpolated on the measured curve.
  std::optional<double> tokens_per_s_per_user;
  std::string file;  // where in the source
  Provenance provenance;
};

// One [[serving_reference]] table (strict; `where` names it in messages).
Result<ServingReference> ParseServingReference(TomlTableReader& r);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SERVING_REFERENCE_H_
