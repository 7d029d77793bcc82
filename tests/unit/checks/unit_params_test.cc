// Unit parameters: declared with the registration, read from the site file's [unit."<id>"]
// tables (and the older flat keys), resolved through retired ids, read by the unit through its
// context.
#include <gtest/gtest.h>

#include <stdexcept>

#include "checks/check.h"
#include "checks/site_expectations.h"
#include "core/registry.h"
#include "testing/check_test_util.h"

namespace ys::checks {
namespace {

using testing::FindFinding;
using testing::RunOnFixture;

SiteExpectations Parse(std::string_view text) {
  auto e = ParseSiteExpectations(text, "site.toml");
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? *e : SiteExpectations{};
}

std::string ErrorOf(std::string_view text) {
  auto e = ParseSiteExpectations(text, "site.toml");
  EXPECT_FALSE(e.ok()) << text;
  if (e.ok()) return "";
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidInput);
  return e.status().message();
}

const UnitInfo& InfoOf(std::string_view id) {
  const RegisteredUnit* u = UnitRegistry::Global().Find(UnitKind::kCheck, id);
  if (u == nullptr) throw std::runtime_error("no check " + std::string(id));
  return u->info;
}

TEST(UnitParamsTest, EveryDeclaredDefaultHasItsTypeAndRange) {
  for (const RegisteredUnit* u : UnitRegistry::Global().ListAll()) {
    for (const ParamSpec& p : u->info.params) {
      SCOPED_TRACE(std::string(u->info.id) + " " + std::string(p.name));
      EXPECT_EQ(p.default_value.index(), static_cast<size_t>(p.type));
      EXPECT_FALSE(p.meaning.empty());
      if (p.type == ParamType::kInt) {
        int v = std::get<int>(p.default_value);
        EXPECT_TRUE(v >= p.lo && v <= p.hi);
      }
      if (p.type == ParamType::kDouble) {
        double v = std::get<double>(p.default_value);
        EXPECT_TRUE(v >= p.lo && v <= p.hi);
      }
    }
  }
}

TEST(UnitParamsTest, UnitTableSetsAParameter) {
  SiteExpectations e = Parse("[unit.\"gpu.thermal\"]\ntemperature_margin_c = 9\n");
  const ParamValue* v = e.params.Find("gpu.thermal", "temperature_margin_c");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::get<int>(*v), 9);
}

TEST(UnitParamsTest, UnitTableWinsOverTheFlatKey) {
  SiteExpectations e = Parse(
      "[unit.\"virt.iommu.passthrough\"]\niommu_passthrough = \"any\"\n"
      "[virt]\niommu_passthrough = \"off\"\n");
  EXPECT_EQ(std::get<Policy>(*e.params.Find("virt.iommu.passthrough", "iommu_passthrough")),
            Policy::kAny);
}

TEST(UnitParamsTest, RetiredIdSetsTheParameterOfTheUnitThatReplacedIt) {
  SiteExpectations e =
      Parse("[unit.\"numa.placement\"]\nmax_remote_share = 0.3\nbalancing = \"on\"\n");
  ASSERT_NE(e.params.Find("numa.placement.memory", "max_remote_share"), nullptr);
  EXPECT_DOUBLE_EQ(std::get<double>(*e.params.Find("numa.placement.memory", "max_remote_share")),
                   0.3);
  EXPECT_EQ(std::get<Policy>(*e.params.Find("numa.placement.kernel_policy", "balancing")),
            Policy::kOn);
  EXPECT_EQ(e.params.Find("numa.placement", "max_remote_share"), nullptr);
  // A retired id whose units declare no parameter: any key is unknown.
  EXPECT_NE(ErrorOf("[unit.\"cpu.cstates\"]\ndeep = 1\n")
                .find("site.toml:2: [unit.\"cpu.cstates\"] deep: unknown key (this unit has no "
                      "parameters)"),
            std::string::npos);
}

