// The real dcgmi diag and nvidia-smi nvlink outputs of tests/fixtures/real/{dcgmi,nvlink}
// (SOURCES.md there: where each came from and the verdict an operator gives): each gives that
// verdict, on the GPU and link the output names.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "validate/gpu_tool_run.h"

namespace ys::validate {
namespace {

RunDocument Ingest(const std::string& rel) {
  std::string path = std::string(YS_FIXTURES_DIR) + "/real/" + rel;
  auto doc = IngestGpuToolFile(path);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  if (!doc.ok() || !doc->has_value()) {
    ADD_FAILURE() << rel << ": not recognised";
    return {};
  }
  return **doc;
}

std::set<std::string> Entities(const CheckResult& c, const std::string& code) {
  std::set<std::string> out;
  for (const Finding& f : c.findings) {
    if (f.code == code) out.insert(f.entity);
  }
  return out;
}

TEST(GpuToolReal, H100DcgmDiagFailsGpuMemoryOnEveryGpu) {
  RunDocument doc = Ingest("dcgmi/h100_8gpu_r3_cuinit_fail.txt");
  ASSERT_EQ(doc.checks.size(), 1u);
  const CheckResult& c = doc.checks[0];
  EXPECT_EQ(c.unit_id, "gpu.dcgm_diag");
  EXPECT_EQ(c.outcome, Outcome::kFail);
  EXPECT_EQ(Entities(c, "YS-GPU-070"), (std::set<std::string>{"gpu0", "gpu1", "gpu2", "gpu3",
                                                              "gpu4", "gpu5", "gpu6", "gpu7"}));
  EXPECT_EQ(c.findings.size(), 8u);  // nothing but GPU Memory failed; persistence is only info
  const Finding& f = c.findings[3];
  EXPECT_NE(f.message.find("GPU Memory failed on GPU 3"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("'system not yet initialized'"), std::string::npos) << f.message;
  EXPECT_NE(f.fix.find("nvidia-fabricmanager"), std::string::npos);
  EXPECT_EQ(doc.host.gpu_driver, "560.35.03");
  EXPECT_EQ(doc.Verdict(), Outcome::kFail);
}

TEST(GpuToolReal, RtxPro6000DcgmDiagPassesWithSkips) {
  RunDocument doc = Ingest("dcgmi/rtx_pro_6000_blackwell_r3_skips.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kPass);
  EXPECT_TRUE(c.findings.empty());
  bool skipped = false;
  for (const auto& [k, v] : c.evidence) {
    skipped |= k == "skipped" && v.find("Targeted Stress") != std::string::npos &&
               v.find("GPU Memory") != std::string::npos;
  }
  EXPECT_TRUE(skipped);
  EXPECT_NE(c.summary.find("9 pass, 0 fail, 0 warn, 6 skip"), std::string::npos) << c.summary;
}

// DCGM 4.x: the pcie test's own process failed ("internal error during the test") while every
// GPU's pcie line passed: a fail with no GPU named, and a fix that does not send GPUs to RMA.
TEST(GpuToolReal, Dcgm4PcieInternalErrorFailsTheRunNotAGpu) {
  for (const char* f : {"dcgmi/l40s_4gpu_dcgm423_pcie_internal_error.txt",
                        "dcgmi/b200_8gpu_dcgm441_r2_pcie_internal_error.txt"}) {
    RunDocument doc = Ingest(f);
    const CheckResult& c = doc.checks.at(0);
    EXPECT_EQ(c.outcome, Outcome::kFail) << f;
    ASSERT_EQ(c.findings.size(), 1u) << f;
    EXPECT_EQ(c.findings[0].code, "YS-GPU-070");
    EXPECT_EQ(c.findings[0].entity, "node") << f;
    EXPECT_NE(c.findings[0].message.find("pcie failed (DCGM names no GPU)"), std::string::npos);
    EXPECT_NE(c.findings[0].fix.find("do not RMA"), std::string::npos) << c.findings[0].fix;
  }
  EXPECT_NE(Ingest("dcgmi/l40s_4gpu_dcgm423_pcie_internal_error.txt")
                .checks[0]
                .summary.find("8 pass, 1 fail, 0 warn, 0 skip"),
            std::string::npos);
  RunDocument b200 = Ingest("dcgmi/b200_8gpu_dcgm441_r2_pcie_internal_error.txt");
  EXPECT_NE(b200.checks[0].summary.find("16 pass, 1 fail, 0 warn, 0 skip"), std::string::npos)
      << b200.checks[0].summary;
  EXPECT_EQ(b200.host.gpu_driver, "570.172.08");
}

TEST(GpuToolReal, A10gDcgm4RunLevel2Passes) {
  RunDocument doc = Ingest("dcgmi/a10g_dcgm442_r2_pass.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kPass);
  EXPECT_TRUE(c.findings.empty());
  EXPECT_NE(c.summary.find("dcgmi diag 4.4.2"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("3 pass, 0 fail, 0 warn, 0 skip"), std::string::npos) << c.summary;
}

// The Hardware "Diagnostic" row counts (it was once taken for the header and dropped: 14 pass).
TEST(GpuToolReal, H200RunLevel3PassesWithEudSkipped) {
  RunDocument doc = Ingest("dcgmi/h200_8gpu_dcgm339_r3_pass_eud_skip.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.outcome, Outcome::kPass);
  EXPECT_TRUE(c.findings.empty());
  EXPECT_NE(c.summary.find("15 pass, 0 fail, 0 warn, 1 skip"), std::string::npos) << c.summary;
  EXPECT_EQ(doc.host.gpu_driver, "570.133.20");
}

TEST(GpuToolReal, V100TwoInactiveLinksOnGpu3) {
  RunDocument doc = Ingest("nvlink/v100_nvlink_s_two_inactive.txt");
  const CheckResult& c = doc.checks.at(0);
  EXPECT_EQ(c.unit_id, "gpu.nvlink");
  EXPECT_EQ(c.outcome, Outcome::kFail);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].code, "YS-GPU-045");
  EXPECT_EQ(c.findings[0].entity, "gpu3");
  EXPECT_NE(c.findings[0].message.find("links 3, 5 inactive (4 of 6"), std::string::npos)
      << c.findings[0].message;
}

TEST(GpuToolReal, Gb200AndH100LinksPass) {
  for (const char* f : {"nvlink/gb200_nvlink_s.txt", "nvlink/h100_nvlink_s_abridged.txt",
                        "nvlink/h100_nvlink_e_abridged.txt"}) {
    RunDocument doc = Ingest(f);
    const CheckResult& c = doc.checks.at(0);
    EXPECT_EQ(c.outcome, Outcome::kPass) << f;
    EXPECT_TRUE(c.findings.empty()) << f << ": " << c.findings.front().message;
  }
  RunDocument gb = Ingest("nvlink/gb200_nvlink_s.txt");
  EXPECT_NE(gb.checks[0].summary.find("2 GPU(s), 20 link(s)"), std::string::npos)
      << gb.checks[0].summary;
}

// gpud issue #1085: nvidia-smi says "all links are inActive" for a B200: an HGX module has all 18
// links connected, so every one is down. Before, the file was no NVLink output at all.
TEST(GpuToolReal, B200WithAllLinksInactiveFails) {
  RunDocument doc = Ingest("nvlink/b200_nvlink_s_all_inactive.txt");
  ASSERT_EQ(doc.checks.size(), 1u);
  const CheckResult& c = doc.checks[0];
  EXPECT_EQ(c.outcome, Outcome::kFail);
  EXPECT_EQ(Entities(c, "YS-GPU-045"), std::set<std::string>{"gpu2"});
  ASSERT_FALSE(c.findings.empty());
  EXPECT_NE(c.findings[0].message.find("every NVLink is inactive"), std::string::npos)
      << c.findings[0].message;
  EXPECT_NE(c.findings[0].message.find("B200 module has 18 NVLinks"), std::string::npos)
      << c.findings[0].message;
}

}  // namespace
}  // namespace ys::validate
