#include "serve/exposition.h"

#include <fmt/format.h>

#include <cmath>

namespace ys::serve {

namespace {

bool IsNameChar(char c, bool first, bool allow_colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (allow_colon && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

std::string LabelKey(const Labels& labels) {
  std::string key;
  for (const auto& [name, value] : labels) key += name + '\x1f' + value + '\x1e';
  return key;
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i], i == 0, true)) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i], i == 0, false)) return false;
  }
  return true;
}

std::string SanitizeLabelName(std::string_view text) {
  std::string out;
  for (char c : text) out += IsNameChar(c, false, false) ? c : '_';
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  while (out.starts_with("__")) out.erase(0, 1);
  return out;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (value == std::floor(value) && std::fabs(value) <= kExactIntegers) {
    return fmt::format("{}", static_cast<int64_t>(value));
  }
  return fmt::format("{}", value);  // shortest round-trip form
}

void Exposition::Add(std::string_view name, MetricType type, std::string_view help, Labels labels,
                     double value) {
  if (!IsValidMetricName(name)) return;
  for (const auto& [label, v] : labels) {
    if (!IsValidLabelName(label)) return;
  }
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_
             .emplace(std::string(name),
                      MetricFamily{std::string(name), std::string(help), type, {}})
             .first;
  }
  if (!seen_[std::string(name)].insert(LabelKey(labels)).second) return;
  it->second.samples.push_back(Sample{std::move(labels), value});
}

void Exposition::Merge(const Exposition& other) {
  for (const auto& [name, family] : other.families_) {
    for (const auto& s : family.samples) Add(name, family.type, family.help, s.labels, s.value);
  }
}

const MetricFamily* Exposition::Find(std::string_view name) const {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : &it->second;
}

std::string Exposition::Text() const {
  std::string out;
  for (const auto& [name, family] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, EscapeHelp(family.help), name,
                       family.type == MetricType::kCounter ? "counter" : "gauge");
    for (const auto& s : family.samples) {
      out += name;
      if (!s.labels.empty()) {
        out += '{';
        for (size_t i = 0; i < s.labels.size(); ++i) {
          if (i > 0) out += ',';
          out += s.labels[i].first + "=\"" + EscapeLabelValue(s.labels[i].second) + '"';
        }
        out += '}';
      }
      out += ' ' + FormatValue(s.value) + '\n';
    }
  }
  return out;
}

void AddStates(Exposition& e, std::string_view family, std::string_view help, const Labels& labels,
               std::initializer_list<const char*> states, std::string_view current) {
  bool known = false;
  for (const char* s : states) known |= current == s;
  if (!known) return;
  for (const char* s : states) {
    Labels l = labels;
    l.emplace_back("state", s);
    e.Add(family, MetricType::kGauge, help, std::move(l), current == s ? 1 : 0);
  }
}

}  // namespace ys::serve
