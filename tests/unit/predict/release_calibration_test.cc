// The release as an input of `yardstick predict`: the published tables of baselines/published/
// read strictly; per-release constants fitted from one release's rows, stored in
// calibration/releases.toml and chosen by --release (the nearest older calibrated release for an
// unknown one); the leave-one-model-out errors of every calibrated release per chip; anchored
// answers that do not depend on the scale of the efficiencies.
#include "predict/release_calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <set>

#include "predict/anchor.h"
#include "predict/published_table.h"
#include "predict/release_cases.h"
#include "predict/release_choice.h"
#include "predict/step_calibration.h"

namespace ys::predict {
namespace {

const std::string kData = YS_SOURCE_DIR;
// The leave-one-model-out errors per calibrated release and chip are held to the figures the
// per-release constants reach today, NOT to the target of a 5% median and a 12% 90th percentile:
// the worst cells (Blackwell releases of NeMo 25.09-26.04.01 at up to 40% median, p90 up to 67%;
// B300 of 26.02 and 26.04.01 worst) miss it by what the step model does not describe: GPT-OSS
// 120B and Nemotron 3 Super run slower than predicted on every chip (Super 5-55%), Qwen3 on
// B200/B300 30-43% faster; no release constant may absorb that.
// The Megatron-FSDP Llama 3.1 405B rows on 128 GB200 (+571% and +393% while the data-parallel
// ring was charged one NIC per GPU) are within 10% since it runs at its members' NICs together.
// The count of cells within the target may not fall either: 2 since the tables' recompute modules
// are priced (Nemotron 3 Nano's H100 recipe recomputes its MoE blocks, +27 points on its rows,
// which moves the pooled H100 prior that v25.05.05's DeepSeek-V3 rows are predicted from: p90
// 11.1% -> 12.4%).
constexpr double kLomoMedianReached = 0.40;
constexpr double kLomoP90Reached = 0.67;
constexpr double kLomoMedianTarget = 0.05;
constexpr double kLomoP90Target = 0.12;
constexpr int kCellsWithinTargetReached = 2;

const StepCalibration& Base() {
  static const StepCalibration cal = [] {
    auto c = LoadStepCalibration(StepCalibrationPath(kData));
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : StepCalibration{};
  }();
  return cal;
}

const ReleaseSet& Rows() {
  static const ReleaseSet set = [] {
    auto s = ReleaseSet::Load(kData, Base());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : ReleaseSet{};
  }();
  return set;
}

constexpr const char* kHeader =
    "release\tchip\tmodel\tprecision\tgpus\tgbs\tmbs\tseq\ttp\tpp\tcp\tvp\tep\tetp\tfsdp\t"
    "dispatcher\ttoken_drop\ta2a_overlap\trecompute\tstep_time_s\tanomaly\tsource\n";

TEST(PublishedTableTest, ReadsRowsAndTheirRecipeFields) {
  auto rows = ParsePublishedTable(
      std::string("# comment\n") + kHeader +
          "26.04.01\tgb200\tqwen3_30b_a3b\tmxfp8\t8\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\thybridep\t"
          "off\ton\tmoe_act\t1.5\t-\tsrc\n",
      "t.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const PublishedRow& r = rows->front();
  EXPECT_EQ(r.line, 3);
  EXPECT_EQ(r.precision, "mxfp8");
  EXPECT_EQ(r.dispatcher, "hybridep");
  EXPECT_FALSE(r.vp.has_value());
  EXPECT_EQ(*r.ep, 8);
  EXPECT_TRUE(*r.a2a_overlap);
  EXPECT_FALSE(*r.token_drop);
  EXPECT_DOUBLE_EQ(r.step_time_s, 1.5);
  EXPECT_FALSE(r.anomaly);
  EXPECT_EQ(DtypeOfPrecision("mxfp8"), "fp8");
  EXPECT_EQ(CalibratedPrecision("fp8"), "fp8_cs");
}

TEST(PublishedTableTest, BadInputNamesTheLineAndColumn) {
  const std::string row =
      "26.04.01\tgb200\tm\tmxfp8\teight\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\t-\t-\t-\t-\t1.5\t-"
      "\ts\n";
  auto bad = ParsePublishedTable(std::string(kHeader) + row, "t.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.tsv:2: column gpus: \"eight\""), std::string::npos)
      << bad.status().message();
  auto short_line = ParsePublishedTable(std::string(kHeader) + "26.04.01\tgb200\n", "t.tsv");
  ASSERT_FALSE(short_line.ok());
  EXPECT_NE(short_line.status().message().find("t.tsv:2: 2 fields"), std::string::npos);
  // A header with an empty or a repeated column name is refused (a row shorter than such a header
  // was once read past its end: fuzz finding).
  auto empty_name = ParsePublishedTable(std::string("\t") + kHeader + "x\n", "t.tsv");
  ASSERT_FALSE(empty_name.ok());
  EXPECT_NE(empty_name.status().message().find("t.tsv:1: column 1: empty name"), std::string::npos)
      << empty_name.status().message();
  auto twice = ParsePublishedTable(std::string("model\t") + kHeader + "x\n", "t.tsv");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("\"model\" named twice"), std::string::npos)
      << twice.status().message();
  auto no_col = ParsePublishedTable("release\tchip\n", "t.tsv");
  ASSERT_FALSE(no_col.ok());
  EXPECT_NE(no_col.status().message().find("no column model"), std::string::npos);
}

// A well-formed value the step model does not know (a later release's precision or dispatcher)
// reads, with the row marked unsupported: the first such column named, the rest of the row read.
TEST(PublishedTableTest, AnUnknownVocabularyMarksTheRowUnsupported) {
  auto table = [](const std::string& precision, const std::string& dispatcher) {
    return ParsePublishedTable(std::string(kHeader) + "26.08\tgb200\tm\t" + precision +
                                   "\t8\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\t" + dispatcher +
                                   "\t-\t-\t-\t1.5\t-\ts\n",
                               "t.tsv");
  };
  auto fp4 = table("mxfp4", "flex");
  ASSERT_TRUE(fp4.ok()) << fp4.status().message();
  EXPECT_EQ(fp4->front().unsupported,
            "column precision: \"mxfp4\" (the step model knows bf16, fp8, fp8_cs, fp8_ds, mxfp8 or "
            "nvfp4)");
  EXPECT_EQ(fp4->front().gpus, 8);
  auto flex = table("mxfp8", "flex");
  ASSERT_TRUE(flex.ok()) << flex.status().message();
  EXPECT_NE(flex->front().unsupported.find("column dispatcher: \"flex\""), std::string::npos)
      << flex->front().unsupported;
  auto known = table("mxfp8", "hybridep");
  ASSERT_TRUE(known.ok());
  EXPECT_EQ(known->front().unsupported, "");
  // Names as a table prints them read as the step model spells them.
  auto printed = table("MXFP8", "HybridEP");
  ASSERT_TRUE(printed.ok());
  EXPECT_EQ(printed->front().unsupported, "");
  EXPECT_EQ(printed->front().precision, "mxfp8");
  EXPECT_EQ(printed->front().dispatcher, "hybridep");
  auto chip =
      ParsePublishedTable(std::string(kHeader) +
                              "26.08\tGB200\tLlama3.1_70B\tbf16\t8\t512\t4\t4096\t1\t1\t1\t-"
                              "\t8\t1\t0\t-\t-\t-\t-\t1.5\t-\ts\n",
                          "t.tsv");
  ASSERT_TRUE(chip.ok());
  EXPECT_EQ(chip->front().chip, "gb200");
  EXPECT_EQ(chip->front().model, "llama3.1_70b");
}

// The mtp column: on (one multi-token-prediction module), off, or a count; anything else names
// the line and the column.
TEST(PublishedTableTest, TheMtpColumnIsOnOffOrACount) {
  const std::string header = std::string(kHeader).insert(std::string(kHeader).size() - 1, "\tmtp");
  const std::string row =
      "26.04.01\tgb200\tm\tmxfp8\t8\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\t-\t-\t-\t-\t1.5\t-\ts\t";
  for (auto [cell, want] : {std::pair{"on", 1}, {"off", 0}, {"2", 2}}) {
    auto rows = ParsePublishedTable(header + row + cell + "\n", "t.tsv");
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    ASSERT_TRUE(rows->front().mtp_layers.has_value()) << cell;
    EXPECT_EQ(*rows->front().mtp_layers, want) << cell;
  }
  auto unstated = ParsePublishedTable(header + row + "-\n", "t.tsv");
  ASSERT_TRUE(unstated.ok());
  EXPECT_FALSE(unstated->front().mtp_layers.has_value());
  auto bad = ParsePublishedTable(header + row + "yes\n", "t.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.tsv:2: column mtp: \"yes\""), std::string::npos)
      << bad.status().message();
}

