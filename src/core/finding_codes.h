// The finding codes. Each is declared where it is born: a unit (check, benchmark) lists the codes
// it can raise, with their default severity and title, in its registration (UnitInfo::codes,
// core/registry.h); a producer of findings that is not a unit (burn-in, a tool run of `validate`,
// fleet merging) declares its codes in the file that raises them with YS_FINDING_CODES. This file
// gathers the declarations into the catalogue that `MakeFinding`, the runner and
// `yardstick list --codes` read. Every Finding must use a declared code; the runner turns an
// unknown code into an error. Several units may raise one code (the collectives share theirs):
// each declares it, with the same severity and title (tests/unit/core/finding_codes_test.cc fails
// otherwise, and when a unit raises a code it does not declare). Codes are stable: never
// renumber, only add. Severity here is the default; a site policy may raise or lower it.
#ifndef YARDSTICK_CORE_FINDING_CODES_H_
#define YARDSTICK_CORE_FINDING_CODES_H_

#include <string_view>
#include <vector>

#include "core/run_document.h"

namespace ys {

struct FindingCodeInfo {
  std::string_view code;
  Severity severity;
  std::string_view title;  // what is wrong, in a few words
};

// One declaration: the unit id or producer name that declares the code, and the file it is
// declared in (relative to the repository: "src/checks/cpu/smt.cc"; empty when unknown).
struct FindingCodeDeclaration {
  std::string_view by;
  std::string_view file;
  FindingCodeInfo info;
};

// Declares the codes a producer that is not a unit raises (see YS_FINDING_CODES). Returns true
// so that it can initialise a namespace-scope bool.
bool DeclareFindingCodes(std::string_view producer, std::string_view file,
                         std::vector<FindingCodeInfo> codes);

// Every declaration, the units' (in unit id order) then the other producers' (in producer
// order); complete once static initialisation is over.
std::vector<FindingCodeDeclaration> FindingCodeDeclarations();
// Each declared code once (its first declaration), in code order.
const std::vector<FindingCodeInfo>& AllFindingCodes();
const FindingCodeInfo* LookupFindingCode(std::string_view code);

// A Finding with the code's default severity. The caller fills entity, message, evidence, fix.
Finding MakeFinding(std::string_view code, std::string entity, std::string message);

// "/build/x/src/checks/cpu/smt.cc" -> "src/checks/cpu/smt.cc": a source path from __FILE__,
// relative to the repository (unchanged when it holds no "src/" or "tests/" folder).
std::string_view RepositoryPath(std::string_view file);

}  // namespace ys

#define YS_FC_CONCAT_INNER_(a, b) a##b
#define YS_FC_CONCAT_(a, b) YS_FC_CONCAT_INNER_(a, b)

// Declares, in the file that raises them, the finding codes of a producer that is not a unit:
//   YS_FINDING_CODES("burnin", {{"YS-BURN-001", Severity::kFail, "burn-in result differs ..."}})
#define YS_FINDING_CODES(producer, ...)                                          \
  namespace {                                                                    \
  [[maybe_unused]] const bool YS_FC_CONCAT_(ys_finding_codes_, __COUNTER__) =    \
      ::ys::DeclareFindingCodes(producer, __FILE__,                              \
                                std::vector<::ys::FindingCodeInfo> __VA_ARGS__); \
  }

#endif  // YARDSTICK_CORE_FINDING_CODES_H_
