// serving.llama3.1_8b: the Llama 3.1 8B serving proxy (models/llama3.1_8b.toml; see
// serving_unit.h).
#include "workloads/serving/serving_unit.h"

namespace ys::workloads {
namespace {
constexpr char kLlama8bServingModel[] = "llama3.1_8b";
}  // namespace

YS_REGISTER(ServingBenchmark<kLlama8bServingModel>,
            {.id = "serving.llama3.1_8b",
             .summary = "Llama 3.1 8B serving proxy: TTFT, TPOT and tokens/s vs the serving model",
             .needs = {Need::kLiveHost},
             .in_quick_profile = true,
             .params = ServingParams(),
             .measures = ServingMeasures()})

}  // namespace ys::workloads
