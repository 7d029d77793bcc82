#include "slurm/shell_quote.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "host/subprocess.h"

namespace ys::slurm {
namespace {

const std::vector<std::string>& Hostile() {
  static const std::vector<std::string> kValues = {"plain",
                                                   "",
                                                   "it's",
                                                   "'",
                                                   "''",
                                                   "'\\''",
                                                   "\"double\"",
                                                   "$(touch /tmp/ys-quote-pwned)",
                                                   "`touch /tmp/ys-quote-pwned`",
                                                   "${HOME}",
                                                   "$HOME",
                                                   "a;touch /tmp/ys-quote-pwned",
                                                   "a && b || c",
                                                   "line1\nline2",
                                                   "\n#SBATCH --nodes=999\n",
                                                   "back\\slash\\",
                                                   "tab\there",
                                                   "glob*?[a]",
                                                   "~root",
                                                   "a|b>c<d&",
                                                   "!event",
                                                   "# comment",
                                                   "semi;colon",
                                                   "'; touch /tmp/ys-quote-pwned; echo '",
                                                   "\xc3\xa9t\xc3\xa9 unicode",
                                                   "\x01\x7f control"};
  return kValues;
}

TEST(ShellQuoteTest, Literal) {
  EXPECT_EQ(*ShellQuote("abc"), "'abc'");
  EXPECT_EQ(*ShellQuote(""), "''");
  EXPECT_EQ(*ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(*ShellQuote("$(x)"), "'$(x)'");
}

TEST(ShellQuoteTest, RejectsNul) {
  auto r = ShellQuote(std::string("a\0b", 3));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NUL"), std::string::npos);
}

// The proof: a real shell (bash, as sbatch scripts run, and POSIX sh) reads each quoted value
// back byte for byte, and nothing in it runs.
TEST(ShellQuoteTest, ShellsReadEveryHostileValueBackUnchanged) {
  std::filesystem::remove("/tmp/ys-quote-pwned");
  for (const char* shell : {"bash", "sh"}) {
    for (const auto& v : Hostile()) {
      auto q = ShellQuote(v);
      ASSERT_TRUE(q.ok());
      host::SubprocessOptions o;
      o.argv = {shell, "-c", "printf '%s' " + *q};
      auto r = host::RunSubprocess(o);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->exit_code, 0) << shell << " " << *q;
      EXPECT_EQ(r->out, v) << shell << " " << *q;
    }
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/ys-quote-pwned"));
}

TEST(ShellQuoteTest, SbatchTokens) {
  for (const char* good : {"batch", "gpu-h100", "/lustre/runs/a_b.c", "--reservation=val",
                           "--segment=16", "01:30:00", "user@host", "a+b,c"}) {
    EXPECT_TRUE(ValidateSbatchToken("v", good).ok()) << good;
  }
  for (const char* bad :
       {"", "a b", "a\nb", "a%j", "$(x)", "a'b", "a\"b", "a#b", "a\\b", "a;b", "`x`", "a\tb"}) {
    EXPECT_FALSE(ValidateSbatchToken("v", bad).ok()) << bad;
  }
}

TEST(ShellQuoteTest, EnvNames) {
  EXPECT_TRUE(ValidateEnvName("v", "NCCL_IB_HCA").ok());
  EXPECT_TRUE(ValidateEnvName("v", "_x1").ok());
  for (const char* bad : {"", "1A", "A-B", "A B", "A=B", "A$B"})
    EXPECT_FALSE(ValidateEnvName("v", bad).ok()) << bad;
}

}  // namespace
}  // namespace ys::slurm
