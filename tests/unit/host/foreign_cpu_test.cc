// Foreign CPU time: utime/stime parsing, attribution by the share of allowed CPUs on literal /proc
// text and on a recorded tree, malformed lines rejected, and one live test where a busy child
// pinned to our CPUs is found and named.
#include "host/foreign_cpu.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "host/busy_core_clock.h"
#include "host/proc_pid.h"
#include "testing/bench_test_util.h"

namespace ys::host {
namespace {

// A /proc/<pid>/stat line with utime and stime at fields 14 and 15.
std::string StatLine(int pid, const std::string& comm, uint64_t utime, uint64_t stime) {
  return std::to_string(pid) + " (" + comm + ") R 1 1 1 0 -1 4194560 100 0 0 0 " +
         std::to_string(utime) + " " + std::to_string(stime) +
         " 0 0 20 0 1 0 100 1000000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n";
}
std::string StatusText(const std::string& comm, const std::string& cpus) {
  return "Name:\t" + comm + "\nState:\tR (running)\nCpus_allowed_list:\t" + cpus + "\n";
}

TEST(ForeignCpuTest, ParsesUtimeAndStime) {
  auto st = ParseProcStat(StatLine(4242, "stress ng", 1500, 25));
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->comm, "stress ng");
  EXPECT_EQ(st->utime, 1500u);
  EXPECT_EQ(st->stime, 25u);
  auto s = ParseProcCpuSample(StatusText("stress", "0-1"), StatLine(4242, "stress", 1500, 25));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->ticks, 1525u);
  EXPECT_EQ(s->allowed.ToString(), "0-1");
}

TEST(ForeignCpuTest, MalformedLinesAreErrors) {
  auto bad = ParseProcStat("4242 (stress) R 1 1 1 0 -1 4194560 100 0 0 0 abc 25 0 0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("utime"), std::string::npos) << bad.status().message();
  auto short_line = ParseProcCpuSample(StatusText("x", "0"), "17 (x) S 1 1 1\n");
  ASSERT_FALSE(short_line.ok());
  EXPECT_NE(short_line.status().message().find("utime"), std::string::npos);
  EXPECT_FALSE(ParseProcCpuSample("Name:\tx\n", StatLine(1, "x", 1, 1)).ok());  // no Cpus_allowed
  EXPECT_FALSE(ParseProcCpuSample(StatusText("x", "0"), "garbage").ok());
}

TEST(ForeignCpuTest, AttributesByTheShareOfAllowedCpus) {
  ProcessSnapshot before, after;
  auto add = [](ProcessSnapshot& s, int pid, const char* comm, const char* cpus, uint64_t ticks) {
    s.processes.push_back(
        {.pid = pid, .comm = comm, .allowed = *CpuSet::ParseList(cpus), .ticks = ticks});
  };
  add(before, 10, "hog", "0-1", 1000);
  add(after, 10, "hog", "0-1", 1000 + 150);  // 1.5 s on our 2 cpus
  add(before, 11, "spread", "0-3", 0);
  add(after, 11, "spread", "0-3", 200);  // 2 s over 4 cpus, 2 ours: 1 s charged
  add(before, 12, "elsewhere", "2-3", 0);
  add(after, 12, "elsewhere", "2-3", 500);  // not on our cpus
  add(after, 13, "newcomer", "0", 100);     // no baseline
  add(before, 14, "reused", "0", 50);
  add(after, 14, "other", "0", 90);  // pid reused by another program
  auto r = AttributeForeignCpu(before, after, *CpuSet::ParseList("0-1"), 2.0, 100);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // (1.5 + 1.0) / (2 cpus x 2 s) = 0.625.
  EXPECT_DOUBLE_EQ(r->foreign_cpu_s, 2.5);
  EXPECT_DOUBLE_EQ(r->share, 0.625);
  ASSERT_EQ(r->processes.size(), 2u);
  EXPECT_EQ(r->processes[0].pid, 10);
  EXPECT_EQ(r->processes[0].Describe(), "pid 10 (hog) on cpus 0-1: 38% of the job cores' time");
  EXPECT_EQ(r->processes[1].pid, 11);
  EXPECT_FALSE(AttributeForeignCpu(before, after, CpuSet(), 1.0, 100).ok());
  EXPECT_FALSE(AttributeForeignCpu(before, after, *CpuSet::ParseList("0"), 0.0, 100).ok());
}

TEST(ForeignCpuTest, SnapshotReadsARecordedTreeAndSkipsExcludedAndBroken) {
  ys::testing::TempDir dir;
  auto write = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir.path() + rel).parent_path());
    std::ofstream(dir.path() + rel) << text;
  };
  write("/proc/100/status", StatusText("hog", "0-1"));
  write("/proc/100/stat", StatLine(100, "hog", 10, 5));
  write("/proc/200/status", StatusText("rank", "0-1"));
  write("/proc/200/stat", StatLine(200, "rank", 99, 0));
  write("/proc/300/status", StatusText("broken", "0"));
  write("/proc/300/stat", "300 (broken) R 1\n");
  write("/proc/self/status", "Name:\tx\n");
  auto host = Host::AtRoot(dir.path());
  ASSERT_TRUE(host.ok()) << host.status().message();
  ProcessSnapshot s = SnapshotProcesses(*host, {200});
  EXPECT_EQ(s.pids_seen, 3u);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 100);
  EXPECT_EQ(s.processes[0].ticks, 15u);
  ProcessSnapshot capped = SnapshotProcesses(*host, {}, 1);
  EXPECT_TRUE(capped.capped);
}

TEST(ForeignCpuTest, LiveBusyChildPinnedToOurCpusIsNamed) {
  auto ours = AllowedCpusOfThisProcess();
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    volatile uint64_t x = 0;
    for (;;) x = x + 1;  // busy until killed
  }
  Host live = Host::Live();
  std::set<int> job = {static_cast<int>(::getpid())};
  ProcessSnapshot before = SnapshotProcesses(live, job);
  auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ProcessSnapshot after = SnapshotProcesses(live, job);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  auto r = AttributeForeignCpu(before, after, *ours, wall, ::sysconf(_SC_CLK_TCK));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ForeignProcess* found = nullptr;
  for (const ForeignProcess& p : r->processes)
    if (p.pid == child) found = &p;
  ASSERT_NE(found, nullptr) << "the busy child was not charged";
  // A child that spins for the whole window on our CPUs is charged a real part of them (not a
  // speed figure: the share it got of the CPUs it was allowed, at least 1/10 of one of them).
  EXPECT_GT(found->cpu_s, 0.1 * wall * 0.5);
  EXPECT_NE(found->Describe().find("pid " + std::to_string(child) + " ("), std::string::npos);
  EXPECT_GE(r->share, found->share);
}

}  // namespace
}  // namespace ys::host