// The cuda_graphs column in the step model's words: off -> none, local:full_iteration ->
// full_iteration, transformer_engine:<scopes> -> the scopes; an unknown scope names the column.
TEST(PublishedTableTest, TheCudaGraphsColumnGivesTheCapturedScopes) {
  const std::string header =
      std::string(kHeader).insert(std::string(kHeader).size() - 1, "\tcuda_graphs");
  const std::string row =
      "26.04.01\tgb200\tm\tmxfp8\t8\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\t-\t-\t-\t-\t1.5\t-\ts\t";
  for (auto [cell, want] : {std::pair{"off", "none"},
                            {"local:full_iteration", "full_iteration"},
                            {"transformer_engine:attn+moe_router", "attn+moe_router"},
                            {"-", ""}}) {
    auto rows = ParsePublishedTable(header + row + cell + "\n", "t.tsv");
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ(rows->front().cuda_graphs, want) << cell;
  }
  for (const char* cell : {"transformer_engine:attn++moe", "transformer_engine:", "yes"}) {
    auto bad = ParsePublishedTable(header + row + cell + "\n", "t.tsv");
    ASSERT_FALSE(bad.ok()) << cell;
    EXPECT_NE(bad.status().message().find("t.tsv:2: column cuda_graphs"), std::string::npos)
        << bad.status().message();
  }
  // A scope the step model does not know: the row reads, unsupported.
  auto unknown = ParsePublishedTable(header + row + "transformer_engine:attn+bogus\n", "t.tsv");
  ASSERT_TRUE(unknown.ok()) << unknown.status().message();
  EXPECT_NE(unknown->front().unsupported.find("column cuda_graphs: "), std::string::npos)
      << unknown->front().unsupported;
}

