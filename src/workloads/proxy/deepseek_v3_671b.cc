// proxy.deepseek-v3_671b: the DeepSeek-V3 671B training-step proxy (models/deepseek-v3_671b.toml;
// see proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kDeepseekV3Model[] = "deepseek-v3_671b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kDeepseekV3Model>,
            {.id = "proxy.deepseek-v3_671b",
             .summary = "DeepSeek-V3 671B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
