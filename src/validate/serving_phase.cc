#include "validate/serving_phase.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/path_component.h"

namespace ys::validate {
namespace {

constexpr std::pair<std::string_view, std::pair<int, int>> kPhaseLengths[] = {
    {"chat", {128, 128}},        {"reasoning", {1000, 1000}},     {"summarization", {8000, 512}},
    {"generation", {512, 8000}}, {"disaggregated", {8150, 1024}},
};

Status ReadPhaseTopology(TomlTableReader& r, ServingPhase& p) {
  YS_RETURN_IF_ERROR(r.Int("gpus", &p.gpus, 1, 1 << 20));
  YS_RETURN_IF_ERROR(r.Int("tp", &p.tp, 1, 1 << 16, /*required=*/false));
  YS_RETURN_IF_ERROR(r.Int("ep", &p.ep, 1, 1 << 16, /*required=*/false));
  YS_RETURN_IF_ERROR(r.Int("dp", &p.dp, 1, 1 << 16, /*required=*/false));
  YS_RETURN_IF_ERROR(r.Int("pp", &p.pp, 1, 1 << 16, /*required=*/false));
  YS_RETURN_IF_ERROR(r.Int("prefill_workers", &p.prefill_workers, 1, 1 << 16, false));
  YS_RETURN_IF_ERROR(r.Int("prefill_tp", &p.prefill_tp, 1, 1 << 16, false));
  YS_RETURN_IF_ERROR(r.Int("decode_workers", &p.decode_workers, 1, 1 << 16, false));
  YS_RETURN_IF_ERROR(r.Int("decode_tp", &p.decode_tp, 1, 1 << 16, false));
  const bool any = p.prefill_workers || p.prefill_tp || p.decode_workers || p.decode_tp;
  const bool all = p.prefill_workers && p.prefill_tp && p.decode_workers && p.decode_tp;
  if (any && !all) {
    return r.Error("prefill_workers",
                   "a disaggregated topology names prefill_workers, prefill_tp, decode_workers "
                   "and decode_tp");
  }
  if (p.phase == "disaggregated" && !all) {
    return r.Error("prefill_workers",
                   "the disaggregated phase needs its prefill and decode workers");
  }
  if (all) {
    int sum = p.prefill_workers * p.prefill_tp + p.decode_workers * p.decode_tp;
    if (sum != p.gpus) {
      return r.Error(
          "gpus",
          fmt::format("{} prefill x TP {} + {} decode x TP {} is {} GPUs, not {}",
                      p.prefill_workers, p.prefill_tp, p.decode_workers, p.decode_tp, sum, p.gpus));
    }
  } else if (p.tp * p.pp * p.dp != p.gpus) {
    return r.Error("gpus", fmt::format("TP {} x PP {} x DP {} is {} GPUs, not {}", p.tp, p.pp, p.dp,
                                       p.tp * p.pp * p.dp, p.gpus));
  }
  return Status::Ok();
}

Status ReadPhaseLoad(TomlTableReader& r, ServingPhase& p) {
  YS_RETURN_IF_ERROR(r.Int("isl", &p.isl, 1, 1 << 24));
  YS_RETURN_IF_ERROR(r.Int("osl", &p.osl, 1, 1 << 24));
  if (const toml::node* c = r.Get("concurrency")) {
    if (c->is_array()) {
      auto list = ReadTomlInts(*c, r.Where("concurrency"), 1, 1 << 24);
      if (!list.ok()) return list.status();
      p.concurrency = *list;
    } else {
      auto one = ReadTomlInt(*c, r.Where("concurrency"), 1, 1 << 24);
      if (!one.ok()) return one.status();
      p.concurrency = {*one};
    }
  }
  if (p.concurrency.empty()) return r.Error("concurrency", "expected a concurrency or a sweep");
  YS_RETURN_IF_ERROR(r.Int("requests", &p.requests, 1, 1 << 30));
  int most = *std::max_element(p.concurrency.begin(), p.concurrency.end());
  if (p.mode != "offline" && p.requests < 8 * most) {
    return r.Error("requests", fmt::format("{} requests at concurrency {}: a steady state needs at "
                                           "least 8x the concurrency ({})",
                                           p.requests, most, 8 * most));
  }
  YS_RETURN_IF_ERROR(r.Int("warmup_requests", &p.warmup_requests, 0, 1 << 30, false));
  YS_RETURN_IF_ERROR(r.Bool("streaming", &p.streaming));
  YS_RETURN_IF_ERROR(r.Bool("ignore_eos", &p.ignore_eos));
  YS_RETURN_IF_ERROR(r.OptionalDouble("ttft_limit_ms", &p.ttft_limit_ms, 1e-3, 1e9));
  return Status::Ok();
}

Status ReadPhaseChoices(TomlTableReader& r, ServingPhase& p) {
  YS_RETURN_IF_ERROR(r.String("load_generator", &p.load_generator, false));
  if (p.load_generator != "aiperf" && p.load_generator != "genai-perf" &&
      p.load_generator != "vllm") {
    return r.Error("load_generator", "expected \"aiperf\", \"genai-perf\" or \"vllm\"");
  }
  YS_RETURN_IF_ERROR(r.String("mode", &p.mode, false));
  if (p.mode != "serving" && p.mode != "offline" && p.mode != "latency") {
    return r.Error("mode", "expected \"serving\", \"offline\" or \"latency\"");
  }
  YS_RETURN_IF_ERROR(r.String("gpu_denominator", &p.gpu_denominator, false));
  if (p.gpu_denominator != "all GPUs" && p.gpu_denominator != "decode GPUs") {
    return r.Error("gpu_denominator", "expected \"all GPUs\" or \"decode GPUs\"");
  }
  return Status::Ok();
}

}  // namespace

int ServingPhase::DenominatorGpus() const {
  if (gpu_denominator == "decode GPUs" && disaggregated()) return decode_workers * decode_tp;
  return gpus;
}

std::optional<std::pair<int, int>> PhaseLengths(std::string_view phase) {
  for (const auto& [name, lengths] : kPhaseLengths) {
    if (name == phase) return lengths;
  }
  return std::nullopt;
}

Result<ServingPhase> ParseServingPhase(const toml::table& t, const std::string& path, int index) {
  ServingPhase p;
  TomlTableReader first(t, path, fmt::format("[[phase]] {}", index));
  YS_RETURN_IF_ERROR(first.String("id", &p.id));
  YS_RETURN_IF_ERROR(ValidatePathComponent(fmt::format("{}: [[phase]] {} id", path, index), p.id));
  TomlTableReader r(t, path, "phase " + p.id);
  r.Consume("id");
  YS_RETURN_IF_ERROR(r.String("phase", &p.phase));
  if (!PhaseLengths(p.phase)) {
    return r.Error("phase", "expected chat, reasoning, summarization, generation or disaggregated");
  }
  YS_RETURN_IF_ERROR(r.String("model", &p.model));
  YS_RETURN_IF_ERROR(r.String("precision", &p.precision));
  YS_RETURN_IF_ERROR(r.String("stack", &p.stack));
  YS_RETURN_IF_ERROR(r.String("stack_version", &p.stack_version));
  YS_RETURN_IF_ERROR(r.String("container", &p.container, false));
  YS_RETURN_IF_ERROR(r.String("served_model", &p.served_model, false));
  YS_RETURN_IF_ERROR(ReadPhaseChoices(r, p));
  YS_RETURN_IF_ERROR(ReadPhaseTopology(r, p));
  YS_RETURN_IF_ERROR(ReadPhaseLoad(r, p));
  YS_RETURN_IF_ERROR(r.NoOtherKeys());
  return p;
}

}  // namespace ys::validate