// The recompute column: Megatron's recompute_modules joined by + are kept as they are, layers=N
// (full recompute of N layers) too; an unknown module names the line and the column.
TEST(PublishedTableTest, TheRecomputeColumnKeepsTheModules) {
  auto table = [](const std::string& cell) {
    return ParsePublishedTable(
        std::string(kHeader) +
            "26.04.01\tgb200\tm\tmxfp8\t8\t512\t4\t4096\t1\t1\t1\t-\t8\t1\t0\t-"
            "\t-\t-\t" +
            cell + "\t1.5\t-\ts\n",
        "t.tsv");
  };
  for (auto [cell, want] :
       {std::pair{"moe+layernorm+core_attn+moe_act", "moe+layernorm+core_attn+moe_act"},
        {"layers=5", "layers=5"},
        {"none", "none"},
        {"-", ""}}) {
    auto rows = table(cell);
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    EXPECT_EQ(rows->front().recompute, want) << cell;
  }
  EXPECT_TRUE(table("-,layers=5").ok());
  for (const char* cell : {"layers=many", "layers=0", "moe,", "moe++mlp", "Moe"}) {
    auto bad = table(cell);
    ASSERT_FALSE(bad.ok()) << cell;
    EXPECT_NE(
        bad.status().message().find("t.tsv:2: column recompute: \"" + std::string(cell) + "\""),
        std::string::npos)
        << bad.status().message();
  }
  // A module the step model does not know: the row reads, unsupported.
  auto unknown = table("moe+attention");
  ASSERT_TRUE(unknown.ok()) << unknown.status().message();
  EXPECT_NE(unknown->front().unsupported.find("column recompute: \"moe+attention\""),
            std::string::npos)
      << unknown->front().unsupported;
  EXPECT_EQ(table("moe").value().front().unsupported, "");
}

TEST(ReleasePredictTest, ReleasesAreOrderedByTheirNumbers) {
  EXPECT_TRUE(ReleaseBefore("v25.05.05", "25.09"));
  EXPECT_TRUE(ReleaseBefore("26.04", "26.04.01"));
  EXPECT_FALSE(ReleaseBefore("26.04.01", "26.02.01"));
  EXPECT_TRUE(ReleaseBefore(kNewestFittableRelease, "26.06"));
  // Two tags of the same numbers (NeMo and dgxc-benchmarking) are ordered by their text, so that
  // no tag is before or after itself and the order is total.
  EXPECT_TRUE(ReleaseBefore("26.02.01", "v26.02.01"));
  EXPECT_FALSE(ReleaseBefore("v26.02.01", "26.02.01"));
  EXPECT_FALSE(ReleaseBefore("26.02.01", "26.02.01"));
}

