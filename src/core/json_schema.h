// JSON Schema (draft 2020-12) of a document, generated from its field list (core/json_fields.h):
// the walk that writes a document also describes it. The schema walker is a third visitor beside
// the writer and the reader; it records, for each key, the type of the value and whether the
// writer always writes it, and never reads a value:
//
//   v("at_s", f.at_s)                   "at_s": {"type": "number"}, required
//   v.defaulted("evidence", f.evidence)  required (the writer always writes it)
//   v.optional("note", f.note)          not required (left out when empty)
//   v.computed("verdict", [&] {...})     the type the function returns, required; not called
//   v.ignored("telemetry")               anything, not required (another reader's key)
//   v.check, v.label                     nothing (a reader's concerns)
//
// Types: bool "boolean"; integers "integer" (unsigned and NonNegative with "minimum": 0); double
// "number" or null (JSON has no NaN: nlohmann writes null; with Style::non_finite_as_zero only a
// number, with non_finite_as_string also "nan", "inf", "-inf"); std::string "string"; an enum
// its names (JsonNames); std::optional and std::shared_ptr the value or null; std::vector an
// array, or an object when it holds key-value pairs; std::map an object; a struct with a field
// list an object ("additionalProperties": false: the writer writes its keys only) named in
// "$defs" after its C++ name in snake case (`CheckResult` is "check_result"); a value already
// JSON (a part another writer built) anything. An adaptor (JsonWrite) describes itself with
//   template <typename S> typename S::ojson JsonSchema(S& s, const X& x);  // found by ADL
// (s.Value(member, s.style()) describes what it holds), and is anything without one. A struct adds
// what its field list cannot say (a rule between fields, a pattern, descriptions) with
//   void JsonSchemaRefine(const X*, nlohmann::ordered_json& schema);    // found by ADL
//
// The walk needs a value to call Fields on: a default-constructed one, or for a view that holds
// references (struct Row { const MeasurementRow& m; }) one whose references name
// default-constructed values (SampleOf below). A field list that lists a key only under a
// condition (`if (x) v("key", ...)`), or a view that follows a pointer, gives the values to walk,
// one for each branch (a key is then required when every walk writes it):
//   std::vector<X> JsonSchemaSamples(const X*);                          // found by ADL
#ifndef YARDSTICK_CORE_JSON_SCHEMA_H_
#define YARDSTICK_CORE_JSON_SCHEMA_H_

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/json_fields.h"

namespace ys::json_fields {

// "ys::diagnose::(anonymous namespace)::CheckResult" -> "check_result": the last component of
// the demangled name of `type`, in snake case.
std::string SchemaDefName(const std::type_info& type);

// A value of T to walk: default-constructed, or an aggregate whose members are initialised from
// samples of their own types (a view's references name a sample kept for the process).
struct AnySample {
  template <typename U>
  operator U&() const;
};

template <size_t>
using AnySampleAt = AnySample;

// A T brace-initialised from the fewest samples that initialise every reference it holds.
template <typename T, size_t... I>
T* NewSample(std::index_sequence<I...>) {
  if constexpr (requires { T{AnySampleAt<I>{}...}; }) {
    return new T{AnySampleAt<I>{}...};
  } else {
    static_assert(sizeof...(I) < 12, "a field-list struct the schema walk cannot make a sample of");
    return NewSample<T>(std::make_index_sequence<sizeof...(I) + 1>{});
  }
}

template <typename T>
std::unique_ptr<T> MakeSample() {
  if constexpr (std::is_default_constructible_v<T>) {
    return std::make_unique<T>();
  } else {
    return std::unique_ptr<T>(NewSample<T>(std::make_index_sequence<1>{}));
  }
}

// One sample per type, kept for the process (a view's references must outlive the walk).
template <typename T>
T& SampleOf() {
  static const std::unique_ptr<T> sample = MakeSample<T>();
  return *sample;
}

template <typename U>
AnySample::operator U&() const {
  return SampleOf<std::remove_const_t<U>>();
}

// A value that may be null (std::optional, std::shared_ptr): what it holds.
template <typename T>
struct NullableOf {
  static constexpr bool value = false;
};
template <typename T>
struct NullableOf<std::optional<T>> {
  static constexpr bool value = true;
  using type = T;
};
template <typename T>
struct NullableOf<std::shared_ptr<const T>> {
  static constexpr bool value = true;
  using type = T;
};
template <typename T>
struct IsNonNegative : std::false_type {};
template <typename Int>
struct IsNonNegative<NonNegative<Int>> : std::true_type {};

template <typename OrderedJson = nlohmann::ordered_json>
class BasicSchemaWriter {
 public:
  using ojson = OrderedJson;
  // The named definitions of one document: "$defs" in order of first use, and which type holds
  // which name.
  struct Defs {
    ojson defs = ojson::object();
    std::map<std::type_index, std::string> names;
  };

