#include "cost/cost_model.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "core/range_check.h"

namespace ys::cost {

double BlendedPricePerGpuHour(const PriceModel& p) {
  return p.on_demand_share * p.on_demand_per_gpu_hour + p.reserved_share * p.reserved_per_gpu_hour +
         p.spot_share * p.spot_per_gpu_hour;
}

Status CheckTokensPerSPerGpu(double value, std::string_view where) {
  return CheckRange(value, kMinTokensPerSPerGpu, kMaxTokensPerSPerGpu, where);
}

Status CheckGpus(int64_t value, std::string_view where) {
  return CheckIntRange(value, 1, kMaxGpus, where);
}

Result<double> CostPerMillionTokens(double blended_per_gpu_hour, double tokens_per_s_per_gpu) {
  YS_RETURN_IF_ERROR(CheckTokensPerSPerGpu(tokens_per_s_per_gpu, "tokens/s/GPU"));
  return blended_per_gpu_hour / (tokens_per_s_per_gpu * 3600.0) * 1e6;
}

Result<TrainingCost> CostToTrain(const PriceModel& p, double tps, int gpus, double tokens) {
  YS_RETURN_IF_ERROR(CheckTokensPerSPerGpu(tps, "tokens/s/GPU"));
  YS_RETURN_IF_ERROR(CheckGpus(gpus, "GPUs"));
  YS_RETURN_IF_ERROR(CheckRange(tokens, kMinTokens, kMaxTokens, "the token budget"));
  TrainingCost c;
  c.tokens = tokens;
  c.gpus = gpus;
  c.tokens_per_s_per_gpu = tps;
  double wall_s = tokens / (tps * gpus);
  c.wall_days = wall_s / 86400.0;
  // Round up to the increment; a hair of floating-point noise above a whole minute is not billed.
  const double inc = p.billing_increment_minutes > 0 ? p.billing_increment_minutes : 1;
  double increments = std::ceil(wall_s / 60.0 / inc - 1e-9);
  if (increments < 1) increments = 1;
  if (!(increments * inc <= kMaxBilledMinutes)) {
    return Status::Invalid(fmt::format(
        "{:.6g} tokens at {:.6g} tokens/s/GPU on {} GPUs would take {:.6g} days: more than 2^53 "
        "billed minutes, beyond what the cost can be stated for",
        tokens, tps, gpus, c.wall_days));
  }
  c.billed_minutes = static_cast<int64_t>(increments * inc);
  double billed_hours = static_cast<double>(c.billed_minutes) / 60.0;
  c.gpu_hours_billed = billed_hours * gpus;
  c.compute_cost = c.gpu_hours_billed * BlendedPricePerGpuHour(p);
  c.storage_cost = p.storage_per_tb_month * p.storage_tb_held * billed_hours / kHoursPerMonth;
  c.network_cost = p.network_per_tb_egress * p.network_tb_egress;
  c.total_cost = c.compute_cost + c.storage_cost + c.network_cost;
  return c;
}

Result<double> GapExtraFraction(double score) {
  if (!(score > 0) || !std::isfinite(score)) return Status::Invalid("score must be > 0");
  return 1.0 / score - 1.0;
}

Result<GapCost> CostOfGap(const PriceModel& p, double measured, double reference, int gpus,
                          double tokens) {
  if (!(reference > 0)) return Status::Invalid("reference tokens/s/GPU must be > 0");
  GapCost g;
  g.score = measured / reference;
  auto extra = GapExtraFraction(g.score);
  if (!extra.ok()) return extra.status();
  g.extra_fraction = *extra;
  auto m = CostToTrain(p, measured, gpus, tokens);
  if (!m.ok()) return m.status();
  auto r = CostToTrain(p, reference, gpus, tokens);
  if (!r.ok()) return r.status();
  g.at_measured = *m;
  g.at_reference = *r;
  g.extra_cost = m->total_cost - r->total_cost;
  return g;
}

Result<Comparison> CompareProfiles(const Profile& a, const Profile& b, int gpus, double tokens) {
  auto ca = CostToTrain(a.prices, a.tokens_per_s_per_gpu, gpus, tokens);
  if (!ca.ok()) return Status::Invalid(a.name + ": " + ca.status().message());
  auto cb = CostToTrain(b.prices, b.tokens_per_s_per_gpu, gpus, tokens);
  if (!cb.ok()) return Status::Invalid(b.name + ": " + cb.status().message());
  Comparison c;
  c.a = *ca;
  c.b = *cb;
  double ta = ca->total_cost, tb = cb->total_cost;
  c.saving = std::fabs(ta - tb);
  if (ta < tb) {
    c.cheaper = a.name;
    c.dearer_extra = ta > 0 ? tb / ta - 1 : 0;
  } else if (tb < ta) {
    c.cheaper = b.name;
    c.dearer_extra = tb > 0 ? ta / tb - 1 : 0;
  }
  return c;
}

Result<double> ParseTokenCount(const std::string& text, std::string_view where) {
  if (text.empty())
    return Status::Invalid(fmt::format("{}: empty; expected e.g. 15T, 300B, 2.5e12", where));
  double mult = 1;
  std::string num = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      mult = 1e3;
      num.pop_back();
      break;
    case 'M':
    case 'm':
      mult = 1e6;
      num.pop_back();
      break;
    case 'B':
    case 'b':
    case 'G':
    case 'g':
      mult = 1e9;
      num.pop_back();
      break;
    case 'T':
    case 't':
      mult = 1e12;
      num.pop_back();
      break;
    default:
      break;
  }
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size())
    return Status::Invalid(fmt::format(
        "{} '{}': expected a number > 0 with an optional K, M, B or T suffix (15T, 300B, 2.5e12)",
        where, text));
  YS_RETURN_IF_ERROR(CheckRange(v * mult, kMinTokens, kMaxTokens, where));
  return v * mult;
}

}  // namespace ys::cost
