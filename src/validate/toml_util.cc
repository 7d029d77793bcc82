#include "validate/toml_util.h"

#include <sstream>

namespace ys::validate {

Result<toml::table> ParseToml(std::string_view text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Status::Invalid(path + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
}

std::string TableReader::At(const char* key) const {
  const toml::node* n = table_.get(key);
  std::string line = n && n->source().begin.line > 0 ? " (line " + std::to_string(n->source().begin.line) + ")" : "";
  return where_ + ": " + key + line;
}

Status TableReader::String(const char* key, std::string* out, bool required) {
  used_.insert(key);
  const toml::node* n = table_.get(key);
  if (n == nullptr) return required ? Status::Invalid(where_ + ": missing " + key) : Status::Ok();
  if (!n->is_string()) return Status::Invalid(At(key) + ": expected a string");
  *out = *n->value<std::string>();
  return Status::Ok();
}

Status TableReader::Int(const char* key, int* out, int lo, int hi, bool required) {
  used_.insert(key);
  const toml::node* n = table_.get(key);
  if (n == nullptr) return required ? Status::Invalid(where_ + ": missing " + key) : Status::Ok();
  auto v = n->is_integer() ? n->value<int64_t>() : std::nullopt;
  if (!v) {
    return Status::Invalid(At(key) + ": expected a whole number from " + std::to_string(lo) + " to " +
                           std::to_string(hi));
  }
  YS_RETURN_IF_ERROR(CheckIntRange(*v, lo, hi, At(key)));
  *out = static_cast<int>(*v);
  return Status::Ok();
}

Status TableReader::Double(const char* key, double* out, double lo, double hi, bool required,
                           LowerBound lower) {
  used_.insert(key);
  const toml::node* n = table_.get(key);
  if (n == nullptr) return required ? Status::Invalid(where_ + ": missing " + key) : Status::Ok();
  auto v = (n->is_floating_point() || n->is_integer()) ? n->value<double>() : std::nullopt;
  if (!v) return Status::Invalid(At(key) + ": expected a number " + DescribeRange(lo, hi, lower));
  YS_RETURN_IF_ERROR(CheckRange(*v, lo, hi, At(key), lower));
  *out = *v;
  return Status::Ok();
}

Status TableReader::OptionalDouble(const char* key, std::optional<double>* out, double lo,
                                   double hi, LowerBound lower) {
  if (table_.get(key) == nullptr) {
    used_.insert(key);
    return Status::Ok();
  }
  double v = 0;
  YS_RETURN_IF_ERROR(Double(key, &v, lo, hi, true, lower));
  *out = v;
  return Status::Ok();
}

Status TableReader::NoOtherKeys() const {
  for (const auto& [k, v] : table_) {
    std::string key(k.str());
    if (!used_.count(key)) {
      std::string line = v.source().begin.line > 0 ? " (line " + std::to_string(v.source().begin.line) + ")" : "";
      return Status::Invalid(where_ + ": unknown key " + key + line);
    }
  }
  return Status::Ok();
}

}  // namespace ys::validate
