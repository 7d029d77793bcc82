#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace core_isolation_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "cpu.isolation";
constexpr const char* kJob = "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_2001";

// The tests that edit a tree share one scratch copy of healthy-8gpu, reset after each test.
class CoreIsolationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { scratch_ = new testing::TempHost("healthy-8gpu"); }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }
  void TearDown() override { scratch_->Reset(); }
  static testing::TempHost* scratch_;
};
testing::TempHost* CoreIsolationTest::scratch_ = nullptr;

std::string Evidence(const CheckResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

// A user process outside the job, as the fixture generator writes them.
void WriteProcess(testing::TempHost& t, int pid, const std::string& name, char state,
                  const std::string& cpus, int cpu, const std::string& cgroup,
                  bool kthread = false) {
  std::string d = "/proc/" + std::to_string(pid);
  t.Write(d + "/status", "Name:\t" + name + "\nState:\t" + std::string(1, state) + " (x)\nPid:\t" +
                             std::to_string(pid) + "\nKthread:\t" + (kthread ? "1" : "0") +
                             "\nCpus_allowed_list:\t" + cpus + "\n");
  std::string stat = std::to_string(pid) + " (" + name + ") " + std::string(1, state);
  for (int field = 4; field <= 52; ++field) {
    stat += " " + std::to_string(field == 9    ? (kthread ? 0x04208040 : 0x400100)
                                 : field == 39 ? cpu
                                               : 0);
  }
  t.Write(d + "/stat", stat + "\n");
  t.Write(d + "/cgroup", "0::" + cgroup + "\n");
}

TEST_F(CoreIsolationTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(Evidence(r, "slurm.job"), "2001");
  EXPECT_EQ(Evidence(r, "slurm.step"), "0");
  EXPECT_EQ(Evidence(r, "slurm.task"), "0");
  EXPECT_EQ(Evidence(r, "job.cpus").substr(0, 9), "0-6,8-14 ");
  // Per-CPU kernel threads sit on every job core and do not count.
  EXPECT_NE(Evidence(r, "processes.per_cpu_kthreads").find("expected"), std::string::npos);
  EXPECT_NE(Evidence(r, "irqs.nvme_queues").find("not counted"), std::string::npos);
  EXPECT_EQ(Evidence(r, "cpu.quota"), "none");
}

TEST_F(CoreIsolationTest, NoFalseFindingsWhereIsolationIsHealthy) {
  for (const char* fixture : {"container-topo-missing", "downtrained-link", "grace-vm-smmu"}) {
    CheckResult r = RunOnFixture(kId, fixture);
    EXPECT_OUTCOME(r, Outcome::kPass) << fixture;
  }
}

TEST_F(CoreIsolationTest, EnrootContainerSeesOnlyItsTaskCgroup) {
  CheckResult r = RunOnFixture(kId, "container-topo-missing");
  EXPECT_EQ(Evidence(r, "slurm.job"), "3385");
  EXPECT_NE(Evidence(r, "cgroup.job_level").find("not visible"), std::string::npos);
  EXPECT_NE(Evidence(r, "siblings").find("not visible"), std::string::npos);
  EXPECT_EQ(Evidence(r, "job.cpus"), "0-6,8-14 (/sys/fs/cgroup/cpuset.cpus.effective)");
}

TEST_F(CoreIsolationTest, NonSlurmVmOwnsEveryCpu) {
  CheckResult r = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(Evidence(r, "slurm.job"), "");
  EXPECT_NE(Evidence(r, "siblings").find("not a Slurm job"), std::string::npos);
}

// A malformed file elsewhere (here an unrelated PCI attribute) leaves no hwloc topology; the
// online CPUs still come from the kernel's list, so a process that owns every CPU is not told
// that every IRQ fires on its cores.
TEST_F(CoreIsolationTest, WithoutTopologyTheOnlineListStillCounts) {
  TempHost t("quirk-hotplug-gap");
  ASSERT_EQ(t.Run(kId).outcome, Outcome::kPass);
  t.Write("/sys/bus/pci/devices/0000:10:01.0/max_link_width", "sixteen\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_FALSE(HasFinding(r, "YS-ISO-002")) << testing::Describe(r);
  EXPECT_NE(Evidence(r, "online").find("0-3,6-7"), std::string::npos) << Evidence(r, "online");
}

// An empty /proc/self/cgroup records no membership: the process's affinity stands for the job.
TEST_F(CoreIsolationTest, EmptyCgroupFileFallsBackToTheAffinity) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/cgroup", "");
  CheckResult r = t.Run(kId);
  EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
  EXPECT_NE(Evidence(r, "cgroup").find("empty file"), std::string::npos) << Evidence(r, "cgroup");
}

// With no topology and an empty `online` file, the job's own cores cannot be told from the
// housekeeping ones: IRQ placement is not judged rather than blamed on the job.
TEST_F(CoreIsolationTest, UnknownOnlineCpusLeaveIrqsUnjudged) {
  TempHost t("quirk-hotplug-gap");
  t.Write("/sys/bus/pci/devices/0000:10:01.0/max_link_width", "sixteen\n");
  t.Write("/sys/devices/system/cpu/online", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_FALSE(HasFinding(r, "YS-ISO-002")) << testing::Describe(r);
  EXPECT_EQ(Evidence(r, "irqs"), "online CPUs unknown: IRQ placement not judged");
}

TEST_F(CoreIsolationTest, FindsEveryPlantedFaultOfTheMisconfiguredNode) {
  CheckResult r = RunOnFixture(kId, "h100-misconfigured");
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* shared = FindFinding(r, "YS-ISO-003");
  ASSERT_NE(shared, nullptr) << testing::Describe(r);
  EXPECT_EQ(shared->entity, "job_1002");
  EXPECT_NE(shared->message.find("CPUs 2-5"), std::string::npos) << shared->message;
  const Finding* foreign = FindFinding(r, "YS-ISO-001");
  ASSERT_NE(foreign, nullptr);
  EXPECT_NE(foreign->message.find("hv-housekeeper (pid 2210)"), std::string::npos)
      << foreign->message;
  EXPECT_NE(foreign->entity.find("2-"), std::string::npos) << foreign->entity;
  EXPECT_NE(foreign->expected_recovery.find("12% to 3%"), std::string::npos);
  bool running = false;
  for (const auto& [k, v] : foreign->evidence)
    running |= k == "/proc/2210/stat state, processor" && v == "R, cpu3";
  EXPECT_TRUE(running);
  // The ranks of the job and the per-CPU kernel threads are not in the list.
  EXPECT_EQ(foreign->message.find("ksoftirqd"), std::string::npos);
  EXPECT_EQ(foreign->message.find("pid 52012"), std::string::npos);
  const Finding* irq = FindFinding(r, "YS-ISO-002");
  ASSERT_NE(irq, nullptr);
  EXPECT_EQ(irq->entity, "irq39");
  EXPECT_NE(irq->message.find("mlx5_comp1@pci:0000:12:00.0 on cpu1 (48211734 so far)"),
            std::string::npos)
      << irq->message;
  EXPECT_NE(irq->fix.find("7,15"), std::string::npos) << irq->fix;
  EXPECT_FALSE(HasFinding(r, "YS-ISO-004"));
  EXPECT_FALSE(HasFinding(r, "YS-ISO-005"));
  EXPECT_EQ(r.findings.size(), 3u) << testing::Describe(r);
  EXPECT_EQ(Evidence(r, "processes.scanned"), "86 of 86, main threads only");
}

TEST_F(CoreIsolationTest, SiteMayAcceptIrqsOnJobCores) {
  checks::SiteExpectations e;
  e.params.Set("cpu.isolation", "irqs_on_job_cores", true);
  CheckResult r = RunOnFixture(kId, "h100-misconfigured", e);
  EXPECT_FALSE(HasFinding(r, "YS-ISO-002"));
  EXPECT_NE(Evidence(r, "irqs").find("site policy"), std::string::npos);
}

TEST_F(CoreIsolationTest, OverlappingStepsOfOneJobButNotExternOrBatch) {
  testing::TempHost& t = *scratch_;
  t.Write(std::string(kJob) + "/step_1/cpuset.cpus.effective", "3-4\n");
  t.Write(std::string(kJob) + "/step_batch/cpuset.cpus.effective", "0-6,8-14\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-ISO-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "step_1");
  EXPECT_NE(f->fix.find("srun --exact"), std::string::npos);
  EXPECT_EQ(r.findings.size(), 1u) << testing::Describe(r);
}

TEST_F(CoreIsolationTest, CpuQuotaThatThrottles) {
  testing::TempHost& t = *scratch_;
  t.Write(std::string(kJob) + "/cpu.max", "400000 100000\n");
  t.Write(std::string(kJob) + "/cpu.stat",
          "usage_usec 1\nnr_periods 90\nnr_throttled 57\nthrottled_usec 9\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = FindFinding(r, "YS-ISO-004");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("4.00 CPUs"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("57"), std::string::npos);
  // A generous quota that never throttled is fine.
  t.Write(std::string(kJob) + "/cpu.max", "2000000 100000\n");
  t.Write(std::string(kJob) + "/cpu.stat", "nr_throttled 0\n");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ISO-004"));
}

TEST_F(CoreIsolationTest, IsolcpusOverJobCores) {
  testing::TempHost& t = *scratch_;
  t.Write("/sys/devices/system/cpu/isolated", "2-5\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-ISO-005");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "cpu2-5");
  // From the command line, with flags, when sysfs does not say.
  t.Remove("/sys/devices/system/cpu/isolated");
  t.Remove("/sys/devices/system/cpu/nohz_full");
  t.Write("/proc/cmdline",
          "BOOT_IMAGE=/vmlinuz ro isolcpus=domain,managed_irq,7,15 nohz_full=1-2\n");
  r = t.Run(kId);
  f = FindFinding(r, "YS-ISO-005");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "cpu1-2");
  EXPECT_NE(f->message.find("nohz_full"), std::string::npos);
  // Isolating only the housekeeping cores is no finding.
  t.Write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro isolcpus=7,15\n");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ISO-005"));
}

