// Field lists: the one way a document struct becomes JSON and comes back. Each struct has one
// function that names its keys in order; the same list is walked by a writer and by a strict
// reader, so the two directions cannot drift apart:
//
//   template <typename V>
//   void Fields(V& v, Fault& f) {
//     v("at_s", f.at_s);                  // always written; required on reading
//     v.optional("note", f.note);         // omitted when empty (or unset); absence accepted
//     v.defaulted("evidence", f.evidence);  // always written; absence keeps the default
//     v.computed("verdict", [&] { return f.Verdict(); });  // written only, never read
//     v.check("", f.low <= f.high, "low <= high");  // checked after reading: "expected ..."
//     v.check("path", ValidatePath(f.path));  // a validator's Status: "<where>.path: <message>"
//     v.label(" (" + f.name + ")");  // names the object in later messages: "faults[0] (x).at_s"
//   }
//
// `Fields` lives in the struct's namespace (found by argument-dependent lookup) and takes a
// non-const reference; the writer never modifies what it walks. Values: bool, integers, double,
// std::string, enums (a name table, JsonNames below), std::optional<T> (null when unset),
// std::shared_ptr<const T>, std::vector<T>, std::map<std::string, T> and ordered key-value
// pairs (std::vector<std::pair<std::string, T>>, e.g. Evidence) as objects, and structs with a
// field list of their own. A writer also takes nlohmann::ordered_json, a part another writer
// built (a computed field). NonNegative marks a count kept in a signed integer.
//
// An enum is named by a function found the same way, listing its values in the order an error
// message names them ("expected pass, warn, fail, skip or error"):
//   inline auto JsonNames(Outcome) { return std::array{std::pair{Outcome::kPass, "pass"}, ...}; }
//
// A document assembled from several sources (a suite and its scorecard, a report and the key
// statistics of its figures) is a small struct with a field list; one that is only written may
// hold references (struct Row { const MeasurementRow& m; }).
//
// A key that another reader reads (nvml.json's per-device "telemetry") is declared, so that a
// list with reject_unknown_keys accepts it: v.ignored("telemetry"); never written, never read.
//
// A value with a JSON shape of its own is written and read by an adaptor: functions found by
// argument-dependent lookup on its type (W and R are the writer and reader classes, passed as a
// null pointer to select the overload):
//   template <typename W> typename W::ojson JsonWrite(W*, const X& x, Style s);
//   template <typename R> Status JsonRead(R*, const typename R::json& j, const Path& at, Style s,
//                                         X& out);
//   void JsonAbsent(X& out);  // optional: what an absent key (defaulted, optional) reads as
// An adaptor writes and reads what it holds with W::Value and R::Read, so nested values keep the
// document's style. A wrapper made on the spot (struct Levels { std::vector<...>& v; }) adapts a
// member whose type is not the document's own.
//
// The reader stops at the first problem and names it by path: "run.checks[2].outcome: expected
// pass, warn, fail, skip or error", "<where>.key: missing". Included by .cc files that write or
// read a document, not by headers. The writer and the reader are templates over the JSON type so
// that this header needs nlohmann/json_fwd.hpp only; the .cc that instantiates them includes
// nlohmann/json.hpp (tests/lint/json_includes.py).
#ifndef YARDSTICK_CORE_JSON_FIELDS_H_
#define YARDSTICK_CORE_JSON_FIELDS_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/json_fields_styles.h"
#include "core/status.h"