  BasicSchemaWriter(Defs& defs, ojson& object, Style style)
      : defs_(defs), object_(object), style_(style) {}

  template <typename T>
  void operator()(const char* key, const T& x) {
    Add(key, Value(x, style_), /*required=*/true);
  }
  template <typename T>
  void defaulted(const char* key, const T& x) {
    Add(key, Value(x, style_), /*required=*/true);
  }
  template <typename T>
  void optional(const char* key, const T& x) {
    Add(key, Value(x, style_), /*required=*/false);
  }
  template <typename T>
  void optional(const char* key, const T& x, const bool&) {
    Add(key, Value(x, style_), /*required=*/false);
  }
  template <typename F>
  void computed(const char* key, F&&) {
    using R = std::decay_t<std::invoke_result_t<F>>;
    Add(key, Value(SampleOf<R>(), style_), /*required=*/true);
  }
  void check(const char*, bool, std::string_view) {}
  void check(const char*, const Status&) {}
  // A key another reader reads: listed, anything, never required.
  void ignored(const char* key) { Add(key, ojson::object(), /*required=*/false); }
  void label(const std::string&) {}
  Style style() const { return style_; }

  // The schema of a value of x's type (x itself is only walked, never read).
  template <typename T>
  ojson Value(const T& x, Style s) {
    if constexpr (std::is_same_v<T, bool>) {
      return ojson{{"type", "boolean"}};
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                         std::is_same_v<T, const char*> || std::is_same_v<T, char*> ||
                         std::is_array_v<T>) {
      return ojson{{"type", "string"}};
    } else if constexpr (std::is_same_v<T, ojson> || std::is_same_v<T, nlohmann::json>) {
      return ojson::object();  // built by another writer: anything
    } else if constexpr (std::is_floating_point_v<T>) {
      return Number(s);
    } else if constexpr (std::is_integral_v<T>) {
      return std::is_unsigned_v<T> ? ojson{{"type", "integer"}, {"minimum", 0}}
                                   : ojson{{"type", "integer"}};
    } else if constexpr (std::is_enum_v<T>) {
      ojson names = ojson::array();
      for (const auto& [e, name] : JsonNames(T{})) names.push_back(name);
      return ojson{{"enum", names}};
    } else {
      return Compound(x, s);
    }
  }

 private:
  static ojson Number(Style s) {
    if (s.non_finite_as_zero) return ojson{{"type", "number"}};
    if (s.non_finite_as_string)
      return ojson{{"anyOf", {{{"type", "number"}}, {{"enum", {"nan", "inf", "-inf"}}}}}};
    return ojson{{"type", {"number", "null"}}};
  }

  // `schema` or null.
  static ojson Nullable(ojson schema) {
    if (schema.contains("type") && schema["type"].is_string()) {
      schema["type"] = ojson::array({schema["type"], "null"});
      return schema;
    }
    if (schema.contains("type") && schema["type"].is_array()) {
      if (std::find(schema["type"].begin(), schema["type"].end(), "null") == schema["type"].end())
        schema["type"].push_back("null");
      return schema;
    }
    if (schema.empty()) return schema;  // anything already
    return ojson{{"anyOf", {schema, {{"type", "null"}}}}};
  }

  template <typename T>
  ojson Compound(const T& x, Style s) {
    if constexpr (requires { JsonSchema(*this, x); }) {
      return JsonSchema(*this, x);
    } else if constexpr (requires { JsonWrite(static_cast<BasicWriter<ojson>*>(nullptr), x, s); }) {
      return ojson::object();  // an adaptor that does not describe itself: anything
    } else if constexpr (NullableOf<T>::value) {
      return Nullable(Value(SampleOf<typename NullableOf<T>::type>(), s));
    } else if constexpr (IsNonNegative<T>::value) {
      return ojson{{"type", "integer"}, {"minimum", 0}};
    } else {
      return Container(x, s);
    }
  }

  template <typename T>
  ojson Container(const T& x, Style s) {
    if constexpr (IsPairs<T>::value) {
      return ojson{
          {"type", "object"},
          {"additionalProperties", Value(SampleOf<typename T::value_type::second_type>(), s)}};
    } else if constexpr (requires {
                           typename T::key_type;
                           typename T::mapped_type;
                         }) {
      return ojson{{"type", "object"},
                   {"additionalProperties", Value(SampleOf<typename T::mapped_type>(), s)}};
    } else if constexpr (requires {
                           typename T::value_type;
                           x.begin();
                         } &&
                         !std::is_same_v<T, std::string>) {
      return ojson{{"type", "array"}, {"items", Value(SampleOf<typename T::value_type>(), s)}};
    } else {
      return Struct(x, s);
    }
  }

