// proxy.llama3.1_8b: the Llama 3.1 8B training-step proxy (models/llama3.1_8b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kLlama8bModel[] = "llama3.1_8b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kLlama8bModel>,
            {.id = "proxy.llama3.1_8b",
             .summary = "Llama 3.1 8B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = true,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
