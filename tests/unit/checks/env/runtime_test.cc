#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "host/environment.h"
#include "testing/check_test_util.h"

namespace ys {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace runtime_env_test {
namespace {

using testing::FindFinding;
using testing::HasFinding;
using testing::RunOnFixture;
using testing::TempHost;

constexpr const char* kId = "env.runtime";

std::string EvidenceOf(const CheckResult& r, std::string_view key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

// Sets (or, with an empty value, removes) variables in the tree's /proc/self/environ.
void SetEnv(TempHost& t, const std::map<std::string, std::string>& vars) {
  std::ifstream in(t.root() + "/proc/self/environ", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  host::Environment env = host::Environment::FromEnvironBlock(ss.str());
  std::map<std::string, std::string> all(env.vars().begin(), env.vars().end());
  for (const auto& [k, v] : vars) {
    if (v.empty()) {
      all.erase(k);
    } else {
      all[k] = v;
    }
  }
  t.Write("/proc/self/environ", host::Environment(all).ToEnvironBlock());
}

// Adds RDMA devices mlx5_8 .. mlx5_<last> with one port each at `rate`.
void AddIbDevices(TempHost& t, int last, const std::string& rate = "400 Gb/sec (4X NDR)") {
  for (int i = 8; i <= last; ++i) {
    t.Write("/sys/class/infiniband/mlx5_" + std::to_string(i) + "/ports/1/rate", rate + "\n");
  }
}

TEST(RuntimeEnvTest, PassesOnHealthyNodeInASlurmJob) {
  CheckResult r = RunOnFixture(kId, "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(EvidenceOf(r, "slurm"), "job 2001");
  EXPECT_EQ(EvidenceOf(r, "SLURM_NTASKS"), "8");
  EXPECT_EQ(EvidenceOf(r, "container").rfind("none", 0), 0u);
  EXPECT_NE(EvidenceOf(r, "nccl.ib_hca").find("uses mlx5_0, mlx5_1"), std::string::npos)
      << EvidenceOf(r, "nccl.ib_hca");
  EXPECT_NE(EvidenceOf(r, "gpudirect").find("/sys/module/nvidia_peermem"), std::string::npos);
}

TEST(RuntimeEnvTest, NoFalseFindingsOnTheOtherFixtures) {
  for (const char* fixture : {"h100-misconfigured", "downtrained-link", "grace-vm-smmu"}) {
    CheckResult r = RunOnFixture(kId, fixture);
    EXPECT_OUTCOME(r, Outcome::kPass);
    EXPECT_TRUE(r.findings.empty()) << fixture;
  }
  CheckResult grace = RunOnFixture(kId, "grace-vm-smmu");
  EXPECT_NE(EvidenceOf(grace, "gpudirect").find("DMA-BUF"), std::string::npos);
  EXPECT_EQ(EvidenceOf(grace, "slurm"), "not in a Slurm job");
}

TEST(RuntimeEnvTest, ContainerWithAbsentTopologyFileIsEnv001) {
  CheckResult r = RunOnFixture(kId, "container-topo-missing");
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u) << testing::Describe(r);
  const Finding* f = FindFinding(r, "YS-ENV-001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(
      f->message.find("/opt/nccl/topo/hgx-h100.xml does not exist inside the pyxis container"),
      std::string::npos)
      << f->message;
  EXPECT_EQ(f->evidence.front().first, "NCCL_TOPO_FILE");
  EXPECT_NE(
      f->fix.find("--container-mounts=/opt/nccl/topo/hgx-h100.xml:/opt/nccl/topo/hgx-h100.xml"),
      std::string::npos);
  EXPECT_NE(f->fix.find("unset NCCL_TOPO_FILE"), std::string::npos);
  EXPECT_NE(f->expected_recovery.find("13-53%"), std::string::npos);
  EXPECT_EQ(EvidenceOf(r, "container"), "pyxis");
  EXPECT_EQ(EvidenceOf(r, "/.lock"), "present (enroot)");
  EXPECT_EQ(EvidenceOf(r, "PYXIS_CONTAINER_IMAGE"), "nvcr.io#nvidia/nemo:25.09");
  EXPECT_EQ(EvidenceOf(r, "/proc/self/mountinfo"), "container rootfs pyxis_3385.0");
  EXPECT_NE(EvidenceOf(r, "/proc/self/uid_map").find("user namespace"), std::string::npos);
  EXPECT_EQ(EvidenceOf(r, "slurm"), "job 3385");
}

TEST(RuntimeEnvTest, TopologyFilePresentNotXmlOrDirectory) {
  TempHost t("container-topo-missing");
  t.Write("/opt/nccl/topo/hgx-h100.xml",
          "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\">\n"
          "  </cpu>\n</system>\n");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceOf(r, "nccl.topo_file"), "/opt/nccl/topo/hgx-h100.xml (readable XML)");
  t.Write("/opt/nccl/topo/hgx-h100.xml", "{\"not\": \"xml\"}\n");
  const Finding* f = nullptr;
  r = t.Run(kId);
  f = FindFinding(r, "YS-ENV-001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("not an NCCL topology XML"), std::string::npos);
  t.Remove("/opt/nccl/topo/hgx-h100.xml");
  t.Write("/opt/nccl/topo/hgx-h100.xml/inner", "x");
  r = t.Run(kId);
  f = FindFinding(r, "YS-ENV-001");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("is a directory"), std::string::npos) << f->message;
}

TEST(RuntimeEnvTest, IbHcaPrefixThatReachesMoreDevicesIsEnv002) {
  TempHost t("healthy-8gpu");
  AddIbDevices(t, 17);
  SetEnv(t, {{"NCCL_IB_HCA", "mlx5_0,mlx5_1:1"}});
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-ENV-002");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("selects 8 device(s) more than intended by prefix: mlx5_10, mlx5_11"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->fix.find("NCCL_IB_HCA==mlx5_0,mlx5_1:1"), std::string::npos) << f->fix;

  // Exact names, or a bare prefix that names no device, are what the user meant.
  for (const char* ok : {"=mlx5_0,mlx5_1", "mlx5",
                         "mlx5_0,mlx5_1,mlx5_10,mlx5_11,mlx5_12,mlx5_13,"
                         "mlx5_14,mlx5_15,mlx5_16,mlx5_17"}) {
    SetEnv(t, {{"NCCL_IB_HCA", ok}});
    EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-002")) << ok;
  }
  SetEnv(t, {{"NCCL_IB_HCA", "^mlx5_1"}});
  f = FindFinding(r = t.Run(kId), "YS-ENV-002");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("excludes 8 device(s)"), std::string::npos) << f->message;
}

TEST(RuntimeEnvTest, IbHcaComparedWithTheSitesIntendedList) {
  TempHost t("healthy-8gpu");
  AddIbDevices(t, 17);
  SetEnv(t, {{"NCCL_IB_HCA", "mlx5"}});
  checks::SiteExpectations e;
  for (int i = 0; i < 8; ++i) e.devices.intended_hcas.push_back("mlx5_" + std::to_string(i));
  const Finding* f = nullptr;
  CheckResult r = t.Run(kId, e);
  f = FindFinding(r, "YS-ENV-002");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("10 device(s)"), std::string::npos) << f->message;  // mlx5_8 .. mlx5_17
  SetEnv(t, {{"NCCL_IB_HCA", "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"}});
  EXPECT_FALSE(HasFinding(t.Run(kId, e), "YS-ENV-002"));
}

TEST(RuntimeEnvTest, OneQpPerConnectionOn400GIsEnv003) {
  TempHost t("healthy-8gpu");
  SetEnv(t, {{"NCCL_IB_QPS_PER_CONNECTION", "1"}});
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = FindFinding(r, "YS-ENV-003");
  ASSERT_NE(f, nullptr);
  bool rate = false;
  for (const auto& [k, v] : f->evidence) {
    if (k == "/sys/class/infiniband/mlx5_0/ports/1/rate") rate = v == "400 Gb/sec (4X NDR)";
  }
  EXPECT_TRUE(rate);
  EXPECT_NE(f->fix.find("NCCL_IB_QPS_PER_CONNECTION=2"), std::string::npos);
  EXPECT_NE(f->expected_recovery.find("31%"), std::string::npos);

  SetEnv(t, {{"NCCL_IB_QPS_PER_CONNECTION", "2"}});
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-003"));
  SetEnv(t, {{"NCCL_IB_QPS_PER_CONNECTION", "1"}});
  for (int i = 0; i < 8; ++i) {
    t.Write("/sys/class/infiniband/mlx5_" + std::to_string(i) + "/ports/1/rate",
            "200 Gb/sec (4X HDR)\n");
  }
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-003"));
}

TEST(RuntimeEnvTest, ForcedAlgorithmDebugAndDisabledFastPaths) {
  TempHost t("healthy-8gpu");
  SetEnv(t, {{"NCCL_ALGO", "Ring"},
             {"NCCL_PROTO", "^LL128"},
             {"NCCL_DEBUG", "INFO"},
             {"NCCL_P2P_DISABLE", "1"},
             {"NCCL_IB_DISABLE", "1"},
             {"NCCL_NET_GDR_LEVEL", "LOC"},
             {"NCCL_SHM_DISABLE", "1"}});
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* algo = FindFinding(r, "YS-ENV-004");
  ASSERT_NE(algo, nullptr);
  EXPECT_EQ(algo->evidence.size(), 2u);
  EXPECT_TRUE(HasFinding(r, "YS-ENV-005"));
  int fast = 0;
  for (const auto& f : r.findings) fast += f.code == "YS-ENV-006";
  EXPECT_EQ(fast, 4) << testing::Describe(r);

  SetEnv(t, {{"NCCL_ALGO", ""},
             {"NCCL_PROTO", ""},
             {"NCCL_DEBUG", "WARN"},
             {"NCCL_P2P_DISABLE", "0"},
             {"NCCL_NET_GDR_LEVEL", "PXB"},
             {"NCCL_SHM_DISABLE", ""}});
  t.Remove("/sys/class/infiniband");  // NCCL_IB_DISABLE=1 is fine without RDMA devices
  r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST(RuntimeEnvTest, NcclConfFileCountsButTheEnvironmentWins) {
  TempHost t("healthy-8gpu");
  t.Write("/etc/nccl.conf", "# site defaults\nNCCL_DEBUG=INFO\nNCCL_SOCKET_IFNAME=^docker,lo\n");
  CheckResult r = t.Run(kId);
  const Finding* f = FindFinding(r, "YS-ENV-005");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence.front().first, "/etc/nccl.conf NCCL_DEBUG");
  SetEnv(t, {{"NCCL_DEBUG", "WARN"}});
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-005"));
}

TEST(RuntimeEnvTest, GpuDirectRdmaMissingIsEnv007) {
  TempHost t("healthy-8gpu");
  t.Remove("/sys/module/nvidia_peermem");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  const Finding* f = FindFinding(r, "YS-ENV-007");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.find("modprobe nvidia-peermem"), std::string::npos);
  // The open kernel module on 5.12+ gives DMA-BUF instead.
  t.Write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
          "(dvs-builder@U22)  Tue Sep 23 09:55:41 UTC 2025\n");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-007"));
  t.Write("/proc/sys/kernel/osrelease", "5.4.0-216-generic\n");
  EXPECT_TRUE(HasFinding(t.Run(kId), "YS-ENV-007"));
  // No GPUs: not applicable.
  t.Remove("/sys/bus/pci/devices");
  EXPECT_FALSE(HasFinding(t.Run(kId), "YS-ENV-007"));
}

