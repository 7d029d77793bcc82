#include "fleet/fleet.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace ys::fleet {
namespace {

Measurement Figure(std::string name, double value, std::map<std::string, std::string> params = {},
                   Better better = Better::kHigher, std::string unit = "GB/s") {
  Measurement m;
  m.name = std::move(name);
  m.value = value;
  m.unit = std::move(unit);
  m.better = better;
  m.params = std::move(params);
  return m;
}

double ExactMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ExactMad(const std::vector<double>& v) {
  double m = ExactMedian(v);
  std::vector<double> d;
  for (double x : v) d.push_back(std::fabs(x - m));
  return ExactMedian(d);
}

KeyStats StatsOf(const std::vector<double>& values, Better better = Better::kHigher,
                 FleetOptions o = {}) {
  FleetAccumulator acc(o);
  for (double x : values) acc.Add(Figure("f", x, {}, better));
  auto stats = acc.Finalize();
  EXPECT_EQ(stats.size(), 1u);
  return stats.begin()->second;
}

TEST(FleetKeyTest, EntityParamsStayOutOfTheKey) {
  Measurement a = Figure("gemm.gpu.tflops", 740,
                         {{"dtype", "bf16"}, {"device", "gpu3"}, {"pct_of_peak", "74.8"}});
  Measurement b = Figure("gemm.gpu.tflops", 700,
                         {{"dtype", "bf16"}, {"device", "gpu5"}, {"pct_of_peak", "70.7"}});
  Measurement c = Figure("gemm.gpu.tflops", 1400, {{"dtype", "fp8"}, {"device", "gpu3"}});
  EXPECT_EQ(ComparisonKey(a), ComparisonKey(b));
  EXPECT_NE(ComparisonKey(a), ComparisonKey(c));
  EXPECT_EQ(ComparisonKey(a), "gemm.gpu.tflops [GB/s] dtype=bf16");
  EXPECT_NE(ComparisonKey(a), ComparisonKey(Figure("gemm.gpu.tflops", 1, {{"dtype", "bf16"}},
                                                   Better::kHigher, "TFLOPS")));
  EXPECT_EQ(KeyParams(a), (std::map<std::string, std::string>{{"dtype", "bf16"}}));
}

TEST(FleetKeyTest, EntitiesAreNamedByDeviceGpuNicOrRank) {
  auto entity = [](std::map<std::string, std::string> p) {
    return EntityOf(Figure("x", 1, std::move(p)));
  };
  EXPECT_EQ(entity({{"device", "gpu3"}}).kind, EntityKind::kGpu);
  EXPECT_EQ(entity({{"gpu", "3"}}).label, "gpu3");
  EXPECT_EQ(entity({{"device", "mlx5_2"}}).kind, EntityKind::kNic);
  EXPECT_EQ(entity({{"nic", "mlx5_2"}, {"port", "1"}}).label, "mlx5_2/1");
  EXPECT_EQ(entity({{"device", "cpu"}}).kind, EntityKind::kNode);
  EXPECT_EQ(entity({}).kind, EntityKind::kNode);
  EXPECT_EQ(entity({{"device", "cpu12"}}).kind, EntityKind::kOther);
  EXPECT_EQ(entity({{"rank", "5"}}).label, "rank5");
  EXPECT_EQ(NodeOf(Figure("x", 1, {{"host", "gpu-017"}}), "doc-host"), "gpu-017");
  EXPECT_EQ(NodeOf(Figure("x", 1), "doc-host"), "doc-host");
}

TEST(FleetStatsTest, MedianAndMadStayWithinTheStatedBound) {
  std::mt19937_64 rng(5);
  FleetOptions o;
  for (double sd : {0.002, 0.01, 0.03}) {
    for (int n : {7, 100, 4001, 32768}) {
      std::normal_distribution<double> noise(0, sd);
      std::vector<double> values;
      for (int i = 0; i < n; ++i) {
        double x = 1390 * (1 + noise(rng));
        if (i % 101 == 0) x *= 0.75;  // planted faults
        values.push_back(x);
      }
      KeyStats s = StatsOf(values);
      double median = ExactMedian(values), mad = ExactMad(values);
      EXPECT_EQ(s.n, static_cast<uint64_t>(n));
      EXPECT_LE(std::fabs(s.median - median), MedianErrorBound(o, median))
          << "sd " << sd << " n " << n;
      EXPECT_LE(std::fabs(s.mad - mad), MadErrorBound(o, median, mad)) << "sd " << sd << " n " << n;
      EXPECT_DOUBLE_EQ(s.median_error_bound, MedianErrorBound(o, s.median));
      // In practice far inside the bound: the interpolation within a bin is close.
      EXPECT_LE(std::fabs(s.mad - mad), 0.05 * mad + 1e-9) << "sd " << sd << " n " << n;
    }
  }
}

TEST(FleetStatsTest, MemoryDoesNotGrowWithTheNumberOfFigures) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> noise(0, 0.01);
  FleetAccumulator small({}), large({});
  for (int i = 0; i < 2000; ++i) small.Add(Figure("f", 740 * (1 + noise(rng))));
  for (int i = 0; i < 200000; ++i) large.Add(Figure("f", 740 * (1 + noise(rng))));
  size_t small_bins = small.Finalize().begin()->second.bins;
  size_t large_bins = large.Finalize().begin()->second.bins;
  // +-5 sd of 1% is 10%, about 190 bins of 0.05%: bounded by the spread, not the count.
  EXPECT_LE(large_bins, 260u);
  EXPECT_LE(large_bins, 2 * small_bins);
}

