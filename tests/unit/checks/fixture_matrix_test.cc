// Every recorded host tree against every check: each planted fault is reported with its code,
// and nothing else is. This is the "nothing false on the healthy fixture" contract, kept for all
// fixtures at once so that a new check cannot quietly add noise to a tree it was not written for.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "checks/runner.h"
#include "testing/check_test_util.h"

namespace ys {
namespace {

using Codes = std::multiset<std::string>;

// The finding codes each fixture must produce with default site expectations (the trees are
// described in tests/fixtures/gen/cases.py).
const std::map<std::string, Codes>& Expected() {
  static const std::map<std::string, Codes> kExpected = {
      {"healthy-8gpu", {}},
      {"h100-misconfigured",
       {"YS-CPU-002", "YS-CPU-011", "YS-CPU-012", "YS-CPU-016", "YS-ISO-001", "YS-ISO-002",
        "YS-ISO-003", "YS-NUMA-001", "YS-NUMA-002"}},
      {"grace-vm-smmu", {"YS-VIRT-002", "YS-VIRT-004"}},
      {"container-topo-missing", {"YS-ENV-001"}},
      {"downtrained-link", {"YS-PCI-001", "YS-IB-004"}},
      // Recorded with `yardstick capture` on the 2-vCPU KVM guest the project is developed on.
      {"this-machine", {"YS-CPU-022"}},
  };
  return kExpected;
}

class FixtureMatrixTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureMatrixTest, ReportsExactlyThePlantedFaults) {
  auto host = host::Host::AtRoot(testing::FixturePath(GetParam()));
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  checks::SiteExpectations expect;
  checks::CheckContext ctx(*host, expect);
  Codes got;
  std::string described;
  for (const CheckResult& r : checks::RunChecks(ctx, {})) {
    EXPECT_NE(r.outcome, Outcome::kError) << testing::Describe(r);
    for (const auto& f : r.findings) got.insert(f.code);
    if (!r.findings.empty()) described += testing::Describe(r) + "\n";
  }
  EXPECT_EQ(got, Expected().at(GetParam())) << described;
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, FixtureMatrixTest,
                         ::testing::Values("healthy-8gpu", "h100-misconfigured", "grace-vm-smmu",
                                           "container-topo-missing", "downtrained-link",
                                           "this-machine"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace ys
