#include "bench/gemm/internal/gemm_determinism.h"

#include <gtest/gtest.h>

#include <cstring>

#include "bench/deterministic_data.h"
#include "testing/bench_test_util.h"

namespace ys::bench {
namespace {

void FlipBit(float& x, int bit) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u ^= 1u << bit;
  std::memcpy(&x, &u, 4);
}

TEST(GemmDeterminismTest, EqualBuffersCompareEqual) {
  std::vector<float> a(1000);
  FillDeterministic(std::span<float>(a), 3);
  std::vector<float> b = a;
  EXPECT_FALSE(FindBitMismatch(a, b).has_value());
}

TEST(GemmDeterminismTest, PlantedBitFlipIsCaughtAndLocated) {
  std::vector<float> a(1000, 1.0f);
  std::vector<float> b = a;
  FlipBit(b[17], 0);  // the lowest mantissa bit: one ulp, what a rounding difference looks like
  auto m = FindBitMismatch(a, b);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->first_index, 17u);
  EXPECT_EQ(m->expected_bits, 0x3f800000u);
  EXPECT_EQ(m->actual_bits, 0x3f800001u);
  EXPECT_EQ(m->differing_elements, 1u);
  EXPECT_EQ(DescribeBitMismatch(*m, 4),
            "element 17: expected 0x3f800000, got 0x3f800001 (1 element differs)");
  FlipBit(b[900], 31);  // a sign flip further on
  EXPECT_EQ(FindBitMismatch(a, b)->differing_elements, 2u);
  EXPECT_EQ(FindBitMismatch(a, b)->first_index, 17u);
}

TEST(GemmDeterminismTest, NegativeZeroDiffersBitwise) {
  std::vector<float> a{0.0f}, b{-0.0f};
  EXPECT_TRUE(FindBitMismatch(a, b).has_value());  // == would call them equal
}

TEST(GemmDeterminismTest, RunComparisonNamesTheCoreAndFindingCarriesEvidence) {
  std::vector<float> c(256);
  FillDeterministic(std::span<float>(c), 5);
  std::vector<GemmRunOutput> runs{{0, 0, c}, {0, 1, c}, {2, 0, c}, {2, 1, c}};
  EXPECT_TRUE(CompareGemmRuns(runs).empty());
  FlipBit(runs[3].c[100], 22);
  auto bad = CompareGemmRuns(runs);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].cpu, 2);
  EXPECT_EQ(bad[0].repeat, 1);
  EXPECT_EQ(bad[0].mismatch.first_index, 100u);
  Finding f = GemmDeterminismFinding(runs[0], bad, 16, runs.size());
  EXPECT_EQ(f.code, "YS-BENCH-010");
  EXPECT_EQ(f.severity, Severity::kFail);
  EXPECT_EQ(f.entity, "cpu2");
  std::map<std::string, std::string> ev(f.evidence.begin(), f.evidence.end());
  EXPECT_EQ(ev.at("first_mismatch"), "cpu2 repeat 1");
  EXPECT_NE(ev.at("first_element").find("element 100"), std::string::npos);
  EXPECT_FALSE(f.fix.empty());
}

TEST(GemmDeterminismTest, LiveUnitFindsIdenticalOutputs) {
  BenchOptions o;
  o.sizes = *SizeSweep::Parse("48");
  o.iters = 2;
  BenchmarkResult r = testing::RunLiveBenchmark("gemm.cpu.determinism", o);
  ASSERT_EQ(r.outcome, Outcome::kPass) << r.summary;
  const Measurement* m = testing::FindMeasurement(r, "gemm.cpu.determinism.mismatched_runs");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->value, 0);
  EXPECT_EQ(m->params.at("n"), "48");
  EXPECT_GE(std::stoi(m->params.at("runs")), 2);
  ASSERT_NE(testing::FindMeasurement(r, "gemm.cpu.determinism.gflops_per_core"), nullptr);
}

}  // namespace
}  // namespace ys::bench
