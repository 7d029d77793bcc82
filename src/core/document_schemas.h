// The documents yardstick writes, each registered beside its field list with one line, so that
// the build generates schemas/<name>.schema.json from the list itself (core/json_schema.h):
//
//   YS_DOCUMENT_SCHEMA("cost", CostDocument, "yardstick cost --json",
//                      "What a training run costs: ...");
//
// A type whose field list lists a key only under a condition, or a view that follows a pointer,
// gives the values to walk with JsonSchemaSamples (core/json_schema.h).
//
// The tool yardstick_schemas (src/cli/schemas_main.cc) writes every registered schema; the test
// schemas.up_to_date compares them with the committed ones (docs/schemas.md).
#ifndef YARDSTICK_CORE_DOCUMENT_SCHEMAS_H_
#define YARDSTICK_CORE_DOCUMENT_SCHEMAS_H_

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ys {

struct RegisteredSchema {
  std::string name;  // the file: schemas/<name>.schema.json
  std::function<nlohmann::ordered_json()> make;
};

// Returns true so that it can initialise a namespace-scope bool. Aborts on a name registered
// twice.
bool RegisterDocumentSchema(const std::string& name, std::function<nlohmann::ordered_json()> make);
// Every registered schema, by name.
std::vector<const RegisteredSchema*> DocumentSchemas();

}  // namespace ys

#define YS_SCHEMA_CONCAT_INNER(a, b) a##b
#define YS_SCHEMA_CONCAT(a, b) YS_SCHEMA_CONCAT_INNER(a, b)
#define YS_DOCUMENT_SCHEMA(name, Type, title, description)                                \
  [[maybe_unused]] static const bool YS_SCHEMA_CONCAT(ys_document_schema_, __COUNTER__) = \
      ::ys::RegisterDocumentSchema(                                                       \
          name, [] { return ::ys::json_fields::DocumentSchema<Type>(name, title, description); })

#endif  // YARDSTICK_CORE_DOCUMENT_SCHEMAS_H_
