#include "core/report.h"

#include <algorithm>
#include <cmath>

namespace ys {

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass: return "pass";
    case Outcome::kSkip: return "skip";
    case Outcome::kWarn: return "warn";
    case Outcome::kFail: return "fail";
    case Outcome::kError: return "error";
  }
  return "error";
}

std::optional<Outcome> ParseOutcome(std::string_view name) {
  for (Outcome o : {Outcome::kPass, Outcome::kSkip, Outcome::kWarn, Outcome::kFail,
                    Outcome::kError}) {
    if (name == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

const char* SeverityName(Severity s) { return s == Severity::kFail ? "fail" : "warn"; }

CheckResult CheckResult::Skip(std::string reason) {
  CheckResult r;
  r.outcome = Outcome::kSkip;
  r.summary = std::move(reason);
  return r;
}

CheckResult CheckResult::Error(const Status& status) {
  CheckResult r;
  r.outcome = Outcome::kError;
  r.summary = status.message();
  return r;
}

void CheckResult::Finalize() {
  if (outcome == Outcome::kSkip || outcome == Outcome::kError) return;
  outcome = Outcome::kPass;
  for (const Finding& f : findings) {
    Outcome o = f.severity == Severity::kFail ? Outcome::kFail : Outcome::kWarn;
    outcome = std::max(outcome, o);
  }
}

SampleStats ComputeStats(std::vector<double> s) {
  SampleStats st;
  st.n = static_cast<int64_t>(s.size());
  if (s.empty()) return st;
  std::sort(s.begin(), s.end());
  st.min = s.front();
  st.max = s.back();
  size_t n = s.size();
  st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
  double sum = 0;
  for (double v : s) sum += v;
  st.mean = sum / static_cast<double>(n);
  if (n > 1) {
    double sq = 0;
    for (double v : s) sq += (v - st.mean) * (v - st.mean);
    st.stdev = std::sqrt(sq / static_cast<double>(n - 1));
  }
  return st;
}

Outcome RunDocument::Verdict() const {
  Outcome worst = Outcome::kPass;
  for (const auto& c : checks) {
    // A skipped unit does not make the verdict worse than pass.
    if (c.outcome != Outcome::kSkip) worst = std::max(worst, c.outcome);
  }
  return worst;
}

std::map<Outcome, int> RunDocument::Counts() const {
  std::map<Outcome, int> counts;
  for (const auto& c : checks) counts[c.outcome]++;
  return counts;
}

}  // namespace ys