ReleaseCalibration TwoReleases() {
  auto cal = ParseReleaseCalibration(
      "[provenance]\nfitted_by = \"x\"\ntables = \"t\"\nprior_rows = 1\nmin_models = 3\n"
      "[release.\"26.04.01\".gb200]\nrows = 5\nmodels = 3\nfitted_from = \"mxfp8 5\"\n"
      "gemm_bf16 = 0.5\ngemm_mxfp8 = 0.4\ntp_exposed = 0.3\nmoe_dispatch_passes = 20\n"
      "lomo_rows = 5\nlomo_median = 0.12\nlomo_p90 = 0.3\nnext_rows = 5\nnext_median = 0.2\n"
      "next_p90 = 0.4\nanchored_rows = 4\nanchored_median = 0.01\nanchored_p90 = 0.05\n"
      "[release.\"25.09\".gb200]\nrows = 5\nmodels = 3\nfitted_from = \"mxfp8 5\"\n"
      "gemm_bf16 = 0.6\ngemm_mxfp8 = 0.45\ntp_exposed = 0.4\nmoe_dispatch_passes = 30\n",
      "r.toml");
  EXPECT_TRUE(cal.ok()) << cal.status().message();
  return cal.ok() ? *cal : ReleaseCalibration{};
}

TEST(ReleasePredictTest, AnUnknownReleaseUsesTheNearestOlderAndSaysSo) {
  const ReleaseCalibration cal = TwoReleases();
  ASSERT_EQ(cal.releases.size(), 2u);
  EXPECT_EQ(cal.releases.front().release, "25.09");  // oldest first, whatever the file's order
  ReleaseChoice newest = ChooseRelease(cal, "", "gb200");
  EXPECT_EQ(newest.used, "26.04.01");
  EXPECT_TRUE(newest.note.empty());
  ReleaseChoice between = ChooseRelease(cal, "26.02", "gb200");
  EXPECT_EQ(between.used, "25.09");
  EXPECT_NE(between.note.find("nearest older one, 25.09"), std::string::npos) << between.note;
  ReleaseChoice later = ChooseRelease(cal, "26.06", "gb200");
  EXPECT_EQ(later.used, "26.04.01");
  ReleaseChoice older = ChooseRelease(cal, "25.02", "gb200");
  EXPECT_EQ(older.used, "25.09");
  EXPECT_NE(older.note.find("older than every"), std::string::npos);
  ReleaseChoice none = ChooseRelease(cal, "", "h200");
  EXPECT_FALSE(none.chip.has_value());
  // A chip no release calibrates, with a sibling of the same die: the sibling's choice, said.
  ReleaseChoice sibling = ChooseRelease(cal, "26.02", "b300", "gb200");
  ASSERT_TRUE(sibling.chip.has_value());
  EXPECT_EQ(sibling.chip->chip, "gb200");
  EXPECT_EQ(sibling.used, "25.09");
  EXPECT_EQ(sibling.from, "gb200");
  EXPECT_NE(sibling.note.find("b300 takes gb200's constants"), std::string::npos) << sibling.note;
  EXPECT_NE(sibling.note.find("nearest older one, 25.09"), std::string::npos) << sibling.note;
  // A chip a release calibrates keeps its own, whatever its sibling.
  EXPECT_EQ(ChooseRelease(cal, "", "gb200", "h100").from, "");
  Constants k = ApplyRelease(Base().constants, *newest.chip, "mxfp8", true);
  EXPECT_DOUBLE_EQ(k.gemm_efficiency_fp8, 0.4);
  EXPECT_DOUBLE_EQ(k.blackwell_efficiency, 1);
  EXPECT_DOUBLE_EQ(k.tp_exposed, 0.3);
}

