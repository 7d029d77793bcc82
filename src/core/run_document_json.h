// JSON form of the run document. schemas/run.schema.json is generated from its field lists
// (docs/schemas.md); tests validate real output against it.
#ifndef YARDSTICK_CORE_RUN_DOCUMENT_JSON_H_
#define YARDSTICK_CORE_RUN_DOCUMENT_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "core/json_document.h"  // ReadJsonFile, the reader of every JSON document
#include "core/run_document.h"

namespace ys {

nlohmann::ordered_json ToJson(const Evidence& e);
nlohmann::ordered_json ToJson(const Finding& f);
nlohmann::ordered_json ToJson(const CheckResult& r);
nlohmann::ordered_json ToJson(const Measurement& m);
nlohmann::ordered_json ToJson(const ResultTable& t);
nlohmann::ordered_json ToJson(const BenchmarkResult& r);
nlohmann::ordered_json ToJson(const RunDocument& doc);
nlohmann::ordered_json ToJson(const Diagnosis& g);

// Serialises for output. Text read from a host (a garbage file quoted in an error) may not be
// UTF-8: invalid bytes become U+FFFD rather than failing the whole document.
std::string DumpJson(const nlohmann::ordered_json& j);

// Reads a run document back (schema version checked). Invalid names the field that is wrong.
Result<RunDocument> RunDocumentFromJson(const nlohmann::json& j);
// One unit's result as ToJson wrote it; `where` prefixes error messages ("rank 3: checks[2]").
Result<Diagnosis> DiagnosisFromJson(const nlohmann::json& j, const std::string& where);
Result<CheckResult> CheckResultFromJson(const nlohmann::json& j, const std::string& where);
Result<BenchmarkResult> BenchmarkResultFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ys

#endif  // YARDSTICK_CORE_RUN_DOCUMENT_JSON_H_
