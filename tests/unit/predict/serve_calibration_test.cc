// The serving model's data file: read strictly, and the expected error each situation states.
#include "predict/serve_calibration.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "testing/text_edit.h"

namespace ys::predict {
namespace {

constexpr const char* kServeCal = R"([provenance]
source = "test"
fitted_by = "hand"

[constants]
prefill_efficiency = 0.55
decode_hbm_efficiency = 0.75
host_seconds_per_step = 1e-3
allreduce_latency_s = 1e-5
decode_seconds_per_layer = 2e-5
decode_overlap_share = 1
runtime_reserved_bytes = 2e9
kv_memory_share = 0.85
max_batch = 512

[[error]]
chip = "h100"
dtype = "fp8"
median = 0.1
p90 = 0.2
rows = 12
source = "leave-one-model-out over 12 rows"

[[error]]
chip = "b200"
dtype = "fp8"
median = 0.15
p90 = 0.4
rows = 6
source = "leave-one-model-out over 6 rows"
)";

TEST(ServeCalibrationTest, ReadsConstantsAndErrors) {
  auto cal = ParseServeCalibration(kServeCal, "s.toml");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_DOUBLE_EQ(cal->constants.prefill_efficiency, 0.55);
  EXPECT_DOUBLE_EQ(cal->constants.max_batch, 512);
  EXPECT_DOUBLE_EQ(cal->constants.runtime_reserved_bytes, 2e9);
  ASSERT_EQ(cal->errors.size(), 2u);
  EXPECT_EQ(cal->errors[1].chip, "b200");
}

TEST(ServeCalibrationTest, EachSituationStatesWhatItKnows) {
  auto cal = ParseServeCalibration(kServeCal, "s.toml");
  ASSERT_TRUE(cal.ok());
  const ServeExpectedError mine = ExpectedServeError(&*cal, "h100", "fp8");
  EXPECT_EQ(mine.situation, ServeSituation::kCalibratedChip);
  EXPECT_DOUBLE_EQ(*mine.p90, 0.2);
  EXPECT_EQ(mine.rows, 12);
  const ServeExpectedError other = ExpectedServeError(&*cal, "h200", "fp8");
  EXPECT_EQ(other.situation, ServeSituation::kUncalibrated);
  EXPECT_DOUBLE_EQ(*other.p90, 0.4);  // the widest entry
  EXPECT_NE(other.source.find("a floor of what it may miss by"), std::string::npos) << other.source;
  EXPECT_NE(other.Line().find("no published row"), std::string::npos) << other.Line();
  // GB200 carries B200's die: B200's figures, said to be borrowed; GB200 at a dtype B200 has no
  // entry of is uncalibrated.
  const ServeExpectedError sibling = ExpectedServeError(&*cal, "gb200", "fp8");
  EXPECT_EQ(sibling.situation, ServeSituation::kBorrowedChip);
  EXPECT_DOUBLE_EQ(*sibling.p90, 0.4);
  EXPECT_EQ(sibling.rows, 6);
  EXPECT_NE(sibling.source.find("measured on b200"), std::string::npos) << sibling.source;
  EXPECT_EQ(ExpectedServeError(&*cal, "gb200", "nvfp4").situation, ServeSituation::kUncalibrated);
  EXPECT_EQ(ServeSiblingChip("gb300"), "b300");
  EXPECT_EQ(ServeSiblingChip("h100"), "");
  const ServeExpectedError none = ExpectedServeError(nullptr, "h100", "fp8");
  EXPECT_EQ(none.situation, ServeSituation::kNoServingCalibration);
  EXPECT_FALSE(none.median.has_value());
  EXPECT_NE(none.Line().find("unknown"), std::string::npos);
  EXPECT_STREQ(ServeSituationName(none.situation), "no_serving_calibration");
}

// A chip's own set and the leave-one-chip-out error: b200's set serves b200 and gb200 (its die),
// [constants] every other chip, which states [other_chip] rather than the widest entry.
constexpr const char* kChipSets = R"(
[[chip]]
chip = "b200"
dtype = "fp8"
prefill_efficiency = 0.35
decode_hbm_efficiency = 0.5
host_seconds_per_step = 4e-3
allreduce_latency_s = 8e-6
decode_seconds_per_layer = 0
decode_overlap_share = 0
runtime_reserved_bytes = 0

[other_chip]
median = 0.14
p90 = 0.5
rows = 30
source = "leave-one-chip-out over 30 rows"
)";

