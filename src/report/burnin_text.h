// Text shared by the burn-in's console summary (burnin_console.h) and the HTML report's Burn-in
// section: load times, MTBF, availability, a rate against its baseline, and the verdict line, so
// that the two say the same thing in the same words.
#ifndef YARDSTICK_REPORT_BURNIN_TEXT_H_
#define YARDSTICK_REPORT_BURNIN_TEXT_H_

#include <optional>
#include <string>

#include "burnin_report/burnin_report.h"
#include "core/run_document.h"
#include "core/verdict.h"

namespace ys::report {

// Load time (or any span of seconds) as "h:mm:ss", hours unbounded ("72:00:00"); "-" for a
// negative or non-finite value.
std::string FormatLoadTime(double seconds);

// "MTBF 12.3 h (246.0 entity-hours, 20 faults)" or
// "no fault in 246.0 entity-hours (no MTBF without a fault)".
std::string MtbfText(const BurninReport& r);

// Availability (0..1) as "99.95%": two decimals, since the interesting figures are near 100.
std::string FormatAvailability(double availability);

// value ÷ the entity's baseline × 100; unset without a value or a baseline > 0.
std::optional<double> PercentOfBaseline(const BurninEntity& e, std::optional<double> value);

// "1:00:00 of 72:00:00 (incomplete)" / "72:00:00 of 72:00:00 (complete)".
std::string LoadTimeText(const BurninReport& r);

// The burn-in's verdict, the one the run's verdict and exit code give (core/verdict.h): FAIL on
// any fault (a warn-severity one too: acceptance fails on a temperature swing); INCONCLUSIVE
// without a fault when the burn-in did not finish or a loaded entity's drift could not be
// judged (its baseline too short); PASS otherwise. `outcome` is the faults' worst severity (pass
// without one), which the unit's outcome carries.
struct BurninVerdict {
  VerdictState state = VerdictState::kPass;
  Outcome outcome = Outcome::kPass;
  // "FAIL: 2 faults (1 fail, 1 warn) on 2 of 5 entities; unstable: gpu2@node1, cpu3@node1"
  std::string text;
};
BurninVerdict VerdictOf(const BurninReport& r);

inline constexpr char kPlantedWarning[] =
    "faults were planted by a recorded timeline: this is a test run";

}  // namespace ys::report

#endif  // YARDSTICK_REPORT_BURNIN_TEXT_H_
