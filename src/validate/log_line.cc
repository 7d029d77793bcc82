#include "validate/log_line.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace ys::validate {

namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Length of the number token at the start of `s` (0 when there is none).
size_t ScanNumber(std::string_view s, bool allow_commas) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  // nan / inf / infinity, ending at a non-word character.
  for (std::string_view word : {"infinity", "nan", "inf"}) {
    if (s.size() - i >= word.size() && EqualsIgnoreCase(s.substr(i, word.size()), word) &&
        (i + word.size() == s.size() || !IsWordChar(s[i + word.size()]))) {
      return i + word.size();
    }
  }
  size_t digits = 0;
  while (i < s.size()) {
    if (IsDigit(s[i])) {
      ++i;
      ++digits;
    } else if (allow_commas && s[i] == ',' && digits > 0 && i + 3 < s.size() && IsDigit(s[i + 1]) &&
               IsDigit(s[i + 2]) && IsDigit(s[i + 3]) &&
               (i + 4 == s.size() || !IsDigit(s[i + 4]))) {
      i += 4;
      digits += 3;
    } else {
      break;
    }
  }
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && IsDigit(s[j])) ++j;
    if (j > i + 1 || digits > 0) {
      digits += j - i - 1;
      i = j;
    }
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t k = j;
    while (k < s.size() && IsDigit(s[k])) ++k;
    if (k > j) i = k;
  }
  return i;
}

}  // namespace

std::string StripAnsi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out.push_back(line[i]);
      continue;
    }
    if (i + 1 >= line.size()) break;
    char kind = line[i + 1];
    if (kind == '[') {  // CSI: parameters and intermediates, then one final byte 0x40-0x7e
      size_t j = i + 2;
      while (j < line.size() && static_cast<unsigned char>(line[j]) >= 0x20 &&
             static_cast<unsigned char>(line[j]) <= 0x3f) {
        ++j;
      }
      i = j < line.size() ? j : line.size() - 1;
    } else if (kind == ']') {  // OSC: up to BEL or ESC '\'
      size_t j = i + 2;
      while (j < line.size() && line[j] != '\a' &&
             !(line[j] == '\x1b' && j + 1 < line.size() && line[j + 1] == '\\')) {
        ++j;
      }
      i = (j < line.size() && line[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  return out;
}

PlainLine::PlainLine(std::string_view raw) : view_(raw) {
  if (raw.find('\x1b') != std::string_view::npos) {
    stripped_ = StripAnsi(raw);
    view_ = stripped_;
  }
}

std::optional<double> ParseLogNumber(std::string_view token, bool allow_commas) {
  if (token.empty() || ScanNumber(token, allow_commas) != token.size()) return std::nullopt;
  bool negative = token.front() == '-';
  std::string_view body = token;
  if (body.front() == '+' || body.front() == '-') body.remove_prefix(1);
  if (std::isalpha(static_cast<unsigned char>(body.front()))) {
    if (EqualsIgnoreCase(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
    double inf = std::numeric_limits<double>::infinity();
    return negative ? -inf : inf;
  }
  std::string clean;
  clean.reserve(token.size());
  if (negative) clean.push_back('-');
  for (char c : body) {
    if (c != ',') clean.push_back(c);
  }
  double v = 0;
  auto [p, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), v);
  if (ec != std::errc() || p != clean.data() + clean.size()) return std::nullopt;
  return v;
}

size_t FindWord(std::string_view line, std::string_view key, size_t from) {
  while (true) {
    size_t pos = line.find(key, from);
    if (pos == std::string_view::npos) return pos;
    if (pos == 0 || !IsWordChar(line[pos - 1]) || !IsWordChar(key.front())) return pos;
    from = pos + 1;
  }
}

std::optional<double> NumberAfter(std::string_view line, std::string_view key, bool allow_commas) {
  size_t from = 0;
  while (true) {
    size_t pos = FindWord(line, key, from);
    if (pos == std::string_view::npos) return std::nullopt;
    size_t i = pos + key.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string_view rest = line.substr(i);
    size_t len = ScanNumber(rest, allow_commas);
    if (len > 0) {
      if (auto v = ParseLogNumber(rest.substr(0, len), allow_commas)) return v;
    }
    from = pos + 1;
  }
}

std::optional<double> NumberBefore(std::string_view line, std::string_view unit) {
  size_t from = 0;
  while (true) {
    size_t pos = line.find(unit, from);
    if (pos == std::string_view::npos) return std::nullopt;
    size_t end = pos;
    while (end > 0 && line[end - 1] == ' ') --end;
    size_t begin = end;
    while (begin > 0 && (IsDigit(line[begin - 1]) || line[begin - 1] == '.')) --begin;
    if (begin > 0 && line[begin - 1] == '-') --begin;
    if (begin < end && (begin == 0 || !IsWordChar(line[begin - 1]))) {
      if (auto v = ParseLogNumber(line.substr(begin, end - begin))) return v;
    }
    from = pos + 1;
  }
}

std::optional<IterationMarker> FindIterationMarker(std::string_view line) {
  constexpr std::string_view kWord = "iteration";
  size_t from = 0;
  while (true) {
    size_t pos = FindWord(line, kWord, from);
    if (pos == std::string_view::npos) return std::nullopt;
    from = pos + 1;
    size_t i = pos + kWord.size();
    size_t spaces = 0;
    while (i < line.size() && line[i] == ' ') ++i, ++spaces;
    if (spaces == 0) continue;
    size_t n_begin = i;
    while (i < line.size() && IsDigit(line[i])) ++i;
    if (i == n_begin) continue;
    size_t n_end = i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size() || line[i] != '/') continue;
    ++i;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t m_begin = i;
    while (i < line.size() && IsDigit(line[i])) ++i;
    if (i == m_begin || (i < line.size() && IsWordChar(line[i]))) continue;
    IterationMarker mk;
    auto [p1, e1] = std::from_chars(line.data() + n_begin, line.data() + n_end, mk.n);
    auto [p2, e2] = std::from_chars(line.data() + m_begin, line.data() + i, mk.m);
    if (e1 != std::errc() || e2 != std::errc()) continue;
    mk.end = i;
    return mk;
  }
}

std::optional<int64_t> LogCount(std::optional<double> v) {
  // 2^63 is the first double an int64_t cannot hold; NaN fails every comparison.
  if (!v || !(*v >= 1 && *v < 0x1p63) || *v != std::floor(*v)) return std::nullopt;
  return static_cast<int64_t>(*v);
}

}  // namespace ys::validate
