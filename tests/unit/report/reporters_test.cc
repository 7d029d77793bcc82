#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/finding_codes.h"
#include "core/run_document_json.h"
#include "report/console_reporter.h"
#include "report/junit_reporter.h"
#include "report/output.h"
#include "testing/golden.h"

namespace ys::report {
namespace {

RunDocument SampleDocument() {
  RunDocument d;
  d.command = "preflight";
  d.started_at = "2026-11-29T16:00:00Z";
  d.duration_ms = 312.5;
  d.tool.version = "0.1.0 (test)";
  d.tool.build_type = "RelWithDebInfo";
  d.tool.compiler = "GNU 12.2.0";
  d.host = HostInfo{
      "h100-bad-07", "6.8.0-60-generic", "x86_64", "/", "Intel(R) Xeon(R) Platinum 8480+", 16};
  d.warnings = {"clocks not locked"};
  CheckResult pass;
  pass.unit_id = "mem.settings";
  pass.summary = "THP, hugetlb, swap and memlock as expected";
  pass.duration_ms = 1.25;
  pass.Note("thp.enabled", "madvise");
  CheckResult fail;
  fail.unit_id = "cpu.frequency";
  fail.duration_ms = 2;
  Finding f = MakeFinding("YS-CPU-011", "cpu0-15", "turbo disabled: intel_pstate/no_turbo = 1");
  f.evidence = {{"/sys/devices/system/cpu/intel_pstate/no_turbo", "1"}};
  f.fix = "echo 0 > /sys/devices/system/cpu/intel_pstate/no_turbo";
  f.expected_recovery = "about 4% of step time";
  fail.Add(f);
  fail.Finalize();
  CheckResult warn;
  warn.unit_id = "mem.thp";
  Finding w = MakeFinding("YS-MEM-001", "node", "THP defrag <always> & \"stalls\"");
  w.fix = "echo madvise > /sys/kernel/mm/transparent_hugepage/defrag";
  warn.Add(w);
  warn.Finalize();
  CheckResult skip = CheckResult::Skip("no cpufreq driver (virtual machine)");
  skip.unit_id = "cpu.smt";
  CheckResult error = CheckResult::Error(Status::Invalid("/proc/meminfo: expected \"Key: value\""));
  error.unit_id = "numa.placement";
  d.checks = {pass, fail, warn, skip, error};
  return d;
}

TEST(ConsoleReporterTest, MatchesGolden) {
  std::ostringstream out;
  WriteConsole(SampleDocument(), ConsoleOptions{}, out);
  EXPECT_GOLDEN(out.str(), "console.txt");
}

TEST(ConsoleReporterTest, ColourOnlyWhenAsked) {
  std::ostringstream plain, color;
  WriteConsole(SampleDocument(), ConsoleOptions{.color = false}, plain);
  WriteConsole(SampleDocument(), ConsoleOptions{.color = true}, color);
  EXPECT_EQ(plain.str().find('\033'), std::string::npos);
  EXPECT_NE(color.str().find("\033[31m"), std::string::npos);
}

// Eight GPUs with the same inactive link, one with another: the console prints the eight once
// with their count and entities (fail before warn, as the unit gave them); the JSON keeps all nine.
RunDocument EightGpusLinkDown() {
  RunDocument d = SampleDocument();
  CheckResult links;
  links.unit_id = "gpu.nvlink";
  for (int i = 0; i < 8; ++i) {
    Finding f = MakeFinding("YS-GPU-045", "gpu" + std::to_string(i),
                            "NVLink link 7 inactive (17 of 18 active)");
    f.evidence = {{"active links", "17 of 18"}};
    f.fix = "nvidia-smi nvlink -s -i " + std::to_string(i);
    links.Add(f);
  }
  links.Add(MakeFinding("YS-GPU-045", "gpu3", "NVLink links 2,7 inactive (16 of 18 active)"));
  links.Finalize();
  d.checks = {links};
  return d;
}

TEST(ConsoleReporterTest, RepeatedFindingsPrintedOnceWithCount) {
  std::ostringstream out;
  WriteConsole(EightGpusLinkDown(), ConsoleOptions{}, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("       YS-GPU-045 ×8 (gpu0-gpu7): NVLink link 7 inactive (17 of 18 "
                      "active)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("       YS-GPU-045 gpu3: NVLink links 2,7 inactive"), std::string::npos);
  EXPECT_EQ(text.find("YS-GPU-045 gpu5"), std::string::npos) << text;
  // The fixes name each GPU: the one shown is said to be gpu0's.
  EXPECT_NE(text.find("fix: nvidia-smi nvlink -s -i 0\n         (evidence and fix as for gpu0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("9 findings"), std::string::npos);
  // Machine-readable output is never collapsed.
  auto j = ToJson(EightGpusLinkDown());
  EXPECT_EQ(j["checks"][0]["findings"].size(), 9u);
}

TEST(JunitReporterTest, MatchesGoldenAndEscapes) {
  std::ostringstream out;
  WriteJunit(SampleDocument(), out);
  EXPECT_GOLDEN(out.str(), "junit.xml");
  EXPECT_NE(out.str().find("&lt;always&gt; &amp; &quot;stalls&quot;"), std::string::npos);
  EXPECT_EQ(XmlEscape(std::string("a\x01z")), "az");
}

TEST(JsonReportTest, RoundTrips) {
  RunDocument d = SampleDocument();
  auto j = ToJson(d);
  EXPECT_EQ(j["verdict"], "fail");  // a fail wins over an error
  EXPECT_EQ(j["verdict_reason"],
            "1 unit failed: cpu.frequency (cpu.frequency: turbo disabled: intel_pstate/no_turbo "
            "= 1)");
  EXPECT_EQ(j["counts"]["fail"], 1);
  auto back = RunDocumentFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->checks.size(), 5u);
  EXPECT_EQ(back->checks[1].findings[0].code, "YS-CPU-011");
  EXPECT_EQ(back->checks[1].findings[0].expected_recovery, "about 4% of step time");
  EXPECT_EQ(ToJson(*back)["checks"], j["checks"]);
}

TEST(JsonReportTest, RejectsMalformedDocuments) {
  auto j = nlohmann::json::parse(ToJson(SampleDocument()).dump());
  auto bad = j;
  bad["schema_version"] = 99;
  EXPECT_NE(RunDocumentFromJson(bad).status().message().find("schema_version"), std::string::npos);
  bad = j;
  bad["checks"][0]["outcome"] = "great";
  EXPECT_NE(RunDocumentFromJson(bad).status().message().find("run.checks[0].outcome"),
            std::string::npos);
  bad = j;
  bad["checks"][1]["findings"][0].erase("fix");
  EXPECT_NE(RunDocumentFromJson(bad).status().message().find("findings[0].fix"), std::string::npos);
  EXPECT_FALSE(RunDocumentFromJson(nlohmann::json::array()).ok());
}

TEST(OutputTest, ExitCodes) {
  RunDocument d = SampleDocument();
  EXPECT_EQ(ExitCodeFor(d), 1);          // a fail wins over an error
  d.checks.erase(d.checks.begin() + 1);  // no fail; an error remains
  EXPECT_EQ(ExitCodeFor(d), 2);          // INCONCLUSIVE
  d.checks.pop_back();                   // warn and skip pass
  EXPECT_EQ(ExitCodeFor(d), 0);
}

TEST(OutputTest, SummaryLine) {
  EXPECT_EQ(SummaryLine(SampleDocument()),
            "preflight: 1 pass, 1 warn, 1 fail, 1 skip, 1 error in 0.31 s: FAIL: 1 unit failed: "
            "cpu.frequency (cpu.frequency: turbo disabled: intel_pstate/no_turbo = 1)");
}

// Skipped units of one family with one reason are one line; a lone skip keeps its own line.
TEST(ConsoleReporterTest, GroupsSkipsOfOneFamilyAndReason) {
  RunDocument d = SampleDocument();
  d.checks.clear();
  for (const char* id : {"gpu.clocks", "gpu.count", "gpu.ecc"}) {
    CheckResult s = CheckResult::Skip("NVML not found: libnvidia-ml.so.1");
    s.unit_id = id;
    d.checks.push_back(s);
  }
  CheckResult other = CheckResult::Skip("no InfiniBand port");
  other.unit_id = "ib.ports";
  d.checks.push_back(other);
  std::ostringstream out;
  WriteConsole(d, ConsoleOptions{}, out);
  std::string text = out.str();
  EXPECT_NE(text.find("SKIP   3 gpu.* checks skipped: NVML not found: libnvidia-ml.so.1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("gpu.count"), std::string::npos) << text;
  EXPECT_NE(text.find("ib.ports"), std::string::npos) << text;
  // Nothing judged: no pass.
  EXPECT_NE(text.find(": INCONCLUSIVE: 4 units skipped, none judged (gpu.clocks: NVML not found"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ys::report
