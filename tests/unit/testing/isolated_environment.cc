// Every unit test runs away from the user's files: before the first test, XDG_DATA_HOME, HOME and
// the working directory point into a fresh temporary directory (removed after the last test), so
// that nothing a test runs, in process or through the binary, writes into the user's run history
// (~/.local/share/yardstick/history.db) or leaves ./yardstick-runs/ in the source or build tree.
// TEST_TMPDIR (::testing::TempDir()) and TMPDIR point into it too, so that the tests' scratch
// files go when the tests end.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace ys::testing {
namespace {

class IsolatedEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base == '/' ? base : "/tmp") + "/ys-unit-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror("ys unit tests: mkdtemp");
      std::abort();  // running on against the real home is what this environment exists to prevent
    }
    dir_ = tmpl;
    owner_ = ::getpid();
    std::error_code ec;
    for (const char* sub : {"/home", "/xdg", "/cwd", "/tmp"}) {
      if (!std::filesystem::create_directories(dir_ + sub, ec) || ec) {
        std::perror(("ys unit tests: cannot create " + dir_ + sub).c_str());
        std::abort();
      }
    }
    if (::setenv("HOME", (dir_ + "/home").c_str(), 1) != 0 ||
        ::setenv("XDG_DATA_HOME", (dir_ + "/xdg").c_str(), 1) != 0 ||
        ::setenv("TEST_TMPDIR", (dir_ + "/tmp").c_str(), 1) != 0 ||
        ::setenv("TMPDIR", (dir_ + "/tmp").c_str(), 1) != 0 ||
        ::chdir((dir_ + "/cwd").c_str()) != 0) {
      std::perror(
          "ys unit tests: cannot isolate HOME, XDG_DATA_HOME, TMPDIR and the working directory");
      std::abort();
    }
  }

  void TearDown() override {
    // A forked child that returns through here must not remove the parent's directory.
    if (dir_.empty() || ::getpid() != owner_) return;
    if (::chdir("/") != 0) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
  pid_t owner_ = 0;
};

// Registered before main (gtest_main) runs the tests; GoogleTest owns and deletes it.
[[maybe_unused]] ::testing::Environment* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new IsolatedEnvironment);

}  // namespace
}  // namespace ys::testing
