#include "core/toml_reader.h"

#include <fmt/format.h>

#include <cstdint>

namespace ys {

Result<toml::table> ParseToml(std::string_view text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(fmt::format("{}:{}:{}: {}", path, e.source().begin.line,
                                       e.source().begin.column, e.description()));
  }
}

std::string TomlWhere(std::string_view path, std::string_view table, std::string_view key,
                      const toml::node* n, const toml::node* fallback) {
  uint32_t line = n != nullptr ? n->source().begin.line : 0;
  if (line == 0 && fallback != nullptr) line = fallback->source().begin.line;
  std::string out(path);
  if (line > 0) out += ":" + std::to_string(line);
  out += ":";
  if (!table.empty()) out += " " + std::string(table);
  if (!key.empty()) out += " " + std::string(key);
  return out;
}

Result<std::string> ReadTomlString(const toml::node& n, const std::string& where,
                                   bool allow_empty) {
  if (!n.is_string()) {
    return Status::Invalid(where +
                           (allow_empty ? ": expected a string" : ": expected a non-empty string"));
  }
  std::string v = *n.value<std::string>();
  if (!allow_empty && v.empty()) return Status::Invalid(where + ": expected a non-empty string");
  return v;
}

Result<double> ReadTomlNumber(const toml::node& n, const std::string& where, double lo, double hi,
                              LowerBound lower) {
  auto v = (n.is_floating_point() || n.is_integer()) ? n.value<double>() : std::nullopt;
  if (!v) return Status::Invalid(where + ": expected a number " + DescribeRange(lo, hi, lower));
  YS_RETURN_IF_ERROR(CheckRange(*v, lo, hi, where, lower));
  return *v;
}

Result<int> ReadTomlInt(const toml::node& n, const std::string& where, int lo, int hi) {
  auto v = n.is_integer() ? n.value<int64_t>() : std::nullopt;
  if (!v)
    return Status::Invalid(fmt::format("{}: expected a whole number from {} to {}", where, lo, hi));
  YS_RETURN_IF_ERROR(CheckIntRange(*v, lo, hi, where));
  return static_cast<int>(*v);
}

Result<bool> ReadTomlBool(const toml::node& n, const std::string& where) {
  if (!n.is_boolean()) return Status::Invalid(where + ": expected true or false");
  return *n.value<bool>();
}

Result<std::vector<std::string>> ReadTomlStrings(const toml::node& n, const std::string& where,
                                                 bool allow_empty_list) {
  const std::string expect = where + (allow_empty_list ? ": expected an array of strings"
                                                       : ": expected a non-empty array of strings");
  const toml::array* a = n.as_array();
  if (a == nullptr) return Status::Invalid(expect);
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    if (!e.is_string()) return Status::Invalid(expect + "; an element is not a string");
    out.push_back(*e.value<std::string>());
  }
  if (out.empty() && !allow_empty_list) return Status::Invalid(expect);
  return out;
}

Result<std::vector<int>> ReadTomlInts(const toml::node& n, const std::string& where, int lo,
                                      int hi) {
  const toml::array* a = n.as_array();
  std::string expect =
      fmt::format("{}: expected an array of whole numbers from {} to {}", where, lo, hi);
  if (a == nullptr) return Status::Invalid(expect);
  std::vector<int> out;
  for (const toml::node& e : *a) {
    auto x = e.is_integer() ? e.value<int64_t>() : std::nullopt;
    if (!x) return Status::Invalid(expect);
    YS_RETURN_IF_ERROR(CheckIntRange(*x, lo, hi, fmt::format("{}[{}]", where, out.size())));
    out.push_back(static_cast<int>(*x));
  }
  return out;
}

Result<const toml::table*> TomlSubTable(const toml::table& parent, std::string_view path,
                                        std::string_view name) {
  const toml::node* n = parent.get(name);
  if (n == nullptr) return static_cast<const toml::table*>(nullptr);
  if (!n->is_table()) {
    return Status::Invalid(TomlWhere(path, "", name, n) + ": expected a table [" +
                           std::string(name) + "]");
  }
  return n->as_table();
}

const toml::node* TomlTableReader::Get(const char* key) {
  used_.insert(key);
  return t_.get(key);
}

