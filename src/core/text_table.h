// A console table: columns with a header, an alignment, a least width and the gap before each;
// rows of text cells. Every console table of the tool goes through it, so that its columns line
// up the same way everywhere:
//
//   TextTable t({{"ID", Align::kRight, 5}, {"STARTED", Align::kLeft, 20}, {"DOCUMENT"}});
//   out << t.HeaderLine();
//   for (...) out << t.Line({id, started, path});     // a row at a time (streamed)
//
//   TextTable t({{"size", Align::kRight}, {"time", Align::kRight}}, {.fit = true});
//   t.AddRow({...});
//   out << t.Render();                                  // widths from the content
//
// A cell wider than its column is printed whole and shifts the rest of its line (as printf's
// "%-20s" does): nothing is cut. The last cell of a line, when left-aligned, is not padded, so
// lines carry no trailing blanks; a line given fewer cells than columns ends after its last one.
//
// Thread safety: a TextTable is a value; const methods may be called from several threads.
#ifndef YARDSTICK_CORE_TEXT_TABLE_H_
#define YARDSTICK_CORE_TEXT_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

namespace ys {

enum class Align { kLeft, kRight };

struct TextColumn {
  std::string header;
  Align align = Align::kLeft;
  size_t width = 0;        // the least width, in characters
  std::string gap = "  ";  // printed before the column; ignored for the first
};

struct TextTableStyle {
  std::string indent;         // before every row
  std::string header_indent;  // before the header line; `indent` when empty
  // Render() widens each column to its widest cell in bytes (the header included); Line() and
  // HeaderLine() keep the declared widths whatever the rows added so far.
  bool fit = false;
};

class TextTable {
 public:
  explicit TextTable(std::vector<TextColumn> columns, TextTableStyle style = {});

  // One row for Render(); cells past the last column are dropped.
  void AddRow(std::vector<std::string> cells);

  // The header line (each column's header), with its newline.
  std::string HeaderLine() const;
  // One row at the declared widths, with its newline.
  std::string Line(const std::vector<std::string>& cells) const;
  // The same without the newline, for a caller that keeps lines (a table's footer).
  std::string Row(const std::vector<std::string>& cells) const;
  // The header line (when `header`) and every row added, at the widths the style asks for.
  std::string Render(bool header = true) const;

 private:
  // One line without its newline.
  std::string Format(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                     const std::string& indent) const;
  std::vector<std::string> Headers() const;
  std::vector<size_t> DeclaredWidths() const;
  // The widths Render() uses: declared, widened to the content when the style fits.
  std::vector<size_t> Widths(bool with_header) const;
  const std::string& HeaderIndent() const;

  std::vector<TextColumn> columns_;
  TextTableStyle style_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ys

#endif  // YARDSTICK_CORE_TEXT_TABLE_H_
