#include <gtest/gtest.h>

#include "checks/runner.h"
#include "checks/unit_aliases.h"
#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace numa_placement_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "numa.placement";

// The tests that edit a tree share one scratch copy of healthy-8gpu, reset after each test.
class NumaPlacementTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { scratch_ = new testing::TempHost("healthy-8gpu"); }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }
  void TearDown() override { scratch_->Reset(); }
  static testing::TempHost* scratch_;
};
testing::TempHost* NumaPlacementTest::scratch_ = nullptr;

std::string Evidence(const CheckResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

std::string Environ(const std::map<std::string, std::string>& vars) {
  std::string out;
  for (const auto& [k, v] : vars) out += k + "=" + v + '\0';
  return out;
}

TEST_F(NumaPlacementTest, PassesOnHealthyNode) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(Evidence(r, "memory.remote_share").substr(0, 4), "0.0%")
      << Evidence(r, "memory.remote_share");
  // CUDA_VISIBLE_DEVICES=0..7 with SLURM_LOCALID=0: the rank's GPU is gpu0, its node is home.
  EXPECT_NE(Evidence(r, "devices.used_gpus").find("gpu0 (CUDA_VISIBLE_DEVICES"), std::string::npos);
  EXPECT_NE(Evidence(r, "memory.home").find("node of gpu0"), std::string::npos);
  EXPECT_EQ(Evidence(r, "gpu4 0000:51:00.0"), "node 1, local CPUs 4-7,12-15");
  EXPECT_EQ(Evidence(r, "kernel.numa_balancing"), "0 (disabled)");
}

TEST_F(NumaPlacementTest, NoFalseFindingsWhereNumaIsHealthy) {
  for (const char* fixture : {"container-topo-missing", "downtrained-link", "grace-vm-smmu"}) {
    CheckResult r = RunOnFixture(kId, fixture);
    EXPECT_OUTCOME(r, Outcome::kPass) << fixture;
  }
}

TEST_F(NumaPlacementTest, SingleNodeVmPassesWithEvidenceDespiteNoDeviceAffinity) {
  CheckResult r = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "memory.remote_share").find("one NUMA node"), std::string::npos);
  EXPECT_NE(Evidence(r, "devices.numa_node").find("single-node"), std::string::npos);
  EXPECT_NE(r.summary.find("nothing can be remote"), std::string::npos);
}

TEST_F(NumaPlacementTest, FindsTheRemoteMemoryAndBalancingOfTheMisconfiguredNode) {
  CheckResult r = RunOnFixture(kId, "h100-misconfigured");
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* remote = FindFinding(r, "YS-NUMA-001");
  ASSERT_NE(remote, nullptr) << testing::Describe(r);
  EXPECT_EQ(remote->severity, Severity::kFail);
  EXPECT_NE(remote->message.find("18.0%"), std::string::npos) << remote->message;
  EXPECT_NE(remote->message.find("node 1"), std::string::npos) << remote->message;
  EXPECT_NE(remote->fix.find("numactl --cpunodebind=0 --membind=0"), std::string::npos);
  EXPECT_NE(remote->expected_recovery.find("12% -> 3%"), std::string::npos);
  EXPECT_FALSE(remote->evidence.empty());
  const Finding* bal = FindFinding(r, "YS-NUMA-002");
  ASSERT_NE(bal, nullptr);
  EXPECT_NE(bal->fix.find("kernel.numa_balancing=0"), std::string::npos);
  EXPECT_EQ(r.findings.size(), 2u) << testing::Describe(r);
}

TEST_F(NumaPlacementTest, SitePolicyAndThresholdDecide) {
  checks::SiteExpectations e;
  e.params.Set("numa.placement.memory", "max_remote_share", 0.25);
  e.params.Set("numa.placement.kernel_policy", "balancing", checks::Policy::kAny);
  CheckResult r = RunOnFixture(kId, "h100-misconfigured", e);
  EXPECT_OUTCOME(r, Outcome::kPass);
  e.params.Set("numa.placement.kernel_policy", "balancing", checks::Policy::kOn);
  EXPECT_TRUE(HasFinding(RunOnFixture(kId, "healthy-8gpu", e), "YS-NUMA-002"));
  testing::TempHost& t = *scratch_;
  t.Write("/proc/sys/kernel/numa_balancing", "2\n");  // memory tiering only
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-NUMA-002"));
}

TEST_F(NumaPlacementTest, RankBoundAwayFromItsGpu) {
  testing::TempHost& t = *scratch_;
  // Rank 5 uses GPU 5 on node 1 but runs on node 0 CPUs with node 0 memory.
  t.Write("/proc/self/environ",
          Environ({{"CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"}, {"SLURM_LOCALID", "5"}}));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* cpus = FindFinding(r, "YS-NUMA-003");
  ASSERT_NE(cpus, nullptr) << testing::Describe(r);
  EXPECT_EQ(cpus->entity, "0000:61:00.0");
  EXPECT_NE(cpus->message.find("gpu5"), std::string::npos) << cpus->message;
  EXPECT_TRUE(HasFinding(r, "YS-NUMA-004"));
  // Its memory is on node 0, the GPU's node is home: all of it is remote.
  EXPECT_TRUE(HasFinding(r, "YS-NUMA-001"));
}

TEST_F(NumaPlacementTest, SlurmGlobalGpuIdsWinOverCudaVisibleDevices) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/environ", Environ({{"CUDA_VISIBLE_DEVICES", "0"}, {"SLURM_STEP_GPUS", "6"}}));
  CheckResult r = t.Run(kId);
  EXPECT_NE(Evidence(r, "devices.used_gpus").find("gpu6 (SLURM_STEP_GPUS=6"), std::string::npos)
      << Evidence(r, "devices.used_gpus");
  EXPECT_TRUE(HasFinding(r, "YS-NUMA-003"));
}

