// proxy.gpt_oss_120b: the GPT-OSS 120B training-step proxy (models/gpt_oss_120b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kGptOssModel[] = "gpt_oss_120b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kGptOssModel>,
            {.id = "proxy.gpt_oss_120b",
             .summary = "GPT-OSS 120B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
