// The model files of models/ and the chips of specs/ under a data directory, loaded once and found
// by name: what the published rows (predict/suite/published_predictions.h) and the release tables
// (predict/release_cases.h) are paired with. A later file of the same name wins, as the readers
// list them.
//
// Thread safety: a loaded library is read-only. Moving it keeps the addresses of its models and
// chips (they live in deques), so the cases that point into it stay valid.
#ifndef YARDSTICK_PREDICT_MODEL_LIBRARY_H_
#define YARDSTICK_PREDICT_MODEL_LIBRARY_H_

#include <deque>
#include <map>
#include <string>

#include "bench/device_specs.h"
#include "core/status.h"
#include "predict/model_spec.h"

namespace ys::predict {

class ModelLibrary {
 public:
  // <data>/models/*.toml, then <data>/specs/*.toml; the first reader's error.
  static Result<ModelLibrary> Load(const std::string& data_dir);
  // nullptr when there is no such file.
  const predict::ModelSpec* Model(const std::string& name) const;
  const bench::DeviceSpec* Chip(const std::string& chip) const;

 private:
  std::deque<predict::ModelSpec> models_;
  std::deque<bench::DeviceSpec> chips_;
  std::map<std::string, const predict::ModelSpec*> by_name_;
  std::map<std::string, const bench::DeviceSpec*> by_chip_;
};

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_MODEL_LIBRARY_H_
