#include "core/run_document.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "core/build_info.h"
#include "core/finding_codes.h"
#include "core/text.h"

namespace ys {

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kSkip:
      return "skip";
    case Outcome::kWarn:
      return "warn";
    case Outcome::kFail:
      return "fail";
    case Outcome::kError:
      return "error";
  }
  return "error";
}

std::optional<Outcome> ParseOutcome(std::string_view name) {
  for (Outcome o :
       {Outcome::kPass, Outcome::kSkip, Outcome::kWarn, Outcome::kFail, Outcome::kError}) {
    if (name == OutcomeName(o)) return o;
  }
  return std::nullopt;
}

const char* ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kLow:
      return "low";
    case Confidence::kMedium:
      return "medium";
    case Confidence::kHigh:
      return "high";
  }
  return "low";
}

std::optional<Confidence> ParseConfidence(std::string_view name) {
  for (Confidence c : {Confidence::kLow, Confidence::kMedium, Confidence::kHigh}) {
    if (name == ConfidenceName(c)) return c;
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

void CheckResult::Seal(std::string_view id) {
  unit_id = std::string(id);
  std::string bad_code;
  for (const auto& f : findings) {
    if (LookupFindingCode(f.code) == nullptr) {
      bad_code = f.code;
      break;
    }
  }
  if (!bad_code.empty()) {
    outcome = Outcome::kError;
    summary = "internal error: finding code " + bad_code + " is not declared";
    findings.clear();
  }
  // Messages may quote bytes of a malformed host file: keep the report printable and valid JSON.
  summary = SanitizeForDisplay(summary);
  if (summary.size() > 400) summary = summary.substr(0, 400) + "... (cut)";
  for (auto& [k, v] : evidence) v = SanitizeForDisplay(v);
  for (auto& f : findings) {
    f.message = SanitizeForDisplay(f.message);
    for (auto& [k, v] : f.evidence) v = SanitizeForDisplay(v);
  }
  Finalize();
}

BenchmarkResult BenchmarkResult::Skip(std::string reason) {
  BenchmarkResult r;
  static_cast<CheckResult&>(r) = CheckResult::Skip(std::move(reason));
  return r;
}

BenchmarkResult BenchmarkResult::Error(const Status& status) {
  BenchmarkResult r;
  static_cast<CheckResult&>(r) = CheckResult::Error(status);
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

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

std::vector<const CheckResult*> RunDocument::AllUnits() const {
  std::vector<const CheckResult*> units;
  for (const auto& c : checks) units.push_back(&c);
  for (const auto& b : benchmarks) units.push_back(&b);
  for (const auto& n : nodes) {
    for (const auto& c : n.checks) units.push_back(&c);
    for (const auto& b : n.benchmarks) units.push_back(&b);
  }
  return units;
}

Outcome RunDocument::Verdict() const {
  Outcome worst = Outcome::kPass;
  for (const CheckResult* u : AllUnits()) {
    // A skipped unit does not make the verdict worse than pass.
    if (u->outcome != Outcome::kSkip) worst = std::max(worst, u->outcome);
  }
  return worst;
}

std::map<Outcome, int> RunDocument::Counts() const {
  std::map<Outcome, int> counts;
  for (const CheckResult* u : AllUnits()) counts[u->outcome]++;
  return counts;
}

std::string UtcNowIso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunDocument StartRunDocument(std::string command) {
  RunDocument doc;
  doc.command = std::move(command);
  doc.started_at = UtcNowIso8601();
  doc.tool.version = std::string(kVersion) + " (" + kGitDescribe + ")";
  doc.tool.build_type = kBuildType;
  doc.tool.compiler = kCompiler;
  if (std::string(kBuildType) == "Debug")
    doc.warnings.push_back("debug build: timings are not representative");
  return doc;
}

}  // namespace ys