TEST(FleetStatsTest, MadZeroFallsBackToTheNoiseFloor) {
  std::vector<double> values(20, 100.0);
  values.push_back(80.0);
  values.push_back(99.0);
  KeyStats s = StatsOf(values);
  EXPECT_EQ(s.median, 100.0);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_DOUBLE_EQ(s.scale, 0.5);  // 0.5% of 100
  FleetOptions o;
  FigureScore low = ScoreFigure(s, 80);
  EXPECT_TRUE(low.judged);
  EXPECT_DOUBLE_EQ(low.z, -40);
  EXPECT_NEAR(low.deficit, 0.20, 1e-12);
  EXPECT_TRUE(IsOutlier(low, o, o.min_deficit));
  FigureScore near = ScoreFigure(s, 99);  // z -2, 1%: noise
  EXPECT_FALSE(IsOutlier(near, o, o.min_deficit));
  EXPECT_FALSE(IsOutlier(ScoreFigure(s, 100), o, o.min_deficit));
}

TEST(FleetStatsTest, TooFewPeersOrAZeroMedianAreNotJudged) {
  KeyStats one = StatsOf({42.0});
  EXPECT_EQ(one.n, 1u);
  EXPECT_EQ(one.median, 42.0);
  EXPECT_EQ(one.mad, 0.0);
  EXPECT_FALSE(one.judged);
  EXPECT_FALSE(ScoreFigure(one, 42.0).judged);
  KeyStats two = StatsOf({100.0, 50.0});
  EXPECT_FALSE(two.judged);
  KeyStats zeros = StatsOf({0, 0, 0, 0, 5});
  EXPECT_EQ(zeros.median, 0);
  EXPECT_FALSE(zeros.judged);
  KeyStats three = StatsOf({100, 100, 50});
  EXPECT_TRUE(three.judged);
  EXPECT_TRUE(IsOutlier(ScoreFigure(three, 50), FleetOptions{}, 0.05));
}

// A median so small that w |median| underflows to 0: the MAD's bins are logarithmic then, not 0
// wide (x / 0 made every deviation's bin code inf or NaN, converted to an integer).
TEST(FleetStatsTest, ADenormalMedianStillHasAMad) {
  constexpr double d = std::numeric_limits<double>::denorm_min();  // 4.9e-324
  KeyStats s = StatsOf({d, d, 2 * d, 3 * d, 1e-300});
  EXPECT_EQ(s.median, 2 * d);
  EXPECT_EQ(s.mad, d);  // deviations 0, d, d, d, 1e-300
}