TEST_F(CoreIsolationTest, PinnedKernelThreadCountsPerCpuOnesDoNot) {
  testing::TempHost& t = *scratch_;
  WriteProcess(t, 3001, "nv_queue", 'S', "2", 2, "/", /*kthread=*/true);
  WriteProcess(t, 3002, "kworker/5:2", 'I', "5", 5, "/", /*kthread=*/true);
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-ISO-001");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("nv_queue"), std::string::npos);
  EXPECT_EQ(f->message.find("kworker/5:2"), std::string::npos);
}

TEST_F(CoreIsolationTest, UnpinnedDaemonRunningOnAJobCoreCounts) {
  testing::TempHost& t = *scratch_;
  WriteProcess(t, 3100, "dcgm-exporter", 'R', "0-15", 9, "/system.slice/dcgm.service");
  WriteProcess(t, 3101, "sleepy", 'S', "0-15", 9, "/system.slice/x.service");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-ISO-001");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("dcgm-exporter"), std::string::npos);
  EXPECT_EQ(f->message.find("sleepy"), std::string::npos);
}

TEST_F(CoreIsolationTest, CgroupV1SlurmLayoutWithAnotherUsersJob) {
  testing::TempHost& t = *scratch_;
  const std::string task = "/slurm/uid_1000/job_2001/step_0/task_0";
  t.Write("/proc/self/cgroup",
          "5:cpuset:" + task + "\n4:cpu,cpuacct:" + task + "\n1:name=systemd:/\n");
  t.Write("/proc/self/mountinfo",
          "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
          "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n");
  const std::string cs = "/sys/fs/cgroup/cpuset";
  t.Write(cs + "/cpuset.effective_cpus", "0-15\n");
  t.Write(cs + "/slurm/uid_1000/job_2001/cpuset.effective_cpus", "0-6,8-14\n");
  t.Write(cs + task + "/cpuset.effective_cpus", "0-6,8-14\n");
  t.Write(cs + "/slurm/uid_1001/job_2002/cpuset.effective_cpus", "6,14\n");
  t.Write("/sys/fs/cgroup/cpu,cpuacct" + task + "/cpu.cfs_quota_us", "-1\n");
  t.Write("/sys/fs/cgroup/cpu,cpuacct" + task + "/cpu.cfs_period_us", "100000\n");
  t.Write("/sys/fs/cgroup/cpu,cpuacct/slurm/cpu.cfs_quota_us", "200000\n");
  t.Write("/sys/fs/cgroup/cpu,cpuacct/slurm/cpu.cfs_period_us", "100000\n");
  t.Write("/sys/fs/cgroup/cpu,cpuacct/slurm/cpu.stat",
          "nr_periods 10\nnr_throttled 3\nthrottled_time 99\n");
  // The job's other ranks are in the v1 cpuset hierarchy too.
  for (int pid = 52012; pid <= 52018; ++pid) {
    t.Write("/proc/" + std::to_string(pid) + "/cgroup",
            "5:cpuset:/slurm/uid_1000/job_2001/step_0/task_1\n0::/\n");
  }
  t.Write("/proc/51990/cgroup", "5:cpuset:/slurm/uid_1000/job_2001/step_0\n");
  CheckResult r = t.Run(kId);
  EXPECT_EQ(Evidence(r, "slurm.job"), "2001");
  EXPECT_EQ(Evidence(r, "job.cpus"),
            "0-6,8-14 (/sys/fs/cgroup/cpuset/slurm/uid_1000/job_2001/cpuset.effective_cpus)");
  const Finding* shared = FindFinding(r, "YS-ISO-003");
  ASSERT_NE(shared, nullptr) << testing::Describe(r);
  EXPECT_EQ(shared->entity, "job_2002");
  const Finding* quota = FindFinding(r, "YS-ISO-004");
  ASSERT_NE(quota, nullptr);
  EXPECT_NE(quota->message.find("2.00 CPUs"), std::string::npos) << quota->message;
  EXPECT_FALSE(HasFinding(r, "YS-ISO-001")) << testing::Describe(r);
}

