// Editing literal test inputs: one occurrence of a string replaced, failing the test when the
// string is absent (a malformed-input case that edits nothing would test nothing).
#ifndef YARDSTICK_TESTS_UNIT_TESTING_TEXT_EDIT_H_
#define YARDSTICK_TESTS_UNIT_TESTING_TEXT_EDIT_H_

#include <gtest/gtest.h>

#include <string>

namespace ys::testing {

inline std::string Replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_TEXT_EDIT_H_
