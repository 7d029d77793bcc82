// The HTML report's builder and loader on the committed fixture (tests/fixtures/runs/report-3node)
// and on literal documents: every section present, one canvas per chart, the embedded JSON
// parses back, text escaped, empty sections say so, archives read, bad inputs get errors naming
// the file and the field. Drawing is checked in Chromium by tests/integration/report_test.sh.
#include "report/html/html_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/run_document_json.h"
#include "report/html/html_text.h"
#include "report/html/report_input.h"
#include "validate/archive.h"

namespace ys::report::html {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace html_report_test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kFixture = std::string(YS_FIXTURES_DIR) + "/runs/report-3node";
// Enough of a Chart.js for the builder (the real one is inlined by the integration test).
const std::string kFakeChartJs = "var Chart = function () {};";

std::string TempDir() {
  std::string p = (fs::temp_directory_path() / "ys-html-test-XXXXXX").string();
  EXPECT_NE(::mkdtemp(p.data()), nullptr);
  return p;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The embedded data block's JSON text.
std::string DataBlock(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"ys-data\">";
  size_t a = page.find(open);
  EXPECT_NE(a, std::string::npos);
  a += open.size();
  size_t b = page.find("</script>", a);
  return page.substr(a, b - a);
}

ReportInput FromJsonText(const std::string& text) {
  ReportInput in;
  in.source = "test";
  Status s = AddDocument(json::parse(text), "test.json", in);
  EXPECT_TRUE(s.ok()) << s.message();
  RankDiagnosis(in);
  return in;
}

TEST(HtmlReport, FixtureHasEverySectionAndOneCanvasPerChart) {
  auto in = LoadReportInput(kFixture);
  ASSERT_TRUE(in.ok()) << in.status().message();
  ASSERT_TRUE(in->run.has_value());
  ASSERT_TRUE(in->validation.has_value());
  EXPECT_EQ(in->run->nodes.size(), 3u);
  // Host and tool facts the versions section shows are read back from the document.
  EXPECT_EQ(in->run->host.cpu_model, "AMD EPYC");
  EXPECT_EQ(in->run->host.logical_cpus, 2);
  EXPECT_EQ(in->run->tool.compiler, "GNU 12.2.0");
  // The run's diagnosis and diagnosis.json's, ranked by expected recovery.
  ASSERT_GE(in->diagnosis.size(), 2u);
  for (size_t i = 1; i < in->diagnosis.size(); ++i) {
    EXPECT_GE(in->diagnosis[i - 1].recovery.Midpoint(), in->diagnosis[i].recovery.Midpoint());
  }
  std::string page = BuildHtmlReport(*in, kFakeChartJs);
  for (const char* id : {"verdict", "scores", "collectives", "rates", "step-times", "fleet",
                         "findings", "versions"}) {
    EXPECT_NE(page.find("<section id=\"" + std::string(id) + "\">"), std::string::npos) << id;
  }
  std::string data = DataBlock(page);
  EXPECT_EQ(data.find("</"), std::string::npos);
  json j = json::parse(data);
  ASSERT_TRUE(j["charts"].is_array());
  // Scores, 7 collectives, the rates, 1 proxy and 5 workload step-time histograms.
  EXPECT_EQ(j["charts"].size(), 15u);
  for (const auto& c : j["charts"]) {
    std::string canvas = "<canvas id=\"" + c["canvas"].get<std::string>() + "\"";
    size_t at = page.find(canvas);
    EXPECT_NE(at, std::string::npos) << canvas;
    EXPECT_EQ(page.find(canvas, at + 1), std::string::npos) << "twice: " << canvas;
    EXPECT_TRUE(c["config"].contains("type"));
  }
  EXPECT_NE(page.find("data-charts=\"15\""), std::string::npos);
  // Collectives on a logarithmic size axis.
  EXPECT_EQ(j["charts"][1]["section"], "collectives");
  EXPECT_EQ(j["charts"][1]["config"]["options"]["scales"]["x"]["type"], "logarithmic");
  // The fleet map: node03's memory at 0.72 against a fleet median of 0.96 of node01's value.
  EXPECT_NE(page.find(">75.0%</td>"), std::string::npos);
  EXPECT_NE(page.find("YS-CPU-022"), std::string::npos);
  EXPECT_NE(page.find("workload.low_mfu"), std::string::npos);
  EXPECT_NE(page.find("data-verdict=\"fail\""), std::string::npos);
  EXPECT_NE(page.find(kFakeChartJs), std::string::npos);
}

// `run` draws its page from the document in memory (ReportInputOf): the same page as `report`
// draws from the document written to disk, for each fixture run, its diagnosis ranked alike.
TEST(HtmlReport, ThePageFromMemoryIsThePageFromDisk) {
  for (const std::string& path :
       {kFixture + "/run.json", std::string(YS_FIXTURES_DIR) + "/runs/burnin/run.json"}) {
    auto doc = RunDocumentFromJson(json::parse(ReadAll(path)));
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    std::string dir = TempDir();
    Write(dir + "/run.json", DumpJson(ToJson(*doc)) + "\n");
    auto from_disk = LoadReportInput(dir + "/run.json");
    ASSERT_TRUE(from_disk.ok()) << from_disk.status().message();
    auto in_memory = ReportInputOf(*doc, dir);
    ASSERT_TRUE(in_memory.ok()) << in_memory.status().message();
    std::string page = BuildHtmlReport(*in_memory, kFakeChartJs);
    EXPECT_EQ(page, BuildHtmlReport(*from_disk, kFakeChartJs)) << path;
    EXPECT_NE(page.find(dir + "/run.json"), std::string::npos) << "the page names its document";
    fs::remove_all(dir);
  }
}

// A document as a run holds it in memory, its evidence in the order the rules gave it (not the
// order of a JSON object's keys) and a key given twice: the page is still the one drawn from the
// saved file, which holds each object's keys once, in order.
TEST(HtmlReport, ThePageFromMemoryKeepsTheSavedEvidenceOrder) {
  RunDocument doc = StartRunDocument("run");
  Diagnosis d{
      .rule = "host.core_sharing", .layer = "host", .cause = "neighbours", .entity = "cpu2-5"};
  d.evidence = {{"z.second", "2"}, {"a.first", "1"}, {"z.second", "again"}};
  doc.diagnosis = {d};
  doc.diagnosis_ran = true;
  std::string dir = TempDir();
  Write(dir + "/run.json", DumpJson(ToJson(doc)) + "\n");
  auto from_disk = LoadReportInput(dir + "/run.json");
  ASSERT_TRUE(from_disk.ok()) << from_disk.status().message();
  auto in_memory = ReportInputOf(doc, dir);
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().message();
  ASSERT_EQ(in_memory->diagnosis.size(), 1u);
  EXPECT_EQ(in_memory->diagnosis[0].evidence, from_disk->diagnosis[0].evidence);
  EXPECT_EQ(in_memory->diagnosis[0].evidence.front().first, "a.first");
  EXPECT_EQ(BuildHtmlReport(*in_memory, kFakeChartJs), BuildHtmlReport(*from_disk, kFakeChartJs));
  fs::remove_all(dir);
}

TEST(HtmlReport, HostileTextStaysText) {
  auto j = json::parse(ReadAll(kFixture + "/run.json"));
  const std::string evil = "<img src=x onerror=alert(1)></script><script>alert(2)</script>";
  j["host"]["hostname"] = evil;
  j["nodes"][1]["hostname"] = evil;
  j["warnings"].push_back(evil);
  for (auto& c : j["nodes"][0]["checks"]) {
    for (auto& f : c["findings"]) f["message"] = evil;
  }
  ReportInput in = FromJsonText(j.dump());
  std::string page = BuildHtmlReport(in, kFakeChartJs);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("alert(2)</script>"), std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  json data = json::parse(DataBlock(page));  // still one block that parses
  EXPECT_TRUE(data["charts"].is_array());
}

TEST(HtmlReport, OneRankCollectivePointsAreNeverDrawn) {
  // A document from before one-rank sweeps were skipped: its broadcast points say ranks=1.
  auto j = json::parse(ReadAll(kFixture + "/run.json"));
  size_t marked = 0;
  std::function<void(json&)> mark = [&](json& v) {
    if (v.is_object()) {
      if (v.contains("name") && v["name"].is_string() &&
          v["name"].get<std::string>() == "coll.broadcast.busbw" && v.contains("params") &&
          v["params"].is_object()) {
        v["params"]["ranks"] = "1";
        ++marked;
      }
      for (auto& [k, child] : v.items()) mark(child);
    } else if (v.is_array()) {
      for (auto& child : v) mark(child);
    }
  };
  mark(j);
  ASSERT_GT(marked, 0u);
  std::string page = BuildHtmlReport(FromJsonText(j.dump()), kFakeChartJs);
  EXPECT_EQ(page.find("broadcast bus bandwidth against message size"), std::string::npos);
  EXPECT_NE(page.find("all_reduce bus bandwidth against message size"), std::string::npos);
  EXPECT_NE(
      page.find(
          std::to_string(marked) +
          " point(s) of one rank not drawn: one rank, one device: nothing to exchange; run under "
          "mpirun/srun or on a node with several GPUs."),
      std::string::npos);
}

TEST(HtmlText, Escaping) {
  EXPECT_EQ(EscapeHtml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(EscapeHtml("caf\xff"), "caf\xEF\xBF\xBD");  // invalid UTF-8 -> U+FFFD
  nlohmann::ordered_json j = {{"s", "</script><!-- & >"}};
  std::string safe = ScriptSafeJson(j);
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(safe.find('>'), std::string::npos);
  EXPECT_EQ(json::parse(safe)["s"], "</script><!-- & >");
  EXPECT_EQ(ScriptSafeSource("a='</script>';b=/<\\/x/"), "a='<\\/script>';b=/<\\/x/");
  EXPECT_EQ(FormatBytes(1024), "1 KiB");
  EXPECT_EQ(FormatBytes(1048576), "1 MiB");
  EXPECT_EQ(FormatValue(0.25316), "0.253");
  EXPECT_EQ(FormatValue(118.09), "118");
}

TEST(HtmlReport, EmptySectionsSayWhyInsteadOfDrawing) {
  RunDocument doc = StartRunDocument("preflight");
  doc.host.hostname = "lonely";
  ReportInput in = FromJsonText(ToJson(doc).dump());
  std::string page = BuildHtmlReport(in, kFakeChartJs);
  EXPECT_EQ(page.find("<canvas"), std::string::npos);
  EXPECT_NE(page.find("data-charts=\"0\""), std::string::npos);
  for (const char* why :
       {"No validation document", "No collective bus bandwidth", "No GEMM, memory or copy rate",
        "No step times", "One node", "Diagnosis did not run", "No findings"}) {
    EXPECT_NE(page.find(why), std::string::npos) << why;
  }
  EXPECT_EQ(json::parse(DataBlock(page))["charts"].size(), 0u);
}

TEST(HtmlReport, ValidationAlone) {
  auto in = LoadReportInput(kFixture + "/validation.json");
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_FALSE(in->run.has_value());
  ASSERT_EQ(in->validation->workloads.size(), 5u);
  EXPECT_EQ(in->validation->threshold, 0.95);
  std::string page = BuildHtmlReport(*in, kFakeChartJs);
  json data = json::parse(DataBlock(page));
  EXPECT_EQ(data["charts"].size(), 6u);  // scores and five histograms
  EXPECT_NE(page.find("threshold 95%"), std::string::npos);
}

TEST(HtmlReport, ReadsAnArchive) {
  std::string dir = TempDir();
  validate::ArchiveInput a;
  a.name = "run-node01";
  a.files_from_disk["run.json"] = kFixture + "/run.json";
  a.files_from_disk["diagnosis.json"] = kFixture + "/diagnosis.json";
  ASSERT_TRUE(validate::WriteArchive(a, dir + "/run.tar.zst", "").ok());
  auto in = LoadReportInput(dir + "/run.tar.zst");
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_TRUE(in->run.has_value());
  EXPECT_FALSE(in->validation.has_value());
  ASSERT_FALSE(in->notes.empty());
  EXPECT_NE(in->notes.back().find("unsigned"), std::string::npos) << in->notes.back();
  Write(dir + "/junk.tar.zst", "not an archive");
  auto bad = LoadReportInput(dir + "/junk.tar.zst");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("junk.tar.zst"), std::string::npos);
  fs::remove_all(dir);
}

// Each malformed input: not ok, and the message names the file and what is wrong.
TEST(HtmlReport, BadInputsNameTheFileAndField) {
  std::string dir = TempDir();
  struct Case {
    std::string name, content, expect;
  };
  const std::string v =
      R"({"kind": "yardstick-validation", "suite": {"chip": "h100", "threshold": 0.95},
                            "verdict": {"pass": true, "text": "ok"}, "workloads": )";
  std::vector<Case> cases = {
      {"notjson.json", "{nope", "not JSON"},
      {"empty.json", "", "not JSON"},
      {"array.json", "[1,2]", "not a run document"},
      {"badrun.json", R"({"schema_version": 1, "command": 7})", "not a run document"},
      {"threshold.json",
       R"({"kind": "yardstick-validation", "suite": {"chip": "h100", "threshold": "high"}})",
       "suite.threshold"},
      {"nosuite.json", R"({"kind": "yardstick-validation"})", "suite: missing"},
      {"workloads.json", v + "{}}", "workloads: expected an array"},
      {"score.json", v + R"([{"id": "a", "outcome": "pass", "score": "high"}]})",
       "workloads[0].score"},
      {"outcome.json", v + R"([{"id": "a", "outcome": "meh"}]})", "workloads[0].outcome"},
      {"steps.json", v + R"([{"id": "a", "outcome": "pass", "step_times_s": [1, "x"]}]})",
       "workloads[0].step_times_s[1]"},
      {"diagonly.json", R"({"diagnosis": []})", "diagnosis.json alone"},
      {"diagbad.json", R"({"diagnosis": [{"rule": 3}]})", "diagnosis[0]"},
  };
  for (const Case& c : cases) {
    Write(dir + "/" + c.name, c.content);
    auto r = LoadReportInput(dir + "/" + c.name);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_NE(r.status().message().find(c.name), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
  }
  auto missing = LoadReportInput(dir + "/none.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.json"), std::string::npos);
  fs::create_directory(dir + "/emptydir");
  auto empty = LoadReportInput(dir + "/emptydir");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("needs run.json or validation.json"), std::string::npos);
  auto js = ReadChartJs(dir + "/chart.min.js");
  ASSERT_FALSE(js.ok());
  EXPECT_NE(js.status().message().find("libjs-chart.js"), std::string::npos);
  EXPECT_NE(js.status().message().find(dir + "/chart.min.js"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace html_report_test
}  // namespace ys::report::html
