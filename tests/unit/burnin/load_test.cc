// The CPU loads on this machine (short cycles, small operands), the profile parser and the
// MakeLoads decisions that need no GPU and no MPI job. The GPU loads cannot run here: with no
// usable GPU, MakeLoads falls back to the CPU (auto) or refuses (--backend gpu).
#include "burnin/load.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "burnin/load_internal.h"
#include "host/busy_core_clock.h"
#include "testing/bench_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys::burnin {
namespace {

// At most two CPUs of this process (the build machine may have few).
std::vector<int> TwoCpus() {
  auto allowed = host::AllowedCpusOfThisProcess();
  std::vector<int> out;
  if (!allowed.ok()) return out;
  for (int c : allowed->ids()) {
    if (out.size() < 2) out.push_back(c);
  }
  return out;
}

LoadContext SmallContext(comm::Communicator& comm) {
  static const host::Host kHost = host::Host::Live();
  LoadContext ctx;
  ctx.host = &kHost;
  ctx.comm = &comm;
  ctx.node = "test-node";
  ctx.device = Device::kCpu;
  ctx.gemm_n = 96;
  ctx.stream_bytes = 1 << 20;
  return ctx;
}

bool IsHexDigest(const std::string& s) { return std::regex_match(s, std::regex("[0-9a-f]{64}")); }

// A timeline planting a bit flip on `entity` at load time 10.
std::string PlantingTimeline(const testing::TempDir& dir, const std::string& entity) {
  std::string path = dir.path() + "/plant.json";
  std::ofstream(path) << R"({"kind": "yardstick-nvml-timeline", "base": ")"
                      << testing::NvmlFixturePath("healthy-h100x8.json")
                      << R"(", "plant": [{"at_s": 10, "entity": ")" << entity
                      << R"(", "fault": "bit_flip"}]})";
  return path;
}

void ExpectCleanCycle(const std::vector<EntitySample>& out, const std::vector<int>& cpus,
                      const char* metric, const char* unit) {
  ASSERT_EQ(out.size(), cpus.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const EntitySample& s = out[i];
    EXPECT_EQ(s.entity, "cpu" + std::to_string(cpus[i]));
    EXPECT_EQ(s.kind, "cpu");
    EXPECT_EQ(s.node, "test-node");
    EXPECT_EQ(s.metric, metric);
    EXPECT_EQ(s.unit, unit);
    EXPECT_TRUE(s.load_error.empty()) << s.load_error;
    ASSERT_TRUE(s.perf.has_value());
    EXPECT_GT(*s.perf, 0);
    EXPECT_GT(s.iterations, 0);
    EXPECT_EQ(s.miscompares, 0) << s.miscompare_detail;
    EXPECT_TRUE(IsHexDigest(s.digest)) << s.digest;
    EXPECT_EQ(s.digest, out[0].digest);  // across workers
  }
}

// Two cycles clean, digests equal across workers and cycles; then a cycle whose window holds a
// planted flip on the first worker reports exactly one miscompare there, with a detail.
void CheckLoad(Profile profile, const char* name, const char* metric, const char* unit) {
  std::vector<int> cpus = TwoCpus();
  ASSERT_FALSE(cpus.empty());
  testing::TempDir dir;
  auto timeline = Timeline::Load(PlantingTimeline(dir, "cpu" + std::to_string(cpus[0])));
  ASSERT_TRUE(timeline.ok()) << timeline.status().ToString();
  comm::SingleProcessCommunicator comm;
  LoadContext ctx = SmallContext(comm);
  ctx.timeline = &*timeline;
  // MakeLoads runs on every CPU of the process; the frame is tested on at most two of them.
  auto loads = MakeLoads(profile, ctx);
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  ASSERT_EQ(loads->size(), 1u);
  EXPECT_EQ((*loads)[0]->name(), name);
  auto load =
      profile == Profile::kCompute ? MakeCpuGemmLoad(ctx, cpus) : MakeCpuStreamLoad(ctx, cpus);
  ASSERT_TRUE(load.ok()) << load.status().ToString();
  std::vector<EntitySample> first, second, planted;
  ASSERT_TRUE((*load)->RunCycle(0, 0.05, first).ok());
  ASSERT_TRUE((*load)->RunCycle(0.05, 0.05, second).ok());
  ExpectCleanCycle(first, cpus, metric, unit);
  ExpectCleanCycle(second, cpus, metric, unit);
  EXPECT_EQ(first[0].digest, second[0].digest);  // across cycles
  ASSERT_TRUE((*load)->RunCycle(9.98, 0.05, planted).ok());
  ASSERT_EQ(planted.size(), cpus.size());
  EXPECT_EQ(planted[0].miscompares, 1);
  EXPECT_NE(planted[0].miscompare_detail.find("element 17: expected 0x"), std::string::npos)
      << planted[0].miscompare_detail;
  for (size_t i = 1; i < planted.size(); ++i) EXPECT_EQ(planted[i].miscompares, 0);
  // The next cycle is clean again: the flip was in one output, not in the reference.
  std::vector<EntitySample> after;
  ASSERT_TRUE((*load)->RunCycle(10.03, 0.05, after).ok());
  ExpectCleanCycle(after, cpus, metric, unit);
}

