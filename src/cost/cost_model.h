// The cost arithmetic (pure): blended GPU-hour price, cost per million training tokens, cost and
// days to train a token budget on N GPUs, the cost of a gap to the reference throughput, and the
// comparison of two price/performance profiles (total cost of ownership for one token budget).
//
// Conventions:
// - Blended $/GPU-h = Σ share × price over on-demand, reserved and spot.
// - $ per million tokens = blended $/GPU-h ÷ (tokens/s/GPU × 3600) × 1e6 (no billing rounding).
// - Wall days = tokens ÷ (tokens/s/GPU × GPUs) ÷ 86400. Billed minutes = wall minutes rounded up
//   to the billing increment; compute = billed minutes ÷ 60 × GPUs × blended $/GPU-h.
// - Storage = per TB-month × TB held × billed hours ÷ 730 (a month of 730 hours); network =
//   per TB egress × TB egressed, once per training.
// - At a score s = measured ÷ reference throughput, the same work costs 1/s − 1 more (0.9 ->
//   11.1% more).
// - Ranges (Invalid naming the input, its value and the range outside them): a token budget from
//   1 to 1e18; tokens/s/GPU from 1e-6 to 1e9; 1 to 10,000,000 GPUs; a wall time of at
//   most 2^53 billed minutes. With the price model's ranges every figure is then finite and
//   non-negative; billed minutes are never cast from an unbounded double.
//
// Thread safety: values only; no shared state.
#ifndef YARDSTICK_COST_COST_MODEL_H_
#define YARDSTICK_COST_COST_MODEL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "cost/price_model.h"

namespace ys::cost {

inline constexpr double kHoursPerMonth = 730.0;
inline constexpr double kMinTokens = 1;
inline constexpr double kMaxTokens = 1e18;
inline constexpr double kMinTokensPerSPerGpu = 1e-6;
inline constexpr double kMaxTokensPerSPerGpu = 1e9;
inline constexpr int kMaxGpus = 10'000'000;
inline constexpr double kMaxBilledMinutes = 9007199254740992.0;  // 2^53: exact in a double

// Range checks of the inputs above; `where` names the flag or the document and field.
Status CheckTokensPerSPerGpu(double value, std::string_view where);
Status CheckGpus(int64_t value, std::string_view where);

double BlendedPricePerGpuHour(const PriceModel& prices);

// Invalid when tokens_per_s_per_gpu is not > 0.
Result<double> CostPerMillionTokens(double blended_per_gpu_hour, double tokens_per_s_per_gpu);

struct TrainingCost {
  double tokens = 0;
  int gpus = 0;
  double tokens_per_s_per_gpu = 0;
  double wall_days = 0;         // unrounded
  int64_t billed_minutes = 0;   // wall time rounded up to the billing increment
  double gpu_hours_billed = 0;  // billed minutes ÷ 60 × GPUs
  double compute_cost = 0;
  double storage_cost = 0;
  double network_cost = 0;
  double total_cost = 0;
};

// Invalid when tokens, GPUs or throughput are not > 0.
Result<TrainingCost> CostToTrain(const PriceModel& prices, double tokens_per_s_per_gpu, int gpus,
                                 double tokens);

// The extra fraction a model costs at score s (measured ÷ reference throughput): 1/s − 1.
// Invalid when s is not > 0.
Result<double> GapExtraFraction(double score);

struct GapCost {
  double score = 0;           // measured ÷ reference throughput
  double extra_fraction = 0;  // 1/s − 1
  TrainingCost at_measured;
  TrainingCost at_reference;
  double extra_cost = 0;  // at_measured.total_cost − at_reference.total_cost
};
Result<GapCost> CostOfGap(const PriceModel& prices, double measured_tokens_per_s_per_gpu,
                          double reference_tokens_per_s_per_gpu, int gpus, double tokens);

struct Profile {
  std::string name;
  PriceModel prices;
  double tokens_per_s_per_gpu = 0;
};
struct Comparison {
  TrainingCost a, b;
  std::string cheaper;      // the name of the cheaper profile ("" when equal)
  double saving = 0;        // |a.total − b.total|
  double dearer_extra = 0;  // dearer total ÷ cheaper total − 1
};
// Both profiles train the same token budget on the same number of GPUs.
Result<Comparison> CompareProfiles(const Profile& a, const Profile& b, int gpus, double tokens);

// "15T", "300B", "2.5e12", "7M", "4K" -> tokens, from kMinTokens to kMaxTokens. Invalid names
// `where` (the flag) and the text or the value.
Result<double> ParseTokenCount(const std::string& text, std::string_view where = "token count");

}  // namespace ys::cost

#endif  // YARDSTICK_COST_COST_MODEL_H_
