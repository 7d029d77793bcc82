// The grouping rule of fleet/key.h over every measurement the units write, as the fixture run
// documents hold them, and the lean reader (fleet/reader.h) against the full one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/document_file.h"
#include "core/run_document_json.h"
#include "fleet/fleet.h"
#include "fleet/merge.h"
#include "fleet/reader.h"

namespace ys::fleet {
namespace {

const std::vector<std::string>& FixtureDocuments() {
  static const std::vector<std::string> kDocs = {
      std::string(YS_SOURCE_DIR) + "/tests/fixtures/runs/report-3node/run.json",
      std::string(YS_SOURCE_DIR) + "/tests/fixtures/runs/burnin/run.json",
      std::string(YS_SOURCE_DIR) + "/tests/fixtures/exporter/run.json",
  };
  return kDocs;
}

// A value carrying a measured quantity, by a rule of its own (not the one under test): a number
// with a fractional part, as strtod reads it, anywhere in the value.
bool HasFractionalNumber(const std::string& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) continue;
    char* end = nullptr;
    double d = std::strtod(v.c_str() + i, &end);
    if (d != std::floor(d) ||
        (end && *end == '.' && std::isdigit(static_cast<unsigned char>(end[1]))))
      return true;
    i = static_cast<size_t>(end - v.c_str());
  }
  return false;
}

TEST(FleetKeyRuleTest, NoFixtureMeasurementKeepsAMeasuredQuantityInItsKey) {
  size_t walked = 0;
  for (const std::string& path : FixtureDocuments()) {
    auto doc = ReadRunDocument(path);
    ASSERT_TRUE(doc.ok()) << doc.status().ToString();
    ForEachMeasurement(*doc, [&](const Measurement& m, const std::string&) {
      ++walked;
      for (const auto& [k, v] : KeyParams(m)) {
        EXPECT_FALSE(HasFractionalNumber(v)) << path << ": " << m.name << " " << k << "=" << v;
        EXPECT_FALSE(k.starts_with("peak") || k.starts_with("pct_") || k == "baseline")
            << m.name << " " << k;
        EXPECT_FALSE(k == "device" || k == "peer" || k == "cpus" || k == "rank")
            << m.name << " " << k;
      }
    });
  }
  EXPECT_GT(walked, 50u);
}

// The nodes of a multi-node document measured the same things with different values: the rule
// gives every node the same keys, so no node's figure is left alone in its group.
TEST(FleetKeyRuleTest, EveryNodeOfAMultiNodeDocumentHasTheSameKeys) {
  auto doc = ReadRunDocument(FixtureDocuments()[0]);
  ASSERT_TRUE(doc.ok());
  std::map<std::string, std::multiset<std::string>> keys;
  ForEachMeasurement(*doc, [&](const Measurement& m, const std::string& node) {
    keys[node].insert(ComparisonKey(m));
  });
  ASSERT_EQ(keys.size(), 3u);
  for (const auto& [node, k] : keys) EXPECT_EQ(k, keys.begin()->second) << node;
}

