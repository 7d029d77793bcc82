// Fuzz target: recorded GPU state, by selector byte:
//   0 the recorded NVML state file (gpu/gpu_snapshot_json.cc ParseGpuSnapshot)
//   1 GPU telemetry JSON (gpu/gpu_telemetry.h GpuTelemetryFromJson)
//   2 a burn-in NVML timeline (burnin/timeline.cc Timeline::Load, StateAt, KmsgBetween, ...):
//     the input is the timeline, a NUL byte, then the recorded state it names as "base.json".
#include <cstring>
#include <nlohmann/json.hpp>

#include "burnin/timeline.h"
#include "fuzz_target.h"
#include "fuzz_util.h"
#include "gpu/gpu_snapshot_json.h"
#include "gpu/gpu_telemetry.h"

YS_FUZZ_TARGET(gpu_state) {
  std::string_view text = ys::fuzz::AsText(data, size);
  std::optional<int> which = ys::fuzz::TakeSelector(&text, 3);
  if (!which) return 0;
  if (*which == 0) {
    (void)ys::gpu::ParseGpuSnapshot(text, "fuzz.json");
  } else if (*which == 1) {
    if (auto j = ys::fuzz::ParseJson(text)) (void)ys::gpu::GpuTelemetryFromJson(*j);
  } else {
    size_t nul = text.find('\0');
    std::string_view timeline = text.substr(0, nul);
    std::string_view base = nul == std::string_view::npos ? "" : text.substr(nul + 1);
    ys::fuzz::WriteScratch("base.json", base);
    auto t = ys::burnin::Timeline::Load(ys::fuzz::WriteScratch("timeline.json", timeline));
    if (!t.ok()) return 0;
    for (double at : {0.0, 30.0, 1e9}) (void)t->StateAt(at);
    (void)t->KmsgBetween(0, 1e9);
    (void)t->FlipPlanted("cpu1", 0, 1e9);
    (void)t->Describe();
  }
  return 0;
}
