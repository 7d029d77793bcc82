// Helpers for check tests: run a registered check against a recorded host tree, or against a
// scratch copy of one that a test edits (malformed files, missing files, one planted fault).
#ifndef YARDSTICK_TESTS_UNIT_TESTING_CHECK_TEST_UTIL_H_
#define YARDSTICK_TESTS_UNIT_TESTING_CHECK_TEST_UTIL_H_

#include <set>
#include <string>
#include <string_view>

#include "checks/check.h"
#include "checks/site_expectations.h"
#include "core/run_document.h"
#include "host/host.h"

namespace ys::testing {

// <source>/tests/fixtures/hosts/<name>
std::string FixturePath(std::string_view name);

// Runs check `id` on the named fixture. The process checked is /proc/self of the tree.
CheckResult RunOnFixture(std::string_view id, std::string_view fixture,
                         const checks::SiteExpectations& expect = {});

// Runs check `id` on any host.
CheckResult RunOnHost(std::string_view id, const host::Host& host,
                      const checks::SiteExpectations& expect = {});

const Finding* FindFinding(const CheckResult& r, std::string_view code);
bool HasFinding(const CheckResult& r, std::string_view code);
// "fail YS-CPU-011 ...; warn ..." for assertion messages.
std::string Describe(const CheckResult& r);

// A scratch host tree in a temporary directory. Empty, or a copy of a fixture.
//
// Copying a fixture (thousands of small files) is the slow part of a check test, so fixture
// copies are pooled: a TempHost of a fixture takes an idle copy when there is one, and on
// destruction (or Reset()) puts back, from the fixture, every path it wrote or removed, and
// returns the copy to the pool. Change files only through Write(), Remove() and Symlink():
// anything written into root() directly would not be put back.
class TempHost {
 public:
  explicit TempHost(std::string_view copy_of_fixture = "");
  ~TempHost();
  TempHost(const TempHost&) = delete;
  TempHost& operator=(const TempHost&) = delete;

  const std::string& root() const { return root_; }
  // Host path ("/proc/cmdline") -> writes the content, creating parent directories.
  void Write(std::string_view path, std::string_view content);
  void Remove(std::string_view path);  // file or whole directory
  void Symlink(std::string_view path, std::string_view target);
  // Restores every touched path as the fixture has it (an empty TempHost: removes it).
  void Reset();
  host::Host Host() const;  // environment from <root>/proc/self/environ, as AtRoot does
  CheckResult Run(std::string_view id, const checks::SiteExpectations& expect = {}) const;

 private:
  void Touch(std::string_view path);

  std::string fixture_;
  std::string root_;
  std::set<std::string> touched_;
};

// Runs check `id` on `t` with host file `path` replaced by `content`, then puts the original back
// (or removes the file when there was none), so that one scratch copy serves many malformed-file
// cases.
CheckResult RunWithFileReplaced(TempHost& t, std::string_view id, std::string_view path,
                                std::string_view content,
                                const checks::SiteExpectations& expect = {});

}  // namespace ys::testing

#define EXPECT_OUTCOME(result, expected) \
  EXPECT_EQ((result).outcome, (expected)) << ::ys::testing::Describe(result)

#endif  // YARDSTICK_TESTS_UNIT_TESTING_CHECK_TEST_UTIL_H_
