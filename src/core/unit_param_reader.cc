#include "core/unit_param_reader.h"

#include <fmt/format.h>

#include <climits>
#include <set>

#include "core/toml_reader.h"

namespace ys {
namespace {

int IntBound(double v) {
  if (v <= static_cast<double>(INT_MIN)) return INT_MIN;
  if (v >= static_cast<double>(INT_MAX)) return INT_MAX;
  return static_cast<int>(v);
}

Result<ParamValue> ReadChoice(const ParamSpec& spec, const toml::node& n,
                              const std::string& where) {
  auto s = n.value<std::string>();
  if (s && spec.choices.empty()) return ParamValue(*s);
  if (s) {
    for (std::string_view c : spec.choices) {
      if (*s == c) return ParamValue(*s);
    }
  }
  if (spec.choices.empty()) return Status::Invalid(where + ": expected a string");
  std::string expect;
  for (std::string_view c : spec.choices)
    expect += fmt::format("{}\"{}\"", expect.empty() ? "" : ", ", c);
  return Status::Invalid(where + ": expected one of " + expect);
}

template <typename T>
Result<ParamValue> Wrap(Result<T> r) {
  if (!r.ok()) return r.status();
  return ParamValue(std::move(*r));
}

// The parameter names of `units`, each once (a retired id's units may share one).
std::string KeysOf(const std::vector<const RegisteredUnit*>& units) {
  std::set<std::string_view> seen;
  std::string out;
  for (const RegisteredUnit* u : units) {
    for (const ParamSpec& p : u->info.params) {
      if (!seen.insert(p.name).second) continue;
      out += (out.empty() ? "" : ", ") + std::string(p.name);
    }
  }
  return out;
}

Status ReadOneUnitTable(const toml::table& tbl, const std::string& path, const std::string& name,
                        const std::vector<const RegisteredUnit*>& units, UnitParamValues* out) {
  for (const auto& [key, value] : tbl) {
    const std::string where = TomlWhere(path, name, key.str(), &value);
    bool declared = false;
    for (const RegisteredUnit* u : units) {
      const ParamSpec* spec = FindParam(u->info.params, key.str());
      if (spec == nullptr) continue;
      declared = true;
      auto v = ReadParamValue(*spec, value, where);
      if (!v.ok()) return v.status();
      out->Set(u->info.id, spec->name, std::move(*v));
    }
    if (!declared) {
      const std::string known = KeysOf(units);
      return Status::Invalid(where + ": unknown key (" +
                             (known.empty() ? std::string("this unit has no parameters")
                                            : "expected one of " + known) +
                             ")");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ParamValue> ReadParamValue(const ParamSpec& spec, const toml::node& n,
                                  const std::string& where) {
  switch (spec.type) {
    case ParamType::kBool:
      return Wrap(ReadTomlBool(n, where));
    case ParamType::kInt:
      return Wrap(ReadTomlInt(n, where, IntBound(spec.lo), IntBound(spec.hi)));
    case ParamType::kDouble:
      return Wrap(ReadTomlNumber(n, where, spec.lo, spec.hi));
    case ParamType::kString:
      return ReadChoice(spec, n, where);
    case ParamType::kStrings:
      return Wrap(ReadTomlStrings(n, where));
    case ParamType::kInts:
      return Wrap(ReadTomlInts(n, where, IntBound(spec.lo), IntBound(spec.hi)));
    case ParamType::kPolicy:
      return Wrap(ReadTomlPolicy(n, where));
  }
  return Status::Internal(where + ": parameter of unknown type");
}

Status ReadUnitParamTables(const toml::node& unit, const std::string& path,
                           const UnitTableTargets& targets, std::string_view known_ids,
                           UnitParamValues* out) {
  const toml::table* units = unit.as_table();
  if (units == nullptr) {
    return Status::Invalid(TomlWhere(path, "", "unit", &unit) +
                           ": expected tables [unit.\"<unit id>\"]");
  }
  for (const auto& [id, node] : *units) {
    const std::string name = fmt::format("[unit.\"{}\"]", id.str());
    const toml::table* tbl = node.as_table();
    if (tbl == nullptr) {
      return Status::Invalid(TomlWhere(path, name, "", &node) + ": expected a table");
    }
    std::vector<const RegisteredUnit*> found = targets(id.str());
    if (found.empty()) {
      return Status::Invalid(TomlWhere(path, name, "", &node) +
                             ": unknown unit id (expected one of " + std::string(known_ids) + ")");
    }
    YS_RETURN_IF_ERROR(ReadOneUnitTable(*tbl, path, name, found, out));
  }
  return Status::Ok();
}

Result<Policy> ReadTomlPolicy(const toml::node& n, const std::string& where,
                              bool allow_enabled_words) {
  auto s = n.value<std::string>();
  if (s && (*s == "on" || (allow_enabled_words && *s == "enabled"))) return Policy::kOn;
  if (s && (*s == "off" || (allow_enabled_words && *s == "disabled"))) return Policy::kOff;
  if (s && *s == "any") return Policy::kAny;
  return Status::Invalid(where + ": expected \"on\", \"off\" or \"any\"");
}

}  // namespace ys