// What the units write beside their value (src/bench, src/workloads): the same figure measured
// twice at different values has one key.
TEST(FleetKeyRuleTest, ParamsDerivedFromTheValueDoNotSplitAGroup) {
  auto two = [](std::string name, std::map<std::string, std::string> a,
                std::map<std::string, std::string> b) {
    Measurement x, y;
    x.name = y.name = std::move(name);
    x.params = std::move(a);
    y.params = std::move(b);
    return std::pair{ComparisonKey(x), ComparisonKey(y)};
  };
  std::vector<std::pair<std::string, std::string>> cases = {
      two("mem.gpu.copy_ce",
          {{"device", "gpu0"},
           {"size", "1073741824"},
           {"hbm_traffic_gb_per_s", "5801.2"},
           {"peak", "3350"},
           {"pct_of_peak", "86.6"},
           {"peak_source", "specs/h100.toml"}},
          {{"device", "gpu1"},
           {"size", "1073741824"},
           {"hbm_traffic_gb_per_s", "5410.0"},
           {"peak", "3350"},
           {"pct_of_peak", "80.7"},
           {"peak_source", "specs/h100.toml"}}),
      two("copy.d2d.ce",
          {{"device", "gpu0"}, {"peer", "gpu3"}, {"size", "268435456"}, {"pct_of_peak", "81.0"}},
          {{"device", "gpu3"}, {"peer", "gpu0"}, {"size", "268435456"}, {"pct_of_peak", "79.5"}}),
      two("mem.stream.triad", {{"threads", "112"}, {"best", "498.20"}},
          {{"threads", "112"}, {"best", "431.07"}}),
      two("gemm.cpu.sgemm",
          {{"n", "4096"}, {"peak", "264.4"}, {"peak_formula", "1 cores x 4.132 GHz x 64 flops"}},
          {{"n", "4096"}, {"peak", "250.1"}, {"peak_formula", "1 cores x 3.908 GHz x 64 flops"}}),
      two("proxy.llama3.1_8b.predicted_step_time",
          {{"recipe", "h100/bf16/128"},
           {"comm_s", "0.0325935"},
           {"compute_s", "0.0290221"},
           {"flops_per_step", "3.52322e+09"}},
          {{"recipe", "h100/bf16/128"},
           {"comm_s", "0.041"},
           {"compute_s", "0.0301"},
           {"flops_per_step", "3.52322e+09"}}),
      two("coll.all_reduce.busbw", {{"size", "1024"}, {"library", "NCCL 2.21.5"}},
          {{"size", "1024"}, {"library", "NCCL 2.19.3"}}),
      two("burnin.sgemm", {{"device", "cpu0"}, {"baseline", "128.997"}},
          {{"device", "cpu1"}, {"baseline", "129.007"}}),
  };
  for (const auto& [a, b] : cases) EXPECT_EQ(a, b);
  // Configuration stays: sizes, dtypes, shapes, methods, the GPU model.
  auto [s1, s2] = two("gemm.gpu.tflops", {{"dtype", "bf16"}}, {{"dtype", "fp8"}});
  EXPECT_NE(s1, s2);
  auto [m1, m2] =
      two("gemm.gpu.tflops", {{"gpu_name", "NVIDIA H100"}}, {{"gpu_name", "NVIDIA A100"}});
  EXPECT_NE(m1, m2);
  auto [z1, z2] = two("copy.h2d.ce", {{"size", "1024"}}, {{"size", "268435456"}});
  EXPECT_NE(z1, z2);
}

TEST(FleetKeyRuleTest, KindsAndEntitiesOfTheFigures) {
  EXPECT_EQ(KindOf("gemm.gpu.tflops"), FigureKind::kGemm);
  EXPECT_EQ(KindOf("gemm.cpu.sgemm"), FigureKind::kCpuGemm);
  EXPECT_EQ(KindOf("mem.gpu.copy_ce"), FigureKind::kMemory);
  EXPECT_EQ(KindOf("mem.stream.triad"), FigureKind::kStream);
  EXPECT_EQ(KindOf("copy.d2d.sm"), FigureKind::kNvlink);
  EXPECT_EQ(KindOf("copy.h2d.ce"), FigureKind::kPcie);
  EXPECT_EQ(KindOf("net.ib_write.bw"), FigureKind::kNetwork);
  EXPECT_EQ(KindOf("coll.all_gather.busbw"), FigureKind::kCollective);
  EXPECT_EQ(KindOf("host.busy_clock"), FigureKind::kClock);
  EXPECT_EQ(KindOf("proxy.llama3.1_8b.step_time"), FigureKind::kProxy);
  EXPECT_EQ(KindOf("storage.checkpoint.write"), FigureKind::kStorage);
  Measurement m;
  m.params = {{"device", "gpu"}};  // a one-process document's collectives over all its GPUs
  EXPECT_EQ(EntityOf(m).kind, EntityKind::kNode);
  m.params = {{"device", "gpu3"}, {"peer", "gpu5"}};
  EXPECT_EQ(EntityOf(m).label, "gpu3");
  ASSERT_TRUE(PeerOf(m).has_value());
  EXPECT_EQ(PeerOf(m)->label, "gpu5");
  m.params = {{"nic", "mlx5_2"}, {"port", "1"}};
  EXPECT_EQ(EntityOf(m).label, "mlx5_2/1");
  EXPECT_EQ(BareLabel(EntityOf(m)), "mlx5_2");
  m.params = {{"device", "storage"}};
  EXPECT_EQ(BareLabel(EntityOf(m)), "node");
}

