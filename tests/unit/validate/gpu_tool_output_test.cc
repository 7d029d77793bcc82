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
