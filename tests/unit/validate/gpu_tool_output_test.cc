// dcgmi diag (table of DCGM 3 and 4, JSON of DCGM 3 and 4) and nvidia-smi nvlink -s/-e on
// literal strings: the GPU and link each finding lands on, and malformed input (file, line,
// what was expected).
#include "validate/gpu_tool_output.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "validate/gpu_tool_run.h"

namespace ys::validate {
namespace {

constexpr const char* kTop =
    "+---------------------------+------------------------------------------------+\n"
    "| Diagnostic                | Result                                         |\n"
    "+===========================+================================================+\n";

TEST(DcgmDiag, Dcgm4TablePerGpuLinesGiveTheFailingGpu) {
  std::string t =
      std::string(kTop) +
      "|-----  Metadata  ----------+------------------------------------------------|\n"
      "| DCGM Version              | 4.2.3                                          |\n"
      "+-----  Hardware  ----------+------------------------------------------------+\n"
      "| memory                    | Fail                                           |\n"
      "|                           | GPU0: Pass                                     |\n"
      "|                           | GPU1: Fail                                     |\n"
      "+---------------------------+------------------------------------------------+\n";
  auto d = ParseDcgmDiag(t, "d4.txt");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->dcgm_version, "4.2.3");
  ASSERT_EQ(d->results.size(), 3u);
  EXPECT_EQ(d->results[2].gpu, 1);
  EXPECT_EQ(d->results[2].status, DcgmStatus::kFail);
  RunDocument doc = DcgmDiagRunDocument(*d, "d4.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kFail);
  // The per-GPU lines judge, not the overall "Fail": gpu1 only.
  std::set<std::string> entities;
  for (const Finding& f : c.findings) entities.insert(f.entity);
  EXPECT_EQ(entities, (std::set<std::string>{"gpu1"}));
}

TEST(DcgmDiag, Dcgm3GpuListAndWarn) {
  std::string t =
      std::string(kTop) +
      "+-----  Stress  ------------+------------------------------------------------+\n"
      "| SM Stress                 | Warn - GPU: 2                                  |\n"
      "| Warning                   | GPU 2 clocks throttled                         |\n"
      "+---------------------------+------------------------------------------------+\n";
  auto d = ParseDcgmDiag(t, "d3.txt");
  ASSERT_TRUE(d.ok()) << d.status().message();
  RunDocument doc = DcgmDiagRunDocument(*d, "d3.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kWarn);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].code, "YS-GPU-071");
  EXPECT_EQ(c.findings[0].entity, "gpu2");
}

// The Hardware test named "Diagnostic" is a result, not the "| Diagnostic | Result |" header:
// it was dropped before, so its failure read as a pass.
TEST(DcgmDiag, TheDiagnosticTestIsNotTheHeader) {
  std::string t =
      std::string(kTop) +
      "+-----  Hardware  ----------+------------------------------------------------+\n"
      "| GPU Memory                | Pass - All                                     |\n"
      "| Diagnostic                | Fail - All                                     |\n"
      "+---------------------------+------------------------------------------------+\n" +
      kTop;  // a repeated table's header is still not a result
  auto d = ParseDcgmDiag(t, "diag.txt");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->results.size(), 2u);
  EXPECT_EQ(d->results[1].test, "Diagnostic");
  EXPECT_EQ(d->results[1].status, DcgmStatus::kFail);
  EXPECT_EQ(DcgmDiagRunDocument(*d, "diag.txt").checks.at(0).outcome, Outcome::kFail);
  EXPECT_TRUE(IsDcgmResultRow("| Diagnostic                | Fail - All            |"));
  EXPECT_FALSE(IsDcgmResultRow("| Diagnostic                | Result                |"));
}

TEST(DcgmDiag, JsonOfDcgm3WithNullsAndAWarningLineBefore) {
  std::string j =
      "WARNING: something\n{\"DCGM GPU Diagnostic\": {\"test_categories\": [{\"category\": "
      "\"Hardware\", \"tests\": [null, {\"name\": \"GPU Memory\", \"results\": [{\"gpu_ids\": "
      "\"0\", \"status\": \"PASS\"}, {\"gpu_ids\": 1, \"status\": \"FAIL\", \"warnings\": "
      "[\"GPU 1 memory error\"]}]}]}], \"version\": \"3.1.0\"}}";
  EXPECT_EQ(DetectGpuToolOutput(j), GpuToolOutput::kDcgmDiagJson);
  auto doc = IngestGpuToolText(j, "d.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const CheckResult& c = (*doc)->checks.at(0);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].entity, "gpu1");
  EXPECT_NE(c.findings[0].message.find("GPU 1 memory error"), std::string::npos);
}

TEST(DcgmDiag, Dcgm4JsonEntities) {
  std::string j =
      "{\"DCGM Diagnostic\": {\"version\": \"4.2.3\", \"test_categories\": [{\"category\": "
      "\"Stress\", \"tests\": [{\"name\": \"targeted_power\", \"results\": [{\"entity_group\": "
      "\"GPU\", \"entity_id\": 5, \"status\": \"Fail\", \"warnings\": [{\"message\": \"power "
      "below target\"}]}]}]}]}}";
  auto d = ParseDcgmDiag(j, "d4.json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->results.size(), 1u);
  EXPECT_EQ(d->results[0].gpu, 5);
  EXPECT_EQ(d->results[0].warnings, (std::vector<std::string>{"power below target"}));
}

TEST(DcgmDiag, MalformedInputSaysWhere) {
  auto bad = ParseDcgmDiag(std::string(kTop) + "| PCIe  Pass\n", "bad.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.txt:4: inside the dcgmi diag table"),
            std::string::npos)
      << bad.status().message();
  auto empty = ParseDcgmDiag(kTop, "empty.txt");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no dcgmi diag test result"), std::string::npos);
  auto json = ParseDcgmDiag("{\"DCGM GPU Diagnostic\": [", "j.json");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("j.json: not a JSON object"), std::string::npos);
}

TEST(Nvlink, ErrorsAndSpeedsInOneFile) {
  std::string t =
      "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n"
      "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n\t Link 2: 12.5 GB/s\n"
      "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-2)\n\t Link 0: 25 GB/s\n"
      "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n"
      "\t Link 0: Replay Errors: 7\n\t Link 0: Recovery Errors: 0\n\t Link 1: CRC Errors: 12\n"
      "\t Link 2: Recovery Errors: 1\n";
  auto gpus = ParseNvlinkOutput(t, "nv.txt");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].links.size(), 3u);
  EXPECT_EQ((*gpus)[0].links[0].counters.at("Replay Errors"), 7u);
  RunDocument doc = NvlinkRunDocument(*gpus, "nv.txt");
  const CheckResult& c = doc.checks.at(0);
  std::map<std::string, std::string> by_code;
  for (const Finding& f : c.findings) by_code[f.code] = f.entity + ": " + f.message;
  EXPECT_EQ(by_code.size(), 3u);
  EXPECT_EQ(by_code["YS-GPU-046"], "gpu0: 7 NVLink replay errors (link 0: 7)");
  EXPECT_EQ(by_code["YS-GPU-047"], "gpu0: 1 NVLink recovery errors (link 2: 1)");
  EXPECT_NE(by_code["YS-GPU-048"].find("gpu0: NVLink link 2 slower"), std::string::npos);
  EXPECT_EQ(c.outcome, Outcome::kFail);
}

