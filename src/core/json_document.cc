#include "core/json_document.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ys {
namespace {

using json = nlohmann::json;

// Builds the tree like json::parse, but stops at the first array or object deeper than the limit
// and keeps the byte position of an error instead of throwing.
class BoundedDomSax {
 public:
  BoundedDomSax(json& root, int max_depth)
      : dom_(root, /*allow_exceptions=*/false), max_depth_(max_depth) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return Deeper() && dom_.start_object(n); }
  bool key(json::string_t& v) { return dom_.key(v); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) { return Deeper() && dom_.start_array(n); }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    error_byte = position;
    error = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." -> the part after
    // "]".
    if (size_t close = error.find("] ");
        error.starts_with("[json.exception.") && close != std::string::npos) {
      error.erase(0, close + 2);
    }
    (void)token;
    return dom_.parse_error(position, token, e);
  }

  bool too_deep = false;
  std::string error;
  size_t error_byte = 0;

 private:
  bool Deeper() {
    if (++depth_ > max_depth_) {
      too_deep = true;
      return false;
    }
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int max_depth_;
  int depth_ = 0;
};

// Byte offset of the bracket that first takes the nesting past max_depth (strings skipped).
size_t ByteWhereDepthExceeds(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

template <typename Check>
Status GetTyped(const json& j, const char* key, const std::string& where, bool required,
                const char* expected, Check is_type, const json** found) {
  *found = nullptr;
  auto it = j.is_object() ? j.find(key) : j.end();
  if (!j.is_object() || it == j.end()) {
    return required ? Status::Invalid(where + "." + key + ": missing, expected " + expected)
                    : Status::Ok();
  }
  if (!is_type(*it)) {
    return Status::Invalid(where + "." + key + ": expected " + expected + ", found " +
                           JsonTypePhrase(*it));
  }
  *found = &*it;
  return Status::Ok();
}

}  // namespace

Result<json> ParseJsonDocument(std::string_view text, const std::string& source, int max_depth) {
  json root;
  BoundedDomSax sax(root, max_depth);
  bool ok = json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                            /*strict=*/true);
  if (sax.too_deep) {
    return Status::Invalid(
        fmt::format("{}: arrays and objects nested deeper than {} levels, at byte {}", source,
                    max_depth, ByteWhereDepthExceeds(text, max_depth)));
  }
  if (!ok || root.is_discarded()) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      return Status::Invalid(source + ": not JSON: empty, expected a JSON document");
    }
    return Status::Invalid(fmt::format("{}: not JSON: {}, at byte {}", source,
                                       sax.error.empty() ? "parse error" : sax.error,
                                       sax.error_byte));
  }
  return root;
}

Result<json> ReadJsonFile(const std::string& path, DocumentKind kind) {
  auto text = ReadDocumentFile(path, kind);
  if (!text.ok()) return text.status();
  return ParseJsonDocument(*text, path);
}

std::string JsonForMessage(const json& v, size_t max_chars) {
  if (v.is_structured() && v.size() > max_chars)
    return JsonTypePhrase(v);  // do not dump a large tree
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > max_chars) s = s.substr(0, max_chars) + "...";
  return s;
}

const char* JsonTypePhrase(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    case json::value_t::binary:
      return "binary data";
    case json::value_t::discarded:
      return "nothing";
  }
  return "something else";
}

Status JsonString(const json& j, const char* key, std::string* out, const std::string& where,
                  bool required) {
  const json* v;
  YS_RETURN_IF_ERROR(GetTyped(
      j, key, where, required, "a string", [](const json& x) { return x.is_string(); }, &v));
  if (v) *out = v->get_ref<const std::string&>();
  return Status::Ok();
}

Status JsonNumber(const json& j, const char* key, double* out, const std::string& where,
                  bool required) {
  const json* v;
  YS_RETURN_IF_ERROR(GetTyped(
      j, key, where, required, "a number", [](const json& x) { return x.is_number(); }, &v));
  if (v) *out = v->get<double>();
  return Status::Ok();
}

Status JsonBool(const json& j, const char* key, bool* out, const std::string& where,
                bool required) {
  const json* v;
  YS_RETURN_IF_ERROR(GetTyped(
      j, key, where, required, "true or false", [](const json& x) { return x.is_boolean(); }, &v));
  if (v) *out = v->get<bool>();
  return Status::Ok();
}

}  // namespace ys