namespace ys::json_fields {

// Style, a document's conventions: core/json_fields_styles.h.

// A count kept in a signed integer: written as the integer, read as "an integer >= 0". Empty
// (for `optional`) when 0.
template <typename Int>
struct NonNegative {
  Int& x;
  bool empty() const { return x == 0; }
};
template <typename Int>
NonNegative(Int&) -> NonNegative<Int>;

// Where a value sits in the document, built only when a message needs it.
struct Path {
  const Path* parent = nullptr;
  std::string_view key;    // the root's text, or a key under parent (an empty root: no "." before)
  long index = -1;         // an array element of parent when >= 0
  std::string_view label;  // follows key or index: "files[0] ("a")" (v.label)
  std::string ToString(std::string_view separator = ".") const;
};

// "<path>: expected <what>", with ", found <type of found>" when found is given and the style
// names it.
Status Expected(const Path& at, std::string_view what, const nlohmann::json* found, Style style);
// "a, b or c"
std::string OneOf(const std::vector<std::string_view>& names);
// "<path>: missing", or with quote_path "'<path>': expected present".
Status Missing(const Path& at, Style style);
// With say_got: "<path>: expected an integer from <min> to <max>, got <found>" (<found> the
// integer itself when it is one).
Status ExpectedIntegerIn(const Path& at, const std::string& min, const std::string& max,
                         const nlohmann::json& found, Style style);
// "<at>.key: unknown key", or as Style::unknown_key_lists_expected says.
Status UnknownKey(const Path& at, const std::string& key,
                  const std::vector<std::string_view>& declared, Style style);

// With non_finite_as_string: an optional number that holds a value, finite or not, is written.
template <typename T>
bool KeepsNonFinite(const T& x, Style style) {
  if constexpr (std::is_same_v<T, std::optional<double>>) {
    return style.non_finite_as_string && x.has_value();
  } else {
    return false;
  }
}

template <typename T>
constexpr Style StyleOf(Style outer) {
  if constexpr (requires(const T* p) { JsonStyle(p); }) {
    return JsonStyle(static_cast<const T*>(nullptr));
  } else {
    return outer;
  }
}

template <typename T>
struct IsPairs : std::false_type {};
template <typename T>
struct IsPairs<std::vector<std::pair<std::string, T>>> : std::true_type {};

// Whether `optional` leaves the key out: an empty string, container or NonNegative (0), an unset
// std::optional or std::shared_ptr, and an optional number that is not finite (JSON cannot
// carry it).
template <typename T>
bool IsEmpty(const T& x) {
  if constexpr (std::is_same_v<T, std::optional<double>>) {
    return !x || !std::isfinite(*x);
  } else if constexpr (requires { x.empty(); }) {
    return x.empty();
  } else {
    return !x;  // std::optional, std::shared_ptr
  }
}

template <typename OrderedJson = nlohmann::ordered_json>
class BasicWriter {
 public:
  using ojson = OrderedJson;
  BasicWriter(ojson& out, Style style) : out_(out), style_(style) {}

  template <typename T>
  void operator()(const char* key, const T& x) {
    out_[key] = Value(x, style_);
  }
  template <typename T>
  void defaulted(const char* key, const T& x) {
    (*this)(key, x);
  }
  template <typename T>
  void optional(const char* key, const T& x) {
    if (!IsEmpty(x) || KeepsNonFinite(x, style_)) (*this)(key, x);
  }
  // Written when `present`; the reader sets `present` to whether the key is there.
  template <typename T>
  void optional(const char* key, const T& x, const bool& present) {
    if (present) (*this)(key, x);
  }
  template <typename F>
  void computed(const char* key, F&& value) {
    (*this)(key, value());
  }
  void check(const char*, bool, std::string_view) {}
  void check(const char*, const Status&) {}
  void ignored(const char*) {}
  void label(const std::string&) {}

  static ojson Value(const std::string& x, Style) { return x; }
  static ojson Value(const ojson& x, Style) { return x; }  // built by another document's writer
  template <typename Int>
  static ojson Value(const NonNegative<Int>& n, Style) {
    return n.x;
  }
  static ojson Value(double x, Style s) {
    if (s.non_finite_as_string && !std::isfinite(x))
      return std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf";
    return s.non_finite_as_zero && !std::isfinite(x) ? 0.0 : x;
  }
  template <typename T>
  static ojson Value(const std::optional<T>& x, Style s) {
    return x ? Value(*x, s) : ojson(nullptr);
  }
  template <typename T>
  static ojson Value(const std::shared_ptr<const T>& x, Style s) {
    return x ? Value(*x, s) : ojson(nullptr);
  }
  template <typename T>
  static ojson Value(const std::vector<T>& items, Style s) {
    if constexpr (IsPairs<std::vector<T>>::value) {
      ojson o = ojson::object();
      for (const auto& [k, x] : items) o[k] = Value(x, s);  // a repeated key keeps the last value
      return o;
    } else {
      ojson a = ojson::array();
      for (const auto& x : items) a.push_back(Value(x, s));
      return a;
    }
  }
  template <typename T>
  static ojson Value(const std::map<std::string, T>& items, Style s) {
    ojson o = ojson::object();
    for (const auto& [k, x] : items) o[k] = Value(x, s);
    return o;
  }
  template <typename T>
  static ojson Value(const T& x, Style s) {
    if constexpr (requires { JsonWrite(static_cast<BasicWriter*>(nullptr), x, s); }) {
      return JsonWrite(static_cast<BasicWriter*>(nullptr), x, s);  // an adaptor
    } else if constexpr (std::is_enum_v<T>) {
      for (const auto& [e, name] : JsonNames(T{})) {
        if (e == x) return name;
      }
      return nullptr;
    } else if constexpr (std::is_class_v<T>) {
      ojson o = ojson::object();
      BasicWriter w(o, StyleOf<T>(s));
      Fields(w, const_cast<T&>(x));  // the writer only reads
      return o;
    } else {
      return x;  // bool, integers, const char*
    }
  }

