#include "fleet/scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace ys::fleet {
namespace {

// A string of every length up to three words, its end (or an escape, or a control character) at
// every position of a word, followed by more text: the scanner finds its end exactly, whether it
// lies in the word-at-a-time part or within the last eight bytes of the text.
TEST(FleetScannerTest, StringEndsAreFoundAtEveryPositionOfAWord) {
  for (size_t n = 0; n <= 24; ++n) {
    for (std::string_view tail : {"", ",1", ",\"after the string\",2"}) {
      std::string plain(n, 'a');
      for (size_t i = 0; i < n; ++i) plain[i] = static_cast<char>('a' + i % 26);
      std::string text = "[\"" + plain + "\"" + std::string(tail) + "]";
      FleetScanner s(text);
      std::string_view view;
      std::string scratch;
      ASSERT_TRUE(s.Eat('['));
      ASSERT_TRUE(s.StringView(&view, &scratch)) << text;
      EXPECT_EQ(view, plain) << text;
      EXPECT_TRUE(s.Peek(tail.empty() ? ']' : ',')) << text;

      // An escaped quote at the end of the plain part is decoded, not taken for the end.
      std::string escaped = "[\"" + plain + "\\\"x\"]";
      FleetScanner e(escaped);
      ASSERT_TRUE(e.Eat('['));
      ASSERT_TRUE(e.StringView(&view, &scratch)) << escaped;
      EXPECT_EQ(view, plain + "\"x");
      EXPECT_TRUE(e.Eat(']'));

      // A raw control character is malformed wherever it falls.
      std::string control = "[\"" + plain + "\n\"]";
      FleetScanner c(control);
      ASSERT_TRUE(c.Eat('['));
      EXPECT_FALSE(c.StringView(&view, &scratch)) << n;
    }
  }
}

TEST(FleetScannerTest, MultiByteCharactersAreNotMistakenForEnds) {
  std::string plain = "GPU \xc3\xa9t\xc3\xa9 \xe2\x80\x94 H100 80GB HBM3";  // UTF-8, high bytes
  std::string text = "\"" + plain + "\"";
  FleetScanner s(text);
  std::string_view view;
  std::string scratch;
  ASSERT_TRUE(s.StringView(&view, &scratch));
  EXPECT_EQ(view, plain);
  EXPECT_TRUE(s.AtEnd());
}

TEST(FleetScannerTest, SameBytesComparesEveryByte) {
  std::string a = "0123456789abcdefghij", b = a;
  for (size_t n = 0; n <= a.size(); ++n) EXPECT_TRUE(SameBytes(a.data(), b.data(), n)) << n;
  for (size_t i = 0; i < a.size(); ++i) {
    std::string c = a;
    c[i] ^= 1;
    EXPECT_FALSE(SameBytes(a.data(), c.data(), a.size())) << i;
    EXPECT_TRUE(SameBytes(a.data(), c.data(), i)) << i;  // the bytes before it
  }
}

}  // namespace
}  // namespace ys::fleet
