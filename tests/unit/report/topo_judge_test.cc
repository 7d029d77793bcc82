// topo --from: a saved `nvidia-smi topo -m` judged on its own. The real outputs of
// tests/fixtures/real/topo get the verdicts SOURCES.md there wrote down before yardstick ran on
// them; literal matrices cover what no real sample shows (a missing NVLink, links down, bridged
// PCIe cards, a partial mesh by design, a NIC across the socket, no NUMA affinity, a fragment).
#include "report/topo_judge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ys::report {
namespace {

std::string RealTopoText(const std::string& name) {
  std::ifstream in(std::string(YS_FIXTURES_DIR) + "/real/topo/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TopoJudgeResult JudgeText(const std::string& text) {
  auto t = ParseSmiTopo(text, "test");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? JudgeSmiTopo(*t) : TopoJudgeResult{};
}

const TopoJudgement& Area(const TopoJudgeResult& r, const std::string& area) {
  for (const TopoJudgement& j : r.judgements) {
    if (j.area == area) return j;
  }
  static const TopoJudgement kNone{.area = "absent", .judged = false};
  ADD_FAILURE() << "no judgement " << area;
  return kNone;
}

std::string AllEvidence(const TopoJudgement& j) {
  std::string s;
  for (const std::string& e : j.evidence) s += e + "; ";
  return s;
}

// One row of SOURCES.md: the verdict and each judgement's state; "-" is "not judged".
struct RealVerdict {
  std::string file;
  VerdictState verdict;
  std::string nvlink, placement, affinity;
};

std::string StateOf(const TopoJudgement& j) { return j.judged ? VerdictStateName(j.state) : "-"; }

TEST(TopoJudge, RealSamplesGetTheVerdictsWrittenInSourcesMd) {
  const RealVerdict kRows[] = {
      {"hgx_h100_8gpu_nv18_nic_pix_partial.txt", VerdictState::kPass, "pass", "pass", "pass"},
      {"h100_4gpu_nv6_nic_pix.txt", VerdictState::kPass, "pass", "pass", "pass"},
      {"rtx_pro_6000_blackwell_2gpu_topo_mp.txt", VerdictState::kPass, "pass", "-", "pass"},
      {"pcie_8gpu_mlx4_socket0_fragment.txt", VerdictState::kInconclusive, "inconclusive",
       "inconclusive", "inconclusive"},
      {"rtx_5090_2gpu_phb.txt", VerdictState::kPass, "pass", "-", "pass"},
      {"gb200_4gpu_nv18.txt", VerdictState::kPass, "pass", "-", "pass"},
  };
  for (const RealVerdict& row : kRows) {
    SCOPED_TRACE(row.file);
    std::string text = RealTopoText(row.file);
    ASSERT_FALSE(text.empty());
    TopoJudgeResult r = JudgeText(text);
    EXPECT_EQ(r.state, row.verdict) << r.reason;
    EXPECT_EQ(StateOf(Area(r, "nvlink")), row.nvlink) << Area(r, "nvlink").message;
    EXPECT_EQ(StateOf(Area(r, "nic placement")), row.placement) << Area(r, "nic placement").message;
    EXPECT_EQ(StateOf(Area(r, "affinity")), row.affinity) << Area(r, "affinity").message;
  }
}

TEST(TopoJudge, RealSamplesStateTheirEvidence) {
  TopoJudgeResult hgx = JudgeText(RealTopoText("hgx_h100_8gpu_nv18_nic_pix_partial.txt"));
  EXPECT_EQ(Area(hgx, "nvlink").confidence, Confidence::kHigh);
  EXPECT_NE(Area(hgx, "nvlink").message.find("NV18 on all 28 GPU pairs"), std::string::npos);
  EXPECT_NE(AllEvidence(Area(hgx, "nic placement")).find("GPU3-NIC5 PIX"), std::string::npos);

  TopoJudgeResult pcie = JudgeText(RealTopoText("rtx_pro_6000_blackwell_2gpu_topo_mp.txt"));
  EXPECT_NE(Area(pcie, "nvlink").message.find("PCIe only"), std::string::npos);
  EXPECT_EQ(AllEvidence(Area(pcie, "nvlink")), "GPU pairs: 1 PIX; ");
  EXPECT_NE(Area(pcie, "nic placement").message.find("no NIC"), std::string::npos);

  // The cut copy: the pairs no row shows, and GPU4's NIC across the socket, are both named.
  TopoJudgeResult cut = JudgeText(RealTopoText("pcie_8gpu_mlx4_socket0_fragment.txt"));
  const TopoJudgement& nv = Area(cut, "nvlink");
  EXPECT_EQ(nv.evidence.front(), "GPU5-GPU6");
  EXPECT_NE(nv.message.find("3 of 28 GPU pairs are not in the copy"), std::string::npos);
  const TopoJudgement& nic = Area(cut, "nic placement");
  EXPECT_NE(nic.message.find("GPU5, GPU6, GPU7: GPU-NIC cells not in the copy"), std::string::npos)
      << nic.message;
  EXPECT_NE(nic.message.find("GPU4: nearest NIC is SYS"), std::string::npos) << nic.message;
  EXPECT_NE(AllEvidence(nic).find("GPU4-mlx4_0 SYS"), std::string::npos);
  EXPECT_NE(AllEvidence(nic).find("GPU0-mlx4_0 PHB"), std::string::npos);
}

// The 4 x H100 NV6 matrix with one cell pair changed.
std::string H100With(const std::string& gpu0_gpu3, const std::string& gpu1_gpu2) {
  return "  GPU0 GPU1 GPU2 GPU3 NIC0 CPU Affinity NUMA Affinity\n"
         "GPU0 X NV6 NV6 " +
         gpu0_gpu3 +
         " PIX 0-7 0\n"
         "GPU1 NV6 X " +
         gpu1_gpu2 +
         " NV6 PIX 0-7 0\n"
         "GPU2 NV6 " +
         gpu1_gpu2 +
         " X NV6 SYS 8-15 1\n"
         "GPU3 " +
         gpu0_gpu3 + " NV6 NV6 X SYS 8-15 1\n";
}

TEST(TopoJudge, MissingNvlinkOnAnSxmBoardFailsNamingThePair) {
  TopoJudgeResult r = JudgeText(H100With("SYS", "NV6"));
  EXPECT_EQ(r.state, VerdictState::kFail);
  const TopoJudgement& nv = Area(r, "nvlink");
  EXPECT_EQ(nv.state, VerdictState::kFail);
  EXPECT_EQ(nv.confidence, Confidence::kHigh);  // 5 of 6 pairs NVLinked
  EXPECT_EQ(nv.evidence.front(), "GPU0-GPU3 SYS");
  EXPECT_NE(nv.message.find("5 of 6 GPU pairs show NV6"), std::string::npos) << nv.message;
  EXPECT_FALSE(nv.fix.empty());
}

TEST(TopoJudge, FewerLinksThanTheOtherPairsIsLinksDown) {
  TopoJudgeResult r = JudgeText(H100With("NV6", "NV4"));
  const TopoJudgement& nv = Area(r, "nvlink");
  EXPECT_EQ(nv.state, VerdictState::kFail);
  EXPECT_EQ(nv.evidence.front(), "GPU1-GPU2 NV4");
  EXPECT_EQ(r.state, VerdictState::kFail);
}

TEST(TopoJudge, AGpuThatLostAllItsNvlinksIsNamed) {
  std::string text =
      "  GPU0 GPU1 GPU2 GPU3 CPU Affinity NUMA Affinity\n"
      "GPU0 X NV18 NV18 NODE 0-7 0\nGPU1 NV18 X NV18 NODE 0-7 0\n"
      "GPU2 NV18 NV18 X NODE 0-7 0\nGPU3 NODE NODE NODE X 0-7 0\n";
  const TopoJudgement nv = Area(JudgeText(text), "nvlink");
  EXPECT_EQ(nv.state, VerdictState::kFail);
  EXPECT_EQ(nv.confidence, Confidence::kMedium);  // half the pairs: a GPU of four lost them all
  EXPECT_NE(nv.message.find("every such pair involves GPU3"), std::string::npos) << nv.message;
}

TEST(TopoJudge, BridgedPcieCardsAreNotFailedForLinksTheyDoNotHave) {
  std::string text =
      "  GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 CPU Affinity NUMA Affinity\n"
      "GPU0 X NV4 SYS SYS SYS SYS 0-7 0\nGPU1 NV4 X SYS SYS SYS SYS 0-7 0\n"
      "GPU2 SYS SYS X NV4 SYS SYS 8-15 1\nGPU3 SYS SYS NV4 X SYS SYS 8-15 1\n"
      "GPU4 SYS SYS SYS SYS X PIX 8-15 1\nGPU5 SYS SYS SYS SYS PIX X 8-15 1\n";
  TopoJudgeResult r = JudgeText(text);
  const TopoJudgement& nv = Area(r, "nvlink");
  EXPECT_EQ(nv.state, VerdictState::kPass);
  EXPECT_NE(nv.message.find("two by two"), std::string::npos);
  ASSERT_EQ(nv.notes.size(), 1u);
  EXPECT_NE(nv.notes[0].find("GPU4, GPU5 have no NVLink bridge"), std::string::npos);
  EXPECT_EQ(r.state, VerdictState::kPass);
  // A bridge with links down among full ones warns; it does not fail.
  std::string down = text;
  down.replace(down.find("GPU2 SYS SYS X NV4"), 18, "GPU2 SYS SYS X NV2");
  down.replace(down.find("GPU3 SYS SYS NV4"), 16, "GPU3 SYS SYS NV2");
  EXPECT_EQ(Area(JudgeText(down), "nvlink").state, VerdictState::kWarn);
}

TEST(TopoJudge, APartialMeshWithTheSameDegreeEverywhereIsADesign) {
  // Eight GPUs, each NVLinked to four peers (the DGX-1 hybrid cube-mesh pattern).
  const int kPeers[8][4] = {{1, 2, 3, 4}, {0, 2, 3, 5}, {0, 1, 3, 6}, {0, 1, 2, 7},
                            {0, 5, 6, 7}, {1, 4, 6, 7}, {2, 4, 5, 7}, {3, 4, 5, 6}};
  std::string text = "  GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7 CPU Affinity\n";
  for (int i = 0; i < 8; ++i) {
    text += "GPU" + std::to_string(i);
    for (int j = 0; j < 8; ++j) {
      bool nv = std::find(std::begin(kPeers[i]), std::end(kPeers[i]), j) != std::end(kPeers[i]);
      text += i == j ? " X" : nv ? " NV1" : " SYS";
    }
    text += i < 4 ? " 0-19\n" : " 20-39\n";
  }
  const TopoJudgement nv = Area(JudgeText(text), "nvlink");
  EXPECT_EQ(nv.state, VerdictState::kPass) << nv.message;
  EXPECT_EQ(nv.confidence, Confidence::kMedium);
  EXPECT_NE(nv.message.find("4 of its 7 peers"), std::string::npos);
}

TEST(TopoJudge, ANicAcrossTheSocketWarnsAndNamesTheCells) {
  std::string text =
      "  GPU0 GPU1 GPU2 GPU3 NIC0 NIC1 CPU Affinity NUMA Affinity\n"
      "GPU0 X NV12 NV12 NV12 PXB NODE 0-15 0\nGPU1 NV12 X NV12 NV12 NODE PXB 0-15 0\n"
      "GPU2 NV12 NV12 X NV12 SYS SYS 16-31 1\nGPU3 NV12 NV12 NV12 X SYS SYS 16-31 1\n"
      "\nNIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n";
  TopoJudgeResult r = JudgeText(text);
  const TopoJudgement& nic = Area(r, "nic placement");
  EXPECT_EQ(nic.state, VerdictState::kWarn);
  EXPECT_EQ(nic.confidence, Confidence::kHigh);
  EXPECT_NE(nic.message.find("GPU2, GPU3: nearest NIC is SYS"), std::string::npos) << nic.message;
  EXPECT_NE(nic.message.find("while GPU0, GPU1 have a NIC on their side"), std::string::npos);
  EXPECT_EQ(nic.evidence[2], "GPU2-NIC0 (mlx5_0) SYS");
  EXPECT_EQ(r.state, VerdictState::kWarn);
  // Every GPU at SYS from every NIC: still across, with less certainty that it matters.
  std::string all_far = text;
  for (const char* near : {"PXB NODE", "NODE PXB"}) {
    all_far.replace(all_far.find(near), 8, "SYS SYS ");
  }
  const TopoJudgement far = Area(JudgeText(all_far), "nic placement");
  EXPECT_EQ(far.state, VerdictState::kWarn);
  EXPECT_EQ(far.confidence, Confidence::kMedium);
}

TEST(TopoJudge, NoNumaAffinityWarnsOnlyWhereThereIsMoreThanOneNode) {
  std::string two_sockets =
      "  GPU0 GPU1 CPU Affinity NUMA Affinity GPU NUMA ID\n"
      "GPU0 X SYS 0-15 N/A N/A\nGPU1 SYS X 16-31 1 N/A\n";
  TopoJudgeResult r = JudgeText(two_sockets);
  const TopoJudgement& a = Area(r, "affinity");
  EXPECT_EQ(a.state, VerdictState::kWarn);
  EXPECT_EQ(a.evidence.front(), "GPU0: CPU 0-15, NUMA N/A");
  EXPECT_FALSE(a.fix.empty());
  std::string one_node =
      "  GPU0 GPU1 CPU Affinity NUMA Affinity GPU NUMA ID\n"
      "GPU0 X PHB N/A N/A N/A\nGPU1 PHB X N/A N/A N/A\n";
  const TopoJudgement one = Area(JudgeText(one_node), "affinity");
  EXPECT_EQ(one.state, VerdictState::kPass);
  EXPECT_NE(one.message.find("2 GPU(s) show no CPU/NUMA affinity (N/A)"), std::string::npos);
  EXPECT_NE(one.message.find("one NUMA node"), std::string::npos);
}

TEST(TopoJudge, AFragmentIsInconclusiveNotPass) {
  // The header and the first row of an 8-GPU matrix: most pairs are in no row.
  std::string text =
      "  GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7 NIC0 CPU Affinity NUMA Affinity\n"
      "GPU0 X NV18 NV18 NV18 NV18 NV18 NV18 NV18 PIX 0-55 0\n";
  TopoJudgeResult r = JudgeText(text);
  EXPECT_EQ(r.state, VerdictState::kInconclusive);
  EXPECT_EQ(Area(r, "nvlink").state, VerdictState::kInconclusive);
  EXPECT_NE(Area(r, "nvlink").message.find("21 of 28 GPU pairs are not in the copy"),
            std::string::npos);
  EXPECT_EQ(r.rows, 1);
  // One GPU and nothing else: nothing applies, which is not a PASS either.
  TopoJudgeResult lone = JudgeText("  GPU0\nGPU0 X\n");
  EXPECT_EQ(lone.state, VerdictState::kInconclusive);
}

TEST(TopoJudge, TextStatesEachJudgementAndTheVerdictLast) {
  std::string out = TopoJudgeText(JudgeText(H100With("SYS", "NV6")), "saved.txt");
  EXPECT_EQ(out.rfind("topo --from saved.txt: 4 GPU(s), 1 NIC(s); 4 of 5 device rows", 0), 0u)
      << out;
  EXPECT_NE(out.find("  nvlink        FAIL (high confidence): NVLink missing or down: "
                     "GPU0-GPU3 SYS"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    evidence: GPU0-GPU3 SYS; 5 of 6 GPU pairs show NV6"), std::string::npos);
  EXPECT_NE(out.find("    fix: "), std::string::npos);
  EXPECT_NE(out.find("\nverdict: FAIL: nvlink: NVLink missing"), std::string::npos) << out;
}

}  // namespace
}  // namespace ys::report
