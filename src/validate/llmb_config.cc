#include "validate/llmb_config.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/document_file.h"
#include "core/text.h"
#include "validate/retry_logs.h"

namespace ys::validate {
namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;

struct KeyValue {
  std::string key;
  std::string_view value;  // trimmed, may be empty
};

// "key: value" or "key:" with the colon outside quotes; nullopt when there is none.
std::optional<KeyValue> SplitKeyValue(std::string_view rest) {
  if (rest.empty() || rest.front() == '\'' || rest.front() == '"' || rest.front() == '{' ||
      rest.front() == '[') {
    return std::nullopt;
  }
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == ':' && (i + 1 == rest.size() || rest[i + 1] == ' ')) {
      std::string_view key = Trim(rest.substr(0, i));
      if (key.empty()) return std::nullopt;
      return KeyValue{std::string(key), Trim(rest.substr(i + 1))};
    }
  }
  return std::nullopt;
}

// Whatever follows a closing quote or a plain scalar may only be a comment.
bool OnlyComment(std::string_view tail) {
  tail = Trim(tail);
  return tail.empty() || tail.front() == '#';
}

Result<std::string> ParseScalar(std::string_view v, const std::string& where) {
  if (v.empty()) return std::string();
  char c = v.front();
  if (c == '\'') {
    std::string out;
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i] != '\'') {
        out.push_back(v[i]);
      } else if (i + 1 < v.size() && v[i + 1] == '\'') {
        out.push_back('\'');
        ++i;
      } else {
        if (!OnlyComment(v.substr(i + 1))) {
          return Status::Invalid(where + ": text after a quoted value; expected end of line");
        }
        return out;
      }
    }
    return Status::Invalid(where + ": unterminated 'single-quoted' value");
  }
  if (c == '"') {
    std::string out;
    for (size_t i = 1; i < v.size(); ++i) {
      if (v[i] == '\\' && i + 1 < v.size()) {
        char e = v[++i];
        out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
      } else if (v[i] == '"') {
        if (!OnlyComment(v.substr(i + 1))) {
          return Status::Invalid(where + ": text after a quoted value; expected end of line");
        }
        return out;
      } else {
        out.push_back(v[i]);
      }
    }
    return Status::Invalid(where + ": unterminated \"double-quoted\" value");
  }
  if (c == '{' || c == '[') {
    int depth = 0;
    for (char ch : v) {
      if (ch == '{' || ch == '[') ++depth;
      if (ch == '}' || ch == ']') --depth;
      if (depth < 0) break;
    }
    if (depth != 0) {
      return Status::Invalid(where + ": unbalanced flow collection; expected it on one line");
    }
    return std::string(v);
  }
  if (c == '&' || c == '*' || c == '!') {
    return Status::Invalid(where +
                           ": anchors, aliases and tags are not supported; expected a "
                           "plain or quoted scalar");
  }
  size_t hash = v.find(" #");
  return std::string(Trim(hash == std::string_view::npos ? v : v.substr(0, hash)));
}

bool IsBlockScalarIndicator(std::string_view v) {
  return !v.empty() && (v.front() == '|' || v.front() == '>');
}

// A line at indentation 0: a 'section:' that opens a section, or a top-level 'key: value'.
Status TopLevelLine(std::string_view rest, bool list_item, const std::string& where,
                    int64_t line_no, YamlSections& out, std::optional<std::string>& section,
                    size_t& child_indent, bool& nested_open) {
  if (list_item) {
    return Status::Invalid(where +
                           ": list at the top level; expected 'section:' or "
                           "'key: value'");
  }
  std::optional<KeyValue> kv = SplitKeyValue(rest);
  if (!kv) return Status::Invalid(where + ": expected 'key: value' or 'section:'");
  if (kv->value.empty()) {
    if (out.count(kv->key)) {
      return Status::Invalid(fmt::format("{}: duplicate section '{}'", where, kv->key));
    }
    out[kv->key];
    section = kv->key;
    child_indent = 0;
    nested_open = false;
    return Status::Ok();
  }
  if (IsBlockScalarIndicator(kv->value)) {
    return Status::Invalid(where + ": block scalars are not supported at the top level");
  }
  Result<std::string> v = ParseScalar(kv->value, where);
  if (!v.ok()) return v.status();
  if (out[""].count(kv->key) || (out.count(kv->key) && kv->key != "")) {
    return Status::Invalid(fmt::format("{}: duplicate key '{}'", where, kv->key));
  }
  out[""][kv->key] = {*v, line_no};
  section.reset();
  return Status::Ok();
}

}  // namespace

