// The JSON streaming layer of the serving-result readers: a stream of JSON values (one object,
// an array of objects, or one object per line) read into flat records without building the whole
// tree, so a result file's per-request arrays never reach memory.
//
// Each record keeps the scalar fields of one object (the root object, or each object of a root
// array); a nested array or object stands as an empty [] or {}, so a field of the wrong type is
// still seen. Two exceptions, both small: the "input_lens" / "output_lens" arrays are summarised
// as they stream past ({count, sum, min, max}), and the scalar fields of SGLang's "server_info"
// object are kept as "server_info.<key>".
//
// Python's json module writes NaN, Infinity and -Infinity bare; JSON has no such literals, so
// they reach the records as the strings "NaN", "Infinity", "-Infinity" (IsNonFiniteText). Text
// inside JSON strings is passed on untouched. Thread-safe: no shared state.
#ifndef YARDSTICK_VALIDATE_JSON_RECORD_STREAM_H_
#define YARDSTICK_VALIDATE_JSON_RECORD_STREAM_H_

#include <istream>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace ys::validate {

// One record: its fields by key, as described above.
using JsonRecord = std::map<std::string, nlohmann::json>;

// What a stream of JSON values held.
struct JsonRecordStream {
  std::vector<JsonRecord> records;  // the records of the values read, in order
  int values = 0;                   // top-level values met (the one that failed included)
  bool ok = true;                   // false: value number `values` is not valid JSON
  std::string error;                // the parser's message for it ("" when it gave none)
};

// Reads every JSON value of `in` (whitespace between them), stopping at the first invalid one.
JsonRecordStream ReadJsonRecords(std::istream& in);

// Whether a field holds a bare NaN, Infinity or -Infinity of the input.
bool IsNonFiniteText(const nlohmann::json& v);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_JSON_RECORD_STREAM_H_
