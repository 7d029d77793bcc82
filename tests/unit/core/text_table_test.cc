// TextTable: declared widths and alignment, widths fitted to the content, cells wider than their
// column, short rows, indents and gaps, and no trailing blanks.
#include "core/text_table.h"

#include <gtest/gtest.h>

namespace ys {
namespace {

TEST(TextTable, LineKeepsTheDeclaredWidthsAndAlignment) {
  TextTable t({{"ID", Align::kRight, 5}, {"HOST", Align::kLeft, 8}, {"NOTE"}});
  EXPECT_EQ(t.HeaderLine(), "   ID  HOST      NOTE\n");
  EXPECT_EQ(t.Line({"7", "node1", "ok"}), "    7  node1     ok\n");
}

TEST(TextTable, LastLeftAlignedCellIsNotPadded) {
  TextTable t({{"A", Align::kLeft, 4}, {"B", Align::kLeft, 10}});
  EXPECT_EQ(t.Line({"x", "y"}), "x     y\n");
  // A right-aligned last cell keeps its leading padding.
  TextTable r({{"A", Align::kLeft, 4}, {"B", Align::kRight, 3}});
  EXPECT_EQ(r.Line({"x", "y"}), "x       y\n");
}

TEST(TextTable, WideCellIsPrintedWholeAndShiftsTheLine) {
  TextTable t({{"A", Align::kLeft, 3}, {"B", Align::kRight, 2}, {"C"}});
  EXPECT_EQ(t.Line({"abcdef", "123", "z"}), "abcdef  123  z\n");
}

TEST(TextTable, ShortRowEndsAfterItsLastCell) {
  TextTable t({{"#", Align::kRight, 4}, {"node", Align::kLeft, 24}, {"kind", Align::kLeft, 8}},
              {.indent = "  "});
  EXPECT_EQ(t.Line({"", "next: reboot"}), "        next: reboot\n");
}

TEST(TextTable, IndentsAndGapsPerColumn) {
  TextTable t(
      {{"ranks", Align::kRight, 6}, {"value", Align::kRight, 8, " "}, {"", Align::kLeft, 0, ""}},
      {.indent = "  ", .header_indent = "# "});
  EXPECT_EQ(t.HeaderLine(), "#  ranks    value\n");
  EXPECT_EQ(t.Line({"8", "1.5", "  below target"}), "       8      1.5  below target\n");
  EXPECT_EQ(t.Line({"8", "1.5", ""}), "       8      1.5\n");
}

TEST(TextTable, RenderFitsTheWidestCellWithTheHeader) {
  TextTable t({{"size", Align::kRight}, {"time", Align::kRight, 0, " "}},
              {.indent = "  ", .header_indent = "# ", .fit = true});
  t.AddRow({"8", "12.5"});
  t.AddRow({"1048576", "3"});
  EXPECT_EQ(t.Render(), "#    size time\n        8 12.5\n  1048576    3\n");
  // Without the header its width does not count.
  TextTable n({{"a-long-header", Align::kLeft}, {"b"}}, {.fit = true});
  n.AddRow({"x", "y"});
  EXPECT_EQ(n.Render(/*header=*/false), "x  y\n");
}

TEST(TextTable, RenderKeepsDeclaredWidthsWhenNotFitting) {
  TextTable t({{"k", Align::kLeft, 6}, {"v", Align::kLeft, 0, " "}});
  t.AddRow({"much-longer", "1"});
  t.AddRow({"b", "2"});
  EXPECT_EQ(t.Render(/*header=*/false), "much-longer 1\nb      2\n");
}

TEST(TextTable, ExtraCellsAreDropped) {
  TextTable t({{"a", Align::kLeft, 2}, {"b", Align::kLeft, 2}}, {.fit = true});
  t.AddRow({"1", "2", "3"});
  EXPECT_EQ(t.Render(false), "1   2\n");
  EXPECT_EQ(t.Line({"1", "2", "3"}), "1   2\n");
}

TEST(TextTable, PadsByCharactersNotBytes) {
  TextTable t({{"a", Align::kLeft, 4}, {"b"}});
  // "µs" is three bytes, two characters: two spaces of padding, as printf-style tables had.
  EXPECT_EQ(t.Line({"\xC2\xB5s", "x"}), "\xC2\xB5s    x\n");
}

TEST(TextTable, RowIsTheLineWithoutItsNewline) {
  TextTable t({{"", Align::kLeft, 20}, {"", Align::kLeft, 0, " : "}}, {.indent = "# "});
  EXPECT_EQ(t.Row({"Avg bus bandwidth", "12.5"}), "# Avg bus bandwidth    : 12.5");
  EXPECT_EQ(t.Line({"Avg bus bandwidth", "12.5"}), t.Row({"Avg bus bandwidth", "12.5"}) + "\n");
}

}  // namespace
}  // namespace ys
