#include "diagnose/diagnosis_json.h"

#include <nlohmann/json.hpp>

#include "core/document_schemas.h"
#include "core/json_fields.h"
#include "core/json_schema.h"
#include "core/run_document_fields.h"

namespace ys::diagnose {

template <typename V>
void Fields(V& v, DiagnosisReport& r) {
  v("diagnosis", r.ranked);
  v("not_evaluated", r.not_evaluated);
}

YS_DOCUMENT_SCHEMA("diagnosis", DiagnosisReport, "yardstick diagnosis document (diagnosis.json)",
                   "What diagnose --json and validate write: the diagnoses ranked by expected "
                   "recovery, and the rules that could not be evaluated.");

nlohmann::ordered_json ToJson(const DiagnosisReport& report) { return json_fields::Write(report); }

}  // namespace ys::diagnose
