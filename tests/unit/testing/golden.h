// Golden-file comparison: EXPECT_GOLDEN(text, "name.txt") compares with the file of that name in
// tests/golden/. YS_UPDATE_GOLDEN=1 rewrites the file instead (then review the diff before
// committing).
#ifndef YARDSTICK_TESTS_UNIT_TESTING_GOLDEN_H_
#define YARDSTICK_TESTS_UNIT_TESTING_GOLDEN_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace ys::testing {

inline ::testing::AssertionResult MatchesGolden(const std::string& actual,
                                                const std::string& name) {
  std::string path = std::string(YS_SOURCE_DIR) + "/tests/golden/" + name;
  if (const char* u = std::getenv("YS_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return ::testing::AssertionSuccess();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return ::testing::AssertionFailure() << "missing golden file " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str() == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "output differs from " << path << "\n--- expected\n"
                                       << ss.str() << "\n--- actual\n"
                                       << actual;
}

}  // namespace ys::testing

#define EXPECT_GOLDEN(actual, name) EXPECT_TRUE(::ys::testing::MatchesGolden((actual), (name)))

#endif  // YARDSTICK_TESTS_UNIT_TESTING_GOLDEN_H_
