#include "predict/rate_what_if.h"

#include <algorithm>
#include <functional>

namespace ys::predict {
namespace {

using predict::SystemRates;

// One rate of a system, by key, as a reference to the value.
struct RateSlot {
  std::string key;
  std::function<double*(SystemRates&)> at;
};

std::vector<RateSlot> Slots(const SystemRates& r) {
  std::vector<RateSlot> slots;
  for (const auto& [coll, v] : r.network_busbw) {
    std::string c = coll;
    slots.push_back({"coll." + c + ".busbw", [c](SystemRates& s) { return &s.network_busbw[c]; }});
  }
  for (const auto& [coll, v] : r.nvlink_busbw) {
    std::string c = coll;
    slots.push_back({"nvlink." + c + ".busbw", [c](SystemRates& s) { return &s.nvlink_busbw[c]; }});
  }
  slots.push_back({"hbm.bandwidth", [](SystemRates& s) { return &s.hbm_bytes_per_s; }});
  return slots;
}

}  // namespace

Result<std::vector<RateWhatIf>> RankRateShortfalls(const predict::Recipe& recipe,
                                                   const SystemRates& measured,
                                                   const SystemRates& reference,
                                                   const predict::Constants& c) {
  auto base = predict::PredictStep(recipe, measured, c);
  if (!base.ok()) return base.status();
  std::vector<RateWhatIf> out;
  auto consider = [&](const std::string& key, SystemRates restored, double m,
                      double ref) -> Status {
    if (m == ref) return Status::Ok();
    auto p = predict::PredictStep(recipe, restored, c);
    if (!p.ok()) return p.status();
    RateWhatIf w{key, m, ref, base->step_time_s, p->step_time_s, 0, 0};
    w.recovery_s = w.step_s - w.restored_s;
    w.recovery_share = w.recovery_s / w.step_s;
    out.push_back(w);
    return Status::Ok();
  };
  for (const RateSlot& slot : Slots(measured)) {
    SystemRates m = measured, ref = reference;
    const double mv = *slot.at(m), rv = *slot.at(ref);
    SystemRates restored = measured;
    *slot.at(restored) = rv;
    YS_RETURN_IF_ERROR(consider(slot.key, restored, mv, rv));
  }
  for (const auto& [dtype, v] : measured.gemm_flops) {
    SystemRates restored = measured;
    restored.gemm_flops.erase(dtype);
    auto ref = reference.gemm_flops.find(dtype);
    if (ref != reference.gemm_flops.end()) restored.gemm_flops[dtype] = ref->second;
    YS_RETURN_IF_ERROR(consider("gemm." + dtype + ".tflops", restored, v,
                                ref != reference.gemm_flops.end() ? ref->second : 0));
  }
  std::stable_sort(out.begin(), out.end(), [](const RateWhatIf& a, const RateWhatIf& b) {
    return a.recovery_s > b.recovery_s;
  });
  return out;
}

}  // namespace ys::predict