// An H100 PCIe pair with its NVLink bridges: 12 of the 18 links nvidia-smi prints are connected
// by design, the other 6 are printed inactive. Before, both GPUs failed YS-GPU-045.
std::string H100PcieBridged(int active) {
  std::string t;
  for (int g = 0; g < 2; ++g) {
    t += "GPU " + std::to_string(g) + ": NVIDIA H100 PCIe (UUID: GPU-" + std::to_string(g) + ")\n";
    for (int l = 0; l < 18; ++l) {
      t += "\t Link " + std::to_string(l) + ": " + (l < active ? "26.562 GB/s" : "<inactive>") +
           "\n";
    }
  }
  return t;
}

TEST(Nvlink, H100PcieBridgePairUsesTwelveOfEighteenLinks) {
  auto gpus = ParseNvlinkOutput(H100PcieBridged(12), "pcie.txt");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  RunDocument doc = NvlinkRunDocument(*gpus, "pcie.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kPass);
  EXPECT_TRUE(c.findings.empty()) << c.findings.front().message;
  bool noted = false;
  for (const auto& [k, v] : c.evidence) {
    if (k == "gpu0" && v.find("12 of 18 links active (H100 PCIe: an NVLink bridge connects 12") !=
                           std::string::npos)
      noted = true;
  }
  EXPECT_TRUE(noted);
}

TEST(Nvlink, H100PcieBridgeWithLinksMissingFails) {
  auto gpus = ParseNvlinkOutput(H100PcieBridged(8), "pcie.txt");
  ASSERT_TRUE(gpus.ok());
  RunDocument doc = NvlinkRunDocument(*gpus, "pcie.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kFail);
  ASSERT_EQ(c.findings.size(), 2u);
  EXPECT_EQ(c.findings[0].code, "YS-GPU-045");
  EXPECT_EQ(c.findings[0].message,
            "8 of the 12 links an NVLink bridge connects are active (H100 PCIe: an NVLink bridge "
            "connects 12 links; without a bridge none is active)");
  EXPECT_NE(c.findings[0].fix.find("reseat every NVLink bridge"), std::string::npos);
}

TEST(Nvlink, AllLinksInactiveIsFineOnAPcieCardAndAFailureOnAModule) {
  const std::string t =
      "GPU 0: NVIDIA H100 PCIe (UUID: GPU-a)\n"
      "\t NVML: Unable to retrieve NVLink information as all links are inActive\n"
      "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n"
      "\t NVML: Unable to retrieve NVLink information as all links are inActive\n";
  EXPECT_EQ(DetectGpuToolOutput(t), GpuToolOutput::kNvlink);
  auto gpus = ParseNvlinkOutput(t, "inactive.txt");
  ASSERT_TRUE(gpus.ok()) << gpus.status().message();
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_TRUE((*gpus)[0].all_inactive);
  EXPECT_TRUE((*gpus)[0].links.empty());
  RunDocument doc = NvlinkRunDocument(*gpus, "inactive.txt");
  const CheckResult& c = doc.checks.at(0);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].entity, "gpu1");
  EXPECT_EQ(c.findings[0].code, "YS-GPU-045");
  EXPECT_EQ(c.outcome, Outcome::kFail);
}

