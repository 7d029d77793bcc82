// proxy.qwen3_235b: the Qwen3 235B-A22B training-step proxy (models/qwen3_235b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kQwen3Model[] = "qwen3_235b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kQwen3Model>,
            {.id = "proxy.qwen3_235b",
             .summary = "Qwen3 235B-A22B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
