// The finding codes: one table, plus the codes a unit declares with its registration. Every
// Finding a unit emits must use a known code; the runner turns an unknown code into an error. Codes
// are stable: never renumber, only add. Severity here is the default; a site policy may raise or
// lower it.
#ifndef YARDSTICK_CORE_FINDING_CODES_H_
#define YARDSTICK_CORE_FINDING_CODES_H_

#include <span>
#include <string_view>

#include "core/run_document.h"

namespace ys {

struct FindingCodeInfo {
  std::string_view code;
  Severity severity;
  std::string_view title;  // what is wrong, in a few words
};

// The table's codes followed by those units declare with their registration (UnitInfo::codes);
// complete once static initialisation is over.
std::span<const FindingCodeInfo> AllFindingCodes();
const FindingCodeInfo* LookupFindingCode(std::string_view code);
// Whether the code is in the central table (the registry refuses a unit that declares it again).
bool IsTableFindingCode(std::string_view code);

// A Finding with the code's default severity. The caller fills entity, message, evidence, fix.
Finding MakeFinding(std::string_view code, std::string entity, std::string message);

}  // namespace ys

#endif  // YARDSTICK_CORE_FINDING_CODES_H_