TEST_F(NumaPlacementTest, UnmappableGpuIdsFallBackToTheCpusNode) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/environ", Environ({{"CUDA_VISIBLE_DEVICES", "GPU-3b1c2d4e-aaaa"}}));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "devices.used_gpus").find("UUIDs need NVML"), std::string::npos);
  EXPECT_NE(Evidence(r, "memory.home").find("allowed CPUs"), std::string::npos);
}

TEST_F(NumaPlacementTest, NicsRestrictedToTheOtherNode) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/environ", Environ({{"NCCL_IB_HCA", "=mlx5_4,mlx5_5"}}));
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-NUMA-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("NICs"), std::string::npos);
  EXPECT_NE(f->fix.find("NCCL_IB_HCA"), std::string::npos);
  // "^" excludes: everything but mlx5_0 keeps NICs on node 0.
  t.Write("/proc/self/environ", Environ({{"NCCL_IB_HCA", "^mlx5_0"}}));
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-NUMA-003"));
}

TEST_F(NumaPlacementTest, DeviceWithoutAffinityOnAMultiNodeHost) {
  testing::TempHost& t = *scratch_;
  t.Write("/sys/bus/pci/devices/0000:31:00.0/numa_node", "-1\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-NUMA-005");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->entity, "0000:31:00.0");
}

TEST_F(NumaPlacementTest, ZoneReclaim) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/sys/vm/zone_reclaim_mode", "1\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  EXPECT_TRUE(HasFinding(r, "YS-NUMA-006"));
}

TEST_F(NumaPlacementTest, EmptyNumaMapsAndMissingOptionalFiles) {
  testing::TempHost& t = *scratch_;
  t.Write("/proc/self/numa_maps", "");
  t.Remove("/proc/sys/kernel/numa_balancing");
  t.Remove("/proc/sys/vm/zone_reclaim_mode");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "memory.remote_share").find("not judged"), std::string::npos);
  EXPECT_NE(Evidence(r, "kernel.numa_balancing").find("absent"), std::string::npos);
  t.Remove("/proc/self/numa_maps");
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_NE(Evidence(r, "memory").find("absent"), std::string::npos);
  // An empty sysctl file (a copy that could not read it) is not judged either.
  t.Write("/proc/sys/kernel/numa_balancing", "");
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(Evidence(r, "kernel.numa_balancing"), "empty file: not judged");
}

TEST_F(NumaPlacementTest, SkipsWithoutNumaInformation) {
  TempHost empty;
  EXPECT_OUTCOME(empty.Run(kId), Outcome::kSkip);
  testing::TempHost& t = *scratch_;
  t.Remove("/sys/devices/system/node");
  t.Remove("/proc/self/numa_maps");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("CONFIG_NUMA"), std::string::npos);
}

// Empty attributes give no error and no finding: an empty numa_node is an unknown affinity (not
// the -1 of YS-NUMA-005), an empty zone_reclaim_mode is not judged, an empty status of the judged
// process is a skip with the reason.
TEST_F(NumaPlacementTest, EmptyAttributesAreUnknownNotErrors) {
  testing::TempHost& t = *scratch_;
  t.Write("/sys/bus/pci/devices/0000:31:00.0/numa_node", "");
  t.Write("/proc/sys/vm/zone_reclaim_mode", "\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_FALSE(HasFinding(r, "YS-NUMA-005")) << testing::Describe(r);
  EXPECT_EQ(Evidence(r, "vm.zone_reclaim_mode"), "empty file: not judged");
  bool noted = false;
  for (const auto& [k, v] : r.evidence) noted |= v.find("unknown (empty numa_node file)") == 5;
  EXPECT_TRUE(noted) << testing::Describe(r);
  t.Reset();
  t.Write("/proc/self/status", "");
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/proc/self/status: empty file"), std::string::npos) << r.summary;
}

TEST_F(NumaPlacementTest, MalformedFilesGiveErrorsWithThePath) {
  struct Case {
    const char* path;
    std::string content;
  };
  testing::TempHost& t = *scratch_;
  for (const Case& c :
       {Case{"/proc/self/numa_maps", "garbage\n"},
        Case{"/proc/self/numa_maps", "7f00 default N0=\n"},
        Case{"/proc/self/numa_maps", "7f00 default N0=99999999999999999999999\n"},
        Case{"/proc/self/numa_maps", std::string(host::Host::kMaxFileBytes + 10, '7')},
        Case{"/proc/self/status", "Cpus_allowed_list:\tlots\n"},
        Case{"/proc/sys/kernel/numa_balancing", "garbage\n"},
        Case{"/proc/sys/kernel/numa_balancing", "-1\n"},
        Case{"/proc/sys/vm/zone_reclaim_mode", "zero\n"}}) {
    t.Write(c.path, c.content);
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find(c.path), std::string::npos) << c.path << ": " << r.summary;
    t.Reset();
  }
  EXPECT_OUTCOME(t.Run(kId), Outcome::kPass);
}

TEST_F(NumaPlacementTest, ANamedProcessThatIsGoneIsAnError) {
  auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(host.ok());
  checks::SiteExpectations e;
  checks::CheckContext ctx(*host, e, 4242);
  CheckResult r = checks::RunCheckOrAlias(ctx, kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("/proc/4242/status"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace numa_placement_test
}  // namespace ys
