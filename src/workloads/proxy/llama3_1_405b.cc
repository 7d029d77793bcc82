// proxy.llama3.1_405b: the Llama 3.1 405B training-step proxy (models/llama3.1_405b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kLlama405bModel[] = "llama3.1_405b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kLlama405bModel>,
            {.id = "proxy.llama3.1_405b",
             .summary = "Llama 3.1 405B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