 private:
  ojson& out_;
  Style style_;
};

template <typename Json = nlohmann::json>
class BasicReader {
 public:
  using json = Json;
  BasicReader(const json& j, const Path& where, Style style)
      : j_(j), where_(where), here_(where), style_(style) {}

  // T&&: a field may be a NonNegative made on the spot.
  template <typename T>
  void operator()(const char* key, T&& x) {
    Field(key, x, /*required=*/true);
  }
  template <typename T>
  void defaulted(const char* key, T&& x) {
    Field(key, x, /*required=*/false);
  }
  template <typename T>
  void optional(const char* key, T&& x) {
    Field(key, x, /*required=*/false);
  }
  template <typename T>
  void optional(const char* key, T&& x, bool& present) {
    present = j_.contains(key);
    Field(key, x, /*required=*/false);
  }
  template <typename F>
  void computed(const char* key, F&&) {
    if (style_.reject_unknown_keys) declared_.push_back(key);
  }
  void ignored(const char* key) {
    if (style_.reject_unknown_keys) declared_.push_back(key);
  }
  // When !ok: "<where>.<key>: expected <expected>" (`key` empty: the object itself).
  void check(const char* key, bool ok, std::string_view expected) {
    if (!status_.ok() || ok) return;
    status_ = *key ? Expected(Path{&here_, key}, expected, nullptr, style_)
                   : Expected(here_, expected, nullptr, style_);
  }
  // When `valid` is not OK: "<where>.<key>: <its message>" (a validator that says what is wrong;
  // "<where>: <its message>" with an empty key).
  void check(const char* key, const Status& valid) {
    if (!status_.ok() || valid.ok()) return;
    const std::string at = *key ? Path{&here_, key}.ToString(style_.key_separator)
                                : here_.ToString(style_.key_separator);
    status_ = Status::Invalid(at + ": " + valid.message());
  }
  // Names the object in messages about the fields after it: "files[0] ("a")" (text " ("a")").
  void label(std::string text) {
    label_ = std::move(text);
    here_.label = label_;
  }
  const Status& status() const { return status_; }

