// Every recorded NVML state against every gpu.* check: each planted fault is reported with its
// code, and nothing else is (the GPU twin of fixture_matrix_test.cc). Each state replays against
// the host tree its GPUs' PCI addresses come from, with the kernel log recorded beside it.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "checks/runner.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys {
namespace {

using Codes = std::multiset<std::string>;

struct Recording {
  std::string kernel_log;  // under tests/fixtures/nvml
  Codes expected;          // with default site expectations
};

// The states are described in tests/fixtures/nvml/make_nvml.py.
const std::map<std::string, Recording>& Recordings() {
  static const std::map<std::string, Recording> kRecordings = {
      {"healthy-h100x8", {"healthy-kmsg.txt", {}}},
      // GPU 2: HW thermal slowdown (clocks) at 91 C above its 89 C slowdown (thermal);
      // GPU 5: a pending row remap.
      {"h200x8-throttle-remap", {"healthy-kmsg.txt", {"YS-GPU-011", "YS-GPU-020", "YS-GPU-032"}}},
      // GPU 3: link 7 inactive, replay and recovery errors.
      {"nvlink-down", {"healthy-kmsg.txt", {"YS-GPU-045", "YS-GPU-046", "YS-GPU-047"}}},
      // XID 48 on GPU 1 and XID 79 on GPU 4 (the lone XID 13 is only noted).
      {"xid", {"xid-kmsg.txt", {"YS-GPU-040", "YS-GPU-040"}}},
  };
  return kRecordings;
}

class GpuFixtureMatrixTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuFixtureMatrixTest, ReportsExactlyThePlantedFaults) {
  const Recording& rec = Recordings().at(GetParam());
  auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  checks::SiteExpectations expect;
  checks::CheckContext ctx(*host, expect);
  ctx.set_nvml_state_path(testing::NvmlFixturePath(GetParam() + ".json"));
  ctx.set_kernel_log_path(testing::NvmlFixturePath(rec.kernel_log));
  checks::RunOptions options;
  options.filters = {"gpu.*"};
  Codes got;
  std::string described;
  int units = 0;
  for (const CheckResult& r : checks::RunChecks(ctx, options)) {
    ++units;
    EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
    EXPECT_NE(r.outcome, Outcome::kSkip) << testing::Describe(r);
    for (const auto& f : r.findings) {
      got.insert(f.code);
      EXPECT_FALSE(f.evidence.empty()) << f.code;
      EXPECT_FALSE(f.fix.empty()) << f.code;
      EXPECT_FALSE(f.reference.empty()) << f.code;
    }
    if (!r.findings.empty()) described += testing::Describe(r) + "\n";
  }
  EXPECT_EQ(units, 15);  // the 14 that read NVML, and gpu.nvml
  EXPECT_EQ(got, rec.expected) << described;
}

INSTANTIATE_TEST_SUITE_P(AllRecordings, GpuFixtureMatrixTest,
                         ::testing::Values("healthy-h100x8", "h200x8-throttle-remap", "nvlink-down",
                                           "xid"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace ys