TEST(UnitParamsTest, ReaderErrorsNameFileLineTableKeyAndExpectation) {
  struct Case {
    const char* toml;
    const char* want;
  };
  const Case cases[] = {
      {"[unit.\"gpu.nope\"]\nx = 1\n",
       "site.toml:1: [unit.\"gpu.nope\"]: unknown unit id (expected one of "},
      {"[unit.\"gpu.xid\"]\nfatal = [79]\n",
       "site.toml:2: [unit.\"gpu.xid\"] fatal: unknown key (expected one of fatal_xids, "
       "ignored_xids, burst_window_s, min_log_lines, all_boots)"},
      {"[unit.\"gpu.thermal\"]\ntemperature_margin_c = \"5\"\n",
       "site.toml:2: [unit.\"gpu.thermal\"] temperature_margin_c: expected a whole number from 0 "
       "to 50"},
      {"[unit.\"gpu.thermal\"]\ntemperature_margin_c = 51\n",
       "site.toml:2: [unit.\"gpu.thermal\"] temperature_margin_c: 51 is out of range"},
      {"[unit.\"gpu.power\"]\nmin_power_limit_ratio = 1.5\n",
       "[unit.\"gpu.power\"] min_power_limit_ratio: 1.5 is out of range"},
      {"[unit.\"gpu.ecc\"]\necc = true\n",
       "[unit.\"gpu.ecc\"] ecc: expected \"on\", \"off\" or \"any\""},
      {"[unit.\"mem.settings\"]\nthp = \"sometimes\"\n",
       "[unit.\"mem.settings\"] thp: expected one of \"always\", \"madvise\", \"never\", \"any\""},
      {"[unit.\"cpu.isolation\"]\nirqs_on_job_cores = 1\n",
       "[unit.\"cpu.isolation\"] irqs_on_job_cores: expected true or false"},
      {"[unit.\"gpu.xid\"]\nignored_xids = [13, 0]\n", "from 1 to 1000"},
      {"unit = 3\n", "site.toml:1: unit: expected tables [unit.\"<unit id>\"]"},
      {"[unit]\n\"gpu.ecc\" = \"on\"\n", "[unit.\"gpu.ecc\"]: expected a table"},
  };
  for (const Case& c : cases) {
    std::string msg = ErrorOf(c.toml);
    EXPECT_NE(msg.find(c.want), std::string::npos) << c.toml << "\n  got: " << msg;
  }
  // The unknown-id message lists the ids that take parameters.
  std::string msg = ErrorOf("[unit.\"gpu.nope\"]\nx = 1\n");
  EXPECT_NE(msg.find("gpu.xid"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cpu.busy_clock"), std::string::npos) << msg;
}

TEST(UnitParamsTest, UnitReadsTheValueTheSiteSet) {
  // healthy-8gpu has SMT active; cpu.smt reports only (any) by default.
  CheckResult by_default = RunOnFixture("cpu.smt", "healthy-8gpu", Parse(""));
  EXPECT_EQ(FindFinding(by_default, "YS-CPU-020"), nullptr) << testing::Describe(by_default);
  CheckResult wants_off =
      RunOnFixture("cpu.smt", "healthy-8gpu", Parse("[unit.\"cpu.smt\"]\nsmt = \"off\"\n"));
  EXPECT_NE(FindFinding(wants_off, "YS-CPU-020"), nullptr) << testing::Describe(wants_off);
  CheckResult flat = RunOnFixture("cpu.smt", "healthy-8gpu", Parse("[cpu]\nsmt = \"off\"\n"));
  EXPECT_EQ(testing::Describe(flat), testing::Describe(wants_off));
  // The busy-clock measurement turned off from its own table, without measuring.
  CheckResult off = RunOnFixture("cpu.busy_clock", "healthy-8gpu",
                                 Parse("[unit.\"cpu.busy_clock\"]\nbusy_clock_cpus = 0\n"));
  EXPECT_EQ(off.outcome, Outcome::kSkip);
  EXPECT_NE(off.summary.find("busy_clock_cpus = 0"), std::string::npos) << off.summary;
}

TEST(UnitParamsTest, ContextRefusesAnUndeclaredNameAWrongTypeAndAReadOutsideAUnit) {
  auto host = host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(host.ok());
  SiteExpectations e = Parse("[unit.\"gpu.thermal\"]\ntemperature_margin_c = 7\n");
  CheckContext ctx(*host, e);
  CheckContext unit = ctx.ForUnit(InfoOf("gpu.thermal"));
  EXPECT_EQ(unit.param<int>("temperature_margin_c"), 7);
  EXPECT_EQ(ctx.ForUnit(InfoOf("gpu.pcie")).param<int>("max_pcie_replays"), 80);  // default
  EXPECT_THROW((void)unit.param<int>("max_pcie_replays"), std::logic_error);
  EXPECT_THROW((void)unit.param<double>("temperature_margin_c"), std::logic_error);
  EXPECT_THROW((void)ctx.param<int>("temperature_margin_c"), std::logic_error);
}

}  // namespace
}  // namespace ys::checks
