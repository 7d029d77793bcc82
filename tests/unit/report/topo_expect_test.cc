// topo --expect: the real `nvidia-smi topo -m` outputs of tests/fixtures/real/topo (SOURCES.md
// there) are read cell by cell, and a matrix compared with one lists exactly the cells that
// differ; malformed input names the file, the line and what was expected.
#include "report/topo_expect.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace ys::report {
namespace {

std::string Real(const std::string& name) {
  std::ifstream in(std::string(YS_FIXTURES_DIR) + "/real/topo/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A matrix as BuildTopoMatrix makes it, from the file's own cells (so an unchanged copy agrees).
TopoMatrix MatrixOf(const SmiTopo& t) {
  TopoMatrix m;
  for (const std::string& c : t.columns) {
    TopoDevice d;
    d.kind = c.rfind("GPU", 0) == 0 ? TopoDevice::Kind::kGpu : TopoDevice::Kind::kNic;
    d.label = c;
    d.name = t.nic_names.count(c) ? t.nic_names.at(c) : c;
    m.devices.push_back(d);
  }
  for (const SmiTopoRow& r : t.rows) {
    std::vector<TopoCell> row;
    for (const std::string& cell : r.cells) row.push_back({.link = cell});
    m.cells.push_back(row);
  }
  return m;
}

TEST(TopoExpect, ReadsTheHgxH100Matrix) {
  auto t = ParseSmiTopo(Real("hgx_h100_8gpu_nv18_nic_pix_partial.txt"), "hgx");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->columns.size(), 18u);  // 8 GPUs, 10 NICs
  ASSERT_EQ(t->rows.size(), 11u);     // 8 GPU rows and the NIC0-NIC2 rows the copy keeps
  // Each GPU has exactly one NIC at PIX (one PCIe switch), NV18 to every other GPU.
  for (size_t g = 0; g < 8; ++g) {
    int pix = 0;
    for (size_t k = 0; k < t->columns.size(); ++k) {
      const std::string& cell = t->rows[g].cells[k];
      if (k < 8 && k != g) {
        EXPECT_EQ(cell, "NV18");
      }
      pix += cell == "PIX";
    }
    EXPECT_EQ(pix, 1) << t->rows[g].label;
  }
  EXPECT_EQ(t->rows[3].cells[13], "PIX");  // GPU3 - NIC5
  EXPECT_EQ(t->rows[4].cpu_affinity, "56-111,168-223");
}

TEST(TopoExpect, ReadsSpacedAndMpForms) {
  auto four = ParseSmiTopo(Real("h100_4gpu_nv6_nic_pix.txt"), "four");
  ASSERT_TRUE(four.ok()) << four.status().message();
  EXPECT_EQ(four->columns.size(), 8u);
  EXPECT_EQ(four->rows.size(), 8u);
  EXPECT_EQ(four->rows[2].cells[6], "PIX");
  auto mp = ParseSmiTopo(Real("rtx_pro_6000_blackwell_2gpu_topo_mp.txt"), "mp");
  ASSERT_TRUE(mp.ok()) << mp.status().message();
  EXPECT_EQ(mp->columns, (std::vector<std::string>{"GPU0", "GPU1"}));
  EXPECT_EQ(mp->rows[1].cells[0], "PIX");
  EXPECT_EQ(mp->rows[1].cpu_affinity, "0-47");
}

TEST(TopoExpect, ListsExactlyTheDifferingCells) {
  auto t = ParseSmiTopo(Real("h100_4gpu_nv6_nic_pix.txt"), "four");
  ASSERT_TRUE(t.ok());
  TopoMatrix m = MatrixOf(*t);
  TopoComparison same = CompareTopo(m, *t);
  EXPECT_EQ(same.compared, 64);
  EXPECT_TRUE(same.differences.empty());
  m.cells[1][5].link = "PHB";  // GPU1 - NIC1 one bridge further here
  m.cells[0][1].link = "NV4";  // two links of six down
  TopoComparison c = CompareTopo(m, *t);
  ASSERT_EQ(c.differences.size(), 2u);
  EXPECT_EQ(c.differences[0].row, "GPU0");
  EXPECT_EQ(c.differences[0].column, "GPU1");
  EXPECT_EQ(c.differences[0].expected, "NV6");
  EXPECT_EQ(c.differences[0].here, "NV4");
  EXPECT_NE(TopoComparisonText(c, "four").find("GPU1 - NIC1: expected PIX, here PHB"),
            std::string::npos);
}

TEST(TopoExpect, NicsMatchByLegendName) {
  std::string text =
      "\tGPU0\tNIC0\tCPU Affinity\nGPU0\t X \tPIX\t0-3\nNIC0\tPIX\t X \n\nNIC Legend:\n\n"
      "  NIC0: mlx5_4\n";
  auto t = ParseSmiTopo(text, "legend");
  ASSERT_TRUE(t.ok()) << t.status().message();
  TopoMatrix m;
  m.devices = {{.kind = TopoDevice::Kind::kGpu, .label = "GPU0"},
               {.kind = TopoDevice::Kind::kNic, .label = "NIC2", .name = "mlx5_4"},
               {.kind = TopoDevice::Kind::kNic, .label = "NIC0", .name = "mlx5_0"}};
  m.cells = {{{.link = "X"}, {.link = "PIX"}, {.link = "SYS"}},
             {{.link = "PIX"}, {.link = "X"}, {.link = "SYS"}},
             {{.link = "SYS"}, {.link = "SYS"}, {.link = "X"}}};
  TopoComparison c = CompareTopo(m, *t);
  EXPECT_TRUE(c.differences.empty());  // the file's NIC0 is this host's mlx5_4 (NIC2)
  EXPECT_EQ(c.compared, 4);
  EXPECT_EQ(c.only_here, (std::vector<std::string>{"NIC0 mlx5_0"}));
}

TEST(TopoExpect, MalformedInput) {
  auto none = ParseSmiTopo("hello\n", "none.txt");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("none.txt: no topology matrix"), std::string::npos);
  auto short_row = ParseSmiTopo("  GPU0 GPU1 CPU Affinity\nGPU0  X\n", "short.txt");
  ASSERT_FALSE(short_row.ok());
  EXPECT_NE(short_row.status().message().find("short.txt:2: the row of GPU0: expected 2 cells"),
            std::string::npos)
      << short_row.status().message();
}

}  // namespace
}  // namespace ys::report
