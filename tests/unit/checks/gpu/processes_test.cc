#include <gtest/gtest.h>

#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

void AddProcess(gpu::GpuSnapshot& s, int gpu, uint32_t pid, uint64_t bytes) {
  auto procs = *s.devices[gpu].compute_processes;
  procs.push_back({pid, bytes});
  s.devices[gpu].compute_processes = gpu::Field<std::vector<gpu::GpuProcess>>::Of(procs);
}

TEST(GpuProcessesTest, IdleGpusPass) {
  CheckResult r = testing::RunGpuFixture("gpu.processes", "healthy-h100x8");
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_EQ(r.summary, "no compute process on 8 GPUs");
}

TEST(GpuProcessesTest, OwnAndOtherUsersProcesses) {
  testing::TempHost t("healthy-8gpu");
  t.Write("/proc/7001/status", "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nCpus_allowed:\tff\n");
  t.Write("/proc/7002/status",
          "Name:\ttrain.py\nUid:\t2001\t2001\t2001\t2001\nCpus_allowed:\tff\n");
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  AddProcess(s, 0, 7001, 512ull << 20);
  AddProcess(s, 1, 7002, 40ull << 30);
  AddProcess(s, 1, 7003, 1ull << 20);  // not visible in /proc (another PID namespace)
  CheckResult r = testing::RunGpuSnapshotOnHost("gpu.processes", t.Host(), s);
  EXPECT_OUTCOME(r, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 3u) << testing::Describe(r);
  EXPECT_EQ(r.findings[0].code, "YS-GPU-065");
  EXPECT_EQ(r.findings[0].message,
            "process 7001 (python3, uid 1000) holds 512 MiB on the GPU before the run");
  EXPECT_EQ(r.findings[1].code, "YS-GPU-066");
  EXPECT_EQ(r.findings[1].entity, "gpu1");
  EXPECT_EQ(r.findings[1].message,
            "process 7002 (train.py, uid 2001) holds 40960 MiB on the GPU: another user's process");
  EXPECT_EQ(r.findings[2].code, "YS-GPU-065");
  EXPECT_NE(r.findings[2].message.find("uid unknown"), std::string::npos);
}

TEST(GpuProcessesTest, TheJudgedProcessItselfIsNotCounted) {
  gpu::GpuSnapshot s = testing::LoadNvmlFixture("healthy-h100x8");
  AddProcess(s, 0, 52011, 1ull << 30);  // the fixture's /proc/self
  testing::GpuRun run;
  run.pid = 52011;
  CheckResult r = testing::RunGpuSnapshot("gpu.processes", s, run);
  EXPECT_OUTCOME(r, Outcome::kPass);
}

}  // namespace
}  // namespace ys
