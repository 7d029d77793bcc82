// Strict reading of TOML tables for the data files (suites, baselines, specs): every key must be
// known, every value of the expected type, and every error names the file, the line and the key.
#ifndef YARDSTICK_VALIDATE_TOML_UTIL_H_
#define YARDSTICK_VALIDATE_TOML_UTIL_H_

#include <toml++/toml.h>

#include <optional>
#include <set>
#include <string>

#include "core/range_check.h"
#include "core/status.h"

namespace ys::validate {

// Parses TOML text; a syntax error names path:line:column.
Result<toml::table> ParseToml(std::string_view text, const std::string& path);

// Reads fields of one table, remembering which keys were consumed.
class TableReader {
 public:
  // `where` prefixes messages: "suites/h100.toml: [[workload]] 3".
  TableReader(const toml::table& table, std::string where) : table_(table), where_(std::move(where)) {}

  Status String(const char* key, std::string* out, bool required = true);
  // Range-checked numbers (core/range_check.h): a value of another type, NaN, an infinity or a
  // value outside [lo, hi] ((lo, hi] with LowerBound::kExclusive) is Invalid naming the file, the
  // table, the key, its line, the value and the range.
  Status Int(const char* key, int* out, int lo, int hi, bool required = true);
  Status Double(const char* key, double* out, double lo, double hi, bool required = true,
                LowerBound lower = LowerBound::kInclusive);
  Status OptionalDouble(const char* key, std::optional<double>* out, double lo, double hi,
                        LowerBound lower = LowerBound::kInclusive);
  // Marks a key read elsewhere (arrays, nested tables) as known.
  void Consume(const char* key) { used_.insert(key); }
  // Any key not read so far is an error ("unknown key").
  Status NoOtherKeys() const;
  const std::string& where() const { return where_; }

 private:
  std::string At(const char* key) const;
  const toml::table& table_;
  std::string where_;
  std::set<std::string> used_;
};

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_TOML_UTIL_H_