TEST_F(CoreIsolationTest, HybridHostSampleShapeAtTheRootCgroup) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/cgroup", "9:name=systemd:/\n3:cpuset:/\n1:cpu:/\n0::/\n");
  t.Write("/proc/self/mountinfo",
          "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
          "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
          "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
  t.Write("/sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-15\n");
  t.Write("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
  t.Write("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "cgroup").find("v1 / at /sys/fs/cgroup/cpuset"), std::string::npos)
      << Evidence(r, "cgroup");
  EXPECT_NE(Evidence(r, "processes").find("not scanned"), std::string::npos);
}

TEST_F(CoreIsolationTest, WithoutCgroupMountsTheAffinityStandsForTheJob) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/mountinfo", "22 28 0:21 / /sys rw - sysfs sysfs rw\n");
  CheckResult r = t.Run(kId);
  EXPECT_NE(Evidence(r, "cgroup").find("not resolvable"), std::string::npos);
  EXPECT_NE(Evidence(r, "job.cpus").find("Cpus_allowed_list"), std::string::npos);
  // Without a cgroup the job's own ranks cannot be told from others: no guessing.
  EXPECT_NE(Evidence(r, "processes").find("not scanned"), std::string::npos);
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST_F(CoreIsolationTest, MissingInterruptFilesAreAStateNotAnError) {
  testing::TempHost& t = *scratch_;
  t.Remove("/proc/interrupts");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "irqs").find("absent"), std::string::npos);
}

