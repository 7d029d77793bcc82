// Format unit: torchtitan training logs (ANSI colour codes removed).
#include "formats/training_log.h"

namespace ys::formats {
namespace {

FormatSniff Sniff(std::string_view head) {
  return SniffTrainingLog(head, validate::LogFormat::kTorchtitan);
}
Result<std::any> Read(const FormatRequest& r) {
  return ReadTrainingLog(r, validate::LogFormat::kTorchtitan);
}

}  // namespace

YS_FORMAT(
    Sniff, Read,
    {.name = "torchtitan",
     .produces = FormatProduct::kWorkloadRun,
     .summary = "torchtitan training logs (ANSI colour codes removed)",
     .example =
         "step: 100  loss:  3.21  memory: 61.2GiB(77.4%)  tps: 3,456  tflops: 401.2  mfu: 40.6%"})

}  // namespace ys::formats
