// Format unit: Megatron-LM and Megatron-Bridge training logs (llmb-run's
// log-<exp>_<job>_<retry>.out).
#include "formats/training_log.h"

namespace ys::formats {
namespace {

FormatSniff Sniff(std::string_view head) {
  return SniffTrainingLog(head, validate::LogFormat::kMegatron);
}
Result<std::any> Read(const FormatRequest& r) {
  return ReadTrainingLog(r, validate::LogFormat::kMegatron);
}

}  // namespace

YS_FORMAT(
    Sniff, Read,
    {.name = "megatron",
     .produces = FormatProduct::kWorkloadRun,
     .summary =
         "Megatron-LM and Megatron-Bridge training logs (llmb-run's log-<exp>_<job>_<retry>.out)",
     .example = "iteration      100/     200 | consumed samples: 51200 | elapsed time per "
                "iteration (ms): 1234.5 | ..."})

}  // namespace ys::formats
