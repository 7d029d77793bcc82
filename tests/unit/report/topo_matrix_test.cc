#include "report/topo_matrix.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "checks/check.h"
#include "gpu/gpu_snapshot_json.h"
#include "testing/check_test_util.h"
#include "testing/golden.h"

namespace ys::report {
namespace {

using ys::testing::FixturePath;
using ys::testing::TempHost;

const std::string kFixtures = YS_FIXTURES_DIR;
const std::string kH100State = kFixtures + "/nvml/healthy-h100x8.json";

// Output with the checkout's absolute paths replaced, so that goldens hold on any machine.
std::string Portable(std::string s) {
  for (size_t at; (at = s.find(kFixtures)) != std::string::npos;)
    s.replace(at, kFixtures.size(), "<fixtures>");
  return s;
}

struct Built {
  TopoMatrix m;
  std::string text;
  nlohmann::json json;
};

Built Build(const host::Host& host, const Result<gpu::GpuSnapshot>& gpus) {
  auto topo = host::LoadTopology(host);
  EXPECT_TRUE(topo.ok()) << topo.status().message();
  Built b{BuildTopoMatrix(host, *topo, gpus), "", nullptr};
  b.text = TopoMatrixText(b.m);
  b.json = nlohmann::json::parse(TopoMatrixJson(b.m));
  return b;
}

Built BuildFixture(const std::string& fixture, const Result<gpu::GpuSnapshot>& gpus) {
  auto host = host::Host::AtRoot(FixturePath(fixture));
  EXPECT_TRUE(host.ok());
  return Build(*host, gpus);
}

Result<gpu::GpuSnapshot> NoNvml() {
  return Status::NotFound("no recorded NVML state (give one with --nvml-state FILE)");
}

const TopoDevice& Device(const TopoMatrix& m, std::string_view label) {
  for (const auto& d : m.devices) {
    if (d.label == label) return d;
  }
  ADD_FAILURE() << "no device " << label;
  static TopoDevice none;
  return none;
}

std::string Cell(const Built& b, const std::string& row, const std::string& col) {
  return b.json["matrix"][row][col].get<std::string>();
}

bool HasNote(const TopoMatrix& m, std::string_view text) {
  for (const auto& n : m.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(TopoMatrixTest, HealthyH100x8MatchesGolden) {
  Built b = BuildFixture("healthy-8gpu", gpu::LoadGpuSnapshot(kH100State));
  EXPECT_GOLDEN(Portable(b.text), "topo_h100x8.txt");
}

TEST(TopoMatrixTest, HealthyH100x8Levels) {
  Built b = BuildFixture("healthy-8gpu", gpu::LoadGpuSnapshot(kH100State));
  ASSERT_TRUE(b.m.nvml);
  EXPECT_EQ(b.m.gpu_count(), 8u);
  EXPECT_EQ(b.m.devices.size(), 16u);
  EXPECT_EQ(Cell(b, "GPU0", "GPU0"), "X");
  EXPECT_EQ(Cell(b, "GPU0", "GPU7"), "NV18");
  EXPECT_EQ(b.json["pci_matrix"]["GPU0"]["GPU1"], "NODE");
  EXPECT_EQ(b.json["pci_matrix"]["GPU0"]["GPU4"], "SYS");
  EXPECT_EQ(b.json["nvlinks"]["GPU2"]["GPU5"], 18);
  EXPECT_EQ(b.json["schema_version"], 1);
  EXPECT_TRUE(b.json["nvml"]["available"].get<bool>());
  EXPECT_EQ(b.json["nvml"]["source"], "recorded: " + kH100State);
  EXPECT_EQ(b.json["gpus"].size(), 8u);
  EXPECT_EQ(b.json["nics"].size(), 8u);
  EXPECT_EQ(b.json["gpus"][6]["nvml_index"], 6);
  EXPECT_EQ(b.json["gpus"][6]["bdf"], "0000:71:00.0");
  EXPECT_EQ(b.json["gpus"][6]["nearest_nic"]["label"], "NIC6");
  EXPECT_TRUE(b.json["nics"][2]["rdma"].get<bool>());
  EXPECT_TRUE(b.json["flags"].empty());
  // GPU i and NIC i: one PCIe switch, as a real HGX H100's nvidia-smi topo -m shows.
  EXPECT_EQ(Cell(b, "GPU0", "NIC0"), "PIX");
  EXPECT_EQ(Cell(b, "GPU0", "NIC1"), "NODE");
  EXPECT_EQ(Cell(b, "GPU0", "NIC4"), "SYS");
  EXPECT_EQ(Cell(b, "NIC5", "GPU5"), "PIX");
  EXPECT_EQ(Cell(b, "NIC0", "NIC7"), "SYS");
  const TopoDevice& g5 = Device(b.m, "GPU5");
  EXPECT_EQ(g5.bdf, "0000:61:00.0");
  EXPECT_EQ(g5.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g5.cpu_affinity, "4-7,12-15");
  EXPECT_EQ(g5.numa_node, 1);
  EXPECT_EQ(g5.nearest_nic, "NIC5");
  EXPECT_EQ(g5.nearest_nic_link, "PIX");
  EXPECT_EQ(Device(b.m, "NIC5").name, "mlx5_5");
  EXPECT_TRUE(b.m.flags.empty());
  EXPECT_NE(b.text.find("GPU-NIC locality: no GPU's nearest NIC is across the CPU interconnect"),
            std::string::npos);
  // PIX is within NCCL's default GPUDirect RDMA level (PXB): no note about it.
  EXPECT_FALSE(HasNote(b.m, "NCCL_NET_GDR_LEVEL"));
  // NVML's topology levels agree with the sysfs tree: no disagreement notes.
  EXPECT_FALSE(HasNote(b.m, "NVML puts"));
}

TEST(TopoMatrixTest, WithoutNvmlStateThePciMatrixSaysNvlinkIsUnknown) {
  Built b = BuildFixture("healthy-8gpu", NoNvml());
  EXPECT_GOLDEN(Portable(b.text), "topo_healthy_no_nvml.txt");
  EXPECT_FALSE(b.m.nvml);
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "NODE");
  EXPECT_EQ(Cell(b, "GPU0", "GPU4"), "SYS");
  EXPECT_EQ(Device(b.m, "GPU3").bdf, "0000:41:00.0");  // PCI order
  EXPECT_EQ(Device(b.m, "GPU3").nvml_index, -1);
  EXPECT_TRUE(HasNote(b.m, "NVLink unknown without NVML state"));
  EXPECT_NE(b.text.find("NVML state: none ("), std::string::npos);
  EXPECT_FALSE(b.json["nvml"]["available"].get<bool>());
  EXPECT_TRUE(b.json["nvlinks"].is_null());
  EXPECT_TRUE(b.json["gpus"][0]["nvml_index"].is_null());
}

// Writes a PCI function at its canonical sysfs directory `dir` with the /sys/bus/pci/devices link.
void AddPci(TempHost& t, const std::string& dir, const std::string& cls, const std::string& vendor,
            int node, const std::string& cpus) {
  t.Write(dir + "/vendor", vendor);
  t.Write(dir + "/device", vendor == "0x10de" ? "0x2330" : "0x1021");
  t.Write(dir + "/class", cls);
  t.Write(dir + "/numa_node", std::to_string(node));
  t.Write(dir + "/local_cpulist", cpus);
  std::string bdf = dir.substr(dir.rfind('/') + 1);
  t.Symlink("/sys/bus/pci/devices/" + bdf, "../../.." + dir.substr(std::string("/sys").size()));
}

TEST(TopoMatrixTest, GpuAndNicBehindOnePcieSwitchArePix) {
  TempHost t("healthy-8gpu");
  // Root port a0:01.0 -> switch upstream port a1:00.0 -> downstream ports a2:00.0, a2:01.0 ->
  // a GPU and a NIC, on socket 1.
  const std::string rp = "/sys/devices/pci0000:a0/0000:a0:01.0";
  const std::string usp = rp + "/0000:a1:00.0";
  AddPci(t, rp, "0x060400", "0x8086", 1, "4-7,12-15");
  AddPci(t, usp, "0x060400", "0x1000", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:00.0", "0x060400", "0x1000", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:01.0", "0x060400", "0x1000", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:00.0/0000:a3:00.0", "0x030200", "0x10de", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:01.0/0000:a4:00.0", "0x020700", "0x15b3", 1, "4-7,12-15");
  t.Write(usp + "/0000:a2:01.0/0000:a4:00.0/infiniband/mlx5_8/node_type", "1: CA");
  Built b = Build(t.Host(), NoNvml());
  EXPECT_EQ(Device(b.m, "GPU8").bdf, "0000:a3:00.0");
  EXPECT_EQ(Device(b.m, "NIC8").name, "mlx5_8");
  EXPECT_EQ(Cell(b, "GPU8", "NIC8"), "PIX");
  EXPECT_EQ(Cell(b, "NIC8", "GPU8"), "PIX");
  EXPECT_EQ(Cell(b, "GPU8", "GPU4"), "NODE");
  EXPECT_EQ(Cell(b, "GPU8", "GPU0"), "SYS");
  EXPECT_EQ(Device(b.m, "GPU8").nearest_nic, "NIC8");
  EXPECT_EQ(Device(b.m, "GPU8").nearest_nic_link, "PIX");
  EXPECT_TRUE(b.m.flags.empty());

  // A second switch below the first port: GPU there and the NIC above are PXB.
  AddPci(t, usp + "/0000:a2:00.0/0000:a3:00.0", "0x060400", "0x1000", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:00.0/0000:a3:00.0/0000:a5:00.0", "0x060400", "0x1000", 1, "4-7,12-15");
  AddPci(t, usp + "/0000:a2:00.0/0000:a3:00.0/0000:a5:00.0/0000:a6:00.0", "0x030200", "0x10de", 1,
         "4-7,12-15");
  b = Build(t.Host(), NoNvml());
  EXPECT_EQ(Device(b.m, "GPU8").bdf, "0000:a6:00.0");
  EXPECT_EQ(Cell(b, "GPU8", "NIC8"), "PXB");
}

TEST(TopoMatrixTest, GpusWithNoNicOnTheirSocketAreFlaggedSys) {
  TempHost t("healthy-8gpu");
  for (const char* nic : {"0000:12:00.0", "0000:22:00.0", "0000:32:00.0", "0000:42:00.0"}) {
    t.Remove(std::string("/sys/bus/pci/devices/") + nic);
  }
  // A management Ethernet port on socket 0 without RDMA does not count as a GPU's NIC.
  const std::string eth = "/sys/devices/pci0000:00/0000:00:1c.0/0000:03:00.0";
  AddPci(t, "/sys/devices/pci0000:00/0000:00:1c.0", "0x060400", "0x8086", 0, "0-3,8-11");
  AddPci(t, eth, "0x020000", "0x8086", 0, "0-3,8-11");
  t.Write(eth + "/net/eno1/operstate", "up");
  Built b = Build(t.Host(), gpu::LoadGpuSnapshot(kH100State));
  EXPECT_EQ(Device(b.m, "NIC0").name, "eno1");
  EXPECT_FALSE(Device(b.m, "NIC0").rdma);
  EXPECT_EQ(Cell(b, "GPU0", "NIC0"), "NODE");
  EXPECT_EQ(Device(b.m, "NIC1").name, "mlx5_4");
  EXPECT_EQ(Cell(b, "GPU0", "NIC1"), "SYS");
  ASSERT_EQ(b.m.flags.size(), 4u) << b.text;
  EXPECT_EQ(b.m.flags[0].gpu, "GPU0");
  EXPECT_EQ(b.m.flags[3].gpu, "GPU3");
  EXPECT_EQ(b.m.flags[0].nic_name, "mlx5_4");
  EXPECT_EQ(Device(b.m, "GPU5").nearest_nic_link, "PIX");
  EXPECT_NE(b.text.find("WARNING: GPU0 (0000:11:00.0): nearest NIC is NIC1 (mlx5_4) at SYS, across "
                        "the CPU interconnect"),
            std::string::npos)
      << b.text;
  // The warning sits right under the matrix, before the notes and legend.
  EXPECT_LT(b.text.find("WARNING: GPU0"), b.text.find("Legend:"));
  EXPECT_EQ(b.json["flags"].size(), 4u);
  EXPECT_EQ(b.json["flags"][2]["link"], "SYS");
  EXPECT_EQ(b.json["gpus"][1]["nearest_nic"]["link"], "SYS");
  EXPECT_EQ(b.json["nic_scope"], "RDMA NICs (with an InfiniBand/RoCE device)");

  // No NIC at all: nothing to flag, and it says so.
  for (const char* nic :
       {"0000:52:00.0", "0000:62:00.0", "0000:72:00.0", "0000:82:00.0", "0000:03:00.0"}) {
    t.Remove(std::string("/sys/bus/pci/devices/") + nic);
  }
  b = Build(t.Host(), gpu::LoadGpuSnapshot(kH100State));
  EXPECT_TRUE(b.m.flags.empty());
  EXPECT_TRUE(HasNote(b.m, "no network device on the PCI bus"));
  EXPECT_TRUE(b.json["gpus"][0]["nearest_nic"].is_null());
}

TEST(TopoMatrixTest, NvLinkDownAndNvmlLevelsWithoutNvLink) {
  auto s = gpu::LoadGpuSnapshot(kH100State);
  ASSERT_TRUE(s.ok());
  s->devices[3].nvlinks[7].active = gpu::Field<bool>::Of(false);
  Built b = BuildFixture("healthy-8gpu", s);
  EXPECT_EQ(Cell(b, "GPU3", "GPU0"), "NV17");
  EXPECT_EQ(Cell(b, "GPU0", "GPU3"), "NV17");
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "NV18");

  // No NVLink: NVML's own PCIe levels fill the GPU-GPU cells; a disagreement with sysfs is told.
  for (auto& d : s->devices) d.nvlinks.clear();
  s->devices[0].topology_to_gpus[0].second = 20;  // GPU0 -> GPU1: PXB, where sysfs says NODE
  b = BuildFixture("healthy-8gpu", s);
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "PXB");
  EXPECT_EQ(Cell(b, "GPU1", "GPU0"), "NODE");
  EXPECT_EQ(Cell(b, "GPU0", "GPU4"), "SYS");
  EXPECT_TRUE(HasNote(b.m, "NVML puts GPU0 and GPU1 at PXB, the sysfs PCI tree at NODE"));
  s->devices[0].topology_to_gpus[0].second = 35;
  b = BuildFixture("healthy-8gpu", s);
  EXPECT_TRUE(HasNote(b.m, "unknown topology level 35"));
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "NODE");
}

TEST(TopoMatrixTest, NvmlStateFromAnotherMachineIsToldNotMatched) {
  auto s = gpu::LoadGpuSnapshot(kH100State);
  ASSERT_TRUE(s.ok());
  s->devices[2].pci_bus_id = "00000000:1B:00.0";
  s->devices[5].pci_bus_id = "not an address";
  Built b = BuildFixture("healthy-8gpu", s);
  EXPECT_EQ(b.m.gpu_count(), 8u);
  EXPECT_TRUE(HasNote(b.m, "NVML lists GPU2 at 00000000:1B:00.0, which is not an NVIDIA GPU"));
  EXPECT_TRUE(HasNote(b.m, "NVML lists GPU5 at not an address"));
  EXPECT_TRUE(
      HasNote(b.m, "GPU?0 (0000:31:00.0) is on the PCI bus but the NVML state does not list it"));
  EXPECT_EQ(Device(b.m, "GPU?1").bdf, "0000:61:00.0");
  EXPECT_EQ(Cell(b, "GPU?0", "GPU0"), "NODE");  // PCIe path only for the unlisted one
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "NV18");

