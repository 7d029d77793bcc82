// The burn-in report as the run document's "burnin" section (core/run_section.h): the run
// document holds it without knowing its type; this file puts a report there, finds it again,
// and says why its faults fail the run. Registered for the key "burnin" at start-up, so that
// every program that links this library reads the section back and describes it in
// schemas/run.schema.json ($defs/burnin_report).
#ifndef YARDSTICK_BURNIN_REPORT_BURNIN_SECTION_H_
#define YARDSTICK_BURNIN_REPORT_BURNIN_SECTION_H_

#include <optional>
#include <string>

#include "burnin_report/burnin_report.h"
#include "core/run_document.h"
#include "core/run_section.h"

namespace ys {

class BurninRunSection : public RunSection {
 public:
  explicit BurninRunSection(BurninReport report) : report_(std::move(report)) {}
  const BurninReport& report() const { return report_; }

  nlohmann::ordered_json ToJson() const override;
  // A fault, whatever its severity, fails acceptance: "burn-in: 2 faults (first: gpu2 on node7:
  // <its message>)"; unset without one.
  std::optional<std::string> FailReason() const override;

 private:
  BurninReport report_;
};

// The document's burn-in report; null when it has none.
const BurninReport* BurninOf(const RunDocument& doc);
// Makes `report` the document's burn-in section (replacing any).
void SetBurnin(RunDocument& doc, BurninReport report);

}  // namespace ys

#endif  // YARDSTICK_BURNIN_REPORT_BURNIN_SECTION_H_