TEST(RuntimeEnvTest, DockerMarker) {
  TempHost t("healthy-8gpu");
  t.Write("/.dockerenv", "");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(EvidenceOf(r, "container"), "docker");
}

TEST(RuntimeEnvTest, SkipsWithoutARecordedEnvironment) {
  TempHost empty;
  EXPECT_OUTCOME(empty.Run(kId), Outcome::kSkip);
  TempHost t("healthy-8gpu");
  t.Remove("/proc/self/environ");
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/proc/self/environ"), std::string::npos);
}

// Empty attributes are unknown, not errors: an empty uid_map, driver version, kernel release,
// InfiniBand link layer or port counter.
TEST(RuntimeEnvTest, EmptyAttributesAreUnknownNotErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"container-topo-missing", "/proc/self/uid_map"},
      {"healthy-8gpu", "/proc/driver/nvidia/version"},
      {"healthy-8gpu", "/proc/sys/kernel/osrelease"},
      {"healthy-8gpu", "/sys/class/infiniband/mlx5_0/ports/1/link_layer"},
      {"healthy-8gpu", "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error"},
  };
  for (const auto& [fixture, path] : cases) {
    TempHost t(fixture);
    t.Write(path, "");
    CheckResult r = t.Run(kId);
    EXPECT_NE(r.outcome, Outcome::kError) << path << ": " << testing::Describe(r);
  }
}

