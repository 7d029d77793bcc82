// The step model's communication terms (predict/step_comm.h) on hand-set work and rates: a
// tensor-parallel term inside the NVLink domain follows its formula on the NVLink rate, a group
// past the domain without a network rate is refused by name, and the data-parallel terms are
// exposed whole without overlap and hidden under a long enough overlap window.
#include "predict/step_comm.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "predict/model_spec.h"

namespace ys::predict {
namespace {

SystemRates CommTestRates() {
  SystemRates r;
  r.chip = "h100";
  r.nvlink_domain = 8;
  r.nvlink_busbw = {{"all_gather", 400e9}, {"reduce_scatter", 360e9}};
  r.network_busbw = {{"reduce_scatter", 40e9}};  // no network all_gather
  return r;
}

Recipe CommTestRecipe(const ModelSpec& spec, int gpus, int tp) {
  Recipe r;
  r.model = &spec;
  r.layers = 32;
  r.seq = 4096;
  r.dtype = "bf16";
  r.par.chip = "h100";
  r.par.gpus = gpus;
  r.par.tp = tp;
  return r;
}

TEST(StepCommTest, TensorParallelTermFollowsItsFormulaOnNvlink) {
  ModelSpec spec;
  const Recipe r = CommTestRecipe(spec, 8, 8);
  StepWork w;
  w.tp_message_bytes = 64e6;
  Constants c;
  StepPrediction out;
  ASSERT_TRUE(
      AddMicroBatchComm(r, w, CommTestRates(), c, 8, 4, MicroBatchShape{1.0, 0.5}, out).ok());
  ASSERT_EQ(out.comm.size(), 1u);
  const CommTerm& t = out.comm[0];
  EXPECT_EQ(t.name, "tp");
  EXPECT_EQ(t.link, "nvlink");
  // 4 micro-batches × 8 collectives × 32 layers, each 64 MB × 7/8 at 400 GB/s.
  const double raw = 4 * 8 * 32 * (64e6 * 7.0 / 8 / 400e9);
  EXPECT_NEAR(t.raw_s, raw, 1e-12);
  EXPECT_NEAR(t.exposed_s, raw * c.tp_exposed, 1e-12);
}

TEST(StepCommTest, GroupPastTheDomainWithoutANetworkRateIsRefusedByName) {
  ModelSpec spec;
  const Recipe r = CommTestRecipe(spec, 16, 16);
  StepWork w;
  w.tp_message_bytes = 1e6;
  StepPrediction out;
  const Status s =
      AddMicroBatchComm(r, w, CommTestRates(), Constants{}, 8, 1, MicroBatchShape{}, out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("network bus bandwidth for all_gather on h100"), std::string::npos)
      << s.message();
}

TEST(StepCommTest, DataParallelIsExposedWholeWithoutOverlapAndHiddenUnderALongWindow) {
  ModelSpec spec;
  Recipe r = CommTestRecipe(spec, 8, 1);
  StepWork w;
  w.dense_params_per_gpu = 1e9;
  w.dense_dp = 8;
  const Constants c;
  auto exposed = [&](bool overlap, double compute_mb) {
    r.par.dp_overlap = overlap;
    StepPrediction out;
    out.data_parallel = 8;
    EXPECT_TRUE(AddDataParallelComm(r, w, CommTestRates(), c, 8, 4, compute_mb, out).ok());
    double raw = 0, shown = 0;
    for (const CommTerm& t : out.comm) {
      EXPECT_EQ(t.name, "dp");
      raw += t.raw_s;
      shown += t.exposed_s;
    }
    EXPECT_EQ(out.comm.size(), 2u);  // a reduce-scatter and an all-gather
    return std::pair{raw, shown};
  };
  const auto [raw, none_hidden] = exposed(false, 1.0);
  EXPECT_GT(raw, 0);
  EXPECT_NEAR(none_hidden, raw, 1e-12);
  EXPECT_NEAR(exposed(true, raw).second, 0, 1e-12);  // window = 2 micro-batches of `raw` each
}

}  // namespace
}  // namespace ys::predict
