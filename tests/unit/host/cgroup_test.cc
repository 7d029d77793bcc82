#include "host/cgroup.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

// host-sample/proc/self/cgroup and mountinfo.cgroup-lines: hybrid v1 + v2.
constexpr const char* kHybridCgroup =
    "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/a0ed8c3e738075845dca6a7a25c243ee\n"
    "3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n";
constexpr const char* kHybridMounts =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupTest, ParsesProcCgroupLines) {
  auto l = ParseProcCgroup(kHybridCgroup);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 7u);
  EXPECT_EQ((*l)[0].controllers, std::vector<std::string>{"name=systemd"});
  EXPECT_EQ((*l)[2].path, "/process_api/a0ed8c3e738075845dca6a7a25c243ee");
  EXPECT_TRUE((*l)[6].IsUnified());
  EXPECT_TRUE((*l)[3].Has("cpuset"));
  auto combined = ParseProcCgroup("5:cpu,cpuacct:/slurm/uid_1000/job_7/step_0/task_0\n");
  ASSERT_TRUE(combined.ok());
  EXPECT_TRUE((*combined)[0].Has("cpu"));
  EXPECT_TRUE((*combined)[0].Has("cpuacct"));
  // A path may contain ':'.
  auto colon = ParseProcCgroup("0::/a:b\n");
  ASSERT_TRUE(colon.ok());
  EXPECT_EQ((*colon)[0].path, "/a:b");
}

TEST(CgroupTest, RejectsMalformedProcCgroup) {
  for (const char* bad : {"", "\n", "garbage\n", "0:/\n", "x::/\n", "0::relative\n", "0::\n",
                          "-1::/\n", "99999999999::/\n"}) {
    EXPECT_FALSE(ParseProcCgroup(bad).ok()) << bad;
  }
}

TEST(CgroupTest, ParsesMountInfoWithOptionalFieldsAndEscapes) {
  auto m = ParseMountInfo(
      "26 22 0:26 / /sys/fs/cgroup rw,nosuid shared:9 master:2 - cgroup2 cgroup2 rw,nsdelegate\n"
      "27 22 0:27 /a\\040b /mnt/with\\040space rw - ext4 /dev/sda1 rw\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)[0].fstype, "cgroup2");
  EXPECT_EQ((*m)[0].mount_point, "/sys/fs/cgroup");
  EXPECT_TRUE((*m)[0].HasSuperOption("nsdelegate"));
  EXPECT_EQ((*m)[1].root, "/a b");
  EXPECT_EQ((*m)[1].mount_point, "/mnt/with space");
}

TEST(CgroupTest, AcceptsNamespaceFileMounts) {
  auto m =
      ParseMountInfo("615 29 0:4 net:[4026532371] /run/netns/vpn rw shared:306 - nsfs nsfs rw\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)[0].root, "net:[4026532371]");
  EXPECT_EQ((*m)[0].fstype, "nsfs");
}

TEST(CgroupTest, RejectsMalformedMountInfo) {
  for (const char* bad :
       {"", "garbage\n", "26 22 0:26 / /sys/fs/cgroup rw\n",  // truncated
        "26 22 0:26 / /sys/fs/cgroup rw - cgroup2\n", "x 22 0:26 / /sys rw - sysfs sysfs rw\n",
        "26 22 0:26 relative /sys rw - sysfs sysfs rw\n"}) {
    EXPECT_FALSE(ParseMountInfo(bad).ok()) << bad;
  }
}

TEST(CgroupTest, ResolvesHybridToTheV1CpusetHierarchy) {
  auto d =
      ResolveCgroupDir(*ParseProcCgroup(kHybridCgroup), *ParseMountInfo(kHybridMounts), "cpuset");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->version, CgroupVersion::kV1);
  EXPECT_EQ(d->dir, "/sys/fs/cgroup/cpuset");
  auto mem =
      ResolveCgroupDir(*ParseProcCgroup(kHybridCgroup), *ParseMountInfo(kHybridMounts), "memory");
  ASSERT_TRUE(mem.ok());
  EXPECT_EQ(mem->dir, "/sys/fs/cgroup/memory/process_api/a0ed8c3e738075845dca6a7a25c243ee");
  // A controller without a v1 hierarchy falls to the unified one.
  auto io = ResolveCgroupDir(*ParseProcCgroup(kHybridCgroup), *ParseMountInfo(kHybridMounts), "io");
  ASSERT_TRUE(io.ok());
  EXPECT_EQ(io->version, CgroupVersion::kV2);
  EXPECT_EQ(io->dir, "/sys/fs/cgroup/unified");
}

TEST(CgroupTest, ResolvesV1SlurmLayoutWithCombinedControllers) {
  auto lines = ParseProcCgroup(
      "4:cpuset:/slurm/uid_1000/job_7/step_0/task_1\n"
      "3:cpu,cpuacct:/slurm/uid_1000/job_7/step_0/task_1\n");
  auto mounts = ParseMountInfo(
      "34 31 0:31 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n");
  auto d = ResolveCgroupDir(*lines, *mounts, "cpu");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->dir, "/sys/fs/cgroup/cpu,cpuacct/slurm/uid_1000/job_7/step_0/task_1");
  auto s = ParseSlurmCgroupPath(d->path);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->uid, "1000");
  EXPECT_EQ(s->job, "7");
  EXPECT_EQ(s->step, "0");
  EXPECT_EQ(s->task, "1");
  EXPECT_EQ(s->jobs_parent, "/slurm/uid_1000");
  EXPECT_EQ(s->job_path, "/slurm/uid_1000/job_7");
}

