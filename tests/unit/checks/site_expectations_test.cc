#include "checks/site_expectations.h"

#include <gtest/gtest.h>

#include <fstream>

namespace ys::checks {
namespace {

// The value the site file set for a unit's parameter; fails the test when it set none.
template <typename T>
T Param(const SiteExpectations& e, std::string_view unit, std::string_view name) {
  const ParamValue* v = e.params.Find(unit, name);
  EXPECT_NE(v, nullptr) << unit << " " << name;
  if (v == nullptr || !std::holds_alternative<T>(*v)) return T{};
  return std::get<T>(*v);
}

TEST(SiteExpectationsTest, DefaultsSuitABareMetalTrainingNode) {
  SiteExpectations e;
  EXPECT_EQ(e.cpu.turbo, Policy::kOn);
  EXPECT_EQ(e.cpu.governor, "performance");
  EXPECT_FALSE(e.devices.gpus.has_value());
  EXPECT_TRUE(e.params.empty());  // the units' declared defaults apply
}

TEST(SiteExpectationsTest, ParsesEveryTable) {
  auto e = ParseSiteExpectations(R"(
[cpu]
smt = "off"
mitigations = "any"
turbo = "off"
governor = "schedutil"
deep_cstates = "disabled"
min_busy_clock_ratio = 0.85
busy_clock_cpus = 4
[numa]
max_remote_share = 0.2
balancing = "any"
[memory]
thp = "madvise"
swap = "any"
memlock = "any"
[devices]
gpus = 8
nics = 8
min_link_rate_gbps = 400
intended_hcas = ["mlx5_0", "mlx5_1"]
[virt]
iommu_passthrough = "any"
[isolation]
irqs_on_job_cores = true
)",
                                 "site.toml");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(Param<Policy>(*e, "cpu.smt", "smt"), Policy::kOff);
  EXPECT_EQ(e->cpu.deep_cstates, Policy::kOff);
  EXPECT_EQ(Param<int>(*e, "cpu.busy_clock", "busy_clock_cpus"), 4);
  EXPECT_DOUBLE_EQ(Param<double>(*e, "numa.placement.memory", "max_remote_share"), 0.2);
  EXPECT_EQ(*e->devices.gpus, 8);
  EXPECT_DOUBLE_EQ(*e->devices.min_link_rate_gbps, 400.0);
  EXPECT_EQ(e->devices.intended_hcas.size(), 2u);
  EXPECT_TRUE(Param<bool>(*e, "cpu.isolation", "irqs_on_job_cores"));
  EXPECT_EQ(Param<std::string>(*e, "mem.settings", "memlock"), "any");
  EXPECT_EQ(e->source, "site.toml");
}

TEST(SiteExpectationsTest, ParsesTheGpuTable) {
  auto e = ParseSiteExpectations(R"(
[gpu]
persistence = "any"
ecc = "off"
mig = "on"
driver_version = "570.86.15"
min_power_limit_ratio = 0.8
temperature_margin_c = 3
fatal_xids = [79, 48]
ignored_xids = [13]
nvlinks_expected_up = 18
max_pcie_replays = 10
)",
                                 "site.toml");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(Param<Policy>(*e, "gpu.persistence", "persistence"), Policy::kAny);
  EXPECT_EQ(Param<Policy>(*e, "gpu.ecc", "ecc"), Policy::kOff);
  EXPECT_EQ(Param<Policy>(*e, "gpu.mig", "mig"), Policy::kOn);
  EXPECT_EQ(e->gpu.driver_version, "570.86.15");
  EXPECT_DOUBLE_EQ(Param<double>(*e, "gpu.power", "min_power_limit_ratio"), 0.8);
  EXPECT_EQ(Param<int>(*e, "gpu.thermal", "temperature_margin_c"), 3);
  EXPECT_EQ(Param<std::vector<int>>(*e, "gpu.xid", "fatal_xids"), (std::vector<int>{79, 48}));
  EXPECT_EQ(Param<std::vector<int>>(*e, "gpu.xid", "ignored_xids"), (std::vector<int>{13}));
  EXPECT_EQ(Param<int>(*e, "gpu.nvlink", "nvlinks_expected_up"), 18);
  EXPECT_EQ(Param<int>(*e, "gpu.pcie", "max_pcie_replays"), 10);
  // An empty list is a list: no XID is fatal.
  auto none = ParseSiteExpectations("[gpu]\nfatal_xids = []\n", "site.toml");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(Param<std::vector<int>>(*none, "gpu.xid", "fatal_xids").empty());
}

