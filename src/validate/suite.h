// Suites (suites/<chip>.toml): which workloads, at which scale, must all pass, and by how much.
#ifndef YARDSTICK_VALIDATE_SUITE_H_
#define YARDSTICK_VALIDATE_SUITE_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "validate/serving_phase.h"

namespace ys::validate {

struct SuiteWorkload {
  std::string id;     // "llama3.1_70b_fp8": model_size_dtype
  std::string model;  // "llama3.1"
  std::string size;   // "70b"
  std::string dtype;  // "bf16", "fp8", "nvfp4"
  int gpus = 0;
  int seq_len = 0;
  int gbs = 0;
  std::string framework;  // "megatron_bridge", "nemo2", "torchtitan"
};

struct Suite {
  std::string chip;            // "h100"
  std::string recipe_release;  // "v26.06.01"
  // The chip whose published recipes the workloads run, where the suite's chip has none of its
  // own (H200 runs H100's unchanged); empty: the suite's chip. Predictions take their
  // parallelism from that chip's entries, its release constants where no release calibrates the
  // suite's chip, and its published rows as anchors; their rates are the suite's chip's.
  std::string recipes_of;
  std::string source;
  double threshold = 0.95;
  std::string rule = "every";
  int window_first = 35;
  int window_last = 44;
  std::vector<SuiteWorkload> workloads;
  std::vector<ServingPhase> phases;  // serving phases ([[phase]]), judged beside the workloads
  std::string path;

  const SuiteWorkload* Find(std::string_view id) const;
  const ServingPhase* FindPhase(std::string_view id) const;
};

// Strict: unknown keys, missing fields, duplicate workload or phase ids, neither a workload nor a
// phase, a threshold outside (0, 1.5],
// a window with first > last are errors naming the file, the workload and the field.
Result<Suite> ParseSuite(std::string_view toml_text, const std::string& path);
Result<Suite> LoadSuite(const std::string& path);
// "h100" -> <data_dir>/suites/h100.toml; a path ending in .toml is loaded as it is.
Result<Suite> LoadSuiteByName(const std::string& name_or_path, const std::string& data_dir);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SUITE_H_
