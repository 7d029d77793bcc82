#include "report/html/html_text.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace ys::report::html {

std::string EscapeHtml(std::string_view text) {
  // Through the JSON serialiser's replacement of invalid UTF-8, then the five characters.
  std::string valid = nlohmann::json(std::string(text))
                          .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  valid = nlohmann::json::parse(valid).get<std::string>();
  std::string out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptSafeJson(const nlohmann::ordered_json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  // These characters only occur inside JSON strings, where the \u form means the same.
  for (char c : s) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptSafeSource(std::string_view js) {
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js[i] == '<' && i + 1 < js.size() && js[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += js[i];
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (!std::isfinite(v)) return "n/a";
  double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string FormatPercent(double pct) { return fmt::format("{:.1f}%", pct); }

std::string FormatBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt::format("{:g} {}", std::round(bytes * 100) / 100, kUnits[u]);
}

}  // namespace ys::report::html
