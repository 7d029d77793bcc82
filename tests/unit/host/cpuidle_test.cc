#include "host/cpuidle.h"

#include <gtest/gtest.h>

#include "testing/check_test_util.h"

namespace ys::host {
namespace {

IdleState State(std::string name, int64_t latency) {
  IdleState s;
  s.name = std::move(name);
  s.latency_us = latency;
  return s;
}

TEST(CpuIdleParseTest, CStateNumber) {
  EXPECT_EQ(CStateNumber("C6"), 6);
  EXPECT_EQ(CStateNumber("C1E"), 1);
  EXPECT_EQ(CStateNumber("C6SP"), 6);
  EXPECT_EQ(CStateNumber("C3_ACPI"), 3);
  EXPECT_EQ(CStateNumber("C10"), 10);
  EXPECT_EQ(CStateNumber("POLL"), std::nullopt);
  EXPECT_EQ(CStateNumber("haltpoll idle"), std::nullopt);
  EXPECT_EQ(CStateNumber("C"), std::nullopt);
  EXPECT_EQ(CStateNumber(""), std::nullopt);
  EXPECT_EQ(CStateNumber("C99999999999999999999"), std::nullopt);
}

TEST(CpuIdleParseTest, DeepStatesAreC6ClassOnly) {
  // Native intel_idle names.
  EXPECT_FALSE(IsDeepIdleState(State("POLL", 0), "intel_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C1", 2), "intel_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C1E", 10), "intel_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C3", 133), "intel_idle"));  // a hardware C3
  EXPECT_TRUE(IsDeepIdleState(State("C6", 170), "intel_idle"));
  EXPECT_TRUE(IsDeepIdleState(State("C6SP", 290), "intel_idle"));
  EXPECT_TRUE(IsDeepIdleState(State("C10", 890), "intel_idle"));
  // ACPI tables: the exit latency decides.
  EXPECT_TRUE(IsDeepIdleState(State("C3_ACPI", 150), "intel_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C2_ACPI", 40), "intel_idle"));
  EXPECT_TRUE(IsDeepIdleState(State("C2", 400), "acpi_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C2", 18), "acpi_idle"));
  EXPECT_FALSE(IsDeepIdleState(State("C1", 1000), "acpi_idle"));
  // VMs and Arm.
  EXPECT_FALSE(IsDeepIdleState(State("haltpoll idle", 1), "haltpoll"));
  EXPECT_FALSE(IsDeepIdleState(State("POLL", 500), "haltpoll"));
  EXPECT_FALSE(IsDeepIdleState(State("WFI", 1), "psci_idle"));
  EXPECT_TRUE(IsDeepIdleState(State("cpu-sleep", 150), "psci_idle"));
}

TEST(CpuIdleParseTest, DefaultStatus) {
  EXPECT_TRUE(*ParseDefaultStatus("enabled\n"));
  EXPECT_FALSE(*ParseDefaultStatus("disabled"));
  EXPECT_FALSE(ParseDefaultStatus("").ok());
  EXPECT_FALSE(ParseDefaultStatus("Enabled").ok());
}

TEST(CpuIdleReadTest, ReadsTheFixtureStates) {
  auto h = Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  ASSERT_TRUE(h.ok());
  auto d = ReadIdleDriver(*h);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->driver, "intel_idle");
  EXPECT_EQ(d->governor, "menu");
  auto states = ReadIdleStates(*h, 9);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  ASSERT_EQ(states->size(), 4u);
  const IdleState& c6 = (*states)[3];
  EXPECT_EQ(c6.index, 3);
  EXPECT_EQ(c6.name, "C6");
  EXPECT_EQ(c6.desc, "MWAIT 0x20");
  EXPECT_EQ(c6.latency_us, 170);
  EXPECT_EQ(c6.residency_us, 600);
  EXPECT_FALSE(c6.disabled);
  EXPECT_EQ(c6.default_enabled, true);
  EXPECT_GT(c6.usage.value_or(0), 0);
}

TEST(CpuIdleReadTest, AbsentDirectoriesAreNotFound) {
  testing::TempHost t;
  auto h = t.Host();
  EXPECT_EQ(ReadIdleDriver(h).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadIdleStates(h, 0).status().code(), StatusCode::kNotFound);
}

TEST(CpuIdleReadTest, OptionalAttributesMayBeAbsent) {
  testing::TempHost t;
  std::string d = "/sys/devices/system/cpu/cpu0/cpuidle/state1";
  t.Write(d + "/name", "C1\n");
  t.Write(d + "/latency", "2\n");
  t.Write(d + "/disable", "0\n");
  t.Write("/sys/devices/system/cpu/cpu0/cpuidle/state1x/name", "not a state\n");
  auto states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  ASSERT_EQ(states->size(), 1u);
  EXPECT_EQ((*states)[0].residency_us, std::nullopt);
  EXPECT_EQ((*states)[0].default_enabled, std::nullopt);
  EXPECT_EQ((*states)[0].usage, std::nullopt);
  EXPECT_EQ((*states)[0].desc, "");
}

TEST(CpuIdleReadTest, EmptyDisableIsUnknownNotAnError) {
  testing::TempHost t;
  std::string d = "/sys/devices/system/cpu/cpu0/cpuidle/state1";
  t.Write(d + "/name", "C1\n");
  t.Write(d + "/latency", "2\n");
  t.Write(d + "/disable", "");
  auto states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  ASSERT_EQ(states->size(), 1u);
  EXPECT_EQ((*states)[0].empty_attribute, "disable");
  t.Write(d + "/disable", "1\n");
  states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok());
  EXPECT_EQ((*states)[0].empty_attribute, "");
  EXPECT_TRUE((*states)[0].disabled);
}

// An empty name or latency leaves the state unknown (empty_attribute names the first); an empty
// residency or usage is absent, as these are optional.
TEST(CpuIdleReadTest, EmptyNameOrLatencyIsUnknownEmptyResidencyOrUsageIsAbsent) {
  testing::TempHost t;
  std::string d = "/sys/devices/system/cpu/cpu0/cpuidle/state1";
  t.Write(d + "/name", "C1\n");
  t.Write(d + "/latency", "");
  t.Write(d + "/disable", "0\n");
  t.Write(d + "/residency", "");
  t.Write(d + "/usage", "\n");
  auto states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  ASSERT_EQ(states->size(), 1u);
  EXPECT_EQ((*states)[0].empty_attribute, "latency");
  EXPECT_EQ((*states)[0].residency_us, std::nullopt);
  EXPECT_EQ((*states)[0].usage, std::nullopt);
  t.Write(d + "/name", "");
  states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  EXPECT_EQ((*states)[0].empty_attribute, "name");
  t.Write(d + "/latency", "2\n");
  t.Write(d + "/name", "C1\n");
  states = ReadIdleStates(t.Host(), 0);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  EXPECT_EQ((*states)[0].empty_attribute, "");
  EXPECT_EQ((*states)[0].latency_us, 2);
}

}  // namespace
}  // namespace ys::host