  // A struct with a field list: {"$ref": "#/$defs/<name>"}, its definition made on first use.
  template <typename T>
  ojson Struct(const T&, Style s) {
    const std::type_index type(typeid(T));
    auto it = defs_.names.find(type);
    if (it == defs_.names.end()) {
      std::string name = SchemaDefName(typeid(T));
      for (int n = 2; defs_.defs.contains(name); ++n)
        name = SchemaDefName(typeid(T)) + "_" + std::to_string(n);
      it = defs_.names.emplace(type, name).first;
      defs_.defs[name] = ojson::object();  // holds the name while the walk recurses
      defs_.defs[name] = ObjectOf<T>(defs_, StyleOf<T>(s));
    }
    return ojson{{"$ref", "#/$defs/" + it->second}};
  }

 public:
  // The object schema of T's field list, its structs' definitions added to `defs`. Walked once
  // per sample (a default one when none is given): a key is listed when any walk lists it, and
  // required when every walk writes it.
  template <typename T>
  static ojson ObjectOf(Defs& defs, Style s) {
    std::vector<T> samples;
    if constexpr (requires { JsonSchemaSamples(static_cast<const T*>(nullptr)); })
      samples = JsonSchemaSamples(static_cast<const T*>(nullptr));
    std::vector<T*> walks;
    walks.reserve(samples.size() + 1);
    for (T& x : samples) walks.push_back(&x);
    if (walks.empty()) walks.push_back(&SampleOf<T>());
    ojson properties = ojson::object(), required = ojson::array();
    for (size_t i = 0; i < walks.size(); ++i) {
      ojson o = ojson::object();
      BasicSchemaWriter w(defs, o, s);
      Fields(w, *walks[i]);
      for (auto& [k, v] : o.items()) {
        if (!properties.contains(k)) properties[k] = v;
      }
      if (i == 0) required = w.required_;
      ojson kept = ojson::array();
      for (const auto& k : required) {
        if (std::find(w.required_.begin(), w.required_.end(), k) != w.required_.end())
          kept.push_back(k);
      }
      required = std::move(kept);
    }
    ojson schema = {{"type", "object"}, {"properties", properties}};
    if (!required.empty()) schema["required"] = required;
    schema["additionalProperties"] = false;
    if constexpr (requires { JsonSchemaRefine(static_cast<const T*>(nullptr), schema); })
      JsonSchemaRefine(static_cast<const T*>(nullptr), schema);
    return schema;
  }

 private:
  // A key listed twice (the branches of a condition) takes either schema.
  void Add(const char* key, ojson schema, bool required) {
    if (object_.contains(key) && object_[key] != schema) {
      schema = ojson{{"anyOf", {object_[key], schema}}};
    }
    object_[key] = std::move(schema);
    if (required && std::find(required_.begin(), required_.end(), key) == required_.end())
      required_.push_back(key);
  }

  Defs& defs_;
  ojson& object_;
  Style style_;
  ojson required_ = ojson::array();
};

// The schema of the document whose root is T: {"$schema", "$id", "title", "description", the
// root's schema, "$defs"}.
template <typename T, typename OrderedJson = nlohmann::ordered_json>
OrderedJson DocumentSchema(const std::string& name, const std::string& title,
                           const std::string& description) {
  using S = BasicSchemaWriter<OrderedJson>;
  typename S::Defs defs;
  OrderedJson root;
  if constexpr (requires(S & w, T & x) { Fields(w, x); }) {
    root = S::template ObjectOf<T>(defs, StyleOf<T>(Style{}));
  } else {  // an array of rows (history --json, list --json)
    OrderedJson unused;
    S walker(defs, unused, Style{});
    root = walker.Value(SampleOf<T>(), Style{});
  }
  OrderedJson out = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                     {"$id", "https://yardstick.invalid/schemas/" + name + ".schema.json"},
                     {"title", title}};
  if (!description.empty()) out["description"] = description;
  for (auto& [k, v] : root.items()) out[k] = std::move(v);
  if (!defs.defs.empty()) out["$defs"] = std::move(defs.defs);
  return out;
}

}  // namespace ys::json_fields

#endif  // YARDSTICK_CORE_JSON_SCHEMA_H_
