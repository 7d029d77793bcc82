#include "diagnose/rules/rule_test_util.h"

#include <gtest/gtest.h>

#include "core/finding_codes.h"

namespace ys::testing {

RunDocument DocWithFindings(std::vector<Finding> findings, std::string unit_id) {
  RunDocument doc;
  doc.command = "preflight";
  doc.host.hostname = "node1";
  CheckResult r;
  r.unit_id = std::move(unit_id);
  r.findings = std::move(findings);
  r.Finalize();
  doc.checks.push_back(std::move(r));
  return doc;
}

Finding MakeTestFinding(std::string_view code, std::string entity, std::string message,
                        Evidence evidence) {
  Finding f = MakeFinding(code, std::move(entity), std::move(message));
  f.evidence = std::move(evidence);
  f.fix = "the check's fix for " + std::string(code);
  return f;
}

std::vector<Diagnosis> EvaluateRule(std::string_view id, const diagnose::DiagnosisInput& in) {
  std::unique_ptr<diagnose::Rule> rule = MakeRule(id);
  if (rule == nullptr) return {};
  return rule->Evaluate(in);
}

std::unique_ptr<diagnose::Rule> MakeRule(std::string_view id) {
  const RegisteredUnit* r = UnitRegistry::Global().Find(UnitKind::kRule, id);
  EXPECT_NE(r, nullptr) << "rule " << id << " is not registered";
  if (r == nullptr) return nullptr;
  std::unique_ptr<Unit> made = r->factory();
  if (dynamic_cast<diagnose::Rule*>(made.get()) == nullptr) return nullptr;
  return std::unique_ptr<diagnose::Rule>(static_cast<diagnose::Rule*>(made.release()));
}

diagnose::DiagnosisInput InputFor(const RunDocument& doc) {
  diagnose::DiagnosisInput in;
  in.run = &doc;
  in.data_dir = YS_SOURCE_DIR;
  return in;
}

diagnose::WorkloadEvidence WorkloadWithSteps(std::string id, std::vector<double> steps) {
  diagnose::WorkloadEvidence w;
  w.id = std::move(id);
  w.source = "test";
  for (double s : steps) w.steps.push_back({s, std::nullopt});
  auto a = workloads::AnalyzeStepTimes(w.steps);
  EXPECT_TRUE(a.ok()) << a.status().message();
  if (a.ok()) w.analysis = *a;
  return w;
}

std::vector<double> Steps(int n, double median, double spike, int period) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    // A little deterministic jitter (+-0.2%) so that the spread is not zero.
    double jitter = median * 0.002 * ((i * 7) % 5 - 2) / 2;
    out.push_back(median + jitter + (period > 0 && i % period == period - 1 ? spike : 0));
  }
  return out;
}

}  // namespace ys::testing
