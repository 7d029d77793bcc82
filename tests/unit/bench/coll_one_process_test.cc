// The one-process multi-GPU path (nccl-tests -g) through the real dlopen seam, against the fake
// CUDA driver and fake NCCL (tests/fake_gpus/): N fake GPUs give one communicator of N ranks,
// the busbw factors are those of n = N, the data check passes and catches a wrong element the
// fake plants, and the layout follows the launcher. The suites are named FakeGpus*: ctest runs
// them as unit.fake_gpus, in a process whose YARDSTICK_LIBCUDA / YARDSTICK_LIBNCCL name the fakes
// and YS_FAKE_GPUS=4; anywhere else they skip (the libraries are chosen once per process).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "bench/coll/internal/sweep.h"
#include "burnin/load.h"
#include "comm/collectives.h"

namespace ys::bench::coll {
namespace {

using comm::Collective;

constexpr int kFakeGpus = 4;

bool FakesLoaded() {
  const char* cuda = std::getenv("YARDSTICK_LIBCUDA");
  const char* nccl = std::getenv("YARDSTICK_LIBNCCL");
  const char* gpus = std::getenv("YS_FAKE_GPUS");
  return cuda != nullptr && nccl != nullptr && gpus != nullptr &&
         std::string(cuda) == YS_FAKE_CUDA_LIBRARY && std::string(nccl) == YS_FAKE_NCCL_LIBRARY &&
         std::string(gpus) == std::to_string(kFakeGpus);
}

#define YS_NEED_FAKE_GPUS()                                                 \
  if (!FakesLoaded())                                                       \
  GTEST_SKIP() << "runs as ctest unit.fake_gpus (the fake CUDA driver and " \
                  "NCCL)"

// Sets an environment variable of the fakes for one test and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      ::unsetenv(name_);
    } else {
      ::setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

std::string Evidence(const BenchmarkResult& r, const std::string& key) {
  for (const auto& [k, v] : r.evidence) {
    if (k == key) return v;
  }
  return "";
}

class FakeGpusSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    YS_NEED_FAKE_GPUS();
    options_.sizes = *SizeSweep::Parse("1K:16K:x4");
    options_.iters = 2;
    options_.warmup = 1;
  }
  BenchmarkResult Run(Collective c, comm::LaunchInfo launch = {}, const SweepHooks& hooks = {}) {
    BenchContext ctx(host_, control_, options_, launch);
    BenchmarkResult r = RunCollectiveSweep(ctx, c, hooks);
    r.Seal(std::string("coll.") + comm::CollectiveName(c));
    return r;
  }
  host::Host host_ = host::Host::Live();
  comm::SingleProcessCommunicator control_;
  BenchOptions options_;
};

TEST_F(FakeGpusSweep, OneProcessDrivesEveryGpuWithTheFactorsOfNRanks) {
  options_.dtypes = {"float", "bf16"};
  // nccl-tests' factors for n = 4, written out rather than taken from the code under test.
  const std::map<Collective, double> factor = {
      {Collective::kAllReduce, 1.5},      {Collective::kAllGather, 0.75},
      {Collective::kReduceScatter, 0.75}, {Collective::kAlltoAll, 0.75},
      {Collective::kBroadcast, 1.0},      {Collective::kReduce, 1.0},
      {Collective::kSendRecv, 1.0}};
  for (Collective c : comm::kAllCollectives) {
    const std::string id = std::string("coll.") + comm::CollectiveName(c);
    BenchmarkResult r = Run(c);
    ASSERT_EQ(r.outcome, Outcome::kPass) << id << ": " << r.summary;
    EXPECT_NE(r.summary.find("nccl on 4 ranks (gpu, one process, 4 GPUs)"), std::string::npos)
        << r.summary;
    EXPECT_EQ(Evidence(r, "layout"), "one process drives 4 GPUs (gpu0..gpu3; nccl-tests -g 4)");
    ASSERT_EQ(r.tables.size(), 2u) << id;
    for (const auto& t : r.tables) {
      EXPECT_NE(t.title.find("4 ranks (one process, 4 GPUs)"), std::string::npos) << t.title;
      EXPECT_EQ(t.rows.size(), 3u);  // 1K, 4K, 16K
      EXPECT_EQ(t.footer.at(0), "# Out of bounds values : 0 OK") << id;
    }
    int checked = 0;
    for (const auto& m : r.measurements) {
      if (m.name != id + ".busbw") continue;
      ++checked;
      EXPECT_EQ(m.params.at("backend"), "nccl");
      EXPECT_EQ(m.params.at("library"), "NCCL 9.99.99");
      EXPECT_EQ(m.params.at("device"), "gpu");
      EXPECT_EQ(m.params.at("ranks"), "4");
      EXPECT_EQ(m.params.at("gpus_per_process"), "4");
      EXPECT_EQ(m.samples.size(), 4u);  // one per rank (the ranks share the process's time)
      const Measurement* algbw = nullptr;
      for (const auto& a : r.measurements) {
        if (a.name == id + ".algbw" && a.params == m.params) algbw = &a;
      }
      const Measurement* time = nullptr;
      for (const auto& t : r.measurements) {
        if (t.name == id + ".time_us" && t.params == m.params) time = &t;
      }
      ASSERT_NE(algbw, nullptr);
      ASSERT_NE(time, nullptr);
      ASSERT_GT(algbw->value, 0);
      // algbw = bytes / time, bytes = max(send, receive) of one rank (nccl-tests).
      const double bytes = std::stod(m.params.at("size"));
      EXPECT_NEAR(algbw->value, bytes / 1e9 / (time->value * 1e-6), 1e-9 * algbw->value) << id;
      EXPECT_NEAR(m.value / algbw->value, factor.at(c), 1e-12) << id;
    }
    EXPECT_EQ(checked, 2 * 3 * 2) << id;  // dtypes x sizes x placements
  }
}