TEST(BurninLoad, ParsesProfiles) {
  for (Profile p : {Profile::kCompute, Profile::kMemory, Profile::kNetwork, Profile::kMixed}) {
    auto back = ParseProfile(ProfileName(p));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p);
  }
  auto bad = ParseProfile("gpu");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--profile \"gpu\": expected compute, memory, network or mixed");
}

TEST(BurninLoad, CpuGemmChecksEveryOutput) {
  CheckLoad(Profile::kCompute, "compute.cpu", "sgemm", "GFLOPS");
}

TEST(BurninLoad, CpuStreamChecksEveryElement) {
  CheckLoad(Profile::kMemory, "memory.cpu", "triad", "GB/s");
}

TEST(BurninLoad, CpuWorkersAreTheAllowedCpusOnTheFirstLocalRank) {
  comm::SingleProcessCommunicator comm;
  LoadContext ctx = SmallContext(comm);
  auto allowed = host::AllowedCpusOfThisProcess();
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(CpuWorkers(ctx), std::vector<int>(allowed->ids().begin(), allowed->ids().end()));
  ctx.launch.launcher = "mpirun";
  ctx.launch.local_rank = 1;
  EXPECT_TRUE(CpuWorkers(ctx).empty());
}

TEST(BurninLoad, NetworkNeedsTwoRanks) {
  comm::SingleProcessCommunicator comm;
  LoadContext ctx = SmallContext(comm);
  auto loads = MakeLoads(Profile::kNetwork, ctx);
  ASSERT_FALSE(loads.ok());
  EXPECT_EQ(loads.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(loads.status().message().find("one rank, one device: nothing to exchange; run under "
                                          "mpirun/srun or on a node with several GPUs"),
            std::string::npos)
      << loads.status().message();
  // Mixed on one rank runs what applies: the CPU loads, no network.
  auto mixed = MakeLoads(Profile::kMixed, ctx);
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  ASSERT_EQ(mixed->size(), 2u);
  EXPECT_EQ((*mixed)[0]->name(), "compute.cpu");
  EXPECT_EQ((*mixed)[1]->name(), "memory.cpu");
}

TEST(BurninLoad, GpuBackendWithoutAGpuIsInvalidAndAutoFallsBackToCpu) {
  if (UsableGpuCount().ok()) GTEST_SKIP() << "this machine has a usable GPU";
  comm::SingleProcessCommunicator comm;
  LoadContext ctx = SmallContext(comm);
  ctx.device = Device::kGpu;
  for (Profile p : {Profile::kCompute, Profile::kMemory}) {
    auto loads = MakeLoads(p, ctx);
    ASSERT_FALSE(loads.ok());
    EXPECT_EQ(loads.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(loads.status().message().find("no usable GPU: "), std::string::npos)
        << loads.status().message();
  }
  EXPECT_TRUE(CpuWorkers(ctx).empty());  // --backend gpu: no CPU workers
  ctx.device = Device::kAuto;
  auto loads = MakeLoads(Profile::kCompute, ctx);
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  ASSERT_EQ(loads->size(), 1u);
  EXPECT_EQ((*loads)[0]->name(), "compute.cpu");
  // The GPU factories refuse cleanly too (no crash without a driver).
  EXPECT_FALSE(MakeGpuGemmLoad(ctx, {0}).ok());
  EXPECT_FALSE(MakeGpuMemoryLoad(ctx, {0}).ok());
}

}  // namespace
}  // namespace ys::burnin
