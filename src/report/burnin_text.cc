#include "report/burnin_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace ys::report {

std::string FormatLoadTime(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  auto total = static_cast<int64_t>(std::llround(seconds));
  return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
}

namespace {
// Hours as operators read them: one decimal from an hour up, three significant digits below.
std::string Hours(double h) { return h >= 1 ? fmt::format("{:.1f}", h) : fmt::format("{:.3g}", h); }
}  // namespace

std::string MtbfText(const BurninReport& r) {
  if (!r.mtbf_h || r.faults.empty()) {
    return fmt::format("no fault in {} entity-hours (no MTBF without a fault)",
                       Hours(r.entity_hours));
  }
  return fmt::format("MTBF {} h ({} entity-hours, {} fault{})", Hours(*r.mtbf_h),
                     Hours(r.entity_hours), r.faults.size(), r.faults.size() == 1 ? "" : "s");
}

std::string FormatAvailability(double availability) {
  if (!std::isfinite(availability)) return "-";
  return fmt::format("{:.2f}%", availability * 100);
}

std::optional<double> PercentOfBaseline(const BurninEntity& e, std::optional<double> value) {
  if (!value || !e.perf_baseline || !(*e.perf_baseline > 0)) return std::nullopt;
  return *value / *e.perf_baseline * 100;
}

std::string LoadTimeText(const BurninReport& r) {
  return fmt::format("{} of {} ({})", FormatLoadTime(r.elapsed_s), FormatLoadTime(r.duration_s),
                     r.complete ? "complete" : "incomplete");
}

namespace {

// The loaded entities whose drift could not be judged (their baseline too short), "cpu0@vm".
std::vector<std::string> DriftUnjudged(const BurninReport& r) {
  std::vector<std::string> out;
  for (const BurninEntity& e : r.entities)
    if (e.drift_judged == false) out.push_back(e.entity + "@" + e.node);
  return out;
}

// "a, b, c and 2 more"
std::string NamedEntities(const std::vector<std::string>& names) {
  constexpr size_t kNamed = 8;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kNamed; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > kNamed) s += fmt::format(" and {} more", names.size() - kNamed);
  return s;
}

}  // namespace

BurninVerdict VerdictOf(const BurninReport& r) {
  BurninVerdict v;
  int fails = 0;
  std::set<std::pair<std::string, std::string>> faulty;
  for (const BurninFault& f : r.faults) {
    fails += f.severity == Severity::kFail;
    faulty.insert({f.node, f.entity});
  }
  const int warns = static_cast<int>(r.faults.size()) - fails;
  const std::vector<std::string> unjudged = DriftUnjudged(r);
  v.outcome = fails > 0 ? Outcome::kFail : warns > 0 ? Outcome::kWarn : Outcome::kPass;
  v.state = !r.faults.empty()                  ? VerdictState::kFail
            : !r.complete || !unjudged.empty() ? VerdictState::kInconclusive
                                               : VerdictState::kPass;
  const std::string label = VerdictStateLabel(v.state);
  if (r.faults.empty()) {
    v.text = fmt::format("{}: no fault on {} entit{} in {} of load", label, r.entities.size(),
                         r.entities.size() == 1 ? "y" : "ies", FormatLoadTime(r.elapsed_s));
  } else {
    v.text = fmt::format("{}: {} fault{} ({} fail, {} warn) on {} of {} entit{}", label,
                         r.faults.size(), r.faults.size() == 1 ? "" : "s", fails, warns,
                         faulty.size(), r.entities.size(), r.entities.size() == 1 ? "y" : "ies");
  }
  std::vector<std::string> unstable;
  for (const BurninEntity& e : r.entities) {
    std::string name = e.entity + "@" + e.node;
    if (!e.stable && std::find(unstable.begin(), unstable.end(), name) == unstable.end()) {
      unstable.push_back(name);
    }
  }
  if (!unstable.empty()) v.text += "; unstable: " + NamedEntities(unstable);
  if (r.faults.empty() && !unjudged.empty()) {
    v.text += "; drift not judged on " + NamedEntities(unjudged) +
              ": their baseline was too short (run longer)";
  }
  if (!r.complete) {
    v.text += fmt::format("; incomplete: {} of {} of load", FormatLoadTime(r.elapsed_s),
                          FormatLoadTime(r.duration_s));
  }
  if (!r.planted.empty()) v.text += "; planted faults: a test run";
  return v;
}

}  // namespace ys::report