struct BadCase {
  const char* toml;
  const char* expect_in_message;
};

// Thresholds from a mutated file: NaN, infinities and values past the range are refused naming
// the file, the key, the value and the range (NaN used to pass a comparison-only check elsewhere).
TEST(SiteExpectationsTest, OutOfRangeThresholdsAreRefused) {
  for (const char* key : {"[numa]\nmax_remote_share", "[gpu]\nmin_power_limit_ratio",
                          "[cpu]\nmin_busy_clock_ratio", "[devices]\nmin_link_rate_gbps"}) {
    for (const char* v : {"nan", "inf", "-inf", "-1", "1e300"}) {
      std::string text = std::string(key) + " = " + v + "\n";
      auto e = ParseSiteExpectations(text, "site.toml");
      ASSERT_FALSE(e.ok()) << text;
      std::string name = std::string(key).substr(std::string(key).find('\n') + 1);
      EXPECT_NE(e.status().message().find("site.toml:2: "), std::string::npos)
          << e.status().message();
      EXPECT_NE(e.status().message().find(name + ": "), std::string::npos) << e.status().message();
      EXPECT_NE(e.status().message().find("is out of range (expected a number from 0 to"),
                std::string::npos)
          << e.status().message();
    }
  }
  auto big = ParseSiteExpectations("[gpu]\nmax_pcie_replays = 9223372036854775807\n", "site.toml");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find(
                "[gpu] max_pcie_replays: 9223372036854775807 is out of range (expected a whole "
                "number from 0 to 1000000000)"),
            std::string::npos)
      << big.status().message();
  auto past = ParseSiteExpectations("[gpu]\nmax_pcie_replays = 9223372036854775808\n", "site.toml");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("site.toml:2:"), std::string::npos)
      << past.status().message();
}

TEST(SiteExpectationsTest, BadInputNamesFileKeyAndExpectation) {
  const BadCase cases[] = {
      {"[cpu]\nsmt = \"maybe\"\n", "site.toml:2: [cpu] smt: expected \"on\", \"off\" or \"any\""},
      {"[cpu]\nbusy_clock_cpus = 2.5\n", "[cpu] busy_clock_cpus: expected a whole number"},
      {"[numa]\nmax_remote_share = 7\n",
       "site.toml:2: [numa] max_remote_share: 7 is out of range (expected a number from 0 to 1)"},
      {"[gpus]\ncount = 8\n", "unknown table [gpus]"},
      {"[gpu]\ncount = 8\n", "[gpu] count: unknown key; expected one of"},
      {"[gpu]\nfatal_xids = [48, \"79\"]\n",
       "[gpu] fatal_xids: expected an array of whole numbers"},
      {"[gpu]\nfatal_xids = 79\n", "[gpu] fatal_xids: expected an array of whole numbers"},
      {"[gpu]\nignored_xids = [0]\n", "from 1 to 1000"},
      {"[gpu]\nmin_power_limit_ratio = 1.5\n", "[gpu] min_power_limit_ratio: 1.5 is out of range"},
      {"[gpu]\nmig = \"sometimes\"\n", "[gpu] mig: expected \"on\", \"off\" or \"any\""},
      {"[devices]\ngpu = 8\n", "[devices] gpu: unknown key; expected one of"},
      {"[memory]\nthp = \"sometimes\"\n", "expected one of \"always\""},
      {"[devices]\nintended_hcas = [1, 2]\n", "expected an array of strings"},
      {"[isolation]\nirqs_on_job_cores = \"yes\"\n", "expected true or false"},
      {"cpu = 3\n", "cpu must be a table"},
      {"[cpu\nsmt=\"on\"", "site.toml:1:"},
      {"\x01\x02garbage", "site.toml:"},
  };
  for (const auto& c : cases) {
    auto e = ParseSiteExpectations(c.toml, "site.toml");
    ASSERT_FALSE(e.ok()) << c.toml;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(e.status().message().find(c.expect_in_message), std::string::npos)
        << e.status().message();
  }
}

TEST(SiteExpectationsTest, MissingFile) {
  auto e = LoadSiteExpectations("/nonexistent/site.toml");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("/nonexistent/site.toml"), std::string::npos);
}

TEST(SiteExpectationsTest, ShippedExampleParses) {
  auto e = LoadSiteExpectations(std::string(YS_SOURCE_DIR) + "/examples/site.toml");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
}

}  // namespace
}  // namespace ys::checks
