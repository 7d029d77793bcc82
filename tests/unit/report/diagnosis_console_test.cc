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

}  // namespace
}  // namespace ys
