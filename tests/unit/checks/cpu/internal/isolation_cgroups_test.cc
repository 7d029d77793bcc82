// The cgroup side of cpu.isolation, called directly on copies of healthy-8gpu (a Slurm job_2001
// under cgroup v2, task_0 of step_0): the job resolved to its job_N cgroup, its task's set when
// job_N is not visible, the affinity without a cgroup; other steps and jobs overlapping it; and
// a quota that throttles.
#include "checks/cpu/internal/isolation_cgroups.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "host/proc_pid.h"
#include "testing/check_test_util.h"

namespace ys::checks::isolation {
namespace {

constexpr const char* kJobDir = "/sys/fs/cgroup/system.slice/slurmstepd.scope/job_2001";

std::string NoteOf(const CheckResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

// The job of /proc/self on `t`, with its notes in `r`.
Job JobOf(const ys::testing::TempHost& t, const host::Host& h, CheckResult& r) {
  auto ps = host::ReadProcStatus(h, "/proc/self");
  EXPECT_TRUE(ps.ok()) << ps.status().message();
  auto job = ResolveJob(h, "/proc/self", *ps, r);
  EXPECT_TRUE(job.ok()) << job.status().message() << " at " << t.root();
  return job.ok() ? *job : Job{};
}

TEST(IsolationCgroupsTest, SlurmTaskResolvesToItsJob) {
  ys::testing::TempHost t("healthy-8gpu");
  host::Host h = t.Host();
  CheckResult r;
  Job job = JobOf(t, h, r);
  ASSERT_TRUE(job.slurm.has_value());
  EXPECT_EQ(job.path, "/system.slice/slurmstepd.scope/job_2001");
  EXPECT_EQ(job.cpus.ToString(), "0-6,8-14");
  EXPECT_EQ(job.cpus_source, std::string(kJobDir) + "/cpuset.cpus.effective");
  EXPECT_EQ(NoteOf(r, "slurm.job"), "2001");
  EXPECT_EQ(NoteOf(r, "slurm.step"), "0");
  EXPECT_EQ(NoteOf(r, "slurm.task"), "0");
  // Nothing else on its cores: no finding from the siblings or the quota.
  ASSERT_TRUE(CheckSiblings(h, job, r).ok());
  ASSERT_TRUE(CheckQuota(h, "/proc/self", job, r).ok());
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(NoteOf(r, "cpu.quota"), "none");
}

TEST(IsolationCgroupsTest, WithoutCgroupMountsTheAffinityStandsForTheJob) {
  ys::testing::TempHost t("healthy-8gpu");
  t.Write("/proc/self/mountinfo", "22 28 0:21 / /sys rw - sysfs sysfs rw\n");
  host::Host h = t.Host();
  CheckResult r;
  Job job = JobOf(t, h, r);
  EXPECT_FALSE(job.cg.has_value());
  EXPECT_EQ(job.cpus_source, "/proc/self/status Cpus_allowed_list");
  EXPECT_NE(NoteOf(r, "cgroup").find("not resolvable"), std::string::npos);
  ASSERT_TRUE(CheckSiblings(h, job, r).ok());
  EXPECT_NE(NoteOf(r, "siblings").find("not a Slurm job"), std::string::npos);
}

TEST(IsolationCgroupsTest, OverlappingStepAndJobButNotBatch) {
  ys::testing::TempHost t("healthy-8gpu");
  t.Write(std::string(kJobDir) + "/step_1/cpuset.cpus.effective", "3-4\n");
  t.Write(std::string(kJobDir) + "/step_batch/cpuset.cpus.effective", "0-6,8-14\n");
  t.Write("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_2002/cpuset.cpus.effective", "14\n");
  host::Host h = t.Host();
  CheckResult r;
  Job job = JobOf(t, h, r);
  ASSERT_TRUE(CheckSiblings(h, job, r).ok());
  ASSERT_EQ(r.findings.size(), 2u) << ys::testing::Describe(r);
  std::set<std::string> entities;
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.code, "YS-ISO-003");
    entities.insert(f.entity);
  }
  EXPECT_EQ(entities, (std::set<std::string>{"step_1", "job_2002"}));
  for (const Finding& f : r.findings) {
    if (f.entity == "job_2002") {
      EXPECT_NE(f.message.find("on CPUs 14"), std::string::npos) << f.message;
      EXPECT_NE(f.fix.find("ConstrainCores=yes"), std::string::npos);
    } else {
      EXPECT_NE(f.fix.find("srun --exact"), std::string::npos);
    }
    EXPECT_EQ(f.expected_recovery, kCase2Recovery);
  }
}

TEST(IsolationCgroupsTest, QuotaThatThrottlesButNotAGenerousOne) {
  ys::testing::TempHost t("healthy-8gpu");
  t.Write(std::string(kJobDir) + "/cpu.max", "400000 100000\n");
  t.Write(std::string(kJobDir) + "/cpu.stat", "nr_periods 90\nnr_throttled 57\n");
  host::Host h = t.Host();
  CheckResult r;
  Job job = JobOf(t, h, r);
  ASSERT_TRUE(CheckQuota(h, "/proc/self", job, r).ok());
  ASSERT_EQ(r.findings.size(), 1u) << ys::testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-ISO-004");
  EXPECT_NE(r.findings[0].message.find("4.00 CPUs applies to a job with 14 cores"),
            std::string::npos)
      << r.findings[0].message;
  EXPECT_NE(r.findings[0].message.find("throttled 57 times"), std::string::npos);

  t.Write(std::string(kJobDir) + "/cpu.max", "2000000 100000\n");
  t.Write(std::string(kJobDir) + "/cpu.stat", "nr_throttled 0\n");
  CheckResult generous;
  ASSERT_TRUE(CheckQuota(t.Host(), "/proc/self", job, generous).ok());
  EXPECT_TRUE(generous.findings.empty()) << ys::testing::Describe(generous);
}

}  // namespace
}  // namespace ys::checks::isolation
