#include "host/proc_pid.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

TEST(ProcPidTest, ParsesStatusOfSampleAndKthread) {
  auto s = ParseProcStatus(
      "Name:\tcat\nState:\tR (running)\nPid:\t16476\nKthread:\t0\nCpus_allowed:\t3\n"
      "Cpus_allowed_list:\t0-1\nMems_allowed:\t00000000,00000001\nMems_allowed_list:\t0\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->name, "cat");
  EXPECT_EQ(s->state, 'R');
  EXPECT_EQ(s->pid, 16476);
  EXPECT_EQ(s->kthread, false);
  EXPECT_EQ(s->cpus_allowed.ToString(), "0-1");
  EXPECT_EQ(s->mems_allowed->ToString(), "0");
  // host-sample/proc/2.status.kthreadd-excerpt: no State line; the mask alone also works.
  auto k = ParseProcStatus("Name:\tkthreadd\nKthread:\t1\nCpus_allowed:\t3\n");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->kthread, true);
  EXPECT_EQ(k->cpus_allowed.ToString(), "0-1");
  EXPECT_FALSE(k->mems_allowed.has_value());
}

TEST(ProcPidTest, ParsesRealUid) {
  auto s = ParseProcStatus("Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nCpus_allowed:\t3\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->uid, 1000u);
  auto su = ParseProcStatus("Uid:\t0\t1001\t0\t0\nCpus_allowed:\t3\n");
  ASSERT_TRUE(su.ok());
  EXPECT_EQ(su->uid, 0u);
  // Absent, garbage or out of range: unknown, not an error.
  for (const char* odd : {"Cpus_allowed:\t3\n", "Uid:\tabc\nCpus_allowed:\t3\n",
                          "Uid:\t99999999999\nCpus_allowed:\t3\n", "Uid:\nCpus_allowed:\t3\n"}) {
    auto o = ParseProcStatus(odd);
    ASSERT_TRUE(o.ok()) << odd;
    EXPECT_FALSE(o->uid.has_value()) << odd;
  }
}

TEST(ProcPidTest, RejectsStatusWithoutOrWithBadAffinity) {
  for (const char* bad :
       {"", "garbage", "Name:\tx\n", "Cpus_allowed_list:\t3-1\n",
        "Cpus_allowed_list:\t0-1\nMems_allowed_list:\tzz\n", "Cpus_allowed:\tnothex\n"}) {
    EXPECT_FALSE(ParseProcStatus(bad).ok()) << bad;
  }
}

TEST(ProcPidTest, ParsesStatWithAwkwardComm) {
  std::string rest;
  for (int field = 4; field <= 52; ++field)
    rest += " " + std::to_string(field == 9 ? 0x04208040 : field == 39 ? 5 : 0);
  auto s = ParseProcStat("77 (a) b (c)) S" + rest + "\n");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->pid, 77);
  EXPECT_EQ(s->comm, "a) b (c)");
  EXPECT_EQ(s->state, 'S');
  EXPECT_TRUE(s->IsKernelThread());
  EXPECT_EQ(s->processor, 5);
  auto short_line = ParseProcStat("8 (x) R 1 8 8 0 -1 4194560");
  ASSERT_TRUE(short_line.ok());
  EXPECT_FALSE(short_line->processor.has_value());
  EXPECT_FALSE(short_line->IsKernelThread());
}

TEST(ProcPidTest, RejectsMalformedStat) {
  std::string bad_cpu = "8 (x) R";
  for (int field = 4; field <= 39; ++field) bad_cpu += field == 39 ? " cpu" : " 0";
  for (std::string bad :
       {std::string(""), std::string("garbage"), std::string("x (y) R"), std::string("8 (x)"),
        std::string("8 (x) RR 1"), std::string("8 (x) R 1 8 8 0 -1 notanumber"), bad_cpu}) {
    EXPECT_FALSE(ParseProcStat(bad).ok()) << bad;
  }
}

TEST(ProcPidTest, ListsNumericPidsInOrderWithACap) {
  testing::TempHost t;
  for (const char* p : {"/proc/10/status", "/proc/2/status", "/proc/1/status", "/proc/self/status",
                        "/proc/irq/1/x", "/proc/12ab/status"}) {
    t.Write(p, "");
  }
  size_t total = 0;
  EXPECT_EQ(ListPids(t.Host(), 10, &total), (std::vector<int>{1, 2, 10}));
  EXPECT_EQ(total, 3u);
  EXPECT_EQ(ListPids(t.Host(), 2, &total), (std::vector<int>{1, 2}));
  EXPECT_EQ(total, 3u);
}

TEST(ProcPidTest, ReadNamesThePath) {
  testing::TempHost t;
  t.Write("/proc/5/status", "Name:\tx\n");
  auto s = ReadProcStatus(t.Host(), "/proc/5");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/proc/5/status"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
