// Parameters a unit declares with its registration (UnitInfo::params): name, type, default,
// range or choices, and meaning. A site file sets them in `[unit."<id>"]` tables
// (core/unit_param_reader.h reads those); the unit reads the value in force through its context
// (checks::CheckContext::param), which is the site's value where one is set, else the default.
//
//   .params = {{.name = "max_remote_share", .type = ParamType::kDouble, .default_value = 0.10,
//               .lo = 0, .hi = 1, .meaning = "largest share of pages on a remote node"}}
//
// Thread safety: the values are filled while the site file is read and read-only afterwards.
#ifndef YARDSTICK_CORE_UNIT_PARAMS_H_
#define YARDSTICK_CORE_UNIT_PARAMS_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ys {

// A site's stance on a setting: "on" / "off" / "any" (no opinion).
enum class Policy { kAny, kOn, kOff };
const char* PolicyName(Policy p);

enum class ParamType { kBool, kInt, kDouble, kString, kStrings, kInts, kPolicy };
const char* ParamTypeName(ParamType type);  // "bool", "int", "double", "string", ...

// One alternative per ParamType, in that order.
using ParamValue = std::variant<bool, int, double, std::string, std::vector<std::string>,
                                std::vector<int>, Policy>;

struct ParamSpec {
  std::string_view name;  // key in the unit's table: snake_case
  ParamType type = ParamType::kString;
  ParamValue default_value;
  // Numbers (kInt, kDouble, and each element of kInts): the inclusive range of accepted values.
  double lo = 0, hi = 0;
  // kString: the accepted values; empty = any string.
  std::vector<std::string_view> choices;
  std::string_view meaning;  // one phrase, shown by `yardstick list --params`
  // The table of the older flat site-file key read into this parameter: "gpu" reads `[gpu]
  // <name>`. Empty for a parameter that only the unit's own table sets.
  std::string_view site_table;
};

// "0 to 1", "\"always\", \"madvise\"", "on, off, any", or "" when any value of the type goes.
std::string DescribeParamRange(const ParamSpec& spec);
// The value as a site file writes it: 0.1, "on", ["mlx5_0"], [48, 79], true.
std::string FormatParamValue(const ParamValue& v);

// The values a site file set, by unit id and parameter name. Unset parameters keep their
// declared default; nothing here knows the defaults.
class UnitParamValues {
 public:
  void Set(std::string_view unit_id, std::string_view name, ParamValue value);
  // The value set for this unit's parameter, or nullptr.
  const ParamValue* Find(std::string_view unit_id, std::string_view name) const;
  bool empty() const { return values_.empty(); }

 private:
  std::map<std::string, std::map<std::string, ParamValue, std::less<>>, std::less<>> values_;
};

// The declaration of `name` among `params`, or nullptr.
const ParamSpec* FindParam(const std::vector<ParamSpec>& params, std::string_view name);

// What a unit's context reads the unit's parameters through (checks::CheckContext::param,
// bench::BenchContext::param): its declarations and the site's values. A default-constructed
// source belongs to no unit.
class UnitParamSource {
 public:
  UnitParamSource() = default;
  UnitParamSource(std::string_view unit_id, const std::vector<ParamSpec>& declared,
                  const UnitParamValues& set)
      : unit_id_(unit_id), declared_(&declared), set_(&set) {}

  // The value in force of a declared parameter: the site file's, else the declared default.
  // T is the parameter's type (bool, int, double, std::string, std::vector<std::string>,
  // std::vector<int>, Policy). Throws std::logic_error for a name the unit did not declare,
  // outside a unit's run, or for the wrong T (the runner reports an error for the unit).
  template <typename T>
  const T& Get(std::string_view name) const {
    const T* v = std::get_if<T>(&ValueOf(name));
    if (v == nullptr) ThrowType(name);
    return *v;
  }
  // Whether the site file set parameter `name` (false: the declared default is in force). A unit
  // whose default depends on what it judges (gpu.ecc by product class) reads this.
  bool IsSet(std::string_view name) const {
    return set_ != nullptr && set_->Find(unit_id_, name) != nullptr;
  }

 private:
  const ParamValue& ValueOf(std::string_view name) const;
  [[noreturn]] void ThrowType(std::string_view name) const;

  std::string_view unit_id_;
  const std::vector<ParamSpec>* declared_ = nullptr;
  const UnitParamValues* set_ = nullptr;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_UNIT_PARAMS_H_
