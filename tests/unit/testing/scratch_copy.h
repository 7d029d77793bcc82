// ScratchCopy: one scratch copy of a fixture shared by the tests of a suite. Copying a host tree
// is the slow part of a check test (thousands of small files), so the tests of a suite edit one
// copy and Reset() puts back, from the fixture, every path they wrote or removed.
//
//   class MyTest : public ::testing::Test {
//    protected:
//     static void SetUpTestSuite() { scratch_ = new testing::ScratchCopy("healthy-8gpu"); }
//     static void TearDownTestSuite() { delete scratch_; }
//     void TearDown() override { scratch_->Reset(); }
//     static testing::ScratchCopy* scratch_;
//   };
#ifndef YARDSTICK_TESTS_UNIT_TESTING_SCRATCH_COPY_H_
#define YARDSTICK_TESTS_UNIT_TESTING_SCRATCH_COPY_H_

#include <set>
#include <string>
#include <string_view>

#include "testing/check_test_util.h"

namespace ys::testing {

class ScratchCopy {
 public:
  explicit ScratchCopy(std::string fixture);

  // As TempHost's, but remembered for Reset(). A write that creates directories remembers the
  // topmost new one, so Reset() leaves no empty directory behind.
  void Write(std::string_view path, std::string_view content);
  void Remove(std::string_view path);
  CheckResult Run(std::string_view id, const checks::SiteExpectations& expect = {}) const {
    return tmp_.Run(id, expect);
  }
  host::Host Host() const { return tmp_.Host(); }
  const std::string& root() const { return tmp_.root(); }

  // Restores every touched path as the fixture has it (or removes it when the fixture lacks it).
  void Reset();

 private:
  std::string fixture_;
  TempHost tmp_;
  std::set<std::string> touched_;
};

}  // namespace ys::testing

#endif  // YARDSTICK_TESTS_UNIT_TESTING_SCRATCH_COPY_H_
