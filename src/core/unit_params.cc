#include "core/unit_params.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ys {

const char* PolicyName(Policy p) {
  switch (p) {
    case Policy::kAny:
      return "any";
    case Policy::kOn:
      return "on";
    case Policy::kOff:
      return "off";
  }
  return "any";
}

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kBool:
      return "bool";
    case ParamType::kInt:
      return "int";
    case ParamType::kDouble:
      return "double";
    case ParamType::kString:
      return "string";
    case ParamType::kStrings:
      return "list of string";
    case ParamType::kInts:
      return "list of int";
    case ParamType::kPolicy:
      return "policy";
  }
  return "string";
}

std::string DescribeParamRange(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::kInt:
    case ParamType::kInts:
      return fmt::format("{} to {}", static_cast<long long>(spec.lo),
                         static_cast<long long>(spec.hi));
    case ParamType::kDouble:
      return fmt::format("{} to {}", spec.lo, spec.hi);
    case ParamType::kPolicy:
      return "on, off, any";
    case ParamType::kString: {
      std::string out;
      for (std::string_view c : spec.choices) out += (out.empty() ? "" : ", ") + std::string(c);
      return out;
    }
    default:
      return "";
  }
}

namespace {

std::string Quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

struct Formatter {
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(int i) const { return std::to_string(i); }
  std::string operator()(double d) const { return fmt::format("{}", d); }
  std::string operator()(const std::string& s) const { return Quoted(s); }
  std::string operator()(Policy p) const { return Quoted(PolicyName(p)); }
  std::string operator()(const std::vector<std::string>& v) const {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + Quoted(s);
    return "[" + out + "]";
  }
  std::string operator()(const std::vector<int>& v) const {
    std::string out;
    for (int i : v) out += (out.empty() ? "" : ", ") + std::to_string(i);
    return "[" + out + "]";
  }
};

}  // namespace

std::string FormatParamValue(const ParamValue& v) { return std::visit(Formatter{}, v); }

void UnitParamValues::Set(std::string_view unit_id, std::string_view name, ParamValue value) {
  values_[std::string(unit_id)][std::string(name)] = std::move(value);
}

const ParamValue* UnitParamValues::Find(std::string_view unit_id, std::string_view name) const {
  auto u = values_.find(unit_id);
  if (u == values_.end()) return nullptr;
  auto p = u->second.find(name);
  return p == u->second.end() ? nullptr : &p->second;
}

const ParamSpec* FindParam(const std::vector<ParamSpec>& params, std::string_view name) {
  for (const ParamSpec& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const ParamValue& UnitParamSource::ValueOf(std::string_view name) const {
  if (declared_ == nullptr) {
    throw std::logic_error("parameter " + std::string(name) + " read outside a unit's run");
  }
  const ParamSpec* spec = FindParam(*declared_, name);
  if (spec == nullptr) {
    throw std::logic_error(std::string(unit_id_) + " reads parameter " + std::string(name) +
                           " that it does not declare");
  }
  const ParamValue* set = set_->Find(unit_id_, name);
  return set != nullptr ? *set : spec->default_value;
}

void UnitParamSource::ThrowType(std::string_view name) const {
  throw std::logic_error(std::string(unit_id_) + " reads parameter " + std::string(name) +
                         " as another type than it declares");
}

}  // namespace ys
