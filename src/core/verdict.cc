#include "core/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/exit_codes.h"
#include "core/text.h"

namespace ys {
namespace {

// "a, b and 3 more"
std::string Names(const std::vector<const CheckResult*>& units) {
  constexpr size_t kShown = 3;
  std::string s;
  for (size_t i = 0; i < units.size() && i < kShown; ++i) {
    s += (i == 0 ? "" : ", ") + units[i]->unit_id;
  }
  if (units.size() > kShown) s += fmt::format(" and {} more", units.size() - kShown);
  return s;
}

std::string Plural(size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The first finding's message, or the unit's summary: why the first of `units` is what it is.
std::string FirstWhy(const std::vector<const CheckResult*>& units) {
  const CheckResult& u = *units.front();
  std::string why = u.findings.empty() ? u.summary : u.findings.front().message;
  return why.empty() ? std::string() : " (" + u.unit_id + ": " + why + ")";
}

// The note a PASS carries when a unit found no GPU to judge.
std::string NoGpuNote(const RunDocument& doc) {
  for (const CheckResult* u : doc.AllUnits()) {
    for (const auto& [k, v] : u->evidence) {
      if (k == kNoGpuEvidence) return "; no GPU to judge: " + v;
    }
  }
  return "";
}

}  // namespace

const char* VerdictStateName(VerdictState s) {
  switch (s) {
    case VerdictState::kPass:
      return "pass";
    case VerdictState::kWarn:
      return "warn";
    case VerdictState::kInconclusive:
      return "inconclusive";
    case VerdictState::kFail:
      return "fail";
  }
  return "fail";
}

std::string VerdictStateLabel(VerdictState s) {
  std::string name = VerdictStateName(s);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string FormatRecovery(const Recovery& r) {
  if (r.low == 0 && r.high == 0) return "not quantified";
  if (!r.estimate.empty()) {
    if (r.low == r.high) return fmt::format("~+{}% (estimate)", TwoSignificant(100 * r.low));
    return fmt::format("~+{}% to +{}% (estimate)", TwoSignificant(100 * r.low),
                       TwoSignificant(100 * r.high));
  }
  if (r.low == r.high) return fmt::format("+{:.1f}%", 100 * r.low);
  return fmt::format("+{:.1f}% to +{:.1f}%", 100 * r.low, 100 * r.high);
}

bool IsMaterial(const Diagnosis& d) {
  return d.recovery.low >= kMaterialRecovery && d.confidence >= Confidence::kMedium;
}

RunVerdict JudgeRun(const RunDocument& doc) {
  std::vector<const CheckResult*> failed, errored, warned;
  size_t skipped = 0, total = 0;
  for (const CheckResult* u : doc.AllUnits()) {
    ++total;
    if (u->outcome == Outcome::kFail) failed.push_back(u);
    if (u->outcome == Outcome::kError) errored.push_back(u);
    if (u->outcome == Outcome::kWarn) warned.push_back(u);
    if (u->outcome == Outcome::kSkip) ++skipped;
  }
  if (!failed.empty()) {
    return {VerdictState::kFail, Plural(failed.size(), "unit failed", "units failed") + ": " +
                                     Names(failed) + FirstWhy(failed)};
  }
  // A section that fails acceptance whatever the units say (a burn-in's faults, whatever their
  // severity: a temperature swing is a fault).
  if (doc.burnin) {
    if (std::optional<std::string> why = doc.burnin->FailReason())
      return {VerdictState::kFail, std::move(*why)};
  }
  if (doc.incomplete) {
    return {VerdictState::kInconclusive,
            "the run is incomplete: " + (doc.incomplete_reason.empty()
                                             ? std::string("no reason recorded")
                                             : doc.incomplete_reason)};
  }
  if (!errored.empty()) {
    return {VerdictState::kInconclusive, Plural(errored.size(), "unit", "units") +
                                             " could not evaluate: " + Names(errored) +
                                             FirstWhy(errored)};
  }
  if (!warned.empty()) {
    return {VerdictState::kWarn, Plural(warned.size(), "unit warned", "units warned") + ": " +
                                     Names(warned) + FirstWhy(warned) + NoGpuNote(doc)};
  }
  for (const Diagnosis& d : doc.diagnosis) {
    if (!IsMaterial(d)) continue;
    return {VerdictState::kWarn, fmt::format("diagnosis: {} on {} (expected recovery {})", d.cause,
                                             d.entity, FormatRecovery(d.recovery)) +
                                     NoGpuNote(doc)};
  }
  // A pass needs something judged: no unit, or only skipped ones, is too little evidence.
  if (total == 0) return {VerdictState::kInconclusive, "no unit ran: nothing was judged"};
  if (skipped == total) {
    std::vector<const CheckResult*> skips;
    for (const CheckResult* u : doc.AllUnits()) skips.push_back(u);
    return {VerdictState::kInconclusive, Plural(total, "unit", "units") + " skipped, none judged" +
                                             FirstWhy(skips) + NoGpuNote(doc)};
  }
  std::string reason = skipped == 0 ? "every unit passed"
                                    : fmt::format("{} passed, {} skipped (not applicable here)",
                                                  total - skipped, skipped);
  return {VerdictState::kPass, reason + NoGpuNote(doc)};
}

int ExitCodeOf(VerdictState s) {
  switch (s) {
    case VerdictState::kPass:
    case VerdictState::kWarn:
      return kExitPass;
    case VerdictState::kFail:
      return kExitFail;
    case VerdictState::kInconclusive:
      return kExitInconclusive;
  }
  return kExitFail;
}

}  // namespace ys
