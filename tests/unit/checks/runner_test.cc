// The runner, not the unit, enforces what a check needs and whether it may disrupt: a check
// whose need is unmet is skipped with the context's reason and never called; a disruptive one
// runs only when the run asks for disruptive units. The test units count their calls.
#include "checks/runner.h"

#include <gtest/gtest.h>

#include <string>

#include "checks/check.h"
#include "core/registry.h"
#include "testing/check_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys::checks {
namespace {

int g_gpu_calls = 0;
int g_disruptive_calls = 0;

class CountingGpuCheck : public Check {
 public:
  CheckResult Run(const CheckContext& ctx) const override {
    ++g_gpu_calls;
    CheckResult r;
    r.summary = std::to_string(ctx.gpus().devices.size()) + " GPUs";
    return r;
  }
};

class CountingDisruptiveCheck : public Check {
 public:
  CheckResult Run(const CheckContext&) const override {
    ++g_disruptive_calls;
    return CheckResult();
  }
};

}  // namespace

YS_REGISTER(CountingGpuCheck,
            {.id = "zz_test.needs_gpu", .summary = "counts its calls", .needs = {Need::kGpu}})
YS_REGISTER(CountingDisruptiveCheck,
            {.id = "zz_test.disruptive", .summary = "counts its calls", .disruptive = true})

namespace {

class CheckRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_gpu_calls = 0;
    g_disruptive_calls = 0;
  }
  host::Host host_ = *host::Host::AtRoot(testing::FixturePath("healthy-8gpu"));
  SiteExpectations expect_;
};

TEST_F(CheckRunnerTest, UnmetNeedSkipsWithTheReasonWithoutCallingTheUnit) {
  CheckContext ctx(host_, expect_);
  ctx.set_gpu(Status::NotFound("NVML not found: libnvidia-ml.so.1: cannot open shared object"));
  CheckResult r = RunCheck(ctx, "zz_test.needs_gpu");
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.summary, "NVML not found: libnvidia-ml.so.1: cannot open shared object");
  EXPECT_EQ(r.unit_id, "zz_test.needs_gpu");
  EXPECT_EQ(g_gpu_calls, 0);
}

TEST_F(CheckRunnerTest, NoGpuListedSkipsWithoutCallingTheUnit) {
  CheckContext ctx(host_, expect_);
  gpu::GpuSnapshot none;
  none.source = "recorded.json";
  ctx.set_gpu(none);
  CheckResult r = RunCheck(ctx, "zz_test.needs_gpu");
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.summary, "NVML lists no GPU (recorded.json)");
  EXPECT_EQ(g_gpu_calls, 0);
}

TEST_F(CheckRunnerTest, MalformedGpuStateIsAnErrorWithoutCallingTheUnit) {
  CheckContext ctx(host_, expect_);
  ctx.set_gpu(Status::Invalid("nvml.json: devices[0].index: expected an integer"));
  CheckResult r = RunCheck(ctx, "zz_test.needs_gpu");
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_NE(r.summary.find("devices[0].index"), std::string::npos) << r.summary;
  EXPECT_EQ(g_gpu_calls, 0);
}

TEST_F(CheckRunnerTest, MetNeedCallsTheUnitOnce) {
  CheckContext ctx(host_, expect_);
  ctx.set_gpu(testing::LoadNvmlFixture("healthy-h100x8"));
  CheckResult r = RunCheck(ctx, "zz_test.needs_gpu");
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.summary;
  EXPECT_EQ(r.summary, "8 GPUs");
  EXPECT_EQ(g_gpu_calls, 1);
}

TEST_F(CheckRunnerTest, DisruptiveUnitRunsOnlyWhenAsked) {
  CheckContext ctx(host_, expect_);
  CheckResult refused = RunCheck(ctx, "zz_test.disruptive");
  EXPECT_EQ(refused.outcome, Outcome::kSkip);
  EXPECT_NE(refused.summary.find("disruptive"), std::string::npos) << refused.summary;
  EXPECT_EQ(g_disruptive_calls, 0);

  RunOptions o{.filters = {"zz_test.disruptive"}};
  auto results = RunChecks(ctx, o);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kSkip);
  EXPECT_EQ(g_disruptive_calls, 0);

  o.allow_disruptive = true;
  results = RunChecks(ctx, o);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kPass);
  EXPECT_EQ(g_disruptive_calls, 1);
}

TEST_F(CheckRunnerTest, HostNeedsAreAnsweredByTheHost) {
  CheckContext ctx(host_, expect_);  // a recorded tree: not the live host
  EXPECT_FALSE(CheckContextProvides(ctx, Need::kLiveHost).ok());
  EXPECT_FALSE(CheckContextProvides(ctx, Need::kRoot).ok());
  EXPECT_FALSE(CheckContextProvides(ctx, Need::kMpi).ok());
}

}  // namespace
}  // namespace ys::checks
