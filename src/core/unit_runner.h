// The one runner of units. For every kind whose units produce a result (checks, benchmarks):
// refuses a disruptive unit unless the run asked for those, weighs the unit's declared needs
// against what the run's context provides and skips with the reason - without calling the
// unit - when one is not met; otherwise calls it; turns anything thrown into an error outcome
// for that unit alone; times it and seals the result (unit id, final outcome).
//
// The layer that owns a kind (checks/runner.h, bench/runner.h) supplies the context's answer
// for each need and the call that makes and runs its unit.
#ifndef YARDSTICK_CORE_UNIT_RUNNER_H_
#define YARDSTICK_CORE_UNIT_RUNNER_H_

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "core/registry.h"
#include "core/status.h"

namespace ys {

// The context's answer for one need: Ok when met; otherwise why not. An invalid-input status
// (a recording that does not parse) makes the unit's outcome error with it; any other is a skip
// whose reason is the status's message, as users read it ("NVML not found: ...").
using NeedProbe = std::function<Status(Need)>;

struct UnitGate {
  NeedProbe provides;
  bool allow_disruptive = false;  // the operator asked for disruptive units
};

// Why `info` may not run under `gate`, or nullopt: the disruptive refusal first, then the first
// unmet need in declared order.
std::optional<Status> RefusalOf(const UnitInfo& info, const UnitGate& gate);

// The error outcome's status for an exception that escaped a unit.
Status EscapedException(const std::exception* e);

// Runs one unit: `call` makes the unit and runs it (it is not called when the gate refuses).
// R is CheckResult or a type derived from it (Skip, Error, Seal, duration_ms).
template <typename R>
R RunUnit(const UnitInfo& info, const UnitGate& gate, const std::function<R()>& call) {
  auto t0 = std::chrono::steady_clock::now();
  R r;
  try {
    if (std::optional<Status> refused = RefusalOf(info, gate)) {
      r = refused->code() == StatusCode::kInvalidInput ? R::Error(*refused)
                                                       : R::Skip(refused->message());
    } else {
      r = call();
    }
  } catch (const std::exception& e) {
    r = R::Error(EscapedException(&e));
  } catch (...) {
    r = R::Error(EscapedException(nullptr));
  }
  r.Seal(info.id);
  r.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace ys

#endif  // YARDSTICK_CORE_UNIT_RUNNER_H_
