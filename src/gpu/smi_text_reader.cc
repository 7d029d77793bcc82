// `nvidia-smi -q` text into the dump tree (smi_dump_tree.h). The text nests by indentation, four
// spaces a level; a line is "Key : Value" (the value may hold colons: "00000000:18:00.0") or a
// bare "Key" that opens a section.
#include <string>
#include <vector>

#include "core/text.h"
#include "gpu/smi_dump_tree.h"

namespace ys::gpu {
namespace {

constexpr std::string_view kBanner = "NVSMI LOG";

// Where "Key : Value" splits: the first colon with a space before it and a space or the line's
// end after it. npos for a bare key.
size_t SeparatorAt(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] != ':' || s[i - 1] != ' ') continue;
    if (i + 1 == s.size() || s[i + 1] == ' ' || s[i + 1] == '\t') return i;
  }
  return std::string_view::npos;
}

int Indent(std::string_view line) {
  int n = 0;
  for (char c : line) {
    if (c == ' ') {
      ++n;
    } else if (c == '\t') {
      n += 8;
    } else {
      break;
    }
  }
  return n;
}

}  // namespace

Result<SmiEntry> ParseSmiText(std::string_view text) {
  SmiEntry root;
  std::vector<std::string_view> lines = SplitLines(text);
  size_t start = 0;
  while (start < lines.size() && lines[start].find(kBanner) == std::string_view::npos) ++start;
  if (start == lines.size()) {
    return Status::Invalid("no \"==============NVSMI LOG==============\" line");
  }
  // The open sections, outermost first, with their indentation; the root's is -1. A pointer
  // stays valid: entries are only added to the innermost open section, after popping those
  // nested deeper.
  std::vector<std::pair<int, SmiEntry*>> open = {{-1, &root}};
  for (size_t i = start + 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view body = Trim(line);
    // Blank lines, and the banner of a second dump appended to the first.
    if (body.empty() || body.find(kBanner) != std::string_view::npos) continue;
    const int indent = Indent(line);
    while (open.back().first >= indent) open.pop_back();
    if (open.size() > static_cast<size_t>(kMaxSmiDepth)) {
      return Status::Invalid("line " + std::to_string(i + 1) + ": nested deeper than " +
                             std::to_string(kMaxSmiDepth) + " levels");
    }
    SmiEntry e;
    e.line = static_cast<int>(i + 1);
    size_t sep = SeparatorAt(body);
    if (sep == std::string_view::npos) {
      e.key = std::string(body);
    } else {
      e.key = std::string(Trim(body.substr(0, sep)));
      e.value = std::string(Trim(body.substr(sep + 1)));
    }
    SmiEntry* parent = open.back().second;
    parent->children.push_back(std::move(e));
    open.emplace_back(indent, &parent->children.back());
  }
  return root;
}

}  // namespace ys::gpu