TEST(ServeCalibrationTest, ChipSetsServeTheirChipAndItsDie) {
  auto cal = ParseServeCalibration(std::string(kServeCal) + kChipSets, "s.toml");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  ASSERT_EQ(cal->chips.size(), 1u);
  const ServeConstants fallback{};
  const ServeConstants b200 = ServeConstantsFor(&*cal, fallback, "b200", "fp8");
  EXPECT_DOUBLE_EQ(b200.prefill_efficiency, 0.35);
  EXPECT_DOUBLE_EQ(b200.decode_seconds_per_layer, 0);
  EXPECT_DOUBLE_EQ(b200.kv_memory_share, 0.85);  // stated, from [constants]
  EXPECT_DOUBLE_EQ(ServeConstantsFor(&*cal, fallback, "gb200", "fp8").prefill_efficiency, 0.35);
  EXPECT_DOUBLE_EQ(ServeConstantsFor(&*cal, fallback, "b200", "nvfp4").prefill_efficiency, 0.55);
  EXPECT_DOUBLE_EQ(ServeConstantsFor(&*cal, fallback, "h200", "fp8").decode_seconds_per_layer,
                   2e-5);
  EXPECT_DOUBLE_EQ(ServeConstantsFor(nullptr, fallback, "b200", "fp8").prefill_efficiency,
                   fallback.prefill_efficiency);
  const ServeExpectedError other = ExpectedServeError(&*cal, "h200", "fp8");
  EXPECT_EQ(other.situation, ServeSituation::kUncalibrated);
  EXPECT_DOUBLE_EQ(*other.p90, 0.5);
  EXPECT_EQ(other.rows, 30);
  EXPECT_EQ(other.source, "leave-one-chip-out over 30 rows");
  // A second set for one chip and dtype, a [[chip]] carrying a stated constant, a set short of a
  // fitted one: each refused with its place.
  const std::string sets = std::string(kServeCal) + kChipSets;
  const std::string block = std::string(kChipSets).substr(0, std::string(kChipSets).find("[other"));
  for (const auto& [text, expect] :
       {std::pair{sets + block, std::string("[[chip]] 2 chip: a second set for b200 fp8")},
        std::pair{ys::testing::Replace(sets, "decode_seconds_per_layer = 0\n",
                                       "decode_seconds_per_layer = 0\nmax_batch = 3\n"),
                  std::string("s.toml:40: [[chip]] 1 max_batch: unknown key")},
        std::pair{ys::testing::Replace(sets, "allreduce_latency_s = 8e-6\n", ""),
                  std::string("[[chip]] 1 allreduce_latency_s: missing")}}) {
    auto bad = ParseServeCalibration(text, "s.toml");
    ASSERT_FALSE(bad.ok()) << expect;
    EXPECT_NE(bad.status().message().find(expect), std::string::npos) << bad.status().message();
  }
}

