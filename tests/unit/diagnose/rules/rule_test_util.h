// Helpers for diagnosis-rule tests: a run document holding given findings and measurements, and
// one rule evaluated over it. A rule's silent test is a near miss: the same document with the
// cause fixed (the finding gone, the share small), never an empty one.
#ifndef YARDSTICK_TESTS_UNIT_DIAGNOSE_RULES_RULE_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_DIAGNOSE_RULES_RULE_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "diagnose/rule.h"

namespace ys::testing {

// A preflight document of host "node1" whose unit `unit_id` carries `findings` (none: it passed).
RunDocument DocWithFindings(std::vector<Finding> findings,
                            std::string unit_id = "check.under_test");
// A finding of `code` as a check would make it (severity from the code table).
Finding MakeTestFinding(std::string_view code, std::string entity, std::string message,
                        Evidence evidence = {});
// Evaluates rule `id` (registered) over `in`; fails the test when the rule is not registered.
std::vector<Diagnosis> EvaluateRule(std::string_view id, const diagnose::DiagnosisInput& in);
// A new instance of the registered rule `id` (a test failure and nullptr when there is none).
std::unique_ptr<diagnose::Rule> MakeRule(std::string_view id);
diagnose::DiagnosisInput InputFor(const RunDocument& doc);
// A workload whose step times are `steps` (analysed as the engine does).
diagnose::WorkloadEvidence WorkloadWithSteps(std::string id, std::vector<double> steps);
// n steps of `median` s with +`spike` s every `period` steps (period 0: none).
std::vector<double> Steps(int n, double median, double spike = 0, int period = 0);

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_DIAGNOSE_RULES_RULE_TEST_UTIL_H_
