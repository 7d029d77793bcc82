#include "job/conclusions.h"

#include <utility>

#include "diagnose/engine.h"
#include "fleet/findings.h"

namespace ys::job {

Conclusion FleetOutliersConclusion() {
  return {.name = "fleet outliers", .draw = [](RunDocument& doc) {
            CheckResult outliers = fleet::FleetOutliers(doc);
            outliers.Seal("fleet.outliers");
            doc.checks.push_back(std::move(outliers));
          }};
}

Conclusion DiagnosisConclusion(std::string data_dir) {
  return {.name = "diagnosis", .draw = [data = std::move(data_dir)](RunDocument& doc) {
            auto in = diagnose::DiagnosisInputFor(&doc, nullptr, data);
            if (!in.ok()) {
              doc.warnings.push_back("diagnosis not run: " + in.status().message());
              return;
            }
            diagnose::DiagnosisReport rep = diagnose::Diagnose(*in);
            // Rules that could not judge their evidence are listed by `yardstick diagnose`, not
            // here.
            doc.diagnosis = std::move(rep.ranked);
            doc.diagnosis_ran = true;
          }};
}

}  // namespace ys::job
