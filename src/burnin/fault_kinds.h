// The burn-in's fault kinds and cumulative counters: which finding code a kind carries, what an
// operator does about it, and how each counter of EntitySample::counters (observation.h) is
// judged when it rises.
//
// Sticky faults (a miscompare, an uncorrectable ECC error, an XID, a fatal PCIe error) leave the
// part suspect until it is repaired: it stays unavailable from the fault to the end of the
// burn-in. Point faults (a corrected error) are events without a duration.
#ifndef YARDSTICK_BURNIN_FAULT_KINDS_H_
#define YARDSTICK_BURNIN_FAULT_KINDS_H_

#include <string_view>

#include "core/run_document.h"

namespace ys::burnin {

struct FaultKindInfo {
  std::string_view kind;  // BurninFault::kind
  std::string_view code;  // YS-BURN-0xx
  std::string_view fix;   // what the operator does
};
// The kind's entry; nullptr for a kind not in the table.
const FaultKindInfo* LookupFaultKind(std::string_view kind);

struct CounterInfo {
  std::string_view counter;  // "ecc_uncorrected"
  std::string_view kind;     // "ecc"
  Severity severity;
  bool sticky;
  std::string_view what;  // "uncorrectable ECC errors (volatile)"
};
// The counter's entry; nullptr for a name the analyser does not know (ignored, with a note).
const CounterInfo* LookupCounter(std::string_view counter);

}  // namespace ys::burnin

#endif  // YARDSTICK_BURNIN_FAULT_KINDS_H_
