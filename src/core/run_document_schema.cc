// What the run document's schema says beyond its field lists (core/run_document_fields.h): the
// patterns of unit ids and finding codes, and the outcomes that need findings or a reason. The
// rest of schemas/run.schema.json is generated from the field lists (core/json_schema.h).
#include <nlohmann/json.hpp>

#include "core/run_document_fields.h"

namespace ys {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kUnitIdPattern = "^[a-z0-9_]+(\\.[a-z0-9_]+)+$";

// A warn or a fail carries a finding; a skip or an error says why.
ojson OutcomeRules() {
  auto when = [](std::vector<std::string> outcomes, const char* key, ojson then) {
    return ojson{{"if", {{"properties", {{"outcome", {{"enum", outcomes}}}}}}},
                 {"then", {{"properties", {{key, then}}}}}};
  };
  return ojson::array({when({"warn", "fail"}, "findings", {{"minItems", 1}}),
                       when({"skip", "error"}, "summary", {{"minLength", 1}})});
}

void RefineUnitResult(ojson& schema) {
  schema["properties"]["id"]["pattern"] = kUnitIdPattern;
  schema["allOf"] = OutcomeRules();
}

}  // namespace

void JsonSchemaRefine(const Finding*, ojson& schema) {
  schema["properties"]["code"]["pattern"] = "^YS-[A-Z]+-[0-9]{3}$";
  for (const char* key : {"entity", "message", "fix"}) schema["properties"][key]["minLength"] = 1;
}

void JsonSchemaRefine(const CheckResult*, ojson& schema) { RefineUnitResult(schema); }

void JsonSchemaRefine(const BenchmarkResult*, ojson& schema) { RefineUnitResult(schema); }

void JsonSchemaRefine(const Diagnosis*, ojson& schema) {
  schema["properties"]["rule"]["pattern"] = kUnitIdPattern;
}

}  // namespace ys