TEST_F(FakeGpusSweep, AWrongElementFromTheFakeIsCaughtOnItsRank) {
  options_.sizes = *SizeSweep::Parse("4K");
  ScopedEnv corrupt("YS_FAKE_NCCL_CORRUPT_RANK", "2");
  for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kSendRecv}) {
    BenchmarkResult r = Run(c);
    EXPECT_EQ(r.outcome, Outcome::kFail) << comm::CollectiveName(c);
    ASSERT_EQ(r.findings.size(), 1u) << comm::CollectiveName(c);
    EXPECT_EQ(r.findings[0].code, "YS-BENCH-001");
    EXPECT_EQ(r.findings[0].entity.rfind("rank2 (", 0), 0u) << r.findings[0].entity;
    const auto& row = r.tables.at(0).rows.at(0);
    EXPECT_EQ(row[8], "1");   // out of place: the one flipped element of rank 2
    EXPECT_EQ(row[12], "1");  // in place too: the fault is in the "library", every call
  }
}

TEST_F(FakeGpusSweep, TheCheckHookReachesTheFirstGpu) {
  options_.sizes = *SizeSweep::Parse("1K");
  SweepHooks hooks{.on_backend = [](comm::CollectiveBackend& b) { b.CorruptNextCheck(0); }};
  BenchmarkResult r = Run(Collective::kAllReduce, {}, hooks);
  EXPECT_EQ(r.outcome, Outcome::kFail);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].entity.rfind("rank0 (", 0), 0u) << r.findings[0].entity;
  EXPECT_EQ(r.tables.at(0).rows.at(0)[8], "1");
  EXPECT_EQ(r.tables.at(0).rows.at(0)[12], "0");  // one-shot
}

TEST_F(FakeGpusSweep, TheFakesSetTimingIsWhatTheSweepMeasures) {
  options_.sizes = *SizeSweep::Parse("1K");
  ScopedEnv slow("YS_FAKE_NCCL_US_PER_CALL", "3000");
  BenchmarkResult r = Run(Collective::kAllReduce);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  int seen = 0;
  for (const auto& m : r.measurements) {
    if (m.name != "coll.all_reduce.time_us") continue;
    ++seen;
    EXPECT_GE(m.value, 3000.0);  // every call slept 3 ms inside the fake
    EXPECT_EQ(m.params.at("size"), "1024");
  }
  EXPECT_EQ(seen, 2);
}