  // Two NVML GPUs at one address: the first keeps the row.
  s->devices[7].pci_bus_id = s->devices[6].pci_bus_id;
  b = BuildFixture("healthy-8gpu", s);
  EXPECT_TRUE(HasNote(b.m, "NVML lists GPU7 at 0000:71:00.0 too"));
  EXPECT_EQ(Device(b.m, "GPU6").bdf, "0000:71:00.0");
  EXPECT_EQ(Device(b.m, "GPU?2").bdf, "0000:81:00.0");
}

TEST(TopoMatrixTest, UnresolvedSysfsPathAndUnknownNumaGiveQuestionMarks) {
  TempHost t("healthy-8gpu");
  // GPU0's entry is a plain directory, not a link into /sys/devices.
  const std::string g0 = "/sys/bus/pci/devices/0000:11:00.0";
  t.Remove(g0);
  t.Write(g0 + "/vendor", "0x10de");
  t.Write(g0 + "/class", "0x030200");
  // GPU7 without firmware NUMA affinity or CPU list on a 2-node host.
  const std::string g7 =
      "/sys/devices/pci0000:80/0000:80:01.0/0000:8d:00.0/0000:8e:00.0/0000:81:00.0";
  t.Write(g7 + "/numa_node", "-1");
  t.Write(g7 + "/local_cpulist", "");
  Built b = BuildFixture("healthy-8gpu", NoNvml());  // unchanged fixture: all known
  EXPECT_EQ(Cell(b, "GPU0", "GPU7"), "SYS");
  b = Build(t.Host(), NoNvml());
  EXPECT_EQ(Cell(b, "GPU0", "GPU1"), "?");
  EXPECT_EQ(Cell(b, "GPU0", "NIC0"), "?");
  EXPECT_EQ(Cell(b, "GPU1", "GPU0"), "?");
  EXPECT_EQ(Cell(b, "GPU1", "GPU2"), "NODE");
  EXPECT_EQ(Cell(b, "GPU7", "NIC7"), "PIX");  // one switch: no NUMA needed
  EXPECT_EQ(Cell(b, "GPU7", "GPU1"), "?");
  EXPECT_TRUE(HasNote(
      b.m,
      "locality unknown (\"?\"): 0000:11:00.0: sysfs path \"/sys/bus/pci/devices/0000:11:00.0\""));
  EXPECT_TRUE(HasNote(b.m, "no NUMA node or local CPU list to tell NODE from SYS"));
  EXPECT_EQ(Device(b.m, "GPU7").cpu_affinity, "");
  EXPECT_NE(b.text.find("N/A"), std::string::npos);
  EXPECT_TRUE(b.json["gpus"][7]["numa_node"].is_null());
  EXPECT_EQ(Device(b.m, "GPU0").nearest_nic, "");
  EXPECT_TRUE(b.m.flags.empty());
}

