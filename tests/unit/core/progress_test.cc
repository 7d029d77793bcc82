#include "core/progress.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <unistd.h>

#include <string>

namespace ys {
namespace {

// A pseudo-terminal: what the reporter writes to `slave` is read back from `master`.
class ProgressPty {
 public:
  ProgressPty() { ok_ = ::openpty(&master_, &slave_, nullptr, nullptr, nullptr) == 0; }
  ~ProgressPty() {
    if (ok_) {
      ::close(master_);
      ::close(slave_);
    }
  }
  bool ok() const { return ok_; }
  int slave() const { return slave_; }
  // Everything written so far (what arrives within 200 ms).
  std::string Drain() const {
    std::string out;
    char buf[4096];
    pollfd p{.fd = master_, .events = POLLIN, .revents = 0};
    while (::poll(&p, 1, 200) > 0) {
      ssize_t n = ::read(master_, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int master_ = -1, slave_ = -1;
  bool ok_ = false;
};

TEST(ProgressReporterTest, OnATerminalShowsTheStepTheUnitAndTheElapsedTime) {
  ProgressPty pty;
  ASSERT_TRUE(pty.ok());
  ProgressReporter r(pty.slave());
  EXPECT_TRUE(r.enabled());
  r.Start("run");
  r.Step("check", 3, 20, "cpu.cstates");
  std::string shown = pty.Drain();
  EXPECT_NE(shown.find("\r\x1b[Kyardstick run: check 3/20 cpu.cstates ("), std::string::npos)
      << shown;
  EXPECT_NE(shown.find(" s)"), std::string::npos) << shown;
  r.Clear();
  EXPECT_EQ(pty.Drain(), "\r\x1b[K");
  r.Clear();  // nothing shown: nothing to erase
  EXPECT_EQ(pty.Drain(), "");
  r.Line("burn-in: 5 of 60 s, 55 s left");
  EXPECT_NE(pty.Drain().find("burn-in: 5 of 60 s, 55 s left"), std::string::npos);
}

TEST(ProgressReporterTest, QuietOnATerminalPrintsNothing) {
  ProgressPty pty;
  ASSERT_TRUE(pty.ok());
  ProgressReporter r(pty.slave(), /*quiet=*/true);
  EXPECT_FALSE(r.enabled());
  r.Start("bench");
  r.Step("benchmark", 1, 2, "mem.stream");
  r.Transient("reading");
  r.Line("status");
  r.Clear();
  EXPECT_EQ(pty.Drain(), "");
  r.SetQuiet(false);  // --quiet is the only thing that silences a terminal
  r.Transient("reading");
  EXPECT_NE(pty.Drain().find("yardstick bench: reading ("), std::string::npos);
}

TEST(ProgressReporterTest, NotATerminalPrintsNothing) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ProgressReporter r(fds[1]);
  EXPECT_FALSE(r.enabled());
  r.SetQuiet(false);
  EXPECT_FALSE(r.enabled());
  r.Start("run");
  r.Step("check", 1, 1, "cpu.smt");
  r.Transient("x");
  r.Line("y");
  r.Clear();
  ::close(fds[1]);
  char c;
  EXPECT_EQ(::read(fds[0], &c, 1), 0);  // end of file: not one byte
  ::close(fds[0]);
}

TEST(ProgressReporterTest, FormatsAStepWithAndWithoutACount) {
  EXPECT_EQ(ProgressReporter::FormatStep("run", "check", 3, 20, "cpu.cstates", 4.24),
            "yardstick run: check 3/20 cpu.cstates (4.2 s)");
  EXPECT_EQ(ProgressReporter::FormatStep("merge", "reading", 0, 0, "", 12),
            "yardstick merge: reading (12.0 s)");
}

}  // namespace
}  // namespace ys
