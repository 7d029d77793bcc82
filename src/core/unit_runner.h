// The one runner of units. For every kind whose units produce a result (checks, benchmarks):
// refuses a disruptive unit unless the run asked for those, weighs the unit's declared needs
// against what the run's context provides and skips with the reason - without calling the
// unit - when one is not met; otherwise calls it; turns anything thrown into an error outcome
// for that unit alone; times it and seals the result (unit id, final outcome).
//
// The layer that owns a kind (checks/runner.h, bench/runner.h) supplies the context's answer
// for each need and the call that makes and runs its unit; diagnosis rules (diagnose/engine.cc),
// whose output is not a result of their own, run under the same guard (GuardUnit).
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

// What stopped a unit before the end of its body: the gate's refusal, or an exception.
struct UnitStop {
  Status status;  // the refusal; for an exception, EscapedException's status
  bool refused = false;
  // An escaped exception's own text: e.what() of a std::exception, empty for anything else.
  std::string thrown;
  bool thrown_std = false;
};

// The runner's rules around one unit's body, for every kind (diagnosis rules call it directly,
// RunUnit builds on it): the gate first (`refused`, when given, hears the refusal, inside the
// same guard), then `body`; anything thrown is caught. nullopt when `body` ran to its end.
std::optional<UnitStop> GuardUnit(const UnitInfo& info, const UnitGate& gate,
                                  const std::function<void()>& body,
                                  const std::function<void(const Status&)>& refused = nullptr);

// A unit's own answer to an unmet need (gpu.driver: NVML refusing to start on a driver/library
// mismatch is its finding), or nullopt for the runner's skip or error.
template <typename R>
using OnUnmetNeed = std::function<std::optional<R>(const Status& why)>;

// Runs one unit: `call` makes the unit and runs it (it is not called when the gate refuses;
// `unmet`, when given, is asked first then). R is CheckResult or a type derived from it (Skip,
// Error, Seal, duration_ms).
template <typename R>
R RunUnit(const UnitInfo& info, const UnitGate& gate, const std::function<R()>& call,
          const OnUnmetNeed<R>& unmet = nullptr) {
  auto t0 = std::chrono::steady_clock::now();
  R r;
  bool answered = false;  // the unit answered its unmet need itself
  std::optional<UnitStop> stop = GuardUnit(
      info, gate, [&] { r = call(); },
      [&](const Status& why) {
        if (!unmet) return;
        if (std::optional<R> own = unmet(why)) {
          r = std::move(*own);
          answered = true;
        }
      });
  if (stop && !answered) {
    r = stop->refused && stop->status.code() != StatusCode::kInvalidInput
            ? R::Skip(stop->status.message())
            : R::Error(stop->status);
  }
  r.Seal(info.id);
  r.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace ys

#endif  // YARDSTICK_CORE_UNIT_RUNNER_H_
