// The validation document (validation.json): the suite, each workload's measurement, reference
// with provenance, score and outcome, and the verdict. `yardstick verify` recomputes it from the
// archived logs and compares field by field.
#ifndef YARDSTICK_VALIDATE_SCORECARD_JSON_H_
#define YARDSTICK_VALIDATE_SCORECARD_JSON_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "validate/scorecard.h"

namespace ys::validate {

inline constexpr int kValidationSchemaVersion = 1;

// `prediction`, when given, is the document's last key ("prediction": `validate --predict`).
nlohmann::ordered_json ToJson(const Suite& suite, const Scorecard& card,
                              const nlohmann::ordered_json* prediction = nullptr);

// Differences between a claimed validation document and a recomputed one, one line each
// ("workload llama3.1_70b_bf16: score claimed 0.991, recomputed 0.934"). Empty when they agree.
// Numbers agree within a relative 1e-9; tool version and creation time are not compared.
std::vector<std::string> CompareValidation(const nlohmann::json& claimed,
                                           const nlohmann::json& recomputed);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_SCORECARD_JSON_H_