TEST(ReleasePredictTest, TheCalibrationFileIsReadStrictly) {
  auto bad = ParseReleaseCalibration(
      "[provenance]\nfitted_by = \"x\"\ntables = \"t\"\nprior_rows = 1\nmin_models = 3\n"
      "[release.\"26.04.01\".gb200]\nrows = 5\nmodels = 3\nfitted_from = \"\"\n"
      "gemm_bf16 = 1.5\ntp_exposed = 0.3\nmoe_dispatch_passes = 20\n",
      "r.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gemm_bf16"), std::string::npos) << bad.status().message();
  auto round = ParseReleaseCalibration(ReleaseCalibrationToml(TwoReleases()), "again.toml");
  ASSERT_TRUE(round.ok()) << round.status().message();
  const ChipConstants& k = round->releases.back().chips.front();
  EXPECT_DOUBLE_EQ(k.gemm.at("mxfp8"), 0.4);
  EXPECT_EQ(k.lomo.rows, 5);
  EXPECT_DOUBLE_EQ(k.lomo.p90_abs, 0.3);
  EXPECT_DOUBLE_EQ(k.next.median_abs, 0.2);
  EXPECT_EQ(k.anchored.rows, 4);
  EXPECT_DOUBLE_EQ(k.anchored.median_abs, 0.01);
  EXPECT_EQ(round->releases.front().chips.front().lomo.rows, 0);  // not measured: no keys
  auto half = ParseReleaseCalibration(
      "[provenance]\nfitted_by = \"x\"\ntables = \"t\"\nprior_rows = 1\nmin_models = 3\n"
      "[release.\"26.04.01\".gb200]\nrows = 5\nmodels = 3\nfitted_from = \"\"\n"
      "gemm_bf16 = 0.5\ntp_exposed = 0.3\nmoe_dispatch_passes = 20\nlomo_rows = 5\n",
      "r.toml");
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.status().message().find("lomo_median"), std::string::npos)
      << half.status().message();
}

// What `predict` says an answer can expect, by situation: the leave-one-model-out error about
// the calibrated release itself, the next-release error (plain or anchored, widened to the
// release-to-release spread where one is known) about a later one, and too little evidence where
// nothing was measured.
TEST(ReleasePredictTest, TheExpectedErrorNamesWhatWasMeasured) {
  const ReleaseCalibration cal = TwoReleases();
  predict::ReleaseConstantsChoice same{ChooseRelease(cal, "26.04.01", "gb200"), {}};
  EXPECT_DOUBLE_EQ(same.Expected({}).stats.median_abs, 0.12);
  EXPECT_EQ(same.Expected({}).situation, Situation::kCalibratedRelease);
  EXPECT_NE(same.ExpectedLine({}).find("(calibrated_release): median 12.0%, 90th percentile "
                                       "30.0% (leave-one-model-out over the 5 rows of release "
                                       "26.04.01 on gb200"),
            std::string::npos)
      << same.ExpectedLine({});
  EXPECT_DOUBLE_EQ(same.Expected({.anchored = true}).stats.p90_abs, 0.05);
  predict::ReleaseConstantsChoice later{ChooseRelease(cal, "26.06", "gb200"), {}};
  EXPECT_DOUBLE_EQ(later.Expected({}).stats.median_abs, 0.2);
  EXPECT_EQ(later.Expected({}).situation, Situation::kNewerRelease);
  EXPECT_NE(later.ExpectedLine({}).find("predicted from the previous calibrated release"),
            std::string::npos)
      << later.ExpectedLine({});
  // With the spread of the published tables known, a later release's anchored answer states it
  // added to the calibrated pairs' figure (anchored: median 1%, p90 5%).
  later.spread = ReleaseSpread{};
  later.spread->pooled = {.rows = 40, .median_abs = 0.15, .p90_abs = 0.33};
  const ExpectedError wide = later.Expected({.anchored = true});
  EXPECT_DOUBLE_EQ(wide.stats.median_abs, 0.16);
  EXPECT_DOUBLE_EQ(wide.stats.p90_abs, 0.38);
  EXPECT_NE(wide.measured.find("between any two releases"), std::string::npos) << wide.measured;
  predict::ReleaseConstantsChoice old{ChooseRelease(cal, "25.09", "gb200"), {}};
  EXPECT_EQ(old.Expected({}).stats.rows, 0);
  EXPECT_NE(old.ExpectedLine({}).find("too little evidence (not measured (leave-one-model-out "),
            std::string::npos)
      << old.ExpectedLine({});
  EXPECT_EQ(same.Expected({.model_has_rows = false}).situation, Situation::kModelNotFitted);
  // An anchor of another precision is said to be one; an anchor of an older release than the one
  // asked puts the answer across releases.
  ReleaseCase row;
  row.precision = "mxfp8";
  row.row.release = "26.04.01";
  Anchor anchor;
  anchor.row = &row;
  const ExpectedQuery own{.anchored = true, .anchor = &anchor, .precision = "mxfp8"};
  EXPECT_EQ(same.ExpectedLine(own).find("another precision"), std::string::npos);
  ExpectedQuery other = own;
  other.precision = "bf16";
  EXPECT_NE(same.ExpectedLine(other).find("another precision (mxfp8)"), std::string::npos);
  row.row.release = "25.09";
  EXPECT_EQ(same.Expected(own).situation, Situation::kNewerRelease);
  predict::ReleaseConstantsChoice none{ChooseRelease(cal, "", "h200"), {}};
  EXPECT_EQ(none.Expected({.anchored = true}).situation, Situation::kUncalibrated);
  EXPECT_NE(none.ExpectedLine({.anchored = true})
                .find("too little evidence (no release is calibrated for h200"),
            std::string::npos)
      << none.ExpectedLine({.anchored = true});
  // Constants of a sibling chip: its measured errors, said to be the sibling's.
  predict::ReleaseConstantsChoice sibling{ChooseRelease(cal, "", "b300", "gb200"), {}};
  ASSERT_TRUE(sibling.choice.chip.has_value());
  EXPECT_EQ(sibling.Expected({}).situation, Situation::kBorrowedChip);
  EXPECT_NE(sibling.ExpectedLine({}).find("release 26.04.01 on gb200, measured on gb200, not on "
                                          "this chip"),
            std::string::npos)
      << sibling.ExpectedLine({});
}

