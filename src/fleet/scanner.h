// A pull scanner over JSON text for the lean fleet reader (fleet/reader.h): it checks the syntax
// of everything it passes and converts only what it is asked for. Every method returns false on
// malformed text; the scanner then stays failed.
#ifndef YARDSTICK_FLEET_SCANNER_H_
#define YARDSTICK_FLEET_SCANNER_H_

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/json_document.h"

namespace ys::fleet {

// Whether the n bytes at a and b are equal: eight at a time, then byte by byte, inline (the
// reader compares many short texts, a figure's param or number with the one expected, where a call
// to memcmp costs more than the comparison).
inline bool SameBytes(const char* a, const char* b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (; n > 0; ++a, ++b, --n) {
    if (*a != *b) return false;
  }
  return true;
}

class FleetScanner {
 public:
  explicit FleetScanner(std::string_view t) : p_(t.data()), end_(t.data() + t.size()) {}

  bool AtEnd() {
    Ws();
    return p_ == end_;
  }
  bool Peek(char c) {
    Ws();
    return p_ < end_ && *p_ == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++p_;
    return true;
  }

  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (p_ < end_) {
      const char* run = p_;
      SkipPlain();
      out->append(run, p_);
      if (p_ == end_) return false;
      char c = *p_++;
      if (c == '"') return true;
      if (c != '\\') return false;  // a control character
      if (p_ == end_) return false;
      c = *p_++;
      switch (c) {
        case '"':
        case '\\':
        case '/':
          out->push_back(c);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t lo = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return false;
          }
          Utf8(cp, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }

  // A string's text: a view into the scanned text when it has no escapes (most keys and values),
  // else decoded into *scratch. The view lives as long as the text or *scratch.
  bool StringView(std::string_view* out, std::string* scratch) {
    if (!Eat('"')) return false;
    const char* start = p_;
    SkipPlain();
    if (p_ < end_ && *p_ == '"') {
      *out = std::string_view(start, static_cast<size_t>(p_ - start));
      ++p_;
      return true;
    }
    p_ = start - 1;  // an escape (or an error): decode from the quote
    if (!String(scratch)) return false;
    *out = *scratch;
    return true;
  }

  // A number's value. The last long one converted is remembered by its text: a run document
  // writes the same text several times in a row (a figure's value, then its stats' min, median,
  // max and mean when it has one sample, with a short "n" between), and comparing a few bytes is
  // cheaper than converting them.
  bool Number(double* out) {
    Ws();
    const char* start = p_;
    if (!NumberSyntax()) return false;
    auto size = static_cast<size_t>(p_ - start);
    if (size == last_size_ && SameBytes(start, last_text_, size)) {
      *out = last_value_;
      return true;
    }
    auto [ptr, ec] = std::from_chars(start, p_, *out);
    if (ec != std::errc() || ptr != p_ || !std::isfinite(*out)) return false;
    if (size > kShortNumber) {
      last_text_ = start;
      last_size_ = size;
      last_value_ = *out;
    }
    return true;
  }

  // A number's text, not converted.
  bool NumberSyntax() {
    Ws();
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ == end_ || !Digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !Digit(*p_)) return false;
      while (p_ < end_ && Digit(*p_)) ++p_;
    }
    return true;
  }

  // Where the next value starts (past whitespace), and where the scanner is.
  const char* Here() {
    Ws();
    return p_;
  }
  const char* Pos() const { return p_; }
  // Past `text` when the next bytes are exactly it (no whitespace skipped); else nowhere.
  bool EatText(std::string_view text) {
    if (static_cast<size_t>(end_ - p_) < text.size() ||
        std::memcmp(p_, text.data(), text.size()) != 0)
      return false;
    p_ += text.size();
    return true;
  }
  // Back to a position Here or Pos gave.
  void Rewind(const char* at) { p_ = at; }

  bool Bool(bool* out) {
    Ws();
    if (Literal("true")) return *out = true;
    if (Literal("false")) return !(*out = false);
    return false;
  }

  // Any value, not kept.
  bool Skip(int depth = 0) {
    if (depth > kMaxJsonDepth) return false;
    Ws();
    if (p_ == end_) return false;
    double d;
    switch (*p_) {
      case '"':
        return SkipString();
      case '{':
        return Object([&](std::string_view) { return Skip(depth + 1); });
      case '[':
        return Array([&] { return Skip(depth + 1); });
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number(&d);
    }
  }

  // Calls f(key) with the scanner at the key's value; f must consume it.
  template <typename F>
  bool Object(F&& f) {
    if (!Eat('{')) return false;
    if (Eat('}')) return true;
    std::string scratch;
    std::string_view key;
    do {
      if (!StringView(&key, &scratch) || !Eat(':') || !f(key)) return false;
    } while (Eat(','));
    return Eat('}');
  }

  template <typename F>
  bool Array(F&& f) {
    if (!Eat('[')) return false;
    if (Eat(']')) return true;
    do {
      if (!f()) return false;
    } while (Eat(','));
    return Eat(']');
  }

 private:
  static constexpr size_t kShortNumber = 4;  // "1", "0.0": not worth remembering
  static bool Digit(char c) { return c >= '0' && c <= '9'; }
  // Past the characters of a string that need no care: up to a quote, a backslash, a control
  // character or the end. Eight bytes at a time (a byte-wise test of the whole word: the lowest
  // flagged byte of a little-endian word is the first such character, a flag above it may be
  // spurious), then, within the last eight bytes of the text, byte by byte.
  void SkipPlain() {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
    while (end_ - p_ >= 8) {
      uint64_t w;
      std::memcpy(&w, p_, 8);
      uint64_t special = has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) |
                         ((w - kOnes * 0x20) & ~w & kHigh);
      if constexpr (std::endian::native == std::endian::little) {
        if (special != 0) {
          p_ += std::countr_zero(special) / 8;
          return;
        }
      } else if (special != 0) {
        break;
      }
      p_ += 8;
    }
    while (p_ < end_ && *p_ != '"' && *p_ != '\\' && static_cast<unsigned char>(*p_) >= 0x20) ++p_;
  }
  void Ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    return true;
  }
  bool SkipString() {
    ++p_;
    while (p_ < end_) {
      SkipPlain();
      if (p_ == end_) return false;
      char c = *p_++;
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (p_ == end_) return false;
        c = *p_++;
        if (c == 'u') {
          uint32_t cp;
          if (!Hex4(&cp)) return false;
        } else if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool Hex4(uint32_t* out) {
    if (end_ - p_ < 4) return false;
    *out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      int v = Digit(c)                 ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (v < 0) return false;
      *out = *out * 16 + static_cast<uint32_t>(v);
    }
    return true;
  }
  static void Utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  const char* p_;
  const char* end_;
  const char* last_text_ = nullptr;  // the last number converted (Number)
  size_t last_size_ = 0;             // 0: none (a number has at least one character)
  double last_value_ = 0;
};

}  // namespace ys::fleet

#endif  // YARDSTICK_FLEET_SCANNER_H_
