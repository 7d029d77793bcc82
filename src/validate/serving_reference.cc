#include "validate/serving_reference.h"

#include "validate/inference_result.h"

namespace ys::validate {
namespace {

Status ReadReferenceStat(TomlTableReader& r, const char* key, std::string* stat) {
  YS_RETURN_IF_ERROR(r.String(key, stat, /*required=*/false));
  std::string canonical = StatName(*stat);
  if (canonical.empty()) return r.Error(key, "expected a statistic: mean, p50, p90, p99 ...");
  *stat = canonical;
  return Status::Ok();
}

}  // namespace

Result<ServingReference> ParseServingReference(TomlTableReader& r) {
  ServingReference s;
  YS_RETURN_IF_ERROR(r.String("phase", &s.phase));
  YS_RETURN_IF_ERROR(r.String("model", &s.model));
  YS_RETURN_IF_ERROR(r.String("precision", &s.precision));
  YS_RETURN_IF_ERROR(r.Int("isl", &s.isl, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.Int("osl", &s.osl, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.Int("gpus", &s.gpus, 1, 1 << 20));
  YS_RETURN_IF_ERROR(r.Int("concurrency", &s.concurrency, 0, 1 << 24, /*required=*/false));
  YS_RETURN_IF_ERROR(r.String("mode", &s.mode));
  if (s.mode != "serving" && s.mode != "offline" && s.mode != "latency") {
    return r.Error("mode", "expected \"serving\", \"offline\" or \"latency\"");
  }
  YS_RETURN_IF_ERROR(r.String("gpu_denominator", &s.gpu_denominator));
  if (s.gpu_denominator != "all GPUs" && s.gpu_denominator != "decode GPUs") {
    return r.Error("gpu_denominator", "expected \"all GPUs\" or \"decode GPUs\"");
  }
  YS_RETURN_IF_ERROR(
      r.Double("output_tokens_per_s_per_gpu", &s.output_tokens_per_s_per_gpu, 1e-6, 1e9));
  YS_RETURN_IF_ERROR(r.OptionalDouble("ttft_ms", &s.ttft_ms, 1e-6, 1e9));
  YS_RETURN_IF_ERROR(r.OptionalDouble("tpot_ms", &s.tpot_ms, 1e-6, 1e9));
  YS_RETURN_IF_ERROR(ReadReferenceStat(r, "ttft_stat", &s.ttft_stat));
  YS_RETURN_IF_ERROR(ReadReferenceStat(r, "tpot_stat", &s.tpot_stat));
  YS_RETURN_IF_ERROR(
      r.OptionalDouble("tokens_per_s_per_user", &s.tokens_per_s_per_user, 1e-6, 1e9));
  YS_RETURN_IF_ERROR(r.String("file", &s.file, /*required=*/false));
  YS_RETURN_IF_ERROR(r.NoOtherKeys());
  return s;
}

}  // namespace ys::validate
