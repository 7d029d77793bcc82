#include "diagnose/diagnosis_json.h"

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/report_fields.h"

namespace ys::diagnose {

template <typename V>
void Fields(V& v, DiagnosisReport& r) {
  v("diagnosis", r.ranked);
  v("not_evaluated", r.not_evaluated);
}

nlohmann::ordered_json ToJson(const DiagnosisReport& report) { return json_fields::Write(report); }

}  // namespace ys::diagnose