// A bug report's nvlink section with GPU lines and no link under them: the run says nothing was
// shown (a skip), it is no malformed input (preflight --bug-report exited 2 on it).
TEST(Nvlink, GpuLinesWithoutLinksAreASkipNotAnError) {
  const std::string t =
      "GPU 0: NVIDIA A100 80GB PCIe (UUID: GPU-a)\nGPU 1: NVIDIA A100 80GB PCIe (UUID: GPU-b)\n";
  auto doc = IngestGpuToolText(t, "report [nvidia-smi nvlink]", GpuToolOutput::kNvlink);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  ASSERT_TRUE(doc->has_value());
  const CheckResult& c = (*doc)->checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kSkip);
  EXPECT_NE(c.summary.find("printed no link state for its 2 GPU(s)"), std::string::npos)
      << c.summary;
}

TEST(Nvlink, MalformedLinkLine) {
  auto r = ParseNvlinkOutput("GPU 0: X (UUID: U)\n Link 0: fast\n", "n.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("n.txt:2: a counter"), std::string::npos)
      << r.status().message();
  auto none = ParseNvlinkOutput("hello\n", "none.txt");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no NVLink block"), std::string::npos);
}

TEST(GpuToolOutput, Detection) {
  EXPECT_EQ(DetectGpuToolOutput(kTop), GpuToolOutput::kDcgmDiagTable);
  EXPECT_EQ(DetectGpuToolOutput("GPU 0: H100 (UUID: x)\n  Link 0: <inactive>\n"),
            GpuToolOutput::kNvlink);
  EXPECT_EQ(DetectGpuToolOutput("iteration 1/10 | loss 2\n"), GpuToolOutput::kNone);
  EXPECT_EQ(DetectGpuToolOutput("{\"train\": 1}"), GpuToolOutput::kNone);
}

}  // namespace
}  // namespace ys::validate
