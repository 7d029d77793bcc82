// Which GPU layout a job gets: one process driving every local GPU without a launcher, one GPU
// per rank under mpirun/srun (comm/collectives.h ChooseGpuLayout), with the launcher detected
// from the environment as at start-up.
#include <gtest/gtest.h>

#include "comm/collectives.h"
#include "host/environment.h"

namespace ys::comm {
namespace {

TEST(GpuLayout, OneProcessOnlyWithoutALauncherAndWithSeveralGpus) {
  EXPECT_EQ(ChooseGpuLayout({}, 1, 8), GpuLayout::kOneProcess);
  EXPECT_EQ(ChooseGpuLayout({}, 1, 2), GpuLayout::kOneProcess);
  EXPECT_EQ(ChooseGpuLayout({}, 1, 1), GpuLayout::kPerRank);  // one rank, one device
  EXPECT_EQ(ChooseGpuLayout({}, 1, 0), GpuLayout::kPerRank);
  EXPECT_EQ(ChooseGpuLayout({}, 2, 8), GpuLayout::kPerRank);  // a job of several processes
  EXPECT_STREQ(GpuLayoutName(GpuLayout::kOneProcess), "one-process");
  EXPECT_STREQ(GpuLayoutName(GpuLayout::kPerRank), "per-rank");
}

TEST(GpuLayout, UnderMpirunOrSrunEachRankKeepsItsGpu) {
  host::Environment mpirun(std::map<std::string, std::string>{{"OMPI_COMM_WORLD_SIZE", "8"},
                                                              {"OMPI_COMM_WORLD_RANK", "0"}});
  host::Environment srun(std::map<std::string, std::string>{
      {"SLURM_STEP_ID", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}});
  host::Environment none(
      std::map<std::string, std::string>{{"SLURM_JOB_ID", "42"}});  // an sbatch script's own shell
  EXPECT_EQ(ChooseGpuLayout(DetectLaunch(mpirun), 8, 8), GpuLayout::kPerRank);
  EXPECT_EQ(ChooseGpuLayout(DetectLaunch(srun), 1, 8),
            GpuLayout::kPerRank);  // srun -n 1: still per rank
  EXPECT_EQ(ChooseGpuLayout(DetectLaunch(none), 1, 8), GpuLayout::kOneProcess);
}

}  // namespace
}  // namespace ys::comm