// Entries per architecture: an MoE model reads its chip's MoE entry; where its chip has none, the
// wider of its chip's figures and [moe_any_chip]; a dense model never reads an MoE entry.
TEST(ServeCalibrationTest, MoeModelsStateTheErrorOfMoeRows) {
  const std::string text = std::string(kServeCal) + R"(
[[error]]
chip = "h100"
dtype = "fp8"
architecture = "moe"
median = 0.8
p90 = 1.1
rows = 5
source = "moe rows of h100"

[moe_any_chip]
median = 0.9
p90 = 1.2
rows = 13
source = "every chip's moe rows"
)";
  auto cal = ParseServeCalibration(text, "s.toml");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  const ServeExpectedError own = ExpectedServeError(&*cal, "h100", "fp8", "moe");
  EXPECT_EQ(own.situation, ServeSituation::kCalibratedChip);
  EXPECT_DOUBLE_EQ(*own.p90, 1.1);
  EXPECT_EQ(own.rows, 5);
  EXPECT_DOUBLE_EQ(*ExpectedServeError(&*cal, "h100", "fp8", "dense").p90, 0.2);
  EXPECT_DOUBLE_EQ(*ExpectedServeError(&*cal, "h100", "fp8").p90, 0.2);
  // b200 has dense rows only: its situation, [moe_any_chip]'s wider figures, and why.
  const ServeExpectedError b200 = ExpectedServeError(&*cal, "b200", "fp8", "moe");
  EXPECT_EQ(b200.situation, ServeSituation::kCalibratedChip);
  EXPECT_DOUBLE_EQ(*b200.p90, 1.2);
  EXPECT_EQ(b200.rows, 13);
  EXPECT_NE(b200.source.find("no held-out MoE row of b200 fp8"), std::string::npos) << b200.source;
  EXPECT_EQ(ExpectedServeError(&*cal, "h200", "fp8", "moe").situation,
            ServeSituation::kUncalibrated);
  // The same chip, dtype and architecture twice; an architecture not known.
  for (const auto& [from, to, expect] :
       {std::tuple{"source = \"moe rows of h100\"",
                   "source = \"moe rows of h100\"\n\n[[error]]\nchip = \"h100\"\ndtype = "
                   "\"fp8\"\narchitecture = \"moe\"\nmedian = 0.1\np90 = 0.2\nrows = 1\n"
                   "source = \"x\"",
                   "a second entry for h100 fp8 moe"},
        std::tuple{"architecture = \"moe\"", "architecture = \"hybrid\"",
                   "architecture: expected \"dense\" or \"moe\""}}) {
    auto bad = ParseServeCalibration(ys::testing::Replace(text, from, to), "s.toml");
    ASSERT_FALSE(bad.ok()) << to;
    EXPECT_NE(bad.status().message().find(expect), std::string::npos) << bad.status().message();
  }
}

TEST(ServeCalibrationTest, MalformedFilesNameFileKeyAndLine) {
  struct Bad {
    const char* from;
    const char* to;
    const char* expect;
  };
  const Bad cases[] = {
      {"max_batch = 512", "max_batch = 512\nbatch_cap = 3",
       "s.toml:15: [constants] batch_cap: unknown key"},
      {"kv_memory_share = 0.85\n", "", "[constants] kv_memory_share: missing"},
      {"prefill_efficiency = 0.55", "prefill_efficiency = 1.5",
       "s.toml:6: [constants] prefill_efficiency"},
      {"rows = 12", "rows = 12\nmean = 0.1", "s.toml:22: [[error]] 1 mean: unknown key"},
      {"p90 = 0.2", "p90 = 0.05", "p90: below median"},
      {"[provenance]", "[extra]\n[provenance]", "s.toml:1: [extra]: unknown section"},
      {"chip = \"b200\"", "chip = \"h100\"", "a second entry for h100 fp8"},
  };
  for (const Bad& c : cases) {
    auto cal = ParseServeCalibration(ys::testing::Replace(kServeCal, c.from, c.to), "s.toml");
    ASSERT_FALSE(cal.ok()) << c.to;
    EXPECT_EQ(cal.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(cal.status().message().find(c.expect), std::string::npos)
        << "got: " << cal.status().message() << "\nwanted: " << c.expect;
  }
}

TEST(ServeCalibrationTest, TheShippedFileLoads) {
  auto cal = LoadServeCalibration(ServeCalibrationPath(YS_SOURCE_DIR));
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_GT(cal->constants.decode_hbm_efficiency, 0);
  for (const ServeErrorEntry& e : cal->errors) EXPECT_FALSE(e.source.empty()) << e.chip;
}

}  // namespace
}  // namespace ys::predict