TEST(FleetStatsTest, LowerIsBetterFlagsFiguresFarAbove) {
  std::vector<double> latency;
  for (int i = 0; i < 99; ++i) latency.push_back(1.92 * (1 + 0.01 * ((i % 9) - 4) / 4));
  KeyStats s = StatsOf(latency, Better::kLower);
  FleetOptions o;
  FigureScore slow = ScoreFigure(s, 2.5);  // 30% above
  EXPECT_GT(slow.z, 0);
  EXPECT_GT(slow.badness, o.z_threshold);
  EXPECT_NEAR(slow.deficit, 2.5 / s.median - 1, 1e-12);
  EXPECT_TRUE(IsOutlier(slow, o, o.min_deficit));
  FigureScore fast = ScoreFigure(s, 1.4);  // far below: better, not an outlier
  EXPECT_LT(fast.z, -o.z_threshold);
  EXPECT_LT(fast.deficit, 0);
  EXPECT_FALSE(IsOutlier(fast, o, o.min_deficit));
}

TEST(FleetStatsTest, ConflictingDirectionsAreReported) {
  FleetAccumulator acc({});
  acc.Add(Figure("f", 1));
  acc.Add(Figure("f", 2, {}, Better::kLower));
  ASSERT_EQ(acc.conflicts().size(), 1u);
  EXPECT_NE(acc.conflicts()[0].find("higher- and lower-is-better"), std::string::npos);
}

// A fleet of run documents built in memory: `nodes` nodes x 8 GPUs x 8 NICs, 1% noise.
struct Fleet {
  std::vector<RunDocument> docs;
  std::map<std::pair<std::string, std::string>, double> factor;  // (node, entity) -> factor
  std::map<std::string, double> node_factor;
  std::map<std::tuple<std::string, std::string, std::string>, double> figure_factor;  // + name
};

Fleet MakeFleet(int nodes, Fleet faults, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.01);
  for (int n = 0; n < nodes; ++n) {
    RunDocument doc;
    doc.host.hostname = "node" + std::to_string(n);
    BenchmarkResult b;
    b.unit_id = "gemm.gpu";
    auto add = [&](const std::string& name, double base, const std::string& entity, Better better) {
      double f = 1;
      if (auto it = faults.node_factor.find(doc.host.hostname); it != faults.node_factor.end())
        f *= it->second;
      if (auto it = faults.factor.find({doc.host.hostname, entity}); it != faults.factor.end())
        f *= it->second;
      if (auto it = faults.figure_factor.find({doc.host.hostname, entity, name});
          it != faults.figure_factor.end()) {
        f *= it->second;
      }
      double v = base * (1 + noise(rng));
      v = better == Better::kHigher ? v * f : v / f;
      std::map<std::string, std::string> p;
      if (!entity.empty()) p["device"] = entity;
      b.measurements.push_back(Figure(name, v, p, better));
    };
    for (int g = 0; g < 8; ++g) {
      add("gemm.bf16", 740, "gpu" + std::to_string(g), Better::kHigher);
      add("gemm.fp8", 1390, "gpu" + std::to_string(g), Better::kHigher);
      add("mem.gpu", 2950, "gpu" + std::to_string(g), Better::kHigher);
    }
    for (int i = 0; i < 8; ++i) {
      add("ib.bw", 392, "mlx5_" + std::to_string(i), Better::kHigher);
      add("ib.lat", 1.9, "mlx5_" + std::to_string(i), Better::kLower);
    }
    add("stream", 498, "", Better::kHigher);
    add("busbw", 470, "", Better::kHigher);
    doc.benchmarks.push_back(std::move(b));
    faults.docs.push_back(std::move(doc));
  }
  return faults;
}

