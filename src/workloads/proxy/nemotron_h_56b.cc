// proxy.nemotron-h_56b: the Nemotron-H 56B training-step proxy (models/nemotron-h_56b.toml; see
// proxy_unit.h).
#include "workloads/proxy/proxy_unit.h"

namespace ys::workloads {
namespace {
constexpr char kNemotronHModel[] = "nemotron-h_56b";
}  // namespace

YS_REGISTER(ProxyBenchmark<kNemotronHModel>,
            {.id = "proxy.nemotron-h_56b",
             .summary = "Nemotron-H 56B training step proxy: step time vs roofline",
             .needs = {Need::kLiveHost},
             .in_quick_profile = false,
             .measures = ProxyMeasures()})

}  // namespace ys::workloads
