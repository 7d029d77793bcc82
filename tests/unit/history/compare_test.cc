#include "history/compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/run_document_json.h"
#include "history/run_rows.h"

namespace ys::history {
namespace {

Measurement M(std::string name, double value, std::map<std::string, std::string> params,
              std::vector<double> samples = {}, Better better = Better::kHigher) {
  Measurement m{std::move(name), value, "GB/s", better, std::move(params), {}, std::move(samples)};
  if (!m.samples.empty()) m.stats = ComputeStats(m.samples);
  return m;
}

RunDocument Doc(std::vector<Measurement> ms, std::string host = "node1") {
  RunDocument d;
  d.command = "bench";
  d.started_at = "2026-12-01T10:00:00Z";
  d.host.hostname = std::move(host);
  BenchmarkResult b;
  b.unit_id = "mem.stream";
  b.measurements = std::move(ms);
  d.benchmarks.push_back(std::move(b));
  return d;
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::string dir = ::testing::TempDir() + "/ys-compare-test";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CompareTest, JudgesEachMeasurementInBoth) {
  RunDocument a = Doc(
      {M("mem.stream.triad", 100, {{"numa_node", "0"}, {"pct_of_peak", "50"}}, {99, 100, 101, 100}),
       M("mem.stream.copy", 80, {{"numa_node", "0"}}, {70, 90, 80, 85}),
       M("proxy.llama.step_time", 1.0, {}, {}, Better::kLower), M("gemm.cpu.fp32", 50, {})});
  RunDocument b =
      Doc({M("mem.stream.triad", 70, {{"numa_node", "0"}, {"pct_of_peak", "35"}}, {69, 70, 71, 70}),
           M("mem.stream.copy", 82, {{"numa_node", "0"}}, {72, 92, 82, 86}),
           M("proxy.llama.step_time", 0.8, {}, {}, Better::kLower), M("copy.h2d", 12, {})});
  Comparison c =
      CompareRows(RowsFromRunDocument(a).measurements, RowsFromRunDocument(b).measurements);
  ASSERT_EQ(c.both.size(), 3u);
  // pct_of_peak derives from the value: it does not split the identity.
  EXPECT_EQ(c.both[0].b.name, "mem.stream.triad");
  EXPECT_EQ(c.both[0].b.params, R"({"numa_node":"0"})");
  EXPECT_EQ(c.both[0].verdict.judgement, Judgement::kWorse);
  EXPECT_NEAR(*c.both[0].verdict.change_pct, -30, 1e-9);
  EXPECT_EQ(c.both[1].verdict.judgement, Judgement::kWithinNoise);  // +2.5% inside a +-10 spread
  EXPECT_EQ(c.both[2].verdict.judgement, Judgement::kBetter);       // 20% shorter step, no samples
  ASSERT_EQ(c.only_a.size(), 1u);
  EXPECT_EQ(c.only_a[0].name, "gemm.cpu.fp32");
  ASSERT_EQ(c.only_b.size(), 1u);
  EXPECT_EQ(c.only_b[0].name, "copy.h2d");
}

// Two runs of one machine: the params a benchmark declares measured or derived (STREAM's best
// rate, a proxy's time breakdown and method string, a peak) differ between them, and no figure is
// "only in" one run: a figure is keyed by its declared identity params (core/figure_spec.h).
TEST(CompareTest, MeasuredParamsDoNotSplitAFigure) {
  auto run = [](double x) {
    return Doc({M("mem.stream.triad", 80 * x,
                  {{"numa_node", "0"}, {"threads", "2"}, {"best", std::to_string(91.2 * x)}}),
                M("proxy.llama3.1_8b.predicted_step_time", 0.5 * x,
                  {{"recipe", "llama3.1-8b"}, {"compute_s", std::to_string(0.226963 * x)}}),
                M("proxy.llama3.1_8b.foreign_cpu_share", 0.01 * x,
                  {{"recipe", "llama3.1-8b"},
                   {"method", "(2 cpus x " + std::to_string(2.058 * x) + " s)"}}),
                M("gemm.cpu.sgemm", 50 * x,
                  {{"shape", "square"},
                   {"peak", std::to_string(99.5 * x)},
                   {"peak_formula", std::to_string(3.1 * x) + " GHz"}})});
  };
  Comparison c = CompareRows(RowsFromRunDocument(run(1)).measurements,
                             RowsFromRunDocument(run(1.13)).measurements);
  EXPECT_EQ(c.both.size(), 4u);
  EXPECT_TRUE(c.only_a.empty()) << c.only_a[0].name << " " << c.only_a[0].params;
  EXPECT_TRUE(c.only_b.empty());
  EXPECT_EQ(c.both[0].b.params, R"({"numa_node":"0","threads":"2"})");
}

TEST(CompareTest, RowsOfAClusterRunCarryTheirNode) {
  RunDocument d = Doc({M("coll.all_reduce.busbw", 10, {{"size", "1048576"}, {"ranks", "4"}})});
  d.nodes = {{"node2", {2, 3}, {}, {}}, {"node1", {0, 1}, {}, {}}};
  BenchmarkResult nb;
  nb.measurements.push_back(M("mem.stream.triad", 60, {{"kernel", "triad"}}));
  d.nodes[0].benchmarks.push_back(nb);
  DocumentRows rows = RowsFromRunDocument(d);
  EXPECT_EQ(rows.run.hosts, "node1,node2");
  ASSERT_EQ(rows.measurements.size(), 2u);
  EXPECT_EQ(rows.measurements[0].node, "");
  EXPECT_EQ(rows.measurements[0].params, R"({"ranks":"4","size":"1048576"})");
  EXPECT_EQ(rows.measurements[1].node, "node2");
  EXPECT_EQ(DisplayParams(rows.measurements[0].params), "ranks=4 size=1048576");
}

TEST(CompareTest, ReadsRunAndValidationFiles) {
  RunDocument d = Doc({M("mem.stream.triad", 100, {{"kernel", "triad"}})});
  auto run = RowsFromFile(WriteFile("run.json", DumpJson(ToJson(d))));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->run.command, "bench");
  EXPECT_EQ(run->run.verdict, "pass");
  ASSERT_EQ(run->measurements.size(), 1u);
  auto val = RowsFromFile(WriteFile("validation.json", R"({"kind": "yardstick-validation",
      "verdict": {"pass": false, "text": "FAIL"},
      "workloads": [{"id": "llama3_8b", "score": 0.91, "mfu": null, "tokens_per_s_per_gpu": 9000,
                     "step_times_s": [1.0, 1.1, 0.9]}]})"));
  ASSERT_TRUE(val.ok()) << val.status().message();
  EXPECT_EQ(val->run.command, "validate");
  EXPECT_EQ(val->run.verdict, "fail");
  ASSERT_EQ(val->measurements.size(), 3u);  // score, tokens/s, step time (mfu is null)
  EXPECT_EQ(val->measurements[2].name, "validate.step_time");
  EXPECT_EQ(val->measurements[2].better, Better::kLower);
  EXPECT_EQ(val->measurements[2].samples.size(), 3u);
}

TEST(CompareTest, MalformedInputsNameTheFileAndField) {
  auto missing = RowsFromFile("/nonexistent/run.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/run.json"), std::string::npos);
  auto not_json = RowsFromFile(WriteFile("garbage.json", "{\"command\": "));
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.status().message().find("not JSON"), std::string::npos);
  auto not_run = RowsFromFile(WriteFile("other.json", R"({"hello": 1})"));
  ASSERT_FALSE(not_run.ok());
  EXPECT_NE(not_run.status().message().find("not a run document"), std::string::npos);
  EXPECT_NE(not_run.status().message().find("other.json"), std::string::npos);
  auto bad_run =
      RowsFromFile(WriteFile("bad_run.json", R"({"command": "run", "schema_version": 1})"));
  ASSERT_FALSE(bad_run.ok());
  // The one reader of a user's run argument (history/run_input.h) names the file, what it
  // expected and the field: "bad_run.json: not a run document (...): run.started_at: ...".
  EXPECT_NE(bad_run.status().message().find("bad_run.json: not a run document"), std::string::npos)
      << bad_run.status().message();
  EXPECT_NE(bad_run.status().message().find("): run."), std::string::npos)
      << bad_run.status().message();
  auto bad_val = RowsFromFile(
      WriteFile("bad_val.json", R"({"kind": "yardstick-validation", "verdict": {"pass": true},
      "workloads": [{"id": "x", "score": "high"}]})"));
  ASSERT_FALSE(bad_val.ok());
  EXPECT_NE(bad_val.status().message().find("workloads[0].score: expected a number"),
            std::string::npos)
      << bad_val.status().message();
  auto no_verdict = RowsFromFile(
      WriteFile("no_verdict.json", R"({"kind": "yardstick-validation", "workloads": []})"));
  ASSERT_FALSE(no_verdict.ok());
  EXPECT_NE(no_verdict.status().message().find("verdict.pass"), std::string::npos);
  EXPECT_EQ(DisplayParams("not json"), "not json");
  // A wrong type where a string is expected is named, never a thrown type_error.
  auto created =
      RowsFromFile(WriteFile("created.json", R"({"kind": "yardstick-validation", "created_at": 5,
      "verdict": {"pass": true}, "workloads": []})"));
  EXPECT_NE(created.status().message().find(
                "created.json: created_at: expected a string, found a number"),
            std::string::npos)
      << created.status().message();
}

