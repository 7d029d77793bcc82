// The console diagnosis: ranked list with recovery range, confidence, cause, entity, fix, basis,
// evidence (capped) and codes; "no cause found" when empty; the rules not evaluated.
#include "report/diagnosis_console.h"

#include <gtest/gtest.h>

#include <sstream>

#include "testing/golden.h"

namespace ys {
namespace {

std::vector<Diagnosis> Two() {
  Diagnosis a;
  a.rule = "container.topology_file";
  a.layer = "container";
  a.cause = "NCCL_TOPO_FILE /etc/topo.xml is absent inside the container (not mounted)";
  a.entity = "process";
  a.evidence = {{"YS-ENV-001 process", "NCCL_TOPO_FILE /etc/topo.xml does not exist"},
                {"/etc/topo.xml", "does not exist"},
                {"e3", "3"},
                {"e4", "4"},
                {"e5", "5"},
                {"e6", "6"}};
  a.confidence = Confidence::kHigh;
  a.fix =
      "mount the topology file into the container (pyxis: "
      "--container-mounts=/etc/topo.xml:/etc/topo.xml)";
  a.recovery = {0.149, 1.128, "Exemplar case 4"};
  a.finding_codes = {"YS-ENV-001"};
  Diagnosis b;
  b.rule = "fabric.downtrained_link";
  b.layer = "fabric";
  b.cause = "link below its trained maximum: PCIe x8 of x16";
  b.entity = "0000:1b:00.0";
  b.confidence = Confidence::kMedium;
  b.fix = "reseat the card";
  b.recovery = {0, 0, "not quantified: depends on the traffic"};
  b.finding_codes = {"YS-PCI-001", "YS-PCI-002"};
  return {a, b};
}

TEST(DiagnosisConsoleTest, RankedListMatchesGolden) {
  std::ostringstream out;
  report::WriteDiagnosis(Two(), {"zz.rule: boom"}, /*color=*/false, out);
  EXPECT_GOLDEN(out.str(), "diagnosis_console.txt");
}

TEST(DiagnosisConsoleTest, EmptyListSaysNoCauseFound) {
  std::ostringstream out;
  report::WriteDiagnosis({}, {}, false, out);
  EXPECT_EQ(out.str(), "diagnosis: no cause found\n");
}

TEST(DiagnosisConsoleTest, RecoveryFormats) {
  EXPECT_EQ(report::FormatRecovery({0.12, 0.12, ""}), "+12.0%");
  EXPECT_EQ(report::FormatRecovery({0, 0.45, ""}), "+0.0% to +45.0%");
  EXPECT_EQ(report::FormatRecovery({0, 0, "not quantified: x"}), "not quantified");
}

TEST(DiagnosisConsoleTest, ColorMarksConfidenceOnly) {
  std::ostringstream out;
  report::WriteDiagnosis(Two(), {}, /*color=*/true, out);
  EXPECT_NE(out.str().find("\033[31mhigh"), std::string::npos);
  EXPECT_NE(out.str().find("\033[33mmedium"), std::string::npos);
}

// One rule firing alike on five workloads: one entry with the count and the workloads, ranked
// where the first stood; a rule with another recovery stays apart.
TEST(DiagnosisConsoleTest, RepeatedDiagnosesPrintedOnceWithCount) {
  std::vector<Diagnosis> ranked;
  for (int i = 1; i <= 5; ++i) {
    Diagnosis d;
    d.rule = "workload.low_mfu";
    d.layer = "workload";
    d.cause = "MFU below the healthy share of the GEMM peak";
    d.entity = "llama" + std::to_string(i);
    d.fix = "check the recipe's parallelism";
    d.recovery = {0.1, 0.2, "the peak share"};
    d.evidence = {{"mfu", std::to_string(30 + i) + "%"}};
    ranked.push_back(d);
  }
  ranked.push_back(Two()[1]);
  ranked.push_back(ranked.front());
  ranked.back().entity = "nemotron";
  ranked.back().recovery = {0.01, 0.02, "the peak share"};
  std::ostringstream out;
  report::WriteDiagnosis(ranked, {}, false, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("diagnosis: 7 causes"), std::string::npos) << text;
  EXPECT_NE(text.find("  1. +10.0% to +20.0%   medium workload       workload.low_mfu  ×5 "
                      "(llama1-llama5)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("evidence: mfu = 31%\n     evidence: as for llama1; --json lists each"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2. not quantified"), std::string::npos) << text;
  EXPECT_NE(text.find("  3. +1.0% to +2.0%"), std::string::npos) << text;
  EXPECT_EQ(text.find("llama2  "), std::string::npos) << text;
}

}  // namespace
}  // namespace ys
