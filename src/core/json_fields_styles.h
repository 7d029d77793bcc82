// Style: the conventions of a document read and written by core/json_fields.h. The general
// flags come first; the conventions of documents older than the field lists follow, each off by
// default and in a block naming the document that needs it. Included by json_fields.h.
#ifndef YARDSTICK_CORE_JSON_FIELDS_STYLES_H_
#define YARDSTICK_CORE_JSON_FIELDS_STYLES_H_

namespace ys::json_fields {

// A document's conventions. A struct may fix its own (and its members') by a function found by
// argument-dependent lookup: `constexpr json_fields::Style JsonStyle(const BurninReport*)`.
struct Style {
  // A number that is not finite: written as JSON null (nlohmann's way) or as 0.
  bool non_finite_as_zero = false;
  // A value of the wrong type: "expected a number, found a string" or just "expected a number".
  bool name_found_type = true;
  // A key the field list does not name is an error ("<path>.key: unknown key"): a typo, or a
  // newer writer whose readings must not be dropped silently.
  bool reject_unknown_keys = false;

  // ---- Conventions of two documents older than the field lists (each off by default). ----
  // The workload run (validate/workload_run_json.cc):
  // A number that is not finite is written as the string "nan", "inf" or "-inf" and read back
  // from it ("expected a number (or "nan", "inf", "-inf")"); an `optional` number that holds one
  // keeps its key.
  bool non_finite_as_string = false;
  // The path is quoted and an absent key is an expectation: "'samples[1].loss': expected a
  // number", "'window': expected present".
  bool quote_path = false;
  // An array of strings or of integers with an element of another kind is named whole, at the
  // array's path: "'notes': expected an array of strings".
  bool name_scalar_arrays = false;
  // An enum given something other than a string: "expected a string".
  bool enum_expects_string = false;
  // nvml.json (gpu/gpu_snapshot_json.cc):
  // What was found is said as ", got <kind>", the kinds being "null", "a boolean", "an integer",
  // "a number with a fraction or exponent", "a string", "an array" and "an object"; a bool is
  // "a boolean"; an integer is "an integer from <min> to <max>" (its C++ type's range), and one
  // out of that range is said by its value: "expected an integer from 0 to 4294967295, got -1".
  bool say_got = false;
  // The archive manifest (validate/manifest.cc): "m.json: files[0] ("a"): size: expected ...".
  // Path parts are joined with this (a key after a key or the root; never before "[i]").
  const char* key_separator = ".";
  // With reject_unknown_keys, an unknown key is named before any other problem of its object,
  // as "<object>: unknown key "k"; expected a, b, c" (the list's keys in order).
  bool unknown_keys_first = false;
  bool unknown_key_lists_expected = false;
  // A required key that is absent is read as null: "path: expected a string", not "missing".
  bool absent_reads_as_null = false;
};

}  // namespace ys::json_fields

#endif  // YARDSTICK_CORE_JSON_FIELDS_STYLES_H_