std::string TomlTableReader::Where(std::string_view key) const {
  return TomlWhere(path_, table_, key, t_.get(key), &t_);
}

Status TomlTableReader::Error(std::string_view key, std::string_view what) const {
  return Status::Invalid(Where(key) + ": " + std::string(what));
}

Status TomlTableReader::Check(std::string_view key, const Status& s) const {
  if (s.ok()) return s;
  return Error(key, s.message());
}

Status TomlTableReader::Missing(std::string_view key, std::string_view expected) const {
  return Error(key, "missing; " + std::string(expected));
}

Status TomlTableReader::String(const char* key, std::string* out, bool required, bool allow_empty) {
  const toml::node* n = Get(key);
  if (n == nullptr) {
    return required
               ? Missing(key, allow_empty ? "expected a string" : "expected a non-empty string")
               : Status::Ok();
  }
  auto v = ReadTomlString(*n, Where(key), allow_empty);
  if (!v.ok()) return v.status();
  *out = std::move(*v);
  return Status::Ok();
}

Status TomlTableReader::Int(const char* key, int* out, int lo, int hi, bool required) {
  const toml::node* n = Get(key);
  if (n == nullptr) {
    return required ? Missing(key, fmt::format("expected a whole number from {} to {}", lo, hi))
                    : Status::Ok();
  }
  auto v = ReadTomlInt(*n, Where(key), lo, hi);
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

Status TomlTableReader::OptionalInt(const char* key, std::optional<int>* out, int lo, int hi) {
  int v = 0;
  if (t_.get(key) == nullptr) {
    used_.insert(key);
    return Status::Ok();
  }
  YS_RETURN_IF_ERROR(Int(key, &v, lo, hi));
  *out = v;
  return Status::Ok();
}

Status TomlTableReader::Double(const char* key, double* out, double lo, double hi, bool required,
                               LowerBound lower) {
  const toml::node* n = Get(key);
  if (n == nullptr) {
    return required ? Missing(key, "expected a number " + DescribeRange(lo, hi, lower))
                    : Status::Ok();
  }
  auto v = ReadTomlNumber(*n, Where(key), lo, hi, lower);
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

Status TomlTableReader::OptionalDouble(const char* key, std::optional<double>* out, double lo,
                                       double hi, LowerBound lower) {
  double v = 0;
  if (t_.get(key) == nullptr) {
    used_.insert(key);
    return Status::Ok();
  }
  YS_RETURN_IF_ERROR(Double(key, &v, lo, hi, true, lower));
  *out = v;
  return Status::Ok();
}

Status TomlTableReader::Bool(const char* key, bool* out, bool required) {
  const toml::node* n = Get(key);
  if (n == nullptr) return required ? Missing(key, "expected true or false") : Status::Ok();
  auto v = ReadTomlBool(*n, Where(key));
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

Status TomlTableReader::Strings(const char* key, std::vector<std::string>* out, bool required,
                                bool allow_empty_list) {
  const toml::node* n = Get(key);
  if (n == nullptr) {
    return required ? Missing(key, allow_empty_list ? "expected an array of strings"
                                                    : "expected a non-empty array of strings")
                    : Status::Ok();
  }
  auto v = ReadTomlStrings(*n, Where(key), allow_empty_list);
  if (!v.ok()) return v.status();
  *out = std::move(*v);
  return Status::Ok();
}

Status TomlTableReader::OnlyKeys(std::initializer_list<std::string_view> known) const {
  for (const auto& [k, v] : t_) {
    bool ok = false;
    for (auto name : known) ok = ok || name == k.str();
    if (!ok) return Error(k.str(), "unknown key");
  }
  return Status::Ok();
}

Status TomlTableReader::NoOtherKeys() const {
  for (const auto& [k, v] : t_) {
    if (used_.find(k.str()) != used_.end()) continue;
    std::string known;
    for (const std::string& u : used_) known += (known.empty() ? "" : ", ") + u;
    return Error(k.str(),
                 known.empty() ? "unknown key" : "unknown key (expected one of " + known + ")");
  }
  return Status::Ok();
}

}  // namespace ys
