// Price models (prices/*.toml, examples/prices.toml): what GPU time, storage and network egress
// cost, read strictly from TOML.
//
// A price model holds per-GPU-hour prices for on-demand, reserved and spot capacity and the share
// of GPU hours bought at each (the shares sum to 1), the billing increment (whole minutes, rounded
// up), and optional storage (per TB-month, TB held for the run) and network (per TB of egress, TB
// egressed) lines. Prices are in one currency, named by `currency` (default "USD").
//
// Reading is strict: an unknown table or key, a value of the wrong type or out of range, or
// shares that do not sum to 1 is Invalid naming the file, the table, the key, its line, the value
// and what was expected. Ranges (finite, and far past any real price, so that every cost derived
// from them stays finite): prices per GPU-hour 0 to 1e6; shares 0 to 1; prices per TB 0 to 1e9;
// TB held or egressed 0 to 1e9; the billing increment 1 to 44640 minutes (31 days).
//
// Thread safety: values only; no shared state.
#ifndef YARDSTICK_COST_PRICE_MODEL_H_
#define YARDSTICK_COST_PRICE_MODEL_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ys::cost {

inline constexpr double kMaxPricePerGpuHour = 1e6;
inline constexpr double kMaxPricePerTb = 1e9;
inline constexpr double kMaxTerabytes = 1e9;

struct PriceModel {
  std::string name;    // a label for tables ("example-cloud-a")
  std::string source;  // where the figures come from (a quote, a contract, a price page + date)
  std::string currency = "USD";
  // Per GPU-hour.
  double on_demand_per_gpu_hour = 0;
  double reserved_per_gpu_hour = 0;
  double spot_per_gpu_hour = 0;
  // Shares of the GPU hours bought at each price; they sum to 1.
  double on_demand_share = 0;
  double reserved_share = 0;
  double spot_share = 0;
  // Billing increment in whole minutes (1 = per-minute billing); wall time is rounded up to it.
  int billing_increment_minutes = 1;
  // Storage held for the length of the run, billed per TB-month (a month = 730 hours).
  double storage_per_tb_month = 0;
  double storage_tb_held = 0;
  // Network egress, billed per TB.
  double network_per_tb_egress = 0;
  double network_tb_egress = 0;
};

// `path` names the file in messages.
Result<PriceModel> ParsePriceModel(std::string_view text, const std::string& path);
Result<PriceModel> LoadPriceModel(const std::string& path);

}  // namespace ys::cost

#endif  // YARDSTICK_COST_PRICE_MODEL_H_
