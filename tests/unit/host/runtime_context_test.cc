#include "host/runtime_context.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

using ys::testing::TempHost;

TEST(IdMapTest, IdentityAndNamespaces) {
  auto id = ParseIdMap("         0          0 4294967295\n");
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(IsIdentityIdMap(*id));
  auto ns = ParseIdMap("      1000       1000          1\n");
  ASSERT_TRUE(ns.ok());
  EXPECT_FALSE(IsIdentityIdMap(*ns));
  auto two = ParseIdMap("0 1000 1\n1 100000 65536\n");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].outside, 100000u);
  for (const char* bad :
       {"", "\n", "garbage", "0 0", "0 0 1 2", "a b c", "0 0 99999999999999999999999"}) {
    EXPECT_FALSE(ParseIdMap(bad).ok()) << bad;
  }
}

TEST(PyxisMountInfoTest, FindsTheContainerName) {
  auto name = PyxisNameFromMountInfo(
      "22 1 259:2 / /host rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
      "4101 3990 9:0 /tmp/enroot-data/user-1000/pyxis_3385.0 / rw,nosuid,nodev,relatime - xfs "
      "/dev/md0 rw\n");
  ASSERT_TRUE(name.ok()) << name.status().message();
  EXPECT_EQ(*name, "pyxis_3385.0");
  auto in_source =
      PyxisNameFromMountInfo("5 1 0:51 / / rw - fuse.squashfuse /var/lib/enroot/pyxis_7_7.0 ro\n");
  ASSERT_TRUE(in_source.ok());
  EXPECT_EQ(*in_source, "pyxis_7_7.0");
  auto none =
      PyxisNameFromMountInfo("31 23 0:28 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "");
  EXPECT_TRUE(PyxisNameFromMountInfo("").ok());
  for (const char* bad :
       {"garbage\n", "31 23 0:28 / /sys rw cgroup2 cgroup2 rw\n",
        "31 23 0:28 / /sys rw - cgroup2\n", "x 23 0:28 / /sys rw - cgroup2 c rw\n",
        "31 23 028 / /sys rw - cgroup2 c rw\n"}) {
    EXPECT_FALSE(PyxisNameFromMountInfo(bad).ok()) << bad;
  }
}

TEST(DetectContainerTest, MarkersAndPriority) {
  TempHost t;
  Environment env;
  auto c = DetectContainer(t.Host(), "/proc/self", env);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->inside());

  t.Write("/.dockerenv", "");
  c = DetectContainer(t.Host(), "/proc/self", env);
  EXPECT_EQ(c->runtime, "docker");
  t.Write("/run/.containerenv", "engine=\"podman-4.9.3\"\n");
  EXPECT_EQ(DetectContainer(t.Host(), "/proc/self", env)->runtime, "podman");
  t.Write("/run/host/container-manager", "systemd-nspawn\n");
  EXPECT_EQ(DetectContainer(t.Host(), "/proc/self", env)->runtime, "systemd-nspawn");
  t.Write("/.lock", "");
  EXPECT_EQ(DetectContainer(t.Host(), "/proc/self", env)->runtime, "enroot");
  env.Set("PYXIS_CONTAINER_IMAGE", "nvcr.io#nvidia/pytorch:25.01-py3");
  c = DetectContainer(t.Host(), "/proc/self", env);
  EXPECT_EQ(c->runtime, "pyxis");
  EXPECT_EQ(c->markers.size(), 5u);

  TempHost ns;
  ns.Write("/proc/self/uid_map", "1000 1000 1\n");
  c = DetectContainer(ns.Host(), "/proc/self", Environment());
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->user_namespace);
  EXPECT_FALSE(c->inside());           // a user namespace alone does not name a runtime
  ns.Write("/proc/self/uid_map", "");  // no mapping recorded: not judged, not an error
  c = DetectContainer(ns.Host(), "/proc/self", Environment());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_FALSE(c->user_namespace);
  ASSERT_EQ(c->markers.size(), 1u);
  EXPECT_EQ(c->markers[0].second, "empty file: user namespace not judged");
  ns.Write("/proc/self/uid_map", "garbage\n");
  c = DetectContainer(ns.Host(), "/proc/self", Environment());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/proc/self/uid_map"), std::string::npos);
}

TEST(SlurmContextTest, FromEnvironment) {
  Environment none;
  EXPECT_FALSE(SlurmFromEnvironment(none).inside());
  Environment env({{"SLURM_JOBID", "77"},
                   {"SLURM_PROCID", "3"},
                   {"SLURM_STEP_GPUS", "0,1"},
                   {"UNRELATED", "x"}});
  SlurmContext s = SlurmFromEnvironment(env);
  EXPECT_TRUE(s.inside());
  EXPECT_EQ(s.job_id, "77");
  ASSERT_EQ(s.vars.size(), 3u);
  EXPECT_EQ(s.vars[0].first, "SLURM_JOBID");
  EXPECT_EQ(s.vars[2].first, "SLURM_STEP_GPUS");
}

}  // namespace
}  // namespace ys::host
