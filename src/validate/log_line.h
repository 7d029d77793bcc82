// Line-level lexing shared by the log parsers: ANSI colour removal, "key: number" and
// "number UNIT" extraction, and the "iteration N/M" marker. Pure functions over one line.
//
// Numbers: an optional sign, digits, an optional fraction and exponent ("9089.0", "3.0E-05");
// "nan" and "inf" in any case (a diverged grad norm); with `allow_commas`, digit-group commas as
// torchtitan prints them ("1,234.56").
#ifndef YARDSTICK_VALIDATE_LOG_LINE_H_
#define YARDSTICK_VALIDATE_LOG_LINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ys::validate {

// The line without ANSI escape sequences (CSI "ESC [ ... final-byte" and two-byte "ESC x").
std::string StripAnsi(std::string_view line);

// A line seen without its colour codes; copies only when there are some. Not copyable: the view
// may point into the object.
class PlainLine {
 public:
  explicit PlainLine(std::string_view raw);
  PlainLine(const PlainLine&) = delete;
  PlainLine& operator=(const PlainLine&) = delete;
  std::string_view view() const { return view_; }

 private:
  std::string stripped_;
  std::string_view view_;
};

// Finds `key` at a word start (the character before it is not a letter, digit or '_') and
// returns the number that follows it after optional spaces. Nullopt when the key is absent or
// not followed by a number. The first occurrence that is followed by a number wins.
std::optional<double> NumberAfter(std::string_view line, std::string_view key,
                                  bool allow_commas = false);

// The number that ends right before `unit` (spaces allowed between): "663.5MODEL_TFLOP/s/GPU".
std::optional<double> NumberBefore(std::string_view line, std::string_view unit);

// Where `key` occurs at a word start, or npos.
size_t FindWord(std::string_view line, std::string_view key, size_t from = 0);

// "iteration N/M" with any spaces around '/' ("iteration       50/      50").
struct IterationMarker {
  int64_t n = 0;
  int64_t m = 0;
  size_t end = 0;  // offset just past M
};
std::optional<IterationMarker> FindIterationMarker(std::string_view line);

// Parses one number token as described above; the whole of `token` must be the number.
std::optional<double> ParseLogNumber(std::string_view token, bool allow_commas = false);

// `v` as a count (steps, batch size, sequence length): a whole number >= 1 that an int64_t holds.
// Nullopt otherwise: "global batch size: 1e30" or "inf" in a log is not a count.
std::optional<int64_t> LogCount(std::optional<double> v);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_LOG_LINE_H_
