// Helpers the format units share: walking a head of text line by line, clipping a line for a
// sniff's evidence, the ingest options a command handed over, JSON keys at the top of a head.
#ifndef YARDSTICK_FORMATS_FORMAT_TEXT_H_
#define YARDSTICK_FORMATS_FORMAT_TEXT_H_

#include <any>
#include <string>
#include <string_view>

#include "core/format_registry.h"
#include "core/text.h"
#include "validate/ingest_options.h"

namespace ys::formats {

// A line as evidence: trimmed, at most 80 characters.
inline std::string Clip(std::string_view line) {
  line = Trim(line);
  if (line.size() <= 80) return std::string(line);
  return std::string(line.substr(0, 77)) + "...";
}

// Calls fn(line) for each line of `head` (trailing CR removed) until it returns true; the line
// that stopped it, or nullopt.
template <typename Fn>
std::optional<std::string_view> FirstLine(std::string_view head, Fn fn) {
  for (std::string_view line : SplitLines(head)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (fn(line)) return line;
  }
  return std::nullopt;
}

// The first non-blank byte of `head` after a UTF-8 byte-order mark, or '\0'.
inline char FirstByte(std::string_view head) {
  if (StartsWith(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  size_t at = head.find_first_not_of(" \t\r\n");
  return at == std::string_view::npos ? '\0' : head[at];
}

// Whether the head holds the quoted key "name" (a JSON document's field), anywhere.
inline bool HasJsonKey(std::string_view head, std::string_view name) {
  return head.find("\"" + std::string(name) + "\"") != std::string_view::npos;
}

// The ingest options the command handed over, or the defaults.
inline validate::IngestOptions IngestOptionsOf(const FormatRequest& r) {
  if (r.options != nullptr) {
    if (const auto* o = std::any_cast<validate::IngestOptions>(r.options)) return *o;
  }
  return {};
}

inline FormatSniff Whole(std::string evidence) {
  return {.confidence = FormatSniff::kWhole, .evidence = std::move(evidence)};
}
inline FormatSniff Fragment(std::string evidence, std::string missing) {
  return {.confidence = FormatSniff::kFragment,
          .evidence = std::move(evidence),
          .missing = std::move(missing)};
}
// Not this format, but near it: a candidate for "the closest".
inline FormatSniff Near(double confidence, std::string missing) {
  return {.confidence = confidence, .missing = std::move(missing)};
}

}  // namespace ys::formats

#endif  // YARDSTICK_FORMATS_FORMAT_TEXT_H_