// A constant fitted on one model's rows would be keyed to that model: every B300 NVFP4 row of
// the tables is Nemotron 3 Super's, so neither a release nor the pooled fit moves B300's NVFP4
// share from the base calibration's (its NVFP4 efficiency times the Blackwell factor), and the
// file says so.
TEST(ReleaseFitTest, AConstantOfOneModelsRowsKeepsThePrior) {
  auto fitted = FitReleases(Rows(), Base());
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  const double prior =
      Base().constants.gemm_efficiency_nvfp4 * Base().constants.blackwell_efficiency;
  int seen = 0;
  for (const ReleaseConstants& r : fitted->releases) {
    const ChipConstants* b300 = r.Chip("b300");
    if (b300 == nullptr || b300->fitted_from.find("nvfp4") == std::string::npos) continue;
    ++seen;
    EXPECT_NE(b300->fitted_from.find("nvfp4 1 (one model: prior kept)"), std::string::npos)
        << r.release << ": " << b300->fitted_from;
    EXPECT_NEAR(b300->gemm.at("nvfp4"), prior, 1e-9) << r.release;
  }
  EXPECT_GE(seen, 2);
}

TEST(ReleaseFitTest, ShippedReleaseConstantsAreWhatTheFitGives) {
  auto shipped = LoadReleaseCalibration(kData);
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  auto fitted = FitReleases(Rows(), Base());
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  ASSERT_EQ(shipped->releases.size(), fitted->releases.size());
  for (size_t i = 0; i < fitted->releases.size(); ++i) {
    const ReleaseConstants& f = fitted->releases[i];
    EXPECT_EQ(shipped->releases[i].release, f.release);
    EXPECT_FALSE(ReleaseBefore(kNewestFittableRelease, f.release)) << f.release;
    for (const ChipConstants& k : f.chips) {
      const ChipConstants* s = shipped->releases[i].Chip(k.chip);
      ASSERT_NE(s, nullptr) << f.release << " " << k.chip;
      EXPECT_EQ(s->rows, k.rows);
      for (const auto& [p, v] : k.gemm) EXPECT_NEAR(s->gemm.at(p), v, 1e-3 * v) << p;
      EXPECT_NEAR(s->tp_exposed, k.tp_exposed, 1e-3 * k.tp_exposed);
    }
  }
}

// The error figures calibration/releases.toml stores for a release and chip are the measured ones.
void ExpectStored(const ReleaseCalibration& shipped, const std::string& release,
                  const std::string& chip, const std::string& which,
                  const predict::ErrorStats& measured) {
  const ChipConstants* k = nullptr;
  for (const ReleaseConstants& r : shipped.releases) {
    if (r.release == release) k = r.Chip(chip);
  }
  ASSERT_NE(k, nullptr) << release << " " << chip;
  const predict::ErrorStats& s = which == "lomo"   ? k->lomo
                                 : which == "next" ? k->next
                                                   : k->anchored;
  EXPECT_EQ(s.rows, measured.rows) << release << " " << chip << " " << which;
  EXPECT_NEAR(s.median_abs, measured.median_abs, 1e-4) << release << " " << chip << " " << which;
  EXPECT_NEAR(s.p90_abs, measured.p90_abs, 1e-4) << release << " " << chip << " " << which;
}