// An empty /proc/interrupts leaves IRQ placement unjudged; an empty status of the judged process
// is a skip with the reason. Neither is an error.
TEST_F(CoreIsolationTest, EmptyInterruptsAndStatusAreNotErrors) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/interrupts", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "irqs").find("/proc/interrupts: empty file: IRQ placement not judged"),
            std::string::npos)
      << Evidence(r, "irqs");
  t.Reset();
  t.Write("/proc/self/mountinfo", "");  // no cgroup mount recorded: the affinity stands in
  r = t.Run(kId);
  EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
  t.Reset();
  t.Write(std::string(kJob) + "/cpu.max", "");  // no limit recorded at that level
  r = t.Run(kId);
  EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
  t.Reset();
  t.Write("/proc/self/status", "");
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/proc/self/status: empty file"), std::string::npos) << r.summary;
}

TEST_F(CoreIsolationTest, SkipsWithoutProc) {
  TempHost t;
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
}

TEST_F(CoreIsolationTest, MalformedFilesGiveErrorsWithThePath) {
  struct Case {
    std::string path;
    std::string content;
  };
  testing::TempHost& t = *scratch_;
  for (const Case& c :
       {Case{"/proc/self/cgroup", "garbage\n"},
        Case{"/proc/self/mountinfo", "26 22 0:26 / /sys/fs/cgroup rw\n"},
        Case{std::string(kJob) + "/cpuset.cpus.effective", "0-6,zz\n"},
        Case{std::string(kJob) + "/cpu.max", "lots\n"}, Case{"/proc/interrupts", "garbage\n"},
        Case{"/proc/interrupts", "   CPU0 CPU1\n 39: 1\n"},
        Case{"/proc/irq/39/effective_affinity_list", "one\n"},
        Case{"/sys/devices/system/cpu/isolated", "x-y\n"},
        Case{"/proc/self/status", "Name:\tpython3\n"},
        Case{"/proc/self/mountinfo", std::string(host::Host::kMaxFileBytes + 1, 'x')}}) {
    t.Write(c.path, c.content);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find(c.path), std::string::npos) << c.path << ": " << r.summary;
    t.Reset();
  }
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST_F(CoreIsolationTest, AnotherProcessesOddFilesAreNotTheChecksError) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/3200/status", "garbage\n");
  t.Write("/proc/3201/stat", "nothing else\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(Evidence(r, "processes.unreadable"), "1");
}

}  // namespace
}  // namespace core_isolation_test
}  // namespace ys
