#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

TEST(GpuDriverTest, PassesWhenTheModuleMatchesNvml) {
  CheckResult r = testing::RunGpuFixture("gpu.driver", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "driver 550.127.05, CUDA 12.4, kernel module matches");
}

TEST(GpuDriverTest, LoadedModuleDiffersFromNvml) {
  testing::TempHost t("healthy-8gpu");
  t.Write("/sys/module/nvidia/version", "535.183.01\n");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                                testing::LoadNvmlFixture("healthy-h100x8"));
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = testing::FindFinding(r, "YS-GPU-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_NE(f->message.find("kernel module 535.183.01 is loaded, NVML is 550.127.05"),
            std::string::npos);
  EXPECT_NE(f->fix.find("rmmod"), std::string::npos);
}

TEST(GpuDriverTest, ProcVersionIsReadWithoutSysModule) {
  testing::TempHost t("healthy-8gpu");
  t.Remove("/sys/module/nvidia/version");
  t.Write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                                testing::LoadNvmlFixture("healthy-h100x8"));
  const Finding* f = testing::FindFinding(r, "YS-GPU-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->evidence[0].first, "/proc/driver/nvidia/version");
}

// NVML refuses to start when user space and the kernel module differ; that is the finding.
TEST(GpuDriverTest, NvmlVersionMismatchErrorIsTheFinding) {
  CheckResult r = testing::RunGpuSnapshot(
      "gpu.driver",
      Status::Unsupported("nvmlInit_v2: RM has detected an NVML/RM version mismatch."));
  EXPECT_OUTCOME(r, Outcome::kFail);
  const Finding* f = testing::FindFinding(r, "YS-GPU-003");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("kernel module 550.127.05"), std::string::npos) << f->message;
}

TEST(GpuDriverTest, SiteDriverAndStaleCuda) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.cuda_driver_version = gpu::Field<int>::Of(12020);  // R535's CUDA on an R550 driver
  GpuRun run;
  run.expect.gpu.driver_version = "570.86.15";
  CheckResult r = testing::RunGpuSnapshot("gpu.driver", s, run);
  EXPECT_OUTCOME(r, Outcome::kWarn);
  EXPECT_TRUE(testing::HasFinding(r, "YS-GPU-004")) << testing::Describe(r);
  const Finding* f = testing::FindFinding(r, "YS-GPU-005");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("CUDA driver 12.2 is older than driver 550.127.05's CUDA 12.4"),
            std::string::npos)
      << f->message;
}

TEST(GpuDriverTest, NewerCudaIsForwardCompatibilityNotAFault) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.cuda_driver_version = gpu::Field<int>::Of(12080);
  CheckResult r = testing::RunGpuSnapshot("gpu.driver", s);
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST(GpuDriverTest, UnknownBranchAndMissingCudaArePartial) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  s.driver_version = gpu::Field<std::string>::Of("999.1.2");
  s.cuda_driver_version = gpu::Field<int>::Missing("Function Not Found");
  testing::TempHost t("healthy-8gpu");
  t.Write("/sys/module/nvidia/version", "999.1.2\n");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(), s);
  EXPECT_OUTCOME(r, Outcome::kPass);
  bool noted = false;
  for (const auto& [k, v] : r.evidence) {
    if (k == "nvml.cuda_driver_version" && v == "unavailable: Function Not Found") noted = true;
  }
  EXPECT_TRUE(noted) << testing::Describe(r);
}

TEST(GpuDriverTest, MalformedModuleVersionIsAnErrorNamingThePath) {
  testing::TempHost t("healthy-8gpu");
  for (const char* bad : {"garbage\n", "550.\n", "\x01\x02"}) {
    t.Write("/sys/module/nvidia/version", bad);
    CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                                  testing::LoadNvmlFixture("healthy-h100x8"));
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find("sys/module/nvidia/version"), std::string::npos) << r.summary;
  }
}

// An empty module version file gives no version: /proc/driver/nvidia/version is read instead,
// and with both empty the module is not compared. Never an error.
TEST(GpuDriverTest, EmptyVersionFilesAreUnknown) {
  testing::TempHost t("healthy-8gpu");
  t.Write("/sys/module/nvidia/version", "");
  t.Write("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                                testing::LoadNvmlFixture("healthy-h100x8"));
  const Finding* f = testing::FindFinding(r, "YS-GPU-003");
  ASSERT_NE(f, nullptr) << testing::Describe(r);
  EXPECT_EQ(f->evidence[0].first, "/proc/driver/nvidia/version");
  t.Write("/proc/driver/nvidia/version", "");
  r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                    testing::LoadNvmlFixture("healthy-h100x8"));
  EXPECT_OUTCOME(r, Outcome::kPass);
}

TEST(GpuDriverTest, NoKernelModuleIsNoted) {
  testing::TempHost t("healthy-8gpu");
  t.Remove("/sys/module/nvidia");
  t.Remove("/proc/driver/nvidia");
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.driver", t.Host(),
                                                testing::LoadNvmlFixture("healthy-h100x8"));
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "driver 550.127.05, CUDA 12.4");
}

// --nvml-state without --root: the recording's driver is not this machine's loaded module.
TEST(GpuDriverTest, ARecordingIsNotComparedWithThisMachinesModule) {
  testing::TempHost t;
  t.Write("/sys/module/nvidia/version", "535.104.05\n");
  host::Host recorded_tree = t.Host();
  host::Host live(t.root(), recorded_tree.env(), /*live=*/true);
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");  // "recorded: ..."
  CheckResult on_live = testing::RunGpuSnapshotOnHost("gpu.driver", live, s);
  EXPECT_OUTCOME(on_live, Outcome::kPass);
  EXPECT_EQ(on_live.summary.find("kernel module"), std::string::npos) << on_live.summary;
  // The same tree given with --root is the recording's own: compared, and it differs.
  CheckResult with_root = testing::RunGpuSnapshotOnHost("gpu.driver", recorded_tree, s);
  ASSERT_NE(testing::FindFinding(with_root, "YS-GPU-003"), nullptr) << testing::Describe(with_root);
}

}  // namespace
}  // namespace ys