  static Status Read(const json& v, const Path& at, Style s, bool& out) {
    if (!v.is_boolean()) return Expected(at, s.say_got ? "a boolean" : "true or false", &v, s);
    out = v.template get<bool>();
    return Status::Ok();
  }
  static Status Read(const json& v, const Path& at, Style s, std::string& out) {
    if (!v.is_string()) return Expected(at, "a string", &v, s);
    out = v.template get<std::string>();
    return Status::Ok();
  }
  static Status Read(const json& v, const Path& at, Style s, double& out) {
    if (s.non_finite_as_string && v.is_string()) {
      const std::string& text = v.template get_ref<const std::string&>();
      if (text == "nan" || text == "inf" || text == "-inf") {
        out = text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                            : (text == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
        return Status::Ok();
      }
    }
    if (!v.is_number())
      return Expected(
          at, s.non_finite_as_string ? R"(a number (or "nan", "inf", "-inf"))" : "a number", &v, s);
    out = v.template get<double>();
    return Status::Ok();
  }
  template <typename Int>
  static Status Read(const json& v, const Path& at, Style s, NonNegative<Int>& out) {
    bool fits = v.is_number_unsigned()  ? std::in_range<Int>(v.template get<uint64_t>())
                : v.is_number_integer() ? v.template get<int64_t>() >= 0 &&
                                              std::in_range<Int>(v.template get<int64_t>())
                                        : false;
    if (!fits) return Expected(at, "an integer >= 0", &v, s);
    out.x = v.template get<Int>();
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const json& v, const Path& at, Style s, std::optional<T>& out) {
    if (v.is_null()) {
      out.reset();
      return Status::Ok();
    }
    T x{};
    YS_RETURN_IF_ERROR(Read(v, at, s, x));
    out = std::move(x);
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const json& v, const Path& at, Style s, std::shared_ptr<const T>& out) {
    T x{};
    YS_RETURN_IF_ERROR(Read(v, at, s, x));
    out = std::make_shared<const T>(std::move(x));
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const json& v, const Path& at, Style s, std::vector<T>& out) {
    out.clear();
    if constexpr (std::is_same_v<T, std::string> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, bool>)) {
      if (s.name_scalar_arrays) {
        auto kind = [](const json& e) {
          return std::is_same_v<T, std::string> ? e.is_string() : e.is_number_integer();
        };
        if (!v.is_array() || !std::all_of(v.begin(), v.end(), kind))
          return Expected(
              at, std::is_same_v<T, std::string> ? "an array of strings" : "an array of integers",
              &v, s);
      }
    }
    if constexpr (IsPairs<std::vector<T>>::value) {
      if (!v.is_object()) return Expected(at, "an object", &v, s);
      for (const auto& [k, x] : v.items()) {
        typename T::second_type value{};
        YS_RETURN_IF_ERROR(Read(x, Path{&at, k}, s, value));
        out.emplace_back(k, std::move(value));
      }
    } else {
      if (!v.is_array()) return Expected(at, "an array", &v, s);
      out.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        T x{};
        YS_RETURN_IF_ERROR(Read(v[i], Path{&at, {}, static_cast<long>(i)}, s, x));
        out.push_back(std::move(x));
      }
    }
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const json& v, const Path& at, Style s, std::map<std::string, T>& out) {
    if (!v.is_object()) return Expected(at, "an object", &v, s);
    out.clear();
    for (const auto& [k, x] : v.items()) {
      T value{};
      YS_RETURN_IF_ERROR(Read(x, Path{&at, k}, s, value));
      out.emplace(k, std::move(value));
    }
    return Status::Ok();
  }
  template <typename T>
  static Status Read(const json& v, const Path& at, Style s, T& out) {
    if constexpr (requires { JsonRead(static_cast<BasicReader*>(nullptr), v, at, s, out); }) {
      return JsonRead(static_cast<BasicReader*>(nullptr), v, at, s, out);  // an adaptor
    } else if constexpr (std::is_enum_v<T>) {
      if (s.enum_expects_string && !v.is_string()) return Expected(at, "a string", &v, s);
      std::vector<std::string_view> names;
      for (const auto& [e, name] : JsonNames(T{})) {
        if (v.is_string() && v.template get_ref<const std::string&>() == name) {
          out = e;
          return Status::Ok();
        }
        names.push_back(name);
      }
      return Expected(at, OneOf(names), v.is_string() ? nullptr : &v, s);
    } else if constexpr (std::is_integral_v<T>) {
      bool fits = v.is_number_unsigned()  ? std::in_range<T>(v.template get<uint64_t>())
                  : v.is_number_integer() ? std::in_range<T>(v.template get<int64_t>())
                                          : false;
      if (!fits && s.say_got) {
        return ExpectedIntegerIn(at, std::to_string(std::numeric_limits<T>::min()),
                                 std::to_string(std::numeric_limits<T>::max()), v, s);
      }
      if (!fits)
        return Expected(at, std::is_unsigned_v<T> ? "an integer >= 0" : "an integer", &v, s);
      out = v.template get<T>();
      return Status::Ok();
    } else {
      if (!v.is_object()) return Expected(at, "an object", &v, s);
      BasicReader r(v, at, StyleOf<T>(s));
      Fields(r, out);
      if ((r.status_.ok() || r.style_.unknown_keys_first) && r.style_.reject_unknown_keys)
        r.RejectUnknownKeys();  // the walk has declared every key even when it stopped early
      return r.status_;
    }
  }

 private:
  template <typename T>
  void Field(const char* key, T& x, bool required) {
    if (style_.reject_unknown_keys) declared_.push_back(key);
    if (!status_.ok()) return;
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required && style_.absent_reads_as_null) {
        status_ = Read(json(nullptr), Path{&here_, key}, style_, x);
      } else if (required) {
        status_ = Missing(Path{&here_, key}, style_);
      } else if constexpr (requires { JsonAbsent(x); }) {
        JsonAbsent(x);
      }
      return;
    }
    status_ = Read(*it, Path{&here_, key}, style_, x);
  }

  void RejectUnknownKeys() {
    for (const auto& [key, value] : j_.items()) {
      if (std::find(declared_.begin(), declared_.end(), key) == declared_.end()) {
        status_ = UnknownKey(where_, key, declared_, style_);  // unlabelled: "files[0]: ..."
        return;
      }
    }
  }

  const json& j_;
  const Path& where_;
  Path here_;          // where_ with the label, if any: the parent of the fields' paths
  std::string label_;  // here_.label's text
  Style style_;
  Status status_ = Status::Ok();
  std::vector<std::string_view> declared_;  // with reject_unknown_keys: the keys of the list
};

using Writer = BasicWriter<>;
using Reader = BasicReader<>;

// The JSON of `x` (a struct with a field list, or any value above).
template <typename T, typename W = Writer>
typename W::ojson Write(const T& x, Style style = {}) {
  return W::Value(x, StyleOf<T>(style));
}

// Reads a T from `j`; messages start with `where` ("run", "rank 3 checks[2]").
template <typename T, typename R = Reader>
Result<T> Parse(const nlohmann::json& j, std::string_view where, Style style = {}) {
  T x{};
  YS_RETURN_IF_ERROR(R::Read(j, Path{nullptr, where}, StyleOf<T>(style), x));
  return x;
}

}  // namespace ys::json_fields

#endif  // YARDSTICK_CORE_JSON_FIELDS_H_
