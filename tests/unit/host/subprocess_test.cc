#include "host/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace ys::host {
namespace {

using std::chrono::milliseconds;

Result<SubprocessResult> Exec(std::vector<std::string> argv,
                              milliseconds timeout = milliseconds(10000)) {
  SubprocessOptions o;
  o.argv = std::move(argv);
  o.timeout = timeout;
  return RunSubprocess(o);
}

TEST(SubprocessTest, TrueSucceeds) {
  auto r = Exec({"true"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->Succeeded());
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->Describe(), "exit 0");
}

TEST(SubprocessTest, FalseCarriesItsExitCode) {
  auto r = Exec({"false"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->Succeeded());
  EXPECT_EQ(r->exit_code, 1);
  EXPECT_FALSE(r->timed_out);
}

TEST(SubprocessTest, CapturesStdoutAndStderrSeparately) {
  auto r = Exec({"sh", "-c", "echo to-out; echo to-err >&2; exit 3"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "to-out\n");
  EXPECT_EQ(r->err, "to-err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->Explain("sh"), "sh: exit 3: to-err");
}

TEST(SubprocessTest, ArgumentsAreNeverInterpreted) {
  // Each element reaches the program as it is: no shell, no expansion, no word splitting.
  std::vector<std::string> hostile = {
      "$(touch /tmp/ys-pwned)", "`id`", "a b;c", "'\"", "line\nbreak", "*"};
  std::vector<std::string> argv = {"printf", "%s|"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  auto r = Exec(argv);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "$(touch /tmp/ys-pwned)|`id`|a b;c|'\"|line\nbreak|*|");
  EXPECT_FALSE(std::filesystem::exists("/tmp/ys-pwned"));
}

TEST(SubprocessTest, StdinIsWrittenAndLargeOutputIsRead) {
  SubprocessOptions o;
  o.argv = {"cat"};
  o.stdin_data = std::string(1 << 20, 'x');  // more than a pipe buffer in both directions
  auto r = RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out.size(), size_t{1} << 20);
  // Without stdin_data the child reads /dev/null.
  auto empty = Exec({"cat"});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->out, "");
}

TEST(SubprocessTest, ChildThatIgnoresStdinDoesNotKillTheCaller) {
  SubprocessOptions o;
  o.argv = {"true"};
  o.stdin_data = std::string(4 << 20, 'x');  // EPIPE, not SIGPIPE
  auto r = RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
}

// Alive and not a zombie.
bool Running(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

TEST(SubprocessTest, TimeoutKillsTheChildAndItsGroup) {
  // The shell starts a grandchild that would outlive it; both are killed at the deadline.
  std::string pidfile = ::testing::TempDir() + "/ys-subprocess-grandchild.pid";
  std::filesystem::remove(pidfile);
  auto r = Exec({"sh", "-c", "sh -c 'echo $$ > " + pidfile + "; exec sleep 30' & sleep 30"},
                milliseconds(500));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->Succeeded());
  EXPECT_EQ(r->term_signal, SIGKILL);
  EXPECT_LT(r->elapsed, milliseconds(5000));
  EXPECT_NE(r->Describe().find("timed out after"), std::string::npos);
  std::string pid;
  std::ifstream(pidfile) >> pid;
  ASSERT_FALSE(pid.empty()) << "the grandchild did not start";
  for (int i = 0; i < 200 && Running(pid); ++i) ::usleep(10000);
  EXPECT_FALSE(Running(pid)) << "the grandchild " << pid << " survived the timeout";
}

TEST(SubprocessTest, OutputBeforeATimeoutIsKept) {
  auto r = Exec({"sh", "-c", "echo started; sleep 30"}, milliseconds(300));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->out, "started\n");
}

TEST(SubprocessTest, SignalIsReported) {
  auto r = Exec({"sh", "-c", "kill -TERM $$"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->term_signal, SIGTERM);
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_NE(r->Describe().find("killed by signal 15"), std::string::npos);
}

TEST(SubprocessTest, MissingProgramIsAClearError) {
  auto r = Exec({"ys-no-such-program-anywhere"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "ys-no-such-program-anywhere: not found in PATH");
  auto abs = Exec({"/nonexistent/bin/tool"});
  ASSERT_FALSE(abs.ok());
  EXPECT_EQ(abs.status().message(), "/nonexistent/bin/tool: no such file");
}

TEST(SubprocessTest, NotExecutableAndBadArgvAreErrors) {
  std::string path = ::testing::TempDir() + "/ys-not-executable";
  std::ofstream(path) << "#!/bin/sh\n";
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto r = Exec({path});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(Exec({}).ok());
  EXPECT_FALSE(Exec({"echo", std::string("a\0b", 3)}).ok());
}

TEST(SubprocessTest, EnvironmentIsAddedTo) {
  SubprocessOptions o;
  o.argv = {"sh", "-c", "printf '%s %s' \"$YS_TEST_VAR\" \"${PATH:+has-path}\""};
  o.env = {{"YS_TEST_VAR", "$(not expanded)"}};
  auto r = RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "$(not expanded) has-path");
}

TEST(SubprocessTest, OutputIsCappedNotUnbounded) {
  SubprocessOptions o;
  o.argv = {"head", "-c", "100000", "/dev/zero"};
  o.max_output_bytes = 1000;
  auto r = RunSubprocess(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out.size(), 1000u);
  EXPECT_TRUE(r->output_truncated);
  EXPECT_EQ(r->exit_code, 0);
}

}  // namespace
}  // namespace ys::host