TEST(RuntimeEnvTest, MalformedInputsGiveErrorsNamingThem) {
  struct Case {
    const char* fixture;
    const char* path;
    std::string content;
  };
  const Case cases[] = {
      {"container-topo-missing", "/proc/self/uid_map", "garbage\n"},
      {"container-topo-missing", "/proc/self/uid_map", "1000 1000\n"},
      {"container-topo-missing", "/proc/self/mountinfo", "not mountinfo at all\n"},
      {"container-topo-missing", "/proc/self/mountinfo", "4101 3990 9:0 / / rw - xfs\n"},
      {"healthy-8gpu", "/sys/class/infiniband/mlx5_3/ports/1/rate", "fast\n"},
      {"healthy-8gpu", "/proc/driver/nvidia/version", "garbage\n"},
      {"healthy-8gpu", "/proc/driver/nvidia/version",
       "NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"},
      {"healthy-8gpu", "/proc/sys/kernel/osrelease", "linux\n"},
  };
  TempHost container("container-topo-missing"), healthy("healthy-8gpu");
  for (const auto& c : cases) {
    TempHost& t = std::string_view(c.fixture) == "healthy-8gpu" ? healthy : container;
    CheckResult r = testing::RunWithFileReplaced(t, kId, c.path, c.content);
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find(c.path), std::string::npos) << c.path << ": " << r.summary;
  }
  EXPECT_OUTCOME(healthy.Run(kId), Outcome::kPass);  // everything restored
  for (const char* bad : {"mlx5_0:x", "mlx5_0:0", ",", "^=", ":1", "mlx5_0, mlx5_1", "a:1:2:3:4"}) {
    TempHost& t = healthy;
    SetEnv(t, {{"NCCL_IB_HCA", bad}});
    CheckResult r = t.Run(kId);
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find("NCCL_IB_HCA"), std::string::npos) << bad << ": " << r.summary;
  }
}

TEST(RuntimeEnvTest, EnormousMountinfoIsRefusedNotRead) {
  TempHost t("container-topo-missing");
  t.Write("/proc/self/mountinfo", std::string(host::Host::kMaxFileBytes + 10, 'x'));
  CheckResult r = t.Run(kId);
  EXPECT_OUTCOME(r, Outcome::kError);
  EXPECT_NE(r.summary.find("limit"), std::string::npos) << r.summary;
}

}  // namespace
}  // namespace runtime_env_test
}  // namespace ys
