// Helpers for the cpu.* check tests.
#ifndef YARDSTICK_TESTS_UNIT_CHECKS_CPU_CPU_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_CHECKS_CPU_CPU_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "testing/check_test_util.h"

namespace ys::testing {

struct FileEdit {
  std::string path;     // host path, "/sys/..."
  std::string content;  // what the malformed file holds
};

// For each edit, on one scratch copy of `fixture` (a copy costs seconds on a loaded machine):
// writes the content, runs check `id`, expects an error outcome whose summary names the path,
// then restores the fixture's file.
inline void ExpectErrorNamingPath(std::string_view id, std::string_view fixture,
                                  const std::vector<FileEdit>& edits) {
  TempHost t(fixture);
  for (const FileEdit& e : edits) {
    std::filesystem::path original = FixturePath(fixture) + e.path;
    t.Write(e.path, e.content);
    CheckResult r = t.Run(id);
    EXPECT_OUTCOME(r, Outcome::kError) << e.path << " = \"" << e.content.substr(0, 40) << "\"";
    EXPECT_NE(r.summary.find(e.path), std::string::npos) << r.summary;
    if (std::filesystem::exists(original)) {
      std::ifstream in(original, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      t.Write(e.path, ss.str());
    } else {
      t.Remove(e.path);
    }
  }
}

inline std::string EvidenceValue(const CheckResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_CHECKS_CPU_CPU_TEST_UTIL_H_
