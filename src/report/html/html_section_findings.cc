// What to fix: the diagnosis ranked by expected recovery (largest first), then every finding of
// every unit with its fix, fails before warnings.
#include <fmt/format.h>

#include <algorithm>

#include "core/verdict.h"
#include "report/diagnosis_console.h"
#include "report/html/html_section.h"
#include "report/html/html_text.h"

namespace ys::report::html {
namespace {

struct PlacedFinding {
  std::string where;  // "node7: cpu.mitigations" or "cpu.mitigations"
  const Finding* f;
};

void Collect(const std::string& node, const CheckResult& r, std::vector<PlacedFinding>& out) {
  for (const Finding& f : r.findings) {
    out.push_back({(node.empty() ? "" : node + ": ") + r.unit_id, &f});
  }
}

std::string DiagnosisTable(const std::vector<Diagnosis>& ranked) {
  std::string t =
      "<table class=\"diagnosis\"><tr><th>#</th><th>expected recovery</th><th>confidence</th>"
      "<th>layer / rule</th><th>entity</th><th>cause</th><th>fix</th><th>basis</th></tr>\n";
  int i = 0;
  for (const Diagnosis& d : ranked) {
    std::string evidence;
    for (const auto& [k, v] : d.evidence) evidence += "<li>" + EscapeHtml(k + " = " + v) + "</li>";
    t += "<tr><td>" + std::to_string(++i) + "</td><td class=\"num\">" +
         EscapeHtml(FormatRecovery(d.recovery)) + "</td><td>" +
         EscapeHtml(ConfidenceName(d.confidence)) + "</td><td>" + EscapeHtml(d.layer) +
         "<br><code>" + EscapeHtml(d.rule) + "</code></td><td>" + EscapeHtml(d.entity) +
         "</td><td>" + EscapeHtml(d.cause) +
         (evidence.empty()
              ? ""
              : "<details><summary>evidence</summary><ul>" + evidence + "</ul></details>") +
         "</td><td><code>" + EscapeHtml(d.fix) + "</code></td><td>" + EscapeHtml(d.recovery.basis) +
         (d.recovery.estimate.empty() ? ""
                                      : "<br><em>" + EscapeHtml(d.recovery.estimate) + "</em>") +
         "</td></tr>\n";
  }
  return t + "</table>\n";
}

}  // namespace

HtmlSection FindingsSection(const ReportInput& in) {
  HtmlSection s{.id = "findings", .title = "Diagnosis and findings"};
  s.body = "<h3>Diagnosis, ranked by expected recovery</h3>\n";
  if (!in.diagnosis.empty()) {
    s.body += DiagnosisTable(in.diagnosis);
  } else if (in.run && !in.run->diagnosis_ran && !in.validation) {
    s.body += EmptyNote("Diagnosis did not run for this document (yardstick diagnose does).");
  } else {
    s.body += EmptyNote("No cause found.");
  }
  std::vector<PlacedFinding> findings;
  if (in.run) {
    for (const CheckResult& c : in.run->checks) Collect("", c, findings);
    for (const BenchmarkResult& b : in.run->benchmarks) Collect("", b, findings);
    for (const NodeReport& n : in.run->nodes) {
      for (const CheckResult& c : n.checks) Collect(n.hostname, c, findings);
      for (const BenchmarkResult& b : n.benchmarks) Collect(n.hostname, b, findings);
    }
  }
  std::stable_sort(
      findings.begin(), findings.end(),
      [](const PlacedFinding& a, const PlacedFinding& b) { return a.f->severity > b.f->severity; });
  s.body += "<h3>Findings</h3>\n";
  if (findings.empty()) {
    // Not "every check passed": a unit that could not evaluate has no finding either.
    s.body += EmptyNote(
        in.run ? "No findings; the run's verdict: " + VerdictStateLabel(JudgeRun(*in.run).state) +
                     ": " + JudgeRun(*in.run).reason
               : "No run document: findings come from checks and benchmarks.");
    return s;
  }
  s.body +=
      "<table class=\"findings\"><tr><th>severity</th><th>code</th><th>unit</th>"
      "<th>entity</th><th>message</th><th>fix</th><th>expected recovery</th></tr>\n";
  for (const PlacedFinding& p : findings) {
    const Finding& f = *p.f;
    s.body += "<tr class=\"" + std::string(SeverityName(f.severity)) + "\"><td>" +
              EscapeHtml(SeverityName(f.severity)) + "</td><td>" + EscapeHtml(f.code) +
              "</td><td>" + EscapeHtml(p.where) + "</td><td>" + EscapeHtml(f.entity) + "</td><td>" +
              EscapeHtml(f.message) + "</td><td><code>" + EscapeHtml(f.fix) + "</code></td><td>" +
              EscapeHtml(f.expected_recovery) + "</td></tr>\n";
  }
  s.body += "</table>\n";
  return s;
}

}  // namespace ys::report::html
