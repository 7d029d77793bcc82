// What every gpu.* unit must do, whatever it checks: skip with NVML's reason when there is no
// snapshot, pass on the healthy recording, give an error naming the file for a malformed
// recording, and never warn or fail when NVML answered nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checks/check.h"
#include "checks/runner.h"
#include "core/registry.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using testing::GpuRun;

const std::vector<std::string>& GpuCheckIds() {
  static const std::vector<std::string> ids = {
      "gpu.clocks",        "gpu.count",     "gpu.driver",  "gpu.ecc",  "gpu.fabric",
      "gpu.memory_repair", "gpu.mig",       "gpu.nvlink",  "gpu.pcie", "gpu.persistence",
      "gpu.power",         "gpu.processes", "gpu.thermal", "gpu.xid"};
  return ids;
}

class GpuCheckTest : public ::testing::TestWithParam<std::string> {};

// Every GPU check declares the GPU: as a need (the runner skips it without GPUs), as the GPU
// state for the units that judge a node with no GPU (gpu.count, gpu.driver: the runner skips
// them without NVML or a recording), or, for gpu.xid that reads the kernel log without NVML, as
// a use.
TEST_P(GpuCheckTest, IsRegisteredAndDeclaresTheGpu) {
  const RegisteredUnit* u = UnitRegistry::Global().Find(UnitKind::kCheck, GetParam());
  ASSERT_NE(u, nullptr);
  auto declares = [](const std::vector<Need>& v) {
    return std::find(v.begin(), v.end(), Need::kGpu) != v.end() ||
           std::find(v.begin(), v.end(), Need::kGpuState) != v.end();
  };
  EXPECT_TRUE(declares(u->info.needs) || declares(u->info.uses)) << GetParam();
}

TEST_P(GpuCheckTest, SkipsWithNvmlsReasonWhenThereIsNoNvml) {
  CheckResult r = testing::RunGpuSnapshot(GetParam(), testing::NoNvml());
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("NVML not found: libnvidia-ml.so.1"), std::string::npos) << r.summary;
  EXPECT_TRUE(r.findings.empty());
}

TEST_P(GpuCheckTest, SkipsOnAHostTreeWithoutARecording) {
  CheckResult r = testing::RunOnFixture(GetParam(), "healthy-8gpu");
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("no recorded NVML state"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find(".yardstick/nvml.json"), std::string::npos) << r.summary;
}

TEST_P(GpuCheckTest, PassesOnTheHealthyRecording) {
  GpuRun run;
  run.kernel_log = "healthy-kmsg.txt";
  CheckResult r = testing::RunGpuFixture(GetParam(), "healthy-h100x8", run);
  EXPECT_OUTCOME(r, Outcome::kPass);
  EXPECT_FALSE(r.summary.empty());
  EXPECT_FALSE(r.evidence.empty()) << "a pass keeps what it saw";
}

TEST_P(GpuCheckTest, MalformedRecordingIsAnErrorNamingTheFile) {
  std::string path = ::testing::TempDir() + "ys-bad-nvml.json";
  for (const char* bad : {"{not json", "{\"devices\": [{\"index\": \"zero\"}]}", "[]",
                          "{\"devices\": [], \"surprise\": 1}"}) {
    std::ofstream(path, std::ios::binary) << bad;
    auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
    ASSERT_TRUE(host.ok());
    checks::SiteExpectations expect;
    checks::CheckContext ctx(*host, expect);
    ctx.set_nvml_state_path(path);
    CheckResult r = checks::RunCheck(ctx, GetParam());
    EXPECT_OUTCOME(r, Outcome::kError);
    EXPECT_NE(r.summary.find(path), std::string::npos) << bad << ": " << r.summary;
  }
  std::remove(path.c_str());
}