FleetReport Judge(const std::vector<RunDocument>& docs, FleetOptions o = {}) {
  FleetAccumulator acc(o);
  for (const auto& d : docs)
    ForEachMeasurement(d, [&](const Measurement& m, const std::string&) { acc.Add(m); });
  FleetJudge judge(acc.Finalize(), o);
  for (size_t i = 0; i < docs.size(); ++i) judge.AddDocument(docs[i], "doc" + std::to_string(i));
  return judge.Finish();
}

std::vector<std::string> SlowOf(const FleetReport& r, EntityKind kind) {
  std::vector<std::string> out;
  for (const auto& g : r.slow) {
    if (g.entity.kind == kind)
      out.push_back(g.entity.label.empty() ? g.node : g.node + " " + g.entity.label);
  }
  return out;
}

TEST(FleetJudgeTest, AHealthyFleetHasNoFindings) {
  for (uint64_t seed : {1, 2, 3}) {
    FleetReport r = Judge(MakeFleet(300, {}, seed).docs);
    EXPECT_TRUE(r.Healthy()) << "seed " << seed << ": " << r.slow.size() << " slow, "
                             << r.flagged.size() << " figures";
    EXPECT_EQ(r.documents, 300u);
    EXPECT_EQ(r.figures, 300u * 42);
    EXPECT_EQ(r.keys.size(), 7u);
  }
}

TEST(FleetJudgeTest, SlowNodeIsReportedOnceAndItsDevicesNotAgain) {
  Fleet faults;
  faults.node_factor["node7"] = 0.90;
  FleetReport r = Judge(MakeFleet(200, faults, 4).docs);
  EXPECT_EQ(SlowOf(r, EntityKind::kNode), std::vector<std::string>{"node7"});
  EXPECT_TRUE(SlowOf(r, EntityKind::kGpu).empty());
  EXPECT_TRUE(SlowOf(r, EntityKind::kNic).empty());
  ASSERT_EQ(r.slow.size(), 1u);
  EXPECT_EQ(r.slow[0].figures, 42u);
  EXPECT_NEAR(r.slow[0].median_deficit, 0.10, 0.01);
  EXPECT_LT(r.slow[0].z, -5);
  for (const auto& f : r.flagged) {
    EXPECT_EQ(f.node, "node7");
    EXPECT_EQ(f.attributed_to, "node");
  }
}

TEST(FleetJudgeTest, SlowGpuAndNicAreLocalised) {
  Fleet faults;
  faults.factor[{"node3", "gpu5"}] = 0.92;  // -8%
  faults.factor[{"node9", "mlx5_1"}] = 0.85;
  faults.factor[{"node12", "gpu0"}] = 0.70;
  FleetReport r = Judge(MakeFleet(200, faults, 5).docs);
  EXPECT_TRUE(SlowOf(r, EntityKind::kNode).empty());
  EXPECT_EQ(SlowOf(r, EntityKind::kGpu), (std::vector<std::string>{"node12 gpu0", "node3 gpu5"}));
  EXPECT_EQ(SlowOf(r, EntityKind::kNic), std::vector<std::string>{"node9 mlx5_1"});
  for (const auto& f : r.flagged) EXPECT_FALSE(f.attributed_to.empty()) << f.node << " " << f.key;
  // The NIC's latency (lower is better) counts as worse when higher.
  bool latency = false;
  for (const auto& f : r.flagged)
    latency |= f.node == "node9" && f.key.starts_with("ib.lat") && f.score.z > 0;
  EXPECT_TRUE(latency);
}

TEST(FleetJudgeTest, ADeviceWorseThanItsSlowNodeIsReportedToo) {
  Fleet faults;
  faults.node_factor["node1"] = 0.90;
  faults.factor[{"node1", "gpu2"}] = 0.75;
  FleetReport r = Judge(MakeFleet(200, faults, 6).docs);
  EXPECT_EQ(SlowOf(r, EntityKind::kNode), std::vector<std::string>{"node1"});
  EXPECT_EQ(SlowOf(r, EntityKind::kGpu), std::vector<std::string>{"node1 gpu2"});
}

