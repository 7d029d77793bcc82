// proxy.llama3.1_70b: the Llama 3.1 70B training-step proxy (models/llama3.1_70b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kLlama70bModel[] = "llama3.1_70b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kLlama70bModel>,
            {.id = "proxy.llama3.1_70b",
             .summary = "Llama 3.1 70B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
