#include "core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ys {

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> out = Split(s, '\n');
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (auto& line : out) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint(std::string_view s) {
  s = Trim(s);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  s = Trim(s);
  if (StartsWith(s, "0x") || StartsWith(s, "0X")) s.remove_prefix(2);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  std::string copy(s);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDurationSeconds(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  if (auto bare = ParseDouble(s)) {
    if (!std::isfinite(*bare) || *bare < 0) return std::nullopt;
    return *bare;
  }
  double total = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    if (j == i || j == s.size()) return std::nullopt;
    auto number = ParseDouble(s.substr(i, j - i));
    if (!number || !std::isfinite(*number)) return std::nullopt;
    double unit = 0;
    switch (s[j]) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
      default:
        return std::nullopt;
    }
    total += *number * unit;
    i = j + 1;
  }
  return total;
}

std::string SanitizeForDisplay(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto escape = [&out](unsigned char c) {
    static const char* kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n') {
        escape(c);
      } else if (c == 0x7f) {
        escape(c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // Length of a UTF-8 sequence from its lead byte; reject overlong and out-of-range leads.
    size_t len = (c >= 0xc2 && c <= 0xdf)   ? 2
                 : (c >= 0xe0 && c <= 0xef) ? 3
                 : (c >= 0xf0 && c <= 0xf4) ? 4
                                            : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      escape(c);
      ++i;
    }
  }
  return out;
}

bool GlobMatch(std::string_view pat, std::string_view txt) {
  size_t p = 0, t = 0, star_p = std::string_view::npos, star_t = 0;
  while (t < txt.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < pat.size() && pat[p] == '[') {
      size_t close = pat.find(']', p + 1);
      if (close != std::string_view::npos) {
        std::string_view cls = pat.substr(p + 1, close - p - 1);
        bool negate = !cls.empty() && (cls[0] == '!' || cls[0] == '^');
        if (negate) cls.remove_prefix(1);
        bool hit = false;
        for (size_t i = 0; i < cls.size(); ++i) {
          if (i + 2 < cls.size() && cls[i + 1] == '-') {
            if (txt[t] >= cls[i] && txt[t] <= cls[i + 2]) hit = true;
            i += 2;
          } else if (cls[i] == txt[t]) {
            hit = true;
          }
        }
        if (hit != negate) {
          p = close + 1;
          ++t;
          continue;
        }
      }
    } else if (p < pat.size() && (pat[p] == '?' || pat[p] == txt[t])) {
      ++p;
      ++t;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool MatchesAnyGlob(std::string_view text, const std::vector<std::string>& globs) {
  if (globs.empty()) return true;
  for (const auto& g : globs) {
    if (GlobMatch(g, text)) return true;
  }
  return false;
}

std::optional<std::vector<std::string>> SplitCsvLine(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return cells;
}

std::string TwoSignificant(double v) {
  if (!(v > 0) || !std::isfinite(v)) return "0";
  double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
  double rounded = std::round(v / scale) * scale;
  int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(scale) + 1e-9)));
  return fmt::format("{:.{}f}", rounded, decimals);
}

}  // namespace ys