Result<YamlSections> ParseFlatYaml(std::string_view text, std::string_view name) {
  YamlSections out;
  std::optional<std::string> section;
  size_t child_indent = 0;
  bool nested_open = false;  // the last key had no value: deeper lines and "- " items belong to it
  int64_t line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    std::string where = fmt::format("{}:{}", name, line_no);
    size_t indent = 0;
    while (indent < line.size() && (line[indent] == ' ' || line[indent] == '\t')) {
      if (line[indent] == '\t') {
        if (Trim(line).empty()) break;
        return Status::Invalid(where + ": tab in indentation; expected spaces");
      }
      ++indent;
    }
    std::string_view rest = Trim(line.substr(std::min(indent, line.size())));
    if (rest.empty() || rest.front() == '#') continue;
    if (rest == "---" && indent == 0 && line_no == 1) continue;
    bool list_item = rest == "-" || StartsWith(rest, "- ");
    if (indent == 0) {
      YS_RETURN_IF_ERROR(
          TopLevelLine(rest, list_item, where, line_no, out, section, child_indent, nested_open));
      continue;
    }
    if (!section) {
      return Status::Invalid(where +
                             ": indented line outside a section; expected a top-level "
                             "'section:' before it");
    }
    if (child_indent == 0) child_indent = indent;
    if (indent > child_indent) {
      if (!nested_open) {
        return Status::Invalid(
            fmt::format("{}: indented {} spaces under a key that has a value; expected {} spaces",
                        where, indent, child_indent));
      }
      continue;  // content of a nested block this reader does not need
    }
    if (indent < child_indent) {
      return Status::Invalid(
          fmt::format("{}: indented {} spaces; the keys of section '{}' are indented {}", where,
                      indent, *section, child_indent));
    }
    if (list_item) {
      if (!nested_open) {
        return Status::Invalid(where + ": list item without a key above it; expected 'key: value'");
      }
      continue;
    }
    std::optional<KeyValue> kv = SplitKeyValue(rest);
    if (!kv) return Status::Invalid(where + ": expected 'key: value'");
    auto& keys = out[*section];
    if (keys.count(kv->key)) {
      return Status::Invalid(
          fmt::format("{}: duplicate key '{}' in section '{}'", where, kv->key, *section));
    }
    if (kv->value.empty() || IsBlockScalarIndicator(kv->value)) {
      nested_open = true;
      keys[kv->key] = {"", line_no};
      continue;
    }
    nested_open = false;
    Result<std::string> v = ParseScalar(kv->value, where);
    if (!v.ok()) return v.status();
    keys[kv->key] = {*v, line_no};
  }
  return out;
}

Result<LlmbConfig> ParseLlmbConfig(std::string_view text, std::string_view name) {
  Result<YamlSections> yaml = ParseFlatYaml(text, name);
  if (!yaml.ok()) return yaml.status();
  const YamlSections& y = *yaml;
  auto model = y.find("model_info");
  if (model == y.end()) {
    return Status::Invalid(fmt::format(
        "{}: no 'model_info' section; expected an llmb-config file (model_info: model_name, "
        "model_size, dtype, scale, gpu_type)",
        name));
  }
  auto get = [&](const char* sec, const char* key) -> const YamlScalar* {
    auto s = y.find(sec);
    if (s == y.end()) return nullptr;
    auto k = s->second.find(key);
    return k == s->second.end() ? nullptr : &k->second;
  };
  auto text_of = [&](const char* sec, const char* key) {
    const YamlScalar* v = get(sec, key);
    return v ? v->value : std::string();
  };
  auto positive = [&](const char* sec, const char* key) -> Result<std::optional<int64_t>> {
    const YamlScalar* v = get(sec, key);
    if (!v) return std::optional<int64_t>();
    std::optional<int64_t> n = ParseInt(v->value);
    if (!n || *n <= 0) {
      return Status::Invalid(fmt::format("{}:{}: {}.{} is '{}'; expected a positive integer", name,
                                         v->line, sec, key, v->value));
    }
    return std::optional<int64_t>(n);
  };
  LlmbConfig c;
  c.path = std::string(name);
  c.job_id = text_of("job_info", "job_id");
  c.framework = text_of("workload_info", "framework");
  c.fw_version = text_of("workload_info", "fw_version");
  c.model_name = text_of("model_info", "model_name");
  c.model_size = text_of("model_info", "model_size");
  c.dtype = text_of("model_info", "dtype");
  c.gpu_type = text_of("model_info", "gpu_type");
  Result<std::optional<int64_t>> scale = positive("model_info", "scale");
  if (!scale.ok()) return scale.status();
  c.scale = *scale;
  Result<std::optional<int64_t>> gpn = positive("cluster_info", "gpus_per_node");
  if (!gpn.ok()) return gpn.status();
  c.gpus_per_node = *gpn;
  return c;
}

Result<LlmbConfig> ReadLlmbConfig(const std::string& path) {
  auto read = ReadDocumentFile(path, kMaxConfigBytes, "a small llmb-config file");
  if (!read.ok()) return read.status();
  const std::string& text = *read;
  if (text.find('\0') != std::string::npos) {
    return Status::Invalid(fmt::format("{}: binary data; expected YAML text", path));
  }
  return ParseLlmbConfig(text, path);
}

std::string LlmbConfigPathFor(std::string_view log_path) {
  std::string job = JobIdOfLog(log_path);
  if (job.empty()) return {};
  std::filesystem::path dir = std::filesystem::path(std::string(log_path)).parent_path();
  return (dir / ("llmb-config_" + job + ".yaml")).string();
}

}  // namespace ys::validate