TEST_P(GpuCheckTest, AbsentRecordingFileSkips) {
  auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(host.ok());
  checks::SiteExpectations expect;
  checks::CheckContext ctx(*host, expect);
  ctx.set_nvml_state_path("/nonexistent/nvml.json");
  CheckResult r = checks::RunCheck(ctx, GetParam());
  EXPECT_OUTCOME(r, Outcome::kSkip);
  EXPECT_NE(r.summary.find("/nonexistent/nvml.json"), std::string::npos) << r.summary;
}

// NVML answered nothing at all (every Field an error): skip with NVML's words, or pass where
// the unit needs no Field (count, xid); never warn or fail.
TEST_P(GpuCheckTest, EveryAnswerMissingNeverWarnsOrFails) {
  GpuRun run;
  run.kernel_log = "healthy-kmsg.txt";
  for (const char* why : {"Not Supported", "Insufficient Permissions", "Unknown Error"}) {
    CheckResult r =
        testing::RunGpuSnapshot(GetParam(), testing::EveryFieldMissing("healthy-h100x8", why), run);
    EXPECT_TRUE(r.findings.empty()) << testing::Describe(r);
    if (GetParam() == "gpu.count" || GetParam() == "gpu.xid") {
      EXPECT_OUTCOME(r, Outcome::kPass);
    } else {
      EXPECT_OUTCOME(r, Outcome::kSkip);
      EXPECT_NE(r.summary.find(why), std::string::npos) << r.summary;
    }
  }
}

TEST_P(GpuCheckTest, NoGpuInNvml) {
  gpu::GpuSnapshot none = testing::LoadNvmlFixture("healthy-h100x8");
  none.devices.clear();
  GpuRun run;
  run.kernel_log = "healthy-kmsg.txt";
  CheckResult r = testing::RunGpuSnapshot(GetParam(), none, run);
  if (GetParam() == "gpu.count") {
    // Eight GPUs on the PCI bus of the host tree, none in NVML.
    EXPECT_OUTCOME(r, Outcome::kFail);
    EXPECT_EQ(r.findings.size(), 8u) << testing::Describe(r);
  } else if (GetParam() == "gpu.driver" || GetParam() == "gpu.xid") {
    EXPECT_OUTCOME(r, Outcome::kPass);
  } else {
    EXPECT_OUTCOME(r, Outcome::kSkip);
    EXPECT_NE(r.summary.find("NVML lists no GPU"), std::string::npos) << r.summary;
  }
}

// The same recorded tree replays with the recording inside it (<root>/.yardstick/nvml.json), as
// `yardstick capture` will write it.
TEST_P(GpuCheckTest, ReadsTheRecordingInsideAHostTree) {
  testing::TempHost t("healthy-8gpu");
  std::ifstream in(testing::NvmlFixturePath("healthy-h100x8.json"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  t.Write("/.yardstick/nvml.json", ss.str());
  // A kernel log long enough to be evidence (gpu.xid calls a fragment inconclusive).
  std::ifstream kmsg(testing::NvmlFixturePath("healthy-kmsg.txt"), std::ios::binary);
  std::stringstream log;
  log << "6,1,5,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05\n" << kmsg.rdbuf();
  t.Write("/dev/kmsg", log.str());
  CheckResult r = t.Run(GetParam());
  EXPECT_OUTCOME(r, Outcome::kPass);
}

INSTANTIATE_TEST_SUITE_P(AllGpuChecks, GpuCheckTest, ::testing::ValuesIn(GpuCheckIds()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '.') c = '_';
                           return n;
                         });

// gpu.nvml is the one GPU unit that must not skip without NVML (gpu/nvml_test.cc).
TEST(GpuChecksTest, EveryRegisteredGpuCheckIsCovered) {
  std::vector<std::string> registered;
  for (const auto* u : UnitRegistry::Global().List(UnitKind::kCheck)) {
    std::string id(u->info.id);
    if (id.rfind("gpu.", 0) == 0 && id != "gpu.nvml") registered.push_back(id);
  }
  EXPECT_EQ(registered, GpuCheckIds());
}

}  // namespace
}  // namespace ys
