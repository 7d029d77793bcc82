// Rows of a release newer than every release a fit may read: predicted the way `predict --release`
// answers an operator about that release (the newest calibrated constants for the chip, anchored
// on the nearest row of the same model and chip in that release or the newest older one with
// one, never on a row of the later table itself), and never fitted.
#include "predict/later_releases.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "predict/release_calibration.h"
#include "predict/step_calibration.h"

namespace ys::predict {
namespace later_releases_test {
namespace {

namespace fs = std::filesystem;
const std::string kData = YS_SOURCE_DIR;

constexpr const char* kHeader =
    "release\tchip\tmodel\tprecision\tgpus\tgbs\tmbs\tseq\ttp\tpp\tcp\tvp\tep\tetp\tfsdp\t"
    "dispatcher\ttoken_drop\ta2a_overlap\trecompute\tstep_time_s\tanomaly\tsource\n";
// The 26.04.01 GB200 Llama 3 70B MXFP8 row of megatron_bridge.tsv (64 GPUs, GBS 256) and its
// step time.
constexpr double kRowStepS = 8.828;

std::string Row(const std::string& release, const std::string& chip, const std::string& model,
                const std::string& precision, int gpus, int gbs, const std::string& par,
                double step_s) {
  return release + "\t" + chip + "\t" + model + "\t" + precision + "\t" + std::to_string(gpus) +
         "\t" + std::to_string(gbs) + "\t1\t8192\t" + par + "\t0\t-\t-\t-\tnone\t" +
         std::to_string(step_s) + "\t-\tlater_releases_test\n";
}

// A data directory: the source tree's models/, specs/, calibration/ and published tables, and one
// table of a later release (26.06).
class LaterReleasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "ys-later-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    for (const char* d : {"models", "specs", "calibration"})
      fs::create_directory_symlink(fs::path(kData) / d, dir_ / d);
    const fs::path published = dir_ / "baselines" / "published";
    fs::create_directories(published);
    for (const char* t : {"megatron_bridge.tsv", "dgxc_benchmarking.tsv"})
      fs::create_symlink(fs::path(kData) / "baselines" / "published" / t, published / t);
    std::ofstream later(published / "later.tsv");
    later << kHeader
          // The 26.04.01 row's recipe, 10% faster: anchored on that row, +11.1%.
          << Row("26.06", "gb200", "llama3.1_70b", "mxfp8", 64, 256, "2\t4\t1\t5\t1\t-",
                 0.9 * kRowStepS)
          // Twice the GPUs and batch: anchored on the same row, scaled by the model's ratio.
          << Row("26.06", "gb200", "llama3.1_70b", "mxfp8", 128, 512, "2\t4\t1\t5\t1\t-", kRowStepS)
          // Rows of two more models, with step times no fit could keep: were later rows fitted,
          // 26.06 would be a calibrated release of GB200 (three models) with constants far off.
          << Row("26.06", "gb200", "llama3.1_8b", "mxfp8", 8, 128, "1\t1\t1\t1\t1\t-", 1000)
          << Row("26.06", "gb200", "llama3.1_405b", "mxfp8", 256, 1536, "4\t16\t1\t8\t1\t-", 1000)
          // A chip no release calibrates: its sibling's constants (H100's), no anchor.
          << Row("26.06", "h200", "llama3.1_70b", "bf16", 64, 256, "4\t8\t1\t5\t1\t-", 20)
          // DeepSeek-V3 in 26.04.01's GB200 layout, its software features unstated (no etp,
          // dispatcher or graphs; recompute "none" stated): they come from the 26.04.01 entry.
          << Row("26.06", "gb200", "deepseek-v3_671b", "mxfp8", 256, 4096, "1\t4\t1\t4\t64\t-", 13)
          // Rows no answer can be given for: a model without a file, a chip without specs/, a
          // layout that does not divide the GPUs, a precision the step model does not know.
          // Listed, in no figure.
          << Row("26.06", "gb200", "no_such_model", "mxfp8", 64, 256, "2\t4\t1\t5\t1\t-", 9)
          << Row("26.06", "vr200", "llama3.1_70b", "mxfp8", 64, 256, "2\t4\t1\t5\t1\t-", 9)
          << Row("26.06", "gb200", "llama3.1_70b", "mxfp8", 60, 240, "2\t4\t1\t5\t1\t-", 9)
          // A precision of a later release the step model does not know.
          << Row("26.06", "gb200", "llama3.1_70b", "mxfp4", 64, 256, "2\t4\t1\t5\t1\t-", 9);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LaterReleasesTest, RowsArePredictedWithTheNewestCalibrationAndAnchored) {
  auto cal = LoadStepCalibration(StepCalibrationPath(kData));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto set = ReleaseSet::Load(dir_.string(), *cal);
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto releases = LoadReleaseCalibration(kData);
  ASSERT_TRUE(releases.ok()) << releases.status().message();
  auto later = PredictLaterReleases(*set, *releases, cal->constants);
  ASSERT_TRUE(later.ok()) << later.status().message();
  ASSERT_EQ(later->rows.size(), 6u);
  ASSERT_EQ(later->not_predicted.size(), 4u);
  EXPECT_NE(later->not_predicted[3].find("later.tsv:11: column precision: \"mxfp4\""),
            std::string::npos)
      << later->not_predicted[3];
  EXPECT_NE(later->not_predicted[0].find("later.tsv:8: no model file models/no_such_model.toml"),
            std::string::npos)
      << later->not_predicted[0];
  EXPECT_NE(later->not_predicted[1].find("later.tsv:9: no specs/ or calibration entry for chip "
                                         "vr200"),
            std::string::npos)
      << later->not_predicted[1];
  EXPECT_NE(later->not_predicted[2].find("later.tsv:10: "), std::string::npos);
  EXPECT_NE(later->not_predicted[2].find("not a multiple of tp"), std::string::npos)
      << later->not_predicted[2];
  // The calibrated releases' own unpredictable rows are not among them.
  for (const SkippedRow& s : set->skipped()) {
    if (!ReleaseBefore(kNewestFittableRelease, s.release)) {
      EXPECT_EQ(s.why.find("later.tsv"), std::string::npos) << s.why;
    }
  }

  const LaterRow& same = later->rows[0];
  EXPECT_EQ(same.used, kNewestFittableRelease);
  auto k = ChooseRelease(*releases, kNewestFittableRelease, "gb200").chip;
  ASSERT_TRUE(k.has_value());
  auto direct = PredictReleaseCase(*same.c, cal->constants, *k);
  ASSERT_TRUE(direct.ok());
  EXPECT_DOUBLE_EQ(same.predicted_s, *direct);
  ASSERT_TRUE(same.anchor.has_value());
  EXPECT_EQ(same.anchor->row->row.release, kNewestFittableRelease);
  EXPECT_EQ(same.anchor->row->model_name, "llama3.1_70b");
  EXPECT_NEAR(same.anchor->anchored_s, kRowStepS, 1e-3);

  const LaterRow& doubled = later->rows[1];
  ASSERT_TRUE(doubled.anchor.has_value());
  EXPECT_EQ(doubled.anchor->row, same.anchor->row);
  EXPECT_NEAR(doubled.anchor->anchored_s,
              kRowStepS * doubled.predicted_s / same.anchor->row_predicted_s, 1e-9);

  // No 26.04.01 GB200 row of Llama 3.1 8B: anchored on the newest older release's (25.11).
  const LaterRow& small = later->rows[2];
  ASSERT_TRUE(small.anchor.has_value());
  EXPECT_EQ(small.anchor->row->row.release, "25.11");
  for (const LaterRow& r : later->rows) {
    if (!r.anchor) continue;
    EXPECT_FALSE(ReleaseBefore(kNewestFittableRelease, r.anchor->row->row.release));
  }

  // H200, which no release calibrates, takes H100's constants (calibration/step_model.toml
  // constants_from); no H200 row to anchor on.
  const LaterRow& h200 = later->rows[4];
  EXPECT_EQ(h200.used, kNewestFittableRelease);
  auto h100 = ChooseRelease(*releases, "26.06", "h100").chip;
  ASSERT_TRUE(h100.has_value());
  auto as_h100 = PredictReleaseCase(*h200.c, cal->constants, *h100);
  ASSERT_TRUE(as_h100.ok());
  EXPECT_DOUBLE_EQ(h200.predicted_s, *as_h100);
  EXPECT_FALSE(h200.anchor.has_value());

  bool found = false;
  for (const LaterCell& c : later->cells) {
    if (c.release != "26.06" || c.chip != "gb200" || c.precision != "all") continue;
    found = true;
    EXPECT_EQ(c.used, kNewestFittableRelease);
    EXPECT_EQ(c.plain.rows, 5);
    EXPECT_EQ(c.anchored.rows, 5);
  }
  EXPECT_TRUE(found);
}

// A row of a release no model-file entry is of takes the software features it leaves unstated from
// the newest entry at or before its release (26.04.01's), never from a later one (the current
// dgxc-benchmarking v26.06.01 entries come after "26.06").
TEST_F(LaterReleasesTest, UnstatedFeaturesComeFromTheNewestEarlierEntry) {
  auto cal = LoadStepCalibration(StepCalibrationPath(kData));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto set = ReleaseSet::Load(dir_.string(), *cal);
  ASSERT_TRUE(set.ok()) << set.status().message();
  const ReleaseCase* row = nullptr;
  for (const ReleaseCase& c : set->cases()) {
    if (c.row.release == "26.06" && c.model_name == "deepseek-v3_671b") row = &c;
  }
  ASSERT_NE(row, nullptr);
  const predict::Parallelism& p = row->recipe.par;
  EXPECT_EQ(p.moe_dispatcher, "deepep");
  EXPECT_EQ(p.cuda_graphs, "attn+moe_router+moe_preprocess");
  EXPECT_EQ(p.recompute, "none");  // stated by the row (Row writes "none"): the row's word wins
  EXPECT_EQ(p.etp, 1);
  EXPECT_EQ(p.ep, 64);  // the row's own layout
  EXPECT_NE(p.source.find("the entry of release 26.04.01 at 256 GPUs"), std::string::npos)
      << p.source;
  // No BF16 entry of 26.04.01 on GB200: the release's FP8 entry before an older BF16 one.
  const predict::Parallelism* bf16 = FeatureDonor(*row->model, row->row, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->release, "26.04.01");
  EXPECT_EQ(bf16->moe_dispatcher, "deepep");
  // Before every entry of the chip: no donor, the defaults.
  PublishedRow old = row->row;
  old.release = "v24.01";
  EXPECT_EQ(FeatureDonor(*row->model, old, "fp8"), nullptr);
}

TEST_F(LaterReleasesTest, ALaterReleaseIsNeverFitted) {
  auto cal = LoadStepCalibration(StepCalibrationPath(kData));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  auto set = ReleaseSet::Load(dir_.string(), *cal);
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto fitted = FitReleases(*set, *cal);
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  auto shipped = LoadReleaseCalibration(kData);
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  ASSERT_FALSE(fitted->releases.empty());
  EXPECT_EQ(fitted->releases.back().release, kNewestFittableRelease);
  const ChipConstants* f = fitted->releases.back().Chip("gb200");
  const ChipConstants* s = shipped->releases.back().Chip("gb200");
  ASSERT_TRUE(f != nullptr && s != nullptr);
  EXPECT_EQ(f->rows, s->rows);
  EXPECT_NEAR(f->moe_dispatch_passes, s->moe_dispatch_passes, 1e-3 * s->moe_dispatch_passes);
  for (const auto& [p, v] : s->gemm) EXPECT_NEAR(f->gemm.at(p), v, 1e-3 * v) << p;
}

}  // namespace
}  // namespace later_releases_test
}  // namespace ys::predict