// The gate of the per-release calibration: for every calibrated release and chip, the
// leave-one-model-out median |error| and 90th percentile over its rows.
TEST(ReleaseFitTest, LeaveOneModelOutErrorsStayAtTheReachedFiguresNotYetTheTarget) {
  auto cells = LeaveOneModelOutByRelease(Rows(), Base());
  ASSERT_TRUE(cells.ok()) << cells.status().message();
  auto shipped = LoadReleaseCalibration(kData);
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  int checked = 0, within = 0;
  for (const LomoCell& c : *cells) {
    // calibration/releases.toml states what predict expects: these figures.
    if (c.precision == "all") ExpectStored(*shipped, c.release, c.chip, "lomo", c.stats);
    std::cout << c.release << " " << c.chip << " " << c.precision << " rows " << c.stats.rows
              << " median " << 100 * c.stats.median_abs << "% p90 " << 100 * c.stats.p90_abs
              << "%\n";
    if (c.precision != "all") continue;
    ++checked;
    within += c.stats.median_abs <= kLomoMedianTarget && c.stats.p90_abs <= kLomoP90Target;
    EXPECT_LE(c.stats.median_abs, kLomoMedianReached) << c.release << " " << c.chip;
    EXPECT_LE(c.stats.p90_abs, kLomoP90Reached) << c.release << " " << c.chip;
  }
  EXPECT_GE(checked, 20);
  EXPECT_GE(within, kCellsWithinTargetReached);
}

// What an operator gets for a release newer than the calibration: each calibrated release's rows
// predicted with the constants of the release before it (fitted on that one and older ones only).
// Held to the figures reached today (worst cells: B300, 26.04 from 26.02.01, p90 58%; B300,
// 26.02.01 from 26.02 and 26.04.01 from 26.04, median 30%), not to the 8% / 20% for a
// release nobody fitted,
// which tables kept out of this repository measure.
constexpr double kForwardMedianReached = 0.31;
constexpr double kForwardP90Reached = 0.60;
TEST(ReleaseFitTest, TheNextReleaseFromThePreviousConstantsStaysAtTheReachedFigures) {
  auto cells = NextReleaseForward(Rows(), Base());
  ASSERT_TRUE(cells.ok()) << cells.status().message();
  auto shipped = LoadReleaseCalibration(kData);
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  int checked = 0;
  for (const ForwardCell& c : *cells) {
    // Never a newer release's constants, nor the release's own.
    EXPECT_TRUE(ReleaseBefore(c.from, c.release)) << c.from << " -> " << c.release;
    if (c.precision != "all") continue;
    ExpectStored(*shipped, c.release, c.chip, "next", c.stats);
    ExpectStored(*shipped, c.release, c.chip, "anchored", c.anchored);
    ++checked;
    std::cout << c.release << " from " << c.from << " " << c.chip << " rows " << c.stats.rows
              << " median " << 100 * c.stats.median_abs << "% p90 " << 100 * c.stats.p90_abs
              << "%\n";
    EXPECT_LE(c.stats.median_abs, kForwardMedianReached) << c.release << " " << c.chip;
    EXPECT_LE(c.stats.p90_abs, kForwardP90Reached) << c.release << " " << c.chip;
    EXPECT_LE(c.anchored.rows, c.stats.rows);
    // Anchored on 26.04's row of the same model and chip (recipes that barely changed), 26.04.01
    // is within 5% median on every chip (0.9-4.1% today; plain 5.5-29.4%).
    if (c.release == "26.04.01" && c.anchored.rows > 0) {
      EXPECT_LE(c.anchored.median_abs, kLomoMedianTarget) << c.chip;
    }
  }
  EXPECT_GE(checked, 20);
}

