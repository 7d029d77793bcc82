// The network load needs an MPI job: this test runs only when the test binary itself was started
// by a launcher, e.g.
//   mpirun -n 2 ./build/yardstick_tests --gtest_filter='BurninNetwork*'
// and is skipped in the plain unit run (the lead's integration test runs the burn-in under
// mpirun end to end).
#include <gtest/gtest.h>

#include <fstream>

#include "burnin/load.h"
#include "testing/bench_test_util.h"
#include "testing/gpu_test_util.h"

namespace ys::burnin {
namespace {

TEST(BurninNetwork, AllReduceUnderALauncherCatchesAPlantedFlip) {
  host::Environment env = host::Environment::FromProcess();
  comm::LaunchInfo launch = comm::DetectLaunch(env);
  if (!launch.launched() || launch.size < 2) {
    GTEST_SKIP() << "not launched by mpirun/srun with 2 or more ranks";
  }
  auto comm = comm::OpenCommunicator(env);
  ASSERT_TRUE(comm.ok()) << comm.status().ToString();
  // Every rank writes the same timeline to its own file.
  testing::TempDir dir;
  std::string path = dir.path() + "/net.json";
  std::ofstream(path) << R"({"kind": "yardstick-nvml-timeline", "base": ")"
                      << testing::NvmlFixturePath("healthy-h100x8.json")
                      << R"(", "plant": [{"at_s": 10, "entity": "net", "fault": "bit_flip"}]})";
  auto timeline = Timeline::Load(path);
  ASSERT_TRUE(timeline.ok());
  static const host::Host kHost = host::Host::Live();
  LoadContext ctx;
  ctx.host = &kHost;
  ctx.comm = comm->get();
  ctx.launch = launch;
  ctx.node = "n";
  ctx.device = Device::kCpu;
  ctx.timeline = &*timeline;
  ctx.allreduce_bytes = 1 << 20;
  auto loads = MakeLoads(Profile::kNetwork, ctx);
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  ASSERT_EQ(loads->size(), 1u);
  Load& net = *(*loads)[0];
  EXPECT_EQ(net.name(), "network.mpi");
  std::vector<EntitySample> clean, planted;
  ASSERT_TRUE(net.RunCycle(0, 0.1, clean).ok());
  ASSERT_TRUE(net.RunCycle(9.95, 0.1, planted).ok());
  if ((*comm)->rank() != 0) {
    EXPECT_TRUE(clean.empty());
    EXPECT_TRUE(planted.empty());
    return;
  }
  ASSERT_EQ(clean.size(), 1u);
  EXPECT_EQ(clean[0].entity, "net");
  EXPECT_EQ(clean[0].kind, "net");
  EXPECT_EQ(clean[0].metric, "all_reduce.busbw");
  ASSERT_TRUE(clean[0].perf.has_value());
  EXPECT_GT(*clean[0].perf, 0);
  EXPECT_GT(clean[0].iterations, 0);
  EXPECT_EQ(clean[0].miscompares, 0);
  ASSERT_EQ(planted.size(), 1u);
  EXPECT_EQ(planted[0].miscompares, 1);
  EXPECT_NE(planted[0].miscompare_detail.find("rank 0: 1 wrong element"), std::string::npos)
      << planted[0].miscompare_detail;
}

}  // namespace
}  // namespace ys::burnin