TEST(CompareTest, HostileDocumentsAreBoundedAndNamed) {
  const int n = 100000;
  auto deep = RowsFromFile(
      WriteFile("deep.json", R"({"kind": "yardstick-validation", "verdict": {"pass": true},
      "workloads": [], "x": )" + std::string(n, '[') +
                                 std::string(n, ']') + "}"));
  EXPECT_NE(deep.status().message().find("deep.json: arrays and objects nested deeper than"),
            std::string::npos)
      << deep.status().message();
  auto huge = RowsFromFile(WriteFile("huge.json", R"({"command": "run", "x": 1e309})"));
  EXPECT_NE(huge.status().message().find("huge.json: not JSON: number overflow"), std::string::npos)
      << huge.status().message();
  // A wide document is accepted, but its history row does not hold all of it.
  auto wide = RowsFromFile(
      WriteFile("wide.json", R"({"kind": "yardstick-validation", "verdict": {"pass": true},
      "workloads": [], "x": ")" + std::string(9 << 20, 'x') +
                                 "\"}"));
  ASSERT_TRUE(wide.ok()) << wide.status().message();
  EXPECT_LT(wide->run.document_json.size(), 4096u);
  EXPECT_NE(wide->run.document_json.find("not stored"), std::string::npos);
  // Invalid UTF-8 in a parameter never throws while the identity is written.
  EXPECT_EQ(IdentityParams({{"path", "a\xff"}}), "{\"path\":\"a\xef\xbf\xbd\"}");
}

}  // namespace
}  // namespace ys::history
