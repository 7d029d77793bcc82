// The one runner's guard (core/unit_runner.h): the gate before the body, the unit's own answer
// to an unmet need, and an exception kept to the unit that threw it.
#include "core/unit_runner.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "core/run_document.h"

namespace ys {
namespace {

UnitGate NoGpu() {
  return UnitGate{.provides = [](Need n) {
    return n == Need::kGpu ? Status::Unsupported("NVML not found") : Status::Ok();
  }};
}

TEST(UnitRunnerTest, GuardRefusesBeforeTheBodyAndTellsTheHook) {
  UnitInfo info{.id = "x.gpu", .needs = {Need::kGpu}};
  bool ran = false;
  std::string heard;
  auto stop = GuardUnit(
      info, NoGpu(), [&] { ran = true; }, [&](const Status& why) { heard = why.message(); });
  ASSERT_TRUE(stop.has_value());
  EXPECT_TRUE(stop->refused);
  EXPECT_FALSE(ran);
  EXPECT_EQ(heard, "NVML not found");
}

TEST(UnitRunnerTest, GuardCatchesWhatTheBodyThrows) {
  UnitInfo info{.id = "x.rule"};
  auto thrown = GuardUnit(info, UnitGate{}, [] { throw std::runtime_error("bad evidence"); });
  ASSERT_TRUE(thrown.has_value());
  EXPECT_FALSE(thrown->refused);
  EXPECT_TRUE(thrown->thrown_std);
  EXPECT_EQ(thrown->thrown, "bad evidence");
  auto other = GuardUnit(info, UnitGate{}, [] { throw 3; });
  ASSERT_TRUE(other.has_value());
  EXPECT_FALSE(other->thrown_std);
  EXPECT_FALSE(GuardUnit(info, UnitGate{}, [] {}).has_value());
}

TEST(UnitRunnerTest, AUnitMayAnswerItsUnmetNeedItself) {
  UnitInfo info{.id = "x.gpu", .needs = {Need::kGpu}};
  std::function<CheckResult()> call = [] { return CheckResult{}; };
  CheckResult skipped = RunUnit<CheckResult>(info, NoGpu(), call);
  EXPECT_EQ(skipped.outcome, Outcome::kSkip);
  EXPECT_EQ(skipped.summary, "NVML not found");
  OnUnmetNeed<CheckResult> own = [](const Status& why) -> std::optional<CheckResult> {
    return CheckResult::Error(Status::Invalid("judged: " + why.message()));
  };
  CheckResult answered = RunUnit<CheckResult>(info, NoGpu(), call, own);
  EXPECT_EQ(answered.outcome, Outcome::kError);
  EXPECT_EQ(answered.unit_id, "x.gpu");
}

}  // namespace
}  // namespace ys
