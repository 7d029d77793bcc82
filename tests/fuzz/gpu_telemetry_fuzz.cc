// Fuzz target: the GPU telemetry a serving diagnosis reads (diagnose/serving_telemetry.cc): an
// nvidia-smi --query-gpu CSV, the telemetry block of an AIPerf summary CSV and AIPerf JSON's
// telemetry_data; the first byte picks the reader. Each GPU's readings must be sane shares.
#include <cmath>
#include <nlohmann/json.hpp>

#include "diagnose/serving_telemetry.h"
#include "fuzz_target.h"
#include "fuzz_util.h"

YS_FUZZ_TARGET(gpu_telemetry) {
  std::string_view text = ys::fuzz::AsText(data, size);
  auto which = ys::fuzz::TakeSelector(&text, 3);
  if (!which) return 0;
  ys::Result<std::vector<ys::diagnose::GpuRunReadings>> read =
      std::vector<ys::diagnose::GpuRunReadings>{};
  if (*which == 0) {
    (void)ys::diagnose::IsSmiQueryCsv(text);
    read = ys::diagnose::ReadSmiQueryCsv(text, "fuzz.csv");
  } else if (*which == 1) {
    (void)ys::diagnose::HasAiperfTelemetryBlock(text);
    read = ys::diagnose::ReadAiperfTelemetryCsv(text, "fuzz.csv");
  } else {
    auto doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded()) return 0;
    read = ys::diagnose::ReadAiperfTelemetryJson(doc, "fuzz.json");
  }
  if (!read.ok()) return 0;
  for (const auto& g : *read) {
    if (g.slowdown_share < 0 || g.slowdown_share > 1) __builtin_trap();
    if (g.power_violation_share &&
        !(*g.power_violation_share >= 0 && *g.power_violation_share <= 1))
      __builtin_trap();
    (void)ys::diagnose::DescribeSlowdownReasons(g.slowdown_reasons);
  }
  return 0;
}
