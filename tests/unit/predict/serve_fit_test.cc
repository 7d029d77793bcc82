// The serving model's calibration: the fit recovers constants it is given rows of, and the
// shipped published table stays within the fit's data cut-off (30 June 2025).
#include "predict/serve_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "predict/model_spec.h"
#include "predict/serve_calibration.h"
#include "predict/serve_published.h"

namespace ys::predict {
namespace {

const std::string kServeFitData = YS_SOURCE_DIR;

// An H100 SXM as the serving model sees it (datasheet peaks, HBM and NVLink; 80 GB).
ServeSystem ServeFitH100() {
  ServeSystem s;
  s.rates.chip = "h100";
  s.rates.peak_flops = {{"bf16", 989e12}, {"fp8", 1979e12}};
  s.rates.hbm_bytes_per_s = 3.35e12;
  s.rates.nvlink_busbw = {{"all_reduce", 360e9}, {"all_gather", 360e9}, {"alltoall", 360e9}};
  s.hbm_capacity_bytes = 80e9;
  return s;
}

// (a) Rows predicted under known constants are fitted back to those constants.
TEST(ServeFitTest, RecoversTheConstantsOfItsOwnPredictions) {
  std::vector<ModelSpec> models;
  for (const char* m : {"llama3.1_8b", "llama3.1_70b"}) {
    auto spec = LoadModelSpec(kServeFitData + "/models/" + m + ".toml");
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    models.push_back(*spec);
  }
  ServeConstants truth;
  truth.prefill_efficiency = 0.42;
  truth.decode_hbm_efficiency = 0.63;
  truth.host_seconds_per_step = 3e-3;
  truth.allreduce_latency_s = 1.5e-5;
  truth.decode_seconds_per_layer = 3e-5;
  truth.decode_overlap_share = 0.5;
  truth.runtime_reserved_bytes = 2e9;
  std::vector<ServeFitCase> cases;
  int line = 0;
  for (const ModelSpec& m : models) {
    for (int tp : {2, 4, 8}) {
      for (auto [isl, osl] : {std::pair{128, 128},
                              {128, 2048},
                              {2048, 128},
                              {5000, 500},
                              {1000, 1000},
                              {20000, 2000}}) {
        ServeFitCase k;
        k.model = &m;
        k.system = ServeFitH100();
        k.row = {.file = "synthetic",
                 .line = ++line,
                 .model = m.name,
                 .dtype = "fp8",
                 .tp = tp,
                 .isl = isl,
                 .osl = osl,
                 .gpus = tp};
        auto p = PredictServeCase(k, truth);
        ASSERT_TRUE(p.ok()) << m.name << " tp " << tp << ": " << p.status().message();
        k.row.output_tokens_per_s = *p;
        cases.push_back(k);
      }
    }
  }
  ServeConstants start;  // the header's defaults: 0.5, 0.7, 2 ms
  auto fit = FitServeConstants(cases, start);
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_NEAR(fit->prefill_efficiency / truth.prefill_efficiency, 1, 0.05);
  EXPECT_NEAR(fit->decode_hbm_efficiency / truth.decode_hbm_efficiency, 1, 0.05);
  // The three fixed costs of a step (host, layer floors, all-reduce latencies) are told apart
  // only through two layer counts and three TP sizes: the rows fix their sum per row, not each
  // (the predictions below hold them to it).
  // Held out one model at a time (the fit then sees one model's layer count alone), every row is
  // predicted back within 5%.
  auto cal = CalibrateServe(cases, start);
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  ASSERT_EQ(cal->error.size(), 1u);
  EXPECT_EQ(cal->error[0].stats.rows, static_cast<int>(cases.size()));
  EXPECT_LT(cal->error[0].stats.p90_abs, 0.05);
}

TEST(ServeFitTest, RefusesTooFewModels) {
  EXPECT_FALSE(CalibrateServe({}, ServeConstants{}).ok());
  EXPECT_FALSE(FitServeConstants({}, ServeConstants{}).ok());
}

// (c) The fit's data cut-off: no shipped row of a release dated after 30 June 2025.
TEST(ServeFitTest, ShippedRowsAreDatedUpToTheCutOff) {
  auto rows = LoadServePublishedTables(kServeFitData + "/baselines/published/serving");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_FALSE(rows->empty());
  for (const ServePublishedRow& r : *rows) {
    EXPECT_LE(r.release_date, "2025-06-30") << r.file << ":" << r.line << " " << r.release;
  }
}

// (b) The shipped calibration/serve_model.toml is what the fit over the shipped table gives: the
// constants and every chip's held-out error, within the file's rounding (the whole fit: about 6 s
// here).
TEST(ServeFitTest, ShippedCalibrationIsTheFitOfTheShippedTable) {
  auto data = LoadServeFitData(kServeFitData);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_TRUE(data->skipped.empty());
  auto fit = CalibrateServe(data->cases, ServeConstants{});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  auto shipped = LoadServeCalibration(ServeCalibrationPath(kServeFitData));
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  // Every fitted constant, of [constants] and of each [[chip]] set.
  auto same = [](const ServeConstants& s, const ServeConstants& f, const std::string& what) {
    for (double ServeConstants::*field :
         {&ServeConstants::prefill_efficiency, &ServeConstants::decode_hbm_efficiency,
          &ServeConstants::host_seconds_per_step, &ServeConstants::allreduce_latency_s,
          &ServeConstants::decode_seconds_per_layer, &ServeConstants::decode_overlap_share,
          &ServeConstants::runtime_reserved_bytes}) {
      EXPECT_NEAR(s.*field, f.*field, 1e-5 * std::max(1e-6, std::fabs(f.*field))) << what;
    }
  };
  same(shipped->constants, fit->constants, "[constants]");
  ASSERT_EQ(shipped->chips.size(), fit->chips.size());
  for (size_t i = 0; i < fit->chips.size(); ++i) {
    EXPECT_EQ(shipped->chips[i].chip, fit->chips[i].chip);
    same(shipped->chips[i].constants, fit->chips[i].constants, fit->chips[i].chip);
  }
  ASSERT_EQ(shipped->errors.size(), fit->error.size());
  for (const ServeHeldOutError& e : fit->error) {
    const ServeErrorEntry* entry = nullptr;
    for (const ServeErrorEntry& x : shipped->errors) {
      if (x.chip == e.chip && x.dtype == e.dtype && x.architecture == e.architecture) entry = &x;
    }
    ASSERT_NE(entry, nullptr) << e.chip << " " << e.dtype << " " << e.architecture;
    EXPECT_EQ(entry->rows, e.stats.rows) << e.chip;
    EXPECT_NEAR(entry->median, e.stats.median_abs, 6e-5) << e.chip;
    EXPECT_NEAR(entry->p90, e.stats.p90_abs, 1.01e-4) << e.chip;  // rounded up
  }
  ASSERT_EQ(fit->moe_any_chip.has_value(), shipped->moe_any_chip.has_value());
  if (fit->moe_any_chip) {
    EXPECT_EQ(shipped->moe_any_chip->rows, fit->moe_any_chip->rows);
    EXPECT_NEAR(shipped->moe_any_chip->p90, fit->moe_any_chip->p90_abs, 1.01e-4);
  }
  ASSERT_TRUE(fit->other_chip && shipped->other_chip);
  EXPECT_EQ(shipped->other_chip->rows, fit->other_chip->rows);
  EXPECT_NEAR(shipped->other_chip->p90, fit->other_chip->p90_abs, 1.01e-4);
  // Per situation, the held-out rows' error lies within the p90 a prediction states on at least
  // 85% of them: each chip's own rows of dense and of MoE models (calibrated_chip), every chip
  // taking the others' constants (uncalibrated).
  std::map<std::string, std::pair<int, int>> within;  // situation and chip: (within, rows)
  for (const ServeRowError& r : fit->rows) {
    const std::string architecture = ServeArchitecture(*r.k->model);
    const auto stated = ExpectedServeError(&*shipped, r.k->row.chip, r.k->row.dtype, architecture);
    EXPECT_EQ(stated.situation, ServeSituation::kCalibratedChip) << r.k->row.chip;
    auto& [in, n] = within["calibrated_chip " + r.k->row.chip + " " + architecture];
    in += std::fabs(r.error) <= *stated.p90 ? 1 : 0;
    ++n;
  }
  for (const ServeRowError& r : fit->other_chip_rows) {
    auto& [in, n] = within["uncalibrated"];
    in += std::fabs(r.error) <= shipped->other_chip->p90 ? 1 : 0;
    ++n;
  }
  EXPECT_EQ(within.size(), fit->error.size() + 1);
  for (const auto& [situation, count] : within) {
    EXPECT_GE(count.first, 0.85 * count.second) << situation;
  }
}

}  // namespace
}  // namespace ys::predict