TEST(FleetJudgeTest, ALoneFigureNeedsTheIsolatedDeficit) {
  Fleet faults;
  faults.figure_factor[{"node4", "gpu1", "gemm.fp8"}] = 0.93;  // -7%, z about -7: a lone dip
  faults.figure_factor[{"node5", "gpu6", "gemm.fp8"}] = 0.60;  // -40%: a broken fp8 path
  faults.figure_factor[{"node6", "", "stream"}] = 0.80;        // a node-level figure alone
  FleetReport r = Judge(MakeFleet(200, faults, 7).docs);
  EXPECT_TRUE(r.slow.empty());
  ASSERT_EQ(r.flagged.size(), 2u);
  EXPECT_EQ(r.flagged[0].node, "node5");
  EXPECT_EQ(r.flagged[0].entity.label, "gpu6");
  EXPECT_TRUE(r.flagged[0].outlier);
  EXPECT_EQ(r.flagged[0].attributed_to, "");
  EXPECT_NEAR(r.flagged[0].score.deficit, 0.40, 0.03);
  EXPECT_EQ(r.flagged[1].node, "node6");
  EXPECT_EQ(r.flagged[1].entity.kind, EntityKind::kNode);
  EXPECT_EQ(r.keys.at("gemm.fp8 [GB/s]").outliers, 1u);
  // With a lower isolated threshold, the lone -7% dip is reported as well.
  FleetOptions loose;
  loose.isolated_deficit = 0.05;
  EXPECT_EQ(Judge(MakeFleet(200, faults, 7).docs, loose).flagged.size(), 3u);
}

TEST(FleetJudgeTest, TheSameNodeInTwoDocumentsIsReportedOnce) {
  Fleet faults;
  faults.node_factor["node2"] = 0.85;
  Fleet fleet = MakeFleet(100, faults, 8);
  fleet.docs.push_back(fleet.docs[2]);  // a second job on node2
  FleetReport r = Judge(fleet.docs);
  ASSERT_EQ(r.slow.size(), 1u);
  EXPECT_EQ(r.slow[0].node, "node2");
  EXPECT_EQ(r.slow[0].sources, (std::vector<std::string>{"doc100", "doc2"}));
}

}  // namespace
}  // namespace ys::fleet

namespace ys::fleet {
namespace {

// A multi-rank document (yardstick run across ranks) holds each node's figures under nodes[]:
// they belong to that node; its job-wide top-level figures belong to no node.
TEST(FleetMeasurementsTest, MultiRankDocumentsAttributeFiguresToTheirNodes) {
  RunDocument doc;
  doc.host.hostname = "node0";
  BenchmarkResult job_wide;
  job_wide.measurements.push_back(Figure("coll.all_reduce.busbw", 40));
  doc.benchmarks.push_back(job_wide);
  for (std::string host : {"node0", "node1"}) {
    NodeReport n{.hostname = host};
    BenchmarkResult b;
    b.measurements.push_back(Figure("mem.stream.triad", host == "node0" ? 100 : 90));
    n.benchmarks.push_back(b);
    doc.nodes.push_back(n);
  }
  std::vector<std::pair<std::string, double>> seen;
  ForEachMeasurement(doc, [&](const Measurement& m, const std::string& node) {
    seen.emplace_back(node, m.value);
  });
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, double>>{{"node0", 100}, {"node1", 90}}));

  RunDocument single;
  single.host.hostname = "solo";
  single.benchmarks.push_back(job_wide);
  seen.clear();
  ForEachMeasurement(single, [&](const Measurement& m, const std::string& node) {
    seen.emplace_back(node, m.value);
  });
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, double>>{{"solo", 40}}));
}

}  // namespace
}  // namespace ys::fleet
