// Small, strict text helpers shared by the parsers. Numbers are parsed whole: "12abc" is an
// error, not 12.
#ifndef YARDSTICK_CORE_TEXT_H_
#define YARDSTICK_CORE_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ys {

std::string_view Trim(std::string_view s);
std::vector<std::string_view> Split(std::string_view s, char sep);
// Splits on runs of spaces, tabs and newlines; no empty pieces.
std::vector<std::string_view> SplitWhitespace(std::string_view s);
std::vector<std::string_view> SplitLines(std::string_view s);
// One line of comma-separated values (RFC 4180 quoting: "a,b" is one cell, "" inside quotes is a
// quote), cells as written (not trimmed); nullopt when a quoted cell is not closed on the line.
std::optional<std::vector<std::string>> SplitCsvLine(std::string_view line);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ToLower(std::string_view s);
// {"a", "b"} -> "a, b".
std::string Join(const std::vector<std::string>& parts, std::string_view sep = ", ");

std::optional<int64_t> ParseInt(std::string_view s);    // decimal, optional sign
std::optional<uint64_t> ParseUint(std::string_view s);  // decimal
std::optional<uint64_t> ParseHex(std::string_view s);   // with or without 0x
std::optional<double> ParseDouble(std::string_view s);

// A non-negative figure to two significant figures, for estimates whose evidence cannot support
// more: 250.5 -> "250", 618143.4 -> "620000", 1.63 -> "1.6", 0.049 -> "0.049"; 0 -> "0".
std::string TwoSignificant(double v);
// A duration in seconds: "90", "90s", "2m", "72h", "1d", "1h30m", "0.5h" (units s, m, h, d; a
// bare number is seconds). nullopt for anything else, a negative part or a non-finite number.
std::optional<double> ParseDurationSeconds(std::string_view s);

// Text safe to show on a terminal and in JSON: valid UTF-8 is kept, tabs and newlines are kept,
// other control characters and invalid bytes become "\xNN". Used on anything that may quote
// bytes read from a host file.
std::string SanitizeForDisplay(std::string_view s);

// Shell-style glob: '*' any run, '?' one character, '[abc]' a class. Used by --filter.
bool GlobMatch(std::string_view pattern, std::string_view text);
// True when `globs` is empty or any of them matches `text` (unit selection by --filter).
bool MatchesAnyGlob(std::string_view text, const std::vector<std::string>& globs);

}  // namespace ys

#endif  // YARDSTICK_CORE_TEXT_H_
