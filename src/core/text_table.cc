#include "core/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace ys {

TextTable::TextTable(std::vector<TextColumn> columns, TextTableStyle style)
    : columns_(std::move(columns)), style_(std::move(style)) {}

void TextTable::AddRow(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

const std::string& TextTable::HeaderIndent() const {
  return style_.header_indent.empty() ? style_.indent : style_.header_indent;
}

std::vector<size_t> TextTable::DeclaredWidths() const {
  std::vector<size_t> widths;
  widths.reserve(columns_.size());
  for (const TextColumn& c : columns_) widths.push_back(c.width);
  return widths;
}

std::vector<size_t> TextTable::Widths(bool with_header) const {
  std::vector<size_t> widths = DeclaredWidths();
  if (!style_.fit) return widths;
  for (size_t i = 0; with_header && i < columns_.size(); ++i) {
    widths[i] = std::max(widths[i], columns_[i].header.size());
  }
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  return widths;
}

std::string TextTable::Format(const std::vector<std::string>& cells,
                              const std::vector<size_t>& widths, const std::string& indent) const {
  std::string line = indent;
  const size_t n = std::min(cells.size(), columns_.size());
  for (size_t i = 0; i < n; ++i) {
    const TextColumn& c = columns_[i];
    const std::string& cell = cells[i];
    if (i > 0) line += c.gap;
    // fmt pads by display width (a multi-byte character counts once), as printf-style
    // tables of the tool always did; widths that fit the content count bytes.
    if (c.align == Align::kRight) {
      line += fmt::format("{:>{}}", cell, widths[i]);
    } else if (i + 1 < n) {
      line += fmt::format("{:<{}}", cell, widths[i]);
    } else {
      line += cell;  // the last cell of a line: no trailing blanks
    }
  }
  return line;
}

std::string TextTable::HeaderLine() const {
  return Format(Headers(), DeclaredWidths(), HeaderIndent()) + "\n";
}

std::string TextTable::Line(const std::vector<std::string>& cells) const {
  return Row(cells) + "\n";
}

std::string TextTable::Row(const std::vector<std::string>& cells) const {
  return Format(cells, DeclaredWidths(), style_.indent);
}

std::vector<std::string> TextTable::Headers() const {
  std::vector<std::string> headers;
  headers.reserve(columns_.size());
  for (const TextColumn& c : columns_) headers.push_back(c.header);
  return headers;
}

std::string TextTable::Render(bool header) const {
  const std::vector<size_t> widths = Widths(header);
  std::string out;
  if (header) out += Format(Headers(), widths, HeaderIndent()) + "\n";
  for (const auto& row : rows_) out += Format(row, widths, style_.indent) + "\n";
  return out;
}

}  // namespace ys
