// The one strict reader of TOML data files (suites, baselines, specs, models, site expectations,
// price models, cluster.toml, calibration): every key must be known, every value of the expected
// type and within its stated range, and every message names the file, the line, the table, the
// key and what was expected, in one wording:
//   "<file>:<line>: <table> <key>: expected ..."        e.g. "site.toml:4: [cpu] smt: expected ..."
//   "<file>:<line>: <table> <key>: missing; expected ..."  (the line of the table)
//   "<file>:<line>: <table> <key>: unknown key (expected one of ...)"
// A syntax error is "<file>:<line>:<column>: <description>".
//
// Thread safety: the functions are pure; a TomlTableReader is used by one thread.
#ifndef YARDSTICK_CORE_TOML_READER_H_
#define YARDSTICK_CORE_TOML_READER_H_

#include <toml++/toml.h>

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/range_check.h"
#include "core/status.h"

namespace ys {

// Parses TOML text; a syntax error names path:line:column.
Result<toml::table> ParseToml(std::string_view text, const std::string& path);

// "<file>:<line>: <table> <key>", the line of `n` (or of `fallback` when `n` has none); without
// any line, "<file>: <table> <key>". An empty `table` or `key` is left out.
std::string TomlWhere(std::string_view path, std::string_view table, std::string_view key,
                      const toml::node* n, const toml::node* fallback = nullptr);

// Readers of one value; `where` (from TomlWhere) starts every message.
Result<std::string> ReadTomlString(const toml::node& n, const std::string& where,
                                   bool allow_empty = true);
Result<double> ReadTomlNumber(const toml::node& n, const std::string& where, double lo, double hi,
                              LowerBound lower = LowerBound::kInclusive);
Result<int> ReadTomlInt(const toml::node& n, const std::string& where, int lo, int hi);
Result<bool> ReadTomlBool(const toml::node& n, const std::string& where);
Result<std::vector<std::string>> ReadTomlStrings(const toml::node& n, const std::string& where,
                                                 bool allow_empty_list = true);
Result<std::vector<int>> ReadTomlInts(const toml::node& n, const std::string& where, int lo,
                                      int hi);

// The table `name` of `parent`: nullptr when absent; Invalid when the key holds something else.
Result<const toml::table*> TomlSubTable(const toml::table& parent, std::string_view path,
                                        std::string_view name);

// Reads the fields of one table, remembering which keys were consumed. The table is borrowed and
// must outlive the reader.
class TomlTableReader {
 public:
  // `table` names the table in messages as the file spells it: "[suite]", "[[workload]] 3".
  TomlTableReader(const toml::table& t, std::string path, std::string table)
      : t_(t), path_(std::move(path)), table_(std::move(table)) {}

  // A required key must be present; an absent optional key leaves *out unchanged.
  Status String(const char* key, std::string* out, bool required = true, bool allow_empty = true);
  Status Int(const char* key, int* out, int lo, int hi, bool required = true);
  Status OptionalInt(const char* key, std::optional<int>* out, int lo, int hi);
  Status Double(const char* key, double* out, double lo, double hi, bool required = true,
                LowerBound lower = LowerBound::kInclusive);
  Status OptionalDouble(const char* key, std::optional<double>* out, double lo, double hi,
                        LowerBound lower = LowerBound::kInclusive);
  Status Bool(const char* key, bool* out, bool required = false);
  Status Strings(const char* key, std::vector<std::string>* out, bool required = true,
                 bool allow_empty_list = true);

  // The node of `key` (nullptr when absent), marked as read.
  const toml::node* Get(const char* key);
  // Marks a key read elsewhere as known.
  void Consume(const char* key) { used_.insert(key); }

  // "<file>:<line>: <table> <key>" at the key's line (the table's when the key is absent).
  std::string Where(std::string_view key = {}) const;
  // Invalid "<Where(key)>: <what>".
  Status Error(std::string_view key, std::string_view what) const;
  // A value that was read but fails a further check: `s` at the key's place (Ok passes).
  Status Check(std::string_view key, const Status& s) const;

  // A key outside `known` is an error; checked before reading, so that a misspelt key is reported
  // as unknown rather than the key it should have been as missing.
  Status OnlyKeys(std::initializer_list<std::string_view> known) const;
  // Any key not read so far is an error ("unknown key (expected one of <the keys read>)").
  Status NoOtherKeys() const;

  const std::string& path() const { return path_; }
  const std::string& table() const { return table_; }

 private:
  Status Missing(std::string_view key, std::string_view expected) const;
  const toml::table& t_;
  std::string path_, table_;
  std::set<std::string, std::less<>> used_;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_TOML_READER_H_
