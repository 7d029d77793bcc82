// The conclusions a job draws on rank 0 from its whole document (job.h Conclusion), each
// attached the same way: after everything is gathered, before the document is saved complete.
#ifndef YARDSTICK_JOB_CONCLUSIONS_H_
#define YARDSTICK_JOB_CONCLUSIONS_H_

#include <string>

#include "job/job.h"

namespace ys::job {

// The nodes of the run compared with each other (fleet/findings.h): a slow node or device is
// named in the check fleet.outliers. The job draws it when the run spans several nodes.
Conclusion FleetOutliersConclusion();

// What the run's evidence says about causes (docs/design.md §diagnosis): the ranked diagnoses,
// kept in the document; a diagnosis that cannot run is a warning. `data_dir` holds specs/.
Conclusion DiagnosisConclusion(std::string data_dir);

}  // namespace ys::job

#endif  // YARDSTICK_JOB_CONCLUSIONS_H_
