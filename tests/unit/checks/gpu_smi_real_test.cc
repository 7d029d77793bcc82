// The gpu.* checks on real nvidia-smi -q dumps (tests/fixtures/real/nvidia-smi/, each described
// with its source and the operator's verdict in SOURCES.md there), read through --nvml-state as an
// operator would give them: on an empty host tree, since the dump is not of this machine.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "checks/runner.h"
#include "gpu/smi_dump.h"
#include "testing/check_test_util.h"

namespace ys {
namespace {

// "YS-GPU-032 gpu1 (00000000:9E:00.0)": a finding's code and entity (a dump's GPU is named by
// its bus id beside its place in the dump).
using Verdict = std::multiset<std::string>;

struct RealDump {
  Outcome worst;
  Verdict findings;
};

// The verdicts of SOURCES.md.
const std::map<std::string, RealDump>& RealDumps() {
  static const std::map<std::string, RealDump> kDumps = {
      {"h100-sxm5x8-r565.txt", {Outcome::kPass, {}}},
      {"h100-nvlx2-r550.txt", {Outcome::kPass, {}}},
      {"a100-sxm4x4-r555.txt", {Outcome::kWarn, {"YS-GPU-032 gpu1 (00000000:9E:00.0)"}}},
      {"a40x10-r550.txt",
       {Outcome::kWarn,
        {"YS-GPU-017 gpu0 (00000000:4F:00.0)", "YS-GPU-017 gpu3 (00000000:56:00.0)"}}},
      {"l40s-r550.txt", {Outcome::kPass, {}}},
      {"l4-r550.txt", {Outcome::kFail, {"YS-GPU-055 gpu0 (00000000:01:00.0)"}}},
      {"a100-sxm4-mig-r510.xml",
       {Outcome::kFail,
        {"YS-GPU-006 gpu0 (00000000:00:04.0)", "YS-GPU-060 gpu0 (00000000:00:04.0)"}}},
      {"p100-pcie-r510.xml", {Outcome::kWarn, {"YS-GPU-006 gpu0 (00000000:00:04.0)"}}},
      {"rtx4090-r535.xml", {Outcome::kPass, {}}},
  };
  return kDumps;
}

std::string RealDumpPath(const std::string& file) {
  return std::string(YS_FIXTURES_DIR) + "/real/nvidia-smi/" + file;
}

class GpuSmiRealTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuSmiRealTest, GivesTheOperatorsVerdict) {
  const RealDump& want = RealDumps().at(GetParam());
  auto snapshot = gpu::LoadGpuStateFile(RealDumpPath(GetParam()));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  testing::TempHost empty;
  host::Host host = empty.Host();
  checks::SiteExpectations expect;
  checks::CheckContext ctx(host, expect);
  ctx.set_gpu(std::move(snapshot));
  checks::RunOptions options;
  options.filters = {"gpu.*"};
  Verdict got;
  Outcome worst = Outcome::kPass;
  std::string described;
  for (const CheckResult& r : checks::RunChecks(ctx, options)) {
    EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
    if (r.outcome == Outcome::kSkip) {
      EXPECT_FALSE(r.summary.empty()) << r.unit_id;
    }
    if (r.outcome != Outcome::kSkip && r.outcome > worst) worst = r.outcome;
    for (const auto& f : r.findings) got.insert(f.code + " " + f.entity);
    described += testing::Describe(r) + "\n";
  }
  EXPECT_EQ(got, want.findings) << described;
  EXPECT_EQ(worst, want.worst) << described;
}

INSTANTIATE_TEST_SUITE_P(SourcesMd, GpuSmiRealTest,
                         ::testing::Values("h100-sxm5x8-r565.txt", "h100-nvlx2-r550.txt",
                                           "a100-sxm4x4-r555.txt", "a40x10-r550.txt",
                                           "l40s-r550.txt", "l4-r550.txt", "a100-sxm4-mig-r510.xml",
                                           "p100-pcie-r510.xml", "rtx4090-r535.xml"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-' || c == '.') c = '_';
                           }
                           return n;
                         });

// What -q does not print is a skip that says so, never a pass: NVLink state on an HGX H100.
TEST(GpuSmiRealTest, NvlinkFromADumpIsASkipWithTheReason) {
  auto snapshot = gpu::LoadGpuStateFile(RealDumpPath("h100-sxm5x8-r565.txt"));
  ASSERT_TRUE(snapshot.ok());
  testing::TempHost empty;
  host::Host host = empty.Host();
  checks::SiteExpectations expect;
  checks::CheckContext ctx(host, expect);
  ctx.set_gpu(std::move(snapshot));
  checks::RunOptions options;
  options.filters = {"gpu.nvlink"};
  auto results = checks::RunChecks(ctx, options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_OUTCOME(results[0], Outcome::kSkip);
  EXPECT_NE(results[0].summary.find("nvidia-smi nvlink"), std::string::npos) << results[0].summary;
}

}  // namespace
}  // namespace ys