TEST(TopoMatrixTest, GraceVirtualMachineWithoutNumaAffinity) {
  Built b = BuildFixture("grace-vm-smmu", NoNvml());
  ASSERT_EQ(b.m.gpu_count(), 1u);
  EXPECT_EQ(Cell(b, "GPU0", "NIC0"), "PHB");
  EXPECT_EQ(Device(b.m, "GPU0").numa_node, -1);
  EXPECT_EQ(Device(b.m, "GPU0").bdf, "0009:11:00.0");
  EXPECT_FALSE(HasNote(b.m, "NVLink unknown"));  // one GPU: no GPU pairs to know about
  EXPECT_TRUE(b.m.flags.empty());
}

TEST(TopoMatrixTest, HostWithoutGpusPrintsNoMatrix) {
  Built b = BuildFixture("this-machine", NoNvml());
  EXPECT_EQ(b.m.gpu_count(), 0u);
  EXPECT_EQ(b.text.find("Legend"), std::string::npos);
  EXPECT_NE(b.text.find("no NVIDIA GPU on the PCI bus under"), std::string::npos) << b.text;
  EXPECT_TRUE(b.json["gpus"].empty());
}

TEST(TopoMatrixTest, CheckContextReadsRecordedStateFromTheTree) {
  TempHost t("healthy-8gpu");
  checks::SiteExpectations expect;
  {
    host::Host h = t.Host();
    checks::CheckContext ctx(h, expect);
    ASSERT_FALSE(ctx.gpu().ok());
    EXPECT_EQ(ctx.gpu().status().code(), StatusCode::kNotFound);
    EXPECT_NE(ctx.gpu().status().message().find("/.yardstick/nvml.json is absent"),
              std::string::npos)
        << ctx.gpu().status().message();
  }
  std::ifstream in(kH100State);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  t.Write("/.yardstick/nvml.json", text);
  {
    host::Host h = t.Host();
    checks::CheckContext ctx(h, expect);
    ASSERT_TRUE(ctx.gpu().ok()) << ctx.gpu().status().message();
    EXPECT_EQ(ctx.gpu()->devices.size(), 8u);
    EXPECT_EQ(ctx.gpu()->source, "recorded: " + t.root() + "/.yardstick/nvml.json");
  }
  t.Write("/.yardstick/nvml.json",
          "{\"devices\": [{\"index\": 0, \"uuid\": \"GPU-1\", \"name\": \"H100\", \"pci_bus_id\": "
          "3}]}");
  {
    host::Host h = t.Host();
    checks::CheckContext ctx(h, expect);
    ASSERT_FALSE(ctx.gpu().ok());
    EXPECT_EQ(ctx.gpu().status().code(), StatusCode::kInvalidInput);
    EXPECT_EQ(ctx.gpu().status().message().rfind(
                  t.root() + "/.yardstick/nvml.json: devices[0].pci_bus_id: expected a string", 0),
              0u)
        << ctx.gpu().status().message();
    // --nvml-state wins over the tree's file.
    checks::CheckContext named(h, expect);
    named.set_nvml_state_path(kH100State);
    EXPECT_TRUE(named.gpu().ok());
  }
}

}  // namespace
}  // namespace ys::report
