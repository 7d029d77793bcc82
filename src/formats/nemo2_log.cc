// Format unit: NeMo 2 training logs (0-based iterations).
#include "formats/training_log.h"

namespace ys::formats {
namespace {

FormatSniff Sniff(std::string_view head) {
  return SniffTrainingLog(head, validate::LogFormat::kNemo2);
}
Result<std::any> Read(const FormatRequest& r) {
  return ReadTrainingLog(r, validate::LogFormat::kNemo2);
}

}  // namespace

YS_FORMAT(Sniff, Read,
          {.name = "nemo2",
           .produces = FormatProduct::kWorkloadRun,
           .summary = "NeMo 2 training logs (0-based iterations)",
           .example = "Training epoch 0, iteration 99/199 | lr: 0.0001 | global_batch_size: 256 | "
                      "... | train_step_timing in s: 1.23"})

}  // namespace ys::formats
