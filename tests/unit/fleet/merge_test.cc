#include "fleet/merge.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/run_document_json.h"
#include "validate/archive_test_util.h"

namespace ys::fleet {
namespace {

using archive_testing::ScopedTempDir;
using archive_testing::WriteFile;

// A node's run document: 4 GPUs with one figure each, and one node-level figure.
std::string NodeDocument(const std::string& host, double gpu_factor = 1, int slow_gpu = -1) {
  RunDocument d;
  d.command = "run";
  d.started_at = "2026-11-29T16:40:03Z";
  d.host.hostname = host;
  d.host.root = "/";
  d.tool.version = "0.1.0";
  BenchmarkResult b;
  b.unit_id = "gemm.gpu";
  for (int g = 0; g < 4; ++g) {
    Measurement m;
    m.name = "gemm.gpu.tflops";
    m.unit = "TFLOPS";
    // A little spread, identical across nodes: 738..742.
    m.value = (738 + g + (host.size() % 3)) * (g == slow_gpu ? gpu_factor : 1);
    m.params = {{"dtype", "bf16"}, {"device", "gpu" + std::to_string(g)}};
    b.measurements.push_back(m);
  }
  d.benchmarks.push_back(b);
  Measurement stream;
  stream.name = "mem.stream.triad";
  stream.unit = "GB/s";
  stream.value = 498;
  d.measurements.push_back(stream);
  return DumpJson(ToJson(d));
}

// Which documents the inputs name is tests/unit/fleet/inputs_test.cc; here every one of them is
// merged.
TEST(FleetMergeTest, MergesEveryDocumentTheInputsName) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("jobA/n1/run.json"), NodeDocument("n1"));
  WriteFile(tmp.Sub("jobA/n2/run.json"), NodeDocument("n2"));
  WriteFile(tmp.Sub("jobA/n2/report.json"), "{}");  // not a run document: ignored in a directory
  WriteFile(tmp.Sub("jobB/n3.run.json"), NodeDocument("n3"));
  WriteFile(tmp.Sub("loose.json"), NodeDocument("n4"));
  WriteFile(tmp.Sub("list.txt"),
            "# the fleet\n" + tmp.Sub("jobB") + "\n\n  " + tmp.Sub("loose.json") + "  \n");
  auto report = MergeFleet({tmp.Sub("jobA"), "@" + tmp.Sub("list.txt")}, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->documents, 4u);
  EXPECT_EQ(report->figures, 20u);
  ASSERT_EQ(report->keys.size(), 2u);
  EXPECT_EQ(report->keys.at("gemm.gpu.tflops [TFLOPS] dtype=bf16").n, 16u);
  EXPECT_EQ(report->keys.at("mem.stream.triad [GB/s]").median, 498);
  // Four nodes are fewer than min_fleet: nothing is judged peer-wise, and the verdict says so.
  EXPECT_TRUE(report->too_small);
  EXPECT_TRUE(report->ranked.empty());
  EXPECT_EQ(report->Verdict(), "inconclusive");
}

TEST(FleetMergeTest, FindsTheSlowGpuAcrossJobs) {
  ScopedTempDir tmp;
  for (int i = 0; i < 40; ++i) {
    std::string host = "node" + std::to_string(i);
    WriteFile(tmp.Sub("job" + std::to_string(i % 3) + "/" + host + "/run.json"),
              i == 17 ? NodeDocument(host, 0.5, 2) : NodeDocument(host));
  }
  auto report = MergeFleet({tmp.path()}, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->slow.size(), 1u);  // one figure per GPU: judged as a lone figure, 50% is enough
  EXPECT_EQ(report->slow[0].node, "node17");
  EXPECT_EQ(report->slow[0].entity.label, "gpu2");
  ASSERT_EQ(report->flagged.size(), 1u);
  EXPECT_EQ(report->flagged[0].source, tmp.Sub("job2/node17/run.json"));
}

TEST(FleetMergeTest, MalformedDocumentsNameTheFileAndTheField) {
  ScopedTempDir tmp;
  WriteFile(tmp.Sub("good/run.json"), NodeDocument("n1"));
  struct Case {
    std::string name, content, want;
  };
  std::string good = NodeDocument("n9");
  std::string no_value = good;
  no_value.replace(no_value.find("\"value\""), 7, "\"valeur\"");
  std::string text_value = good;
  text_value.replace(text_value.find("\"value\": ") + 9, 1, "\"fast\", \"x\": 7");
  std::string no_host = good;
  no_host.replace(no_host.find("\"n9\""), 4, "\"\"");
  std::vector<Case> cases = {
      {"truncated", good.substr(0, good.size() / 2), "not JSON"},
      {"array", "[1, 2]", "expected a JSON object"},
      {"no_value", no_value, "run.measurements[0].value: missing"},
      {"text_value", text_value, "run.measurements[0].value: expected a number, found a string"},
      {"no_host", no_host, "run.host.hostname: empty"},
      {"empty", "", "not JSON"},
  };
  for (const auto& c : cases) {
    std::string path = tmp.Sub("bad-" + c.name + ".json");
    WriteFile(path, c.content);
    auto r = MergeFleet({tmp.Sub("good"), path}, {});
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message();
  }
  auto missing = MergeFleet({tmp.Sub("nope.json")}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(tmp.Sub("nope.json") + ": no such file"),
            std::string::npos);
}

TEST(FleetMergeTest, KeepGoingSkipsAndListsMalformedDocuments) {
  ScopedTempDir tmp;
  for (int i = 0; i < 5; ++i)
    WriteFile(tmp.Sub("n" + std::to_string(i) + "/run.json"),
              NodeDocument("n" + std::to_string(i)));
  WriteFile(tmp.Sub("broken/run.json"), "{\"schema_version\": 1");
  WriteFile(tmp.Sub("old/run.json"), "{\"schema_version\": 0}");
  MergeOptions o;
  o.keep_going = true;
  auto r = MergeFleet({tmp.path()}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->documents, 5u);
  ASSERT_EQ(r->skipped.size(), 2u);
  EXPECT_EQ(r->skipped[0].path, tmp.Sub("broken/run.json"));
  EXPECT_EQ(r->skipped[1].path, tmp.Sub("old/run.json"));
  EXPECT_NE(r->skipped[1].error.find("run.schema_version: expected 1, got 0"), std::string::npos);
  // Nothing readable at all is an error even with --keep-going.
  auto none = MergeFleet({tmp.Sub("broken")}, o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no run document could be read"), std::string::npos);
}

}  // namespace
}  // namespace ys::fleet
