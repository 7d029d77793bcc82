// The one JSON parse entry for documents from outside, and typed field access that never throws.
// Parsing stops at the first array or object nested deeper than the limit, before building a
// tree (a 100,000-deep document costs nothing); a number outside the range of a double (1e309)
// and malformed text are refused. Every message names the source and the byte where parsing
// stopped: "run.json: not JSON: syntax error ..., at byte 17".
#ifndef YARDSTICK_CORE_JSON_DOCUMENT_H_
#define YARDSTICK_CORE_JSON_DOCUMENT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/document_file.h"
#include "core/status.h"

namespace ys {

// Deepest nesting of arrays and objects a document may have (run documents need about 8).
inline constexpr int kMaxJsonDepth = 128;

// `source` names the text in messages (a path, "rank 3").
Result<nlohmann::json> ParseJsonDocument(std::string_view text, const std::string& source,
                                         int max_depth = kMaxJsonDepth);
// ReadDocumentFile then ParseJsonDocument.
Result<nlohmann::json> ReadJsonFile(const std::string& path,
                                    DocumentKind kind = DocumentKind::kJson);

// A value quoted in a message: compact JSON, invalid UTF-8 replaced (never throws), cut to
// max_chars with "..." (a value from a document may be large).
std::string JsonForMessage(const nlohmann::json& v, size_t max_chars = 80);

// "a string", "a number", "an object" ... for "expected X, found Y" messages.
const char* JsonTypePhrase(const nlohmann::json& v);

// Typed access to j[key]; `where` names the object ("run.json: workloads[3]"). A missing key is
// Invalid "<where>.key: missing" when required, else leaves *out alone; a wrong type is Invalid
// "<where>.key: expected a string, found a number". A non-object j counts as missing keys.
Status JsonString(const nlohmann::json& j, const char* key, std::string* out,
                  const std::string& where, bool required = true);
Status JsonNumber(const nlohmann::json& j, const char* key, double* out, const std::string& where,
                  bool required = true);
Status JsonBool(const nlohmann::json& j, const char* key, bool* out, const std::string& where,
                bool required = true);

}  // namespace ys

#endif  // YARDSTICK_CORE_JSON_DOCUMENT_H_
