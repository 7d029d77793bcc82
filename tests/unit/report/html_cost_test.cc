// The HTML report's Cost section (`yardstick report --prices`): the price model and, per
// workload, the figures of cost/throughput.h as formatted (hand-computed: 2.50/GPU-h blended,
// 10000 tokens/s/GPU -> 0.0694 per million tokens), the gap sentence, a proxy without reference,
// no section without --prices; and the command itself with a bad price model (exit 2, the file
// named), a bad token budget, and --tokens without --prices (exit 64).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "report/html/html_report.h"
#include "report/html/html_section.h"
#include "report/html/validation_view.h"

namespace ys::report::html {
// A namespace of the file's own: its file-local names stay its own in a unity batch.
namespace html_cost_test {
namespace {

namespace fs = std::filesystem;

const std::string kFakeChartJs = "var Chart = function () {};";

CostRequest Flat250(std::optional<int> gpus = std::nullopt) {
  CostRequest c;
  c.prices.name = "flat-cloud";
  c.prices.source = "test figures";
  c.prices.on_demand_per_gpu_hour = 2.5;
  c.prices.on_demand_share = 1;
  c.prices_path = "prices.toml";
  c.tokens = 15e12;
  c.tokens_text = "15T";
  c.gpus = gpus;
  return c;
}

ReportInput WithValidationAndProxy() {
  ReportInput in;
  in.source = "run-dir";
  RunDocument doc;
  doc.command = "run";
  doc.host.hostname = "node1";
  doc.measurements.push_back(
      {.name = "proxy.llama3.1_8b.tokens_per_s_per_gpu", .value = 10000, .unit = "tokens/s"});
  in.run = doc;
  ValidationView v;
  v.chip = "h100";
  v.workloads = {{.id = "gpt_oss_120b",
                  .outcome = "fail",
                  .score = 0.9,
                  .tokens_per_s_per_gpu = 10000,
                  .gpus = 512},
                 {.id = "unmeasured", .outcome = "fail"}};
  in.validation = v;
  in.cost = Flat250();
  return in;
}

std::string Section(const std::string& page, const std::string& id) {
  size_t a = page.find("<section id=\"" + id + "\">");
  if (a == std::string::npos) return "";
  return page.substr(a, page.find("</section>", a) - a);
}

TEST(HtmlCost, FiguresAgainstHandComputedValues) {
  std::string page = BuildHtmlReport(WithValidationAndProxy(), kFakeChartJs);
  std::string s = Section(page, "cost");
  ASSERT_FALSE(s.empty());
  EXPECT_NE(page.find("<a href=\"#cost\">Cost</a>"), std::string::npos);
  EXPECT_NE(
      s.find("Price model flat-cloud (test figures), from prices.toml: blended 2.50 USD/GPU-h "
             "= 100% on-demand at 2.50 + 0% reserved at 0.00 + 0% spot at 0.00"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("Token budget 15T (1.5e+13 tokens) on each workload&#39;s own GPUs (8 where "
                   "unknown)."),
            std::string::npos)
      << s;
  // The validated workload: 0.0694 per M tokens; 15T on its 512 GPUs in 33.91 days for
  // 1041685.33; at 90% of the reference (11111.1) the same model costs 11.1% more, 104170.67.
  EXPECT_NE(s.find("<tr><td>gpt_oss_120b in run-dir</td><td class=\"num\">10000.0</td><td "
                   "class=\"num\">11111.1</td><td class=\"num\">0.0694</td><td "
                   "class=\"num\">512</td><td class=\"num\">33.91</td><td "
                   "class=\"num\">1041685.33 USD</td><td>at 90.0% of reference a model costs "
                   "11.1% more: 104170.67 USD more</td></tr>"),
            std::string::npos)
      << s;
  // The proxy: no reference, 8 GPUs by default, its price an estimate.
  EXPECT_NE(s.find("<tr><td>proxy.llama3.1_8b in run-dir (estimate: a proxy of one training step, "
                   "not a run of the recipe)</td><td class=\"num\">10000.0</td><td "
                   "class=\"num\">-</td><td class=\"num\">0.0694</td><td class=\"num\">8</td>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("no reference throughput (no score"), std::string::npos);
  // A workload without a measured throughput is not priced.
  EXPECT_EQ(s.find("unmeasured"), std::string::npos);
}

TEST(HtmlCost, GpusOverrideAndAScoreAboveOne) {
  ReportInput in = WithValidationAndProxy();
  in.cost = Flat250(1024);
  in.validation->workloads[0].score = 1.25;
  std::string s = Section(BuildHtmlReport(in, kFakeChartJs), "cost");
  EXPECT_NE(s.find("on 1024 GPUs."), std::string::npos);
  EXPECT_NE(s.find("at 125.0% of reference a model costs 20.0% less:"), std::string::npos) << s;
}

TEST(HtmlCost, NothingToPriceSaysSo) {
  ReportInput in;
  in.source = "x";
  in.run = RunDocument{};
  in.cost = Flat250();
  std::string s = Section(BuildHtmlReport(in, kFakeChartJs), "cost");
  EXPECT_NE(s.find("No measured tokens/s/GPU to price"), std::string::npos);
}

TEST(HtmlCost, LeftOffWithoutPrices) {
  ReportInput in = WithValidationAndProxy();
  in.cost.reset();
  EXPECT_FALSE(CostSection(in).has_value());
  EXPECT_EQ(BuildHtmlReport(in, kFakeChartJs).find("id=\"cost\""), std::string::npos);
}

TEST(HtmlCost, ValidationThroughputFieldsAreChecked) {
  auto doc = nlohmann::json::parse(R"({"kind": "yardstick-validation",
    "suite": {"chip": "h100", "threshold": 0.95}, "verdict": {"pass": false, "text": "x"},
    "workloads": [{"id": "a", "outcome": "pass", "tokens_per_s_per_gpu": 5, "gpus": 16,
                   "score": 1.0},
                  {"id": "b", "outcome": "fail", "tokens_per_s_per_gpu": null}]})");
  auto v = ValidationViewFromJson(doc, "v.json");
  ASSERT_TRUE(v.ok()) << v.status().message();
  auto found = ValidationThroughputs(*v, "v.json");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].gpus, 16);
  doc["workloads"][0]["gpus"] = "sixteen";
  auto bad = ValidationViewFromJson(doc, "v.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "v.json: workloads[0].gpus: expected a whole number > 0 or null, found a string");
  doc["workloads"][0]["gpus"] = 16;
  doc["workloads"][0]["tokens_per_s_per_gpu"] = "fast";
  bad = ValidationViewFromJson(doc, "v.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "v.json: workloads[0].tokens_per_s_per_gpu: expected a number or null, found a string");
}

// The binary, as an operator runs it: exit status, and stderr.
struct Ran {
  int rc = -1;
  std::string err;
};
Ran Yardstick(const std::string& args) {
  std::string dir = (fs::temp_directory_path() / "ys-html-cost-XXXXXX").string();
  EXPECT_NE(::mkdtemp(dir.data()), nullptr);
  std::string err = dir + "/err";
  int status =
      std::system(("'" YS_BINARY "' report " + args + " >/dev/null 2>'" + err + "'").c_str());
  std::ifstream in(err);
  Ran r{WIFEXITED(status) ? WEXITSTATUS(status) : -1,
        std::string(std::istreambuf_iterator<char>(in), {})};
  fs::remove_all(dir);
  return r;
}

class HtmlCostCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / "ys-html-cost-cmd-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    std::ofstream(dir_ + "/chart.js") << kFakeChartJs;
    run_ = std::string(YS_FIXTURES_DIR) + "/runs/report-3node";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Args(const std::string& extra) {
    return "'" + run_ + "' -o '" + dir_ + "/r.html' --chartjs '" + dir_ + "/chart.js' " + extra;
  }
  std::string dir_, run_;
};

TEST_F(HtmlCostCommand, BadPriceModelExits2NamingTheFile) {
  std::string missing = dir_ + "/none.toml";
  Ran r = Yardstick(Args("--prices '" + missing + "'"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  std::string neg = dir_ + "/neg.toml";
  std::ofstream(neg) << "[gpu_hour]\non_demand = 4.0\nreserved = -2.0\nspot = 1.0\n[shares]\n"
                        "on_demand = 0.25\nreserved = 0.5\nspot = 0.25\n";
  r = Yardstick(Args("--prices '" + neg + "'"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find(neg), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(neg + ":3: [gpu_hour] reserved: "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/r.html"));
}

TEST_F(HtmlCostCommand, BadTokensAndTokensWithoutPrices) {
  std::string prices = std::string(YS_SOURCE_DIR) + "/examples/prices.toml";
  Ran r = Yardstick(Args("--prices '" + prices + "' --tokens 15X"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--tokens"), std::string::npos) << r.err;
  r = Yardstick(Args("--tokens 15T"));
  EXPECT_EQ(r.rc, 64) << r.err;
  EXPECT_NE(r.err.find("need --prices"), std::string::npos) << r.err;
}

TEST_F(HtmlCostCommand, PricesTheFixture) {
  std::string prices = std::string(YS_SOURCE_DIR) + "/examples/prices.toml";
  Ran r = Yardstick(Args("--prices '" + prices + "' --tokens 15T"));
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream in(dir_ + "/r.html");
  std::string page(std::istreambuf_iterator<char>(in), {});
  std::string s = Section(page, "cost");
  ASSERT_FALSE(s.empty());
  EXPECT_NE(s.find("proxy.llama3.1_8b in "), std::string::npos);
  EXPECT_NE(s.find("gpt_oss_120b_bf16 in "), std::string::npos);
  EXPECT_NE(s.find("blended 2.25 USD/GPU-h"), std::string::npos);
}

}  // namespace
}  // namespace html_cost_test
}  // namespace ys::report::html
