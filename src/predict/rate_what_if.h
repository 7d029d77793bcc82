// What a measured shortfall costs, by the step-time model: for each rate of this cluster that
// differs from the reference system's (a GEMM rate, a collective's bus bandwidth on NVLink or on
// the network, HBM), the step predicted with that one rate put back to the reference value. The
// difference is the expected recovery of fixing that rate alone; the ranking, largest first, says
// which shortfall to chase. Rates are compared by the keys of predict/step_rates.h (--set).
//
// Thread safety: pure functions over values.
#ifndef YARDSTICK_PREDICT_RATE_WHAT_IF_H_
#define YARDSTICK_PREDICT_RATE_WHAT_IF_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "predict/step_model.h"

namespace ys::predict {

struct RateWhatIf {
  std::string key;      // "coll.all_gather.busbw"
  double measured = 0;  // bytes/s or FLOP/s
  double reference = 0;
  double step_s = 0;          // predicted with the measured rates
  double restored_s = 0;      // predicted with this rate at the reference value
  double recovery_s = 0;      // step_s − restored_s
  double recovery_share = 0;  // recovery_s / step_s: the share of the iteration it costs
};

// Every differing rate, largest recovery first. `measured` and `reference` are the same system's
// rates but for the measured or overridden ones.
Result<std::vector<RateWhatIf>> RankRateShortfalls(const predict::Recipe& recipe,
                                                   const predict::SystemRates& measured,
                                                   const predict::SystemRates& reference,
                                                   const predict::Constants& c);

}  // namespace ys::predict

#endif  // YARDSTICK_PREDICT_RATE_WHAT_IF_H_
