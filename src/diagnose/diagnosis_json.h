// The diagnosis document: {"diagnosis": [causes, most recovery first], "not_evaluated": ["rule:
// why", ...]}, as `yardstick diagnose --json` prints it and `yardstick validate --out` writes
// diagnosis.json. Each cause is the run document's diagnosis entry (core/run_document_json.h).
#ifndef YARDSTICK_DIAGNOSE_DIAGNOSIS_JSON_H_
#define YARDSTICK_DIAGNOSE_DIAGNOSIS_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "diagnose/engine.h"

namespace ys::diagnose {

nlohmann::ordered_json ToJson(const DiagnosisReport& report);

}  // namespace ys::diagnose

#endif  // YARDSTICK_DIAGNOSE_DIAGNOSIS_JSON_H_
