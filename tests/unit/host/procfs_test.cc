#include "host/procfs.h"

#include <gtest/gtest.h>

namespace ys::host {
namespace {

TEST(ProcfsTest, ColonPairs) {
  auto m = ParseColonPairs("Name:\tpython3\nCpus_allowed_list:\t0-3\nno colon here\n: empty key\n");
  EXPECT_EQ(m.at("Name"), "python3");
  EXPECT_EQ(m.at("Cpus_allowed_list"), "0-3");
  EXPECT_EQ(m.size(), 2u);
}

TEST(ProcfsTest, MeminfoGlobalAndPerNode) {
  auto g = ParseMeminfo("MemTotal:       24582208 kB\nHugePages_Total:       0\n");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->at("MemTotal"), 24582208u);
  EXPECT_EQ(g->at("HugePages_Total"), 0u);
  auto n = ParseMeminfo("Node 0 MemTotal:        4024540 kB\nNode 0 HugePages_Free:      0\n");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->at("MemTotal"), 4024540u);
}

TEST(ProcfsTest, MeminfoRejectsMalformed) {
  for (const char* bad :
       {"", "garbage", "MemTotal: lots kB", "MemTotal:", "Node 0", "MemTotal: -5 kB"}) {
    EXPECT_FALSE(ParseMeminfo(bad).ok()) << bad;
  }
}

TEST(ProcfsTest, Selector) {
  EXPECT_EQ(*ParseSelector("always [madvise] never\n"), "madvise");
  EXPECT_EQ(*ParseSelector("[always] defer"), "always");
  EXPECT_FALSE(ParseSelector("always madvise never").ok());
  EXPECT_FALSE(ParseSelector("[]").ok());
  EXPECT_FALSE(ParseSelector("").ok());
}

TEST(ProcfsTest, NumberedState) {
  auto s = ParseNumberedState("4: ACTIVE\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->number, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  EXPECT_EQ(ParseNumberedState("5: LinkUp")->name, "LinkUp");
  EXPECT_FALSE(ParseNumberedState("ACTIVE").ok());
  EXPECT_FALSE(ParseNumberedState("x: ACTIVE").ok());
}

TEST(ProcfsTest, KernelCmdlineWholeTokensQuotesAndInitArguments) {
  auto c = KernelCmdline::Parse(
      "BOOT_IMAGE=/vmlinuz mitigations=off,nosmt idle=poll dyndbg=\"file x.c +p\" quiet -- "
      "--firecracker-init idle=halt\n");
  EXPECT_TRUE(c.Has("idle=poll"));
  EXPECT_FALSE(c.Has("idle=halt"));  // after "--": init's, not the kernel's
  EXPECT_FALSE(c.Has("mitigations=off"));
  EXPECT_EQ(*c.Value("mitigations"), "off,nosmt");
  EXPECT_EQ(*c.Value("dyndbg"), "file x.c +p");
  EXPECT_EQ(*c.Value("quiet"), "");
  EXPECT_FALSE(c.Value("intel_idle.max_cstate").has_value());
  EXPECT_TRUE(KernelCmdline::Parse("").tokens().empty());
}

TEST(ProcfsTest, CpuInfoX86AndArm) {
  auto x = ParseCpuInfo(
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+ @ 2.00GHz\n\n"
      "processor\t: 1\nmodel name\t: same\n\n");
  ASSERT_TRUE(x.ok());
  ASSERT_EQ(x->size(), 2u);
  EXPECT_EQ((*x)[1].processor, 1);
  EXPECT_DOUBLE_EQ(*ModelNameMhz((*x)[0].fields.at("model name")), 2000.0);
  auto a = ParseCpuInfo("processor\t: 0\nCPU part\t: 0xd4f\n\nHardware\t: Grace\n");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), 1u);
  EXPECT_EQ(a->front().fields.at("Hardware"), "Grace");
  EXPECT_FALSE(ModelNameMhz("AMD EPYC").has_value());
}

TEST(ProcfsTest, CpuInfoRejectsMalformed) {
  for (const char* bad : {"", "garbage without colon", "model name : x\n", "processor : x\n"}) {
    EXPECT_FALSE(ParseCpuInfo(bad).ok()) << bad;
  }
}

TEST(ProcfsTest, Limits) {
  const char* text =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max locked memory         8388608              unlimited            bytes     \n";
  auto l = ParseLimit(text, "Max locked memory");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l->soft, 8388608u);
  EXPECT_FALSE(l->hard.has_value());
  EXPECT_EQ(l->unit, "bytes");
  EXPECT_FALSE(ParseLimit(text, "Max open files").ok());
  EXPECT_FALSE(ParseLimit("Max locked memory  lots  lots bytes\n", "Max locked memory").ok());
  EXPECT_FALSE(ParseLimit("", "Max locked memory").ok());
}

// RLIM_INFINITY printed as a number (a runtime set it with setrlimit rather than "unlimited"),
// and its near neighbours, mean no limit: not a limit too low for RDMA.
TEST(ParseLimitTest, NumbersAtTheTopOfTheRangeAreUnlimited) {
  for (const char* v :
       {"18446744073709551615", "18446744073709551614", "9223372036854775808", "infinity"}) {
    std::string text = std::string("Max locked memory         ") + v + "  " + v + "  bytes\n";
    auto l = ParseLimit(text, "Max locked memory");
    ASSERT_TRUE(l.ok()) << v << ": " << l.status().ToString();
    EXPECT_FALSE(l->soft.has_value()) << v;
    EXPECT_FALSE(l->hard.has_value()) << v;
  }
  auto below =
      ParseLimit("Max locked memory  9223372036854775807  unlimited  bytes\n", "Max locked memory");
  ASSERT_TRUE(below.ok());
  EXPECT_EQ(*below->soft, 9223372036854775807u);
  // One past 2^64-1 is no rlim_t: the file cannot be understood.
  EXPECT_FALSE(
      ParseLimit("Max locked memory  18446744073709551616  unlimited  bytes\n", "Max locked memory")
          .ok());
}

}  // namespace
}  // namespace ys::host