TEST(FleetReaderTest, TheLeanReaderGivesTheFullReadersDocument) {
  for (const std::string& path : FixtureDocuments()) {
    auto text = ReadDocumentFile(path, DocumentKind::kJson);
    ASSERT_TRUE(text.ok());
    std::optional<RunDocument> lean = ReadFleetDocument(*text);
    auto full = ReadRunDocument(path);
    ASSERT_TRUE(full.ok());
    ASSERT_TRUE(lean.has_value()) << path;
    EXPECT_EQ(lean->host.hostname, full->host.hostname);
    EXPECT_EQ(lean->host.gpu_driver, full->host.gpu_driver);
    EXPECT_EQ(lean->tool.version, full->tool.version);
    EXPECT_EQ(lean->incomplete, full->incomplete);
    EXPECT_EQ(lean->nodes.size(), full->nodes.size());
    ASSERT_EQ(lean->checks.size(), full->checks.size());
    for (size_t i = 0; i < lean->checks.size(); ++i) {
      EXPECT_EQ(lean->checks[i].unit_id, full->checks[i].unit_id);
      EXPECT_EQ(lean->checks[i].outcome, full->checks[i].outcome);
      EXPECT_EQ(lean->checks[i].findings.size(), full->checks[i].findings.size());
      Evidence x = lean->checks[i].evidence,
               y = full->checks[i].evidence;  // the full reader sorts keys
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      EXPECT_EQ(x, y);
    }
    std::vector<const Measurement*> a, b;
    ForEachMeasurement(*lean, [&](const Measurement& m, const std::string&) { a.push_back(&m); });
    ForEachMeasurement(*full, [&](const Measurement& m, const std::string&) { b.push_back(&m); });
    ASSERT_EQ(a.size(), b.size()) << path;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i]->name, b[i]->name);
      EXPECT_EQ(a[i]->value, b[i]->value);
      EXPECT_EQ(a[i]->unit, b[i]->unit);
      EXPECT_EQ(a[i]->better, b[i]->better);
      // The lean reader keeps only the params fleet analysis reads (fleet/reader.h).
      EXPECT_EQ(ComparisonKey(*a[i]), ComparisonKey(*b[i]));
      EXPECT_EQ(EntityOf(*a[i]).label, EntityOf(*b[i]).label);
      EXPECT_EQ(a[i]->params.count("pct_of_peak"), b[i]->params.count("pct_of_peak"));
      EXPECT_EQ(a[i]->stats, b[i]->stats);
    }
  }
}

TEST(FleetReaderTest, TheLeanReaderRefusesWhatTheFullReaderRefuses) {
  auto text = ReadDocumentFile(FixtureDocuments()[2], DocumentKind::kJson);
  ASSERT_TRUE(text.ok());
  std::string good = *text;
  ASSERT_TRUE(ReadFleetDocument(good).has_value());
  std::vector<std::string> bad = {
      good.substr(0, good.size() / 2), "", "[1]", good + "x", "{\"schema_version\": 0}",
  };
  std::string no_value = good;
  no_value.replace(no_value.find("\"value\""), 7, "\"valeur\"");
  bad.push_back(no_value);
  std::string text_value = good;
  size_t v = text_value.find("\"value\":");
  text_value.insert(text_value.find_first_of("-0123456789", v), "\"x\" + ");
  bad.push_back(text_value);
  std::string bad_better = good;
  bad_better.replace(bad_better.find("\"higher\""), 8, "\"faster\"");
  bad.push_back(bad_better);
  for (const std::string& b : bad)
    EXPECT_FALSE(ReadFleetDocument(b).has_value()) << b.substr(0, 60);
}

}  // namespace
}  // namespace ys::fleet
