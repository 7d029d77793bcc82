// The banner: the run's verdict (worst unit outcome) and counts, the validation's verdict, the
// host and start time, and why the run is incomplete when it is.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/verdict.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

// The validation's state: "pass", "fail" or "inconclusive" (verdict.state; older documents say
// only verdict.pass).
std::string ValidationState(const ValidationView& v) {
  if (!v.state.empty()) return v.state;
  return v.pass.value_or(false) ? "pass" : "fail";
}

// "pass" | "warn" | "inconclusive" | "fail": the banner's colour, the worse of the run's one
// verdict (core/verdict.h, as the console and the exit code say) and the validation's.
std::string BannerClass(const ReportInput& in) {
  VerdictState worst = VerdictState::kPass;
  if (in.run) worst = JudgeRun(*in.run).state;
  if (in.validation) {
    std::string v = ValidationState(*in.validation);
    VerdictState s = v == "pass"           ? VerdictState::kPass
                     : v == "inconclusive" ? VerdictState::kInconclusive
                                           : VerdictState::kFail;
    worst = std::max(worst, s);
  }
  return VerdictStateName(worst);
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

HtmlSection VerdictSection(const ReportInput& in) {
  HtmlSection s{.id = "verdict", .title = "Verdict"};
  std::string cls = BannerClass(in);
  std::string& b = s.body;
  b += "<div class=\"banner " + cls + "\" id=\"verdict-banner\" data-verdict=\"" + cls + "\">\n";
  if (in.run) {
    const RunDocument& d = *in.run;
    std::string counts;
    for (auto [o, n] : d.Counts()) {
      if (!counts.empty()) counts += ", ";
      counts += fmt::format("{} {}", n, OutcomeName(o));
    }
    RunVerdict verdict = JudgeRun(d);
    b += "<div class=\"big\">run: " + EscapeHtml(VerdictStateLabel(verdict.state)) + "</div>\n";
    b += "<div class=\"reason\">" + EscapeHtml(verdict.reason) + "</div>\n";
    b += "<div>" + EscapeHtml(counts.empty() ? "no units ran" : counts) + "</div>\n";
    b += "<div>yardstick " + EscapeHtml(d.command) + " on <b>" + EscapeHtml(d.host.hostname) +
         "</b>" +
         (d.nodes.size() > 1
              ? EscapeHtml(fmt::format(" ({} nodes, {} ranks)", d.nodes.size(), d.ranks.size()))
              : std::string()) +
         ", started " + EscapeHtml(d.started_at) +
         EscapeHtml(fmt::format(", {:.1f} s", d.duration_ms / 1000)) + "</div>\n";
    if (d.incomplete) {
      b += "<div class=\"incomplete\">incomplete: " +
           EscapeHtml(d.incomplete_reason.empty() ? "no reason recorded" : d.incomplete_reason) +
           "</div>\n";
    }
  }
  if (in.validation) {
    const ValidationView& v = *in.validation;
    int passed = 0, phases_passed = 0;
    for (const auto& w : v.workloads) passed += w.outcome == "pass";
    for (const auto& p : v.phases) phases_passed += p.outcome == "pass";
    // A serving suite has phases and no workloads: its count is of phases.
    const bool serving = v.workloads.empty() && !v.phases.empty();
    b += "<div class=\"big\">validation: " + EscapeHtml(Upper(ValidationState(v))) + "</div>\n";
    b += "<div>" +
         EscapeHtml(fmt::format("{} suite{}: {} of {} {} above {:.0f}% of the reference; ", v.chip,
                                v.recipe_release.empty() ? "" : " (" + v.recipe_release + ")",
                                serving ? phases_passed : passed,
                                serving ? v.phases.size() : v.workloads.size(),
                                serving ? "serving phases" : "workloads",
                                v.threshold.value_or(kDefaultScoreThreshold) * 100)) +
         EscapeHtml(v.verdict) + "</div>\n";
  }
  b += "<div class=\"source\">from " + EscapeHtml(in.source) + "</div>\n";
  for (const std::string& n : in.notes) b += "<div class=\"note\">" + EscapeHtml(n) + "</div>\n";
  b += "</div>\n";
  return s;
}

}  // namespace ys::report::html