// The anchored answer is the published step time scaled by a ratio of two predictions: scaling
// every rate the model uses by the same factor (each efficiency by s, each fixed time and byte
// count per unit of work by 1/s) scales both predictions alike and leaves it unchanged, while the
// unanchored answer moves by 1/s.
TEST(AnchoredPredictTest, TheAnchoredAnswerDoesNotDependOnTheEfficiencies) {
  const ReleaseCase* row = nullptr;
  for (const ReleaseCase& c : Rows().cases()) {
    if (c.row.release == "26.04.01" && c.row.chip == "gb200" && c.model_name == "llama3.1_70b")
      row = &c;
  }
  ASSERT_NE(row, nullptr);
  Recipe query = row->recipe;
  query.par.gpus *= 2;
  query.par.global_batch *= 2;
  auto answer = [&](double s) -> std::pair<double, double> {
    const Constants base = Base().constants;
    ChipConstants k = *ChooseRelease(*LoadReleaseCalibration(kData), "", "gb200").chip;
    Constants scaled = base;
    for (double* e : {&scaled.attention_efficiency, &scaled.nvlink_busbw_efficiency,
                      &scaled.network_busbw_efficiency})
      *e *= s;
    for (double* t : {&scaled.alltoall_seconds_per_peer, &scaled.host_seconds_per_op,
                      &scaled.elementwise_passes, &scaled.optimizer_bytes_per_param})
      *t /= s;
    for (auto& [p, v] : k.gemm) v *= s;
    k.moe_dispatch_passes /= s;
    const Constants applied = ApplyRelease(scaled, k, row->precision, row->blackwell);
    SystemRates rates = row->rates;
    for (auto& [coll, bw] : rates.nvlink_busbw) bw *= s;
    for (auto& [coll, bw] : rates.network_busbw) bw *= s;
    auto p = PredictStep(query, rates, applied);
    EXPECT_TRUE(p.ok());
    // The row's own prediction under the same scaled rates.
    ReleaseCase scaled_row = *row;
    scaled_row.rates = rates;
    auto row_p = PredictReleaseCase(scaled_row, scaled, k);
    EXPECT_TRUE(row_p.ok());
    return {p->step_time_s, row->row.step_time_s * p->step_time_s / *row_p};
  };
  const auto [plain1, anchored1] = answer(1.0);
  const auto [plain2, anchored2] = answer(0.8);
  EXPECT_NEAR(plain2, plain1 / 0.8, 1e-9 * plain1);
  EXPECT_NEAR(anchored2, anchored1, 1e-9 * anchored1);
  auto a = AnchorPrediction(Rows(), "26.04.01", row->row.precision, query, plain1, Base().constants,
                            *ChooseRelease(*LoadReleaseCalibration(kData), "", "gb200").chip);
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->row->model_name, "llama3.1_70b");
  EXPECT_EQ((*a)->row->row.precision, row->row.precision);
}

// The anchor row comes from the release whose constants apply or, where it has no row of the
// model on the chip, from the newest older release that has one; never from a later release. Llama
// 3.1 8B's GB200 rows are of NeMo 25.09 and 25.11 only.
TEST(AnchoredPredictTest, WithoutARowInTheReleaseTheNewestOlderReleaseAnchors) {
  const ReleaseCase* row = nullptr;
  for (const ReleaseCase& c : Rows().cases()) {
    if (c.model_name == "llama3.1_8b" && c.row.chip == "gb200" && c.row.release == "25.09")
      row = &c;
  }
  ASSERT_NE(row, nullptr);
  const ChipConstants k = *ChooseRelease(*LoadReleaseCalibration(kData), "", "gb200").chip;
  auto at = [&](const std::string& release) {
    auto a =
        AnchorPrediction(Rows(), release, row->precision, row->recipe, 1.0, Base().constants, k);
    EXPECT_TRUE(a.ok()) << a.status().message();
    return a.ok() ? *a : std::optional<Anchor>();
  };
  const std::optional<Anchor> newest = at("26.04.01");
  ASSERT_TRUE(newest.has_value());
  EXPECT_EQ(newest->row->row.release, "25.11");
  EXPECT_NE(newest->Describe().find("release 26.04.01 has no row of the model on the chip"),
            std::string::npos)
      << newest->Describe();
  const std::optional<Anchor> own = at("25.09");
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->row->row.release, "25.09");
  EXPECT_EQ(own->Describe().find("has no row"), std::string::npos) << own->Describe();
  EXPECT_FALSE(at("v25.05.05").has_value());  // no row of the model on GB200 before 25.09
}

}  // namespace
}  // namespace ys::predict
