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
// described in tests/fixtures/gen/cases.py). No tree here carries a recorded NVML state, so on
// every tree whose PCI bus shows NVIDIA GPUs gpu.nvml reports them as not judged (YS-GPU-075;
// YS-GPU-077 inside a container): the GPU faults are the GPU twin's (gpu_fixture_matrix_test.cc),
// which replays the trees with recorded states.
const std::map<std::string, Codes>& Expected() {
  static const std::map<std::string, Codes> kExpected = {
      {"healthy-8gpu", {"YS-GPU-075"}},
      {"h100-misconfigured",
       {"YS-CPU-002", "YS-CPU-011", "YS-CPU-012", "YS-CPU-016", "YS-ISO-001", "YS-ISO-002",
        "YS-ISO-003", "YS-NUMA-001", "YS-NUMA-002", "YS-GPU-075"}},
      {"grace-vm-smmu", {"YS-VIRT-002", "YS-VIRT-004", "YS-GPU-075"}},
      {"container-topo-missing", {"YS-ENV-001", "YS-GPU-077"}},
      {"downtrained-link", {"YS-PCI-001", "YS-IB-004", "YS-GPU-075"}},
      // Recorded with `yardstick capture` on the 2-vCPU KVM guest the project is developed on.
      {"this-machine", {"YS-CPU-022"}},
      // The quirk family (tests/fixtures/gen/quirks.py): no planted fault, only what real kernels
      // write, so no finding is justified. Offline CPUs 6-7 with inactive cpufreq policies, more
      // possible than present CPUs, memlock printed as 2^64-1 (unlimited).
      {"quirk-offline-cpus", {"YS-GPU-075"}},
      // CPUs 4-5 hot-unplugged (no cpu4, cpu5, policy4, policy5), memlock 2^64-2 (unlimited).
      {"quirk-hotplug-gap", {"YS-GPU-075"}},
      // 4.18: acpi-cpufreq with boost on, -SKX idle names, six vulnerability files (mitigated),
      // no numa_balancing, no IOMMU, "8 GT/s" on a Gen3 GPU at full width, cgroup v1, EDR rate.
      {"quirk-old-kernel", {"YS-GPU-075"}},
      // 6.14 on EPYC: amd-pstate-epp at performance, acpi_idle, new vulnerability files, GPU 1 in
      // D3cold (link "Unknown", width 0: not a downtrained link), XDR rate, unlabelled hwmon.
      {"quirk-new-kernel", {"YS-GPU-075"}},
      // Grace bare metal: cppc_cpufreq/schedutil (no EPP, no base), psci_idle, no smt directory,
      // 64K pages with the CMDQV driver and its NVDA200C device.
      {"quirk-arm64-cppc", {"YS-GPU-075"}},
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
                                           "this-machine", "quirk-offline-cpus",
                                           "quirk-hotplug-gap", "quirk-old-kernel",
                                           "quirk-new-kernel", "quirk-arm64-cppc"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace ys