TEST(CgroupTest, ResolvesAContainerBindMountOfTheTaskCgroup) {
  const std::string task = "/system.slice/slurmstepd.scope/job_3385/step_0/user/task_0";
  auto lines = ParseProcCgroup("0::" + task + "\n");
  auto mounts = ParseMountInfo("512 22 0:26 " + task +
                               " /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
  auto d = ResolveCgroupDir(*lines, *mounts, "cpuset");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->dir, "/sys/fs/cgroup");
  EXPECT_FALSE(d->DirOf("/system.slice/slurmstepd.scope/job_3385").has_value());
  EXPECT_TRUE(d->VisibleAncestors().empty());
  // Outside every mount's view: not found, with the path.
  auto other = ResolveCgroupDir(*ParseProcCgroup("0::/elsewhere\n"), *mounts, "cpuset");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kNotFound);
  EXPECT_NE(other.status().message().find("/elsewhere"), std::string::npos);
}

TEST(CgroupTest, ParsesSlurmV2Layout) {
  auto s = ParseSlurmCgroupPath("/system.slice/slurmstepd.scope/job_1001/step_0/user/task_3");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->job, "1001");
  EXPECT_EQ(s->step, "0");
  EXPECT_EQ(s->task, "3");
  EXPECT_EQ(s->jobs_parent, "/system.slice/slurmstepd.scope");
  EXPECT_EQ(s->step_path, "/system.slice/slurmstepd.scope/job_1001/step_0");
  auto multi = ParseSlurmCgroupPath("/system.slice/node7_slurmstepd.scope/job_5/step_extern");
  ASSERT_TRUE(multi.has_value());
  EXPECT_EQ(multi->step, "extern");
  EXPECT_EQ(multi->task, "");
  auto job_only = ParseSlurmCgroupPath("/system.slice/slurmstepd.scope/job_9");
  ASSERT_TRUE(job_only.has_value());
  EXPECT_EQ(job_only->step, "");
  EXPECT_FALSE(ParseSlurmCgroupPath("/user.slice/user-1000.slice/session-3.scope").has_value());
  EXPECT_FALSE(ParseSlurmCgroupPath("/kubepods/job_12/x").has_value());
  EXPECT_FALSE(ParseSlurmCgroupPath("/system.slice/slurmstepd.scope/job_abc").has_value());
  EXPECT_FALSE(ParseSlurmCgroupPath("/").has_value());
}

TEST(CgroupTest, EffectiveCpusWalkUpAndNameBadFiles) {
  testing::TempHost t;
  t.Write("/sys/fs/cgroup/cpuset.cpus.effective", "0-15\n");
  t.Write("/sys/fs/cgroup/a/b/cgroup.procs", "");
  CgroupDir cg{CgroupVersion::kV2, "/a/b", "/sys/fs/cgroup/a/b", "/sys/fs/cgroup", "/"};
  std::string src;
  auto s = ReadEffectiveCpus(t.Host(), cg, cg.dir, &src);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->ToString(), "0-15");
  EXPECT_EQ(src, "/sys/fs/cgroup/cpuset.cpus.effective");
  t.Write("/sys/fs/cgroup/a/cpuset.cpus.effective", "0-3,x\n");
  auto bad = ReadEffectiveCpus(t.Host(), cg, cg.dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/sys/fs/cgroup/a/cpuset.cpus.effective"),
            std::string::npos);
}

TEST(CgroupTest, ReadCgroupDirNamesMalformedFiles) {
  testing::TempHost t;
  t.Write("/proc/self/cgroup", "0::/x\n");
  t.Write("/proc/self/mountinfo", "this is not mountinfo\n");
  auto d = ReadCgroupDir(t.Host(), "/proc/self", "cpuset");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("/proc/self/mountinfo"), std::string::npos);
  t.Write("/proc/self/cgroup", "nonsense\n");
  d = ReadCgroupDir(t.Host(), "/proc/self", "cpuset");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("/proc/self/cgroup"), std::string::npos);
}

TEST(CgroupTest, ParsesCpuMax) {
  EXPECT_FALSE(ParseCpuMax("max 100000\n")->has_value());
  EXPECT_DOUBLE_EQ(ParseCpuMax("400000 100000")->value(), 4.0);
  for (const char* bad : {"", "garbage", "max", "400000 0", "max max", "-1 100000",
                          "400000 100000 7", "99999999999999999999999 100000"}) {
    EXPECT_FALSE(ParseCpuMax(bad).ok()) << bad;
  }
}

TEST(CgroupTest, CpuQuotaIsTheTightestVisibleLevelWithItsThrottling) {
  testing::TempHost t;
  CgroupDir cg{CgroupVersion::kV2, "/a/b", "/sys/fs/cgroup/a/b", "/sys/fs/cgroup", "/"};
  t.Write("/sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
  auto none = ReadCpuQuota(t.Host(), cg);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  t.Write("/sys/fs/cgroup/a/cpu.max", "250000 100000\n");
  t.Write("/sys/fs/cgroup/a/cpu.stat", "usage_usec 5\nnr_throttled 12\n");
  auto q = ReadCpuQuota(t.Host(), cg);
  ASSERT_TRUE(q.ok() && q->has_value()) << q.status().ToString();
  EXPECT_DOUBLE_EQ((*q)->cpus, 2.5);
  EXPECT_EQ((*q)->file, "/sys/fs/cgroup/a/cpu.max");
  EXPECT_EQ((*q)->nr_throttled, 12u);
  t.Write("/sys/fs/cgroup/a/cpu.stat", "nr_throttled many\n");
  auto bad = ReadCpuQuota(t.Host(), cg);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/sys/fs/cgroup/a/cpu.stat"), std::string::npos);
}

}  // namespace
}  // namespace ys::host