TEST_F(FakeGpusSweep, UnderALauncherEachRankDrivesOneGpu) {
  comm::LaunchInfo mpirun{
      .launcher = "mpirun", .rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
  BenchmarkResult r = Run(Collective::kAllReduce, mpirun);
  // Per-rank layout: this job's one rank drives one GPU, so there is nothing to exchange.
  EXPECT_EQ(r.outcome, Outcome::kSkip) << r.summary;
  EXPECT_EQ(r.summary, comm::kNothingToExchange);
  EXPECT_TRUE(r.measurements.empty());
}

TEST_F(FakeGpusSweep, OneGpuAndNoLauncherIsSkippedWithTheReason) {
  ScopedEnv one("YS_FAKE_GPUS", "1");
  for (Collective c : comm::kAllCollectives) {
    BenchmarkResult r = Run(c);
    EXPECT_EQ(r.outcome, Outcome::kSkip) << comm::CollectiveName(c);
    EXPECT_EQ(r.summary, comm::kNothingToExchange);
    EXPECT_TRUE(r.measurements.empty());
    EXPECT_TRUE(r.tables.empty());
  }
}

TEST_F(FakeGpusSweep, PairwiseSaysWhyNotInTheOneProcessMode) {
  options_.pairwise = true;
  options_.sizes = *SizeSweep::Parse("1K");
  BenchmarkResult r = Run(Collective::kSendRecv);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  EXPECT_EQ(Evidence(r, "pairwise").rfind("not run: one process drives every GPU here", 0), 0u)
      << Evidence(r, "pairwise");
}

TEST(FakeGpusComm, InitAllGivesOneCommunicatorOfNRanks) {
  YS_NEED_FAKE_GPUS();
  auto b = comm::OpenNcclLocalGpus(kFakeGpus);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->size(), kFakeGpus);
  EXPECT_EQ((*b)->device(), "gpu0..gpu3");
  auto ranks = (*b)->LocalRanks();
  ASSERT_EQ(ranks.size(), 4u);
  for (int i = 0; i < kFakeGpus; ++i) {
    EXPECT_EQ(ranks[i]->rank(), i);
    EXPECT_EQ(ranks[i]->size(), kFakeGpus);
    EXPECT_EQ(ranks[i]->device(), "gpu" + std::to_string(i));
  }
  auto too_many = comm::OpenNcclLocalGpus(kFakeGpus + 1);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("cannot drive 5 GPUs from one process: 4 visible"),
            std::string::npos)
      << too_many.status().message();
  comm::SingleProcessCommunicator single;
  auto job = comm::OpenNcclForJob(single, {});
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ((*job)->size(), kFakeGpus);
  auto launched = comm::OpenNcclForJob(single, {.launcher = "srun"});
  ASSERT_TRUE(launched.ok()) << launched.status().ToString();
  EXPECT_EQ((*launched)->size(), 1);
  EXPECT_EQ((*launched)->LocalRanks().size(), 1u);
}

TEST(FakeGpusBurnin, TheNetworkLoadSpansEveryGpuAndCatchesAWrongElement) {
  YS_NEED_FAKE_GPUS();
  static const host::Host kHost = host::Host::Live();
  comm::SingleProcessCommunicator single;
  burnin::LoadContext ctx;
  ctx.host = &kHost;
  ctx.comm = &single;
  ctx.node = "test-node";
  ctx.device = burnin::Device::kGpu;
  ctx.allreduce_bytes = 64 << 10;
  auto loads = burnin::MakeLoads(burnin::Profile::kNetwork, ctx);
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  ASSERT_EQ(loads->size(), 1u);
  EXPECT_EQ((*loads)[0]->name(), "network.nccl");
  std::vector<burnin::EntitySample> out;
  ASSERT_TRUE((*loads)[0]->RunCycle(0, 0.02, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].entity, "net");
  EXPECT_GT(out[0].iterations, 0);
  EXPECT_EQ(out[0].miscompares, 0);
  ASSERT_TRUE(out[0].perf.has_value());
  EXPECT_GT(*out[0].perf, 0);
  ScopedEnv corrupt("YS_FAKE_NCCL_CORRUPT_RANK", "3");
  out.clear();
  ASSERT_TRUE((*loads)[0]->RunCycle(1, 0.02, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].miscompares, out[0].iterations);  // one flipped element per checked call
  EXPECT_NE(out[0].miscompare_detail.find("rank 3: 1 wrong element(s)"), std::string::npos)
      << out[0].miscompare_detail;
}

// On a real GPU node (ctest -L gpu, unit.gpu_live): the same sweep over the real NCCL, every
// visible GPU from this process; with one GPU, the skip and its reason. Shapes and ranges only.
TEST(CollGpuLive, OneProcessSweepOverEveryVisibleGpu) {
  if (FakesLoaded()) GTEST_SKIP() << "the fake GPUs are loaded";
  if (Status s = comm::NcclAvailable(); !s.ok()) GTEST_SKIP() << s.message();
  auto gpus = comm::VisibleGpuCount();
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  host::Host host = host::Host::Live();
  comm::SingleProcessCommunicator single;
  BenchOptions options;
  options.sizes = *SizeSweep::Parse("1M:64M:x8");
  options.iters = 5;
  options.backend = Backend::kGpu;
  BenchContext ctx(host, single, options);
  BenchmarkResult r = RunCollectiveSweep(ctx, Collective::kAllReduce);
  if (*gpus < 2) {
    EXPECT_EQ(r.outcome, Outcome::kSkip);
    EXPECT_EQ(r.summary, comm::kNothingToExchange);
    return;
  }
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  for (const auto& m : r.measurements) {
    if (m.name != "coll.all_reduce.busbw") continue;
    EXPECT_EQ(m.params.at("ranks"), std::to_string(*gpus));
    EXPECT_EQ(m.params.at("gpus_per_process"), std::to_string(*gpus));
    EXPECT_GT(m.value, 0);
    EXPECT_LT(m.value, 10000);  // GB/s: no link of this decade carries more
  }
}

}  // namespace
}  // namespace ys::bench::coll
