// `topo --json` from a matrix built by hand: the keys a GPU and a NIC carry, unknowns as null,
// NVML state's source or reason, the NVLink matrix only over NVML-listed GPU pairs, and flags.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/topo_matrix.h"

namespace ys::report {
namespace {

// GPU0 (NVML index 0), GPU1 (not listed by NVML, unknown NUMA node), NIC0 (RDMA).
TopoMatrix HandBuiltMatrix(bool nvml) {
  TopoMatrix m;
  m.root = "/tree";
  m.topology_source = "sysfs";
  m.nvml = nvml;
  m.nvml_source = nvml ? "recorded: state.json" : "no recorded NVML state";
  TopoDevice g0{.kind = TopoDevice::Kind::kGpu,
                .label = "GPU0",
                .bdf = "0000:11:00.0",
                .name = "H100",
                .nvml_index = 0,
                .uuid = "GPU-abc",
                .numa_node = 0,
                .cpu_affinity = "0-7",
                .nearest_nic = "NIC0",
                .nearest_nic_link = "SYS"};
  TopoDevice g1{.kind = TopoDevice::Kind::kGpu,
                .label = "GPU1",
                .bdf = "0000:12:00.0",
                .name = "NVIDIA 10de:2330"};
  TopoDevice n0{.kind = TopoDevice::Kind::kNic,
                .label = "NIC0",
                .bdf = "0000:21:00.0",
                .name = "mlx5_0",
                .rdma = true,
                .numa_node = 1,
                .cpu_affinity = "8-15"};
  m.devices = {g0, g1, n0};
  auto cell = [](const char* link, const char* pci, int nvlinks) {
    return TopoCell{link, pci, nvlinks};
  };
  m.cells = {{cell("X", "X", 0), cell("PHB", "PHB", 0), cell("SYS", "SYS", 0)},
             {cell("PHB", "PHB", 0), cell("X", "X", 0), cell("?", "?", 0)},
             {cell("SYS", "SYS", 0), cell("?", "?", 0), cell("X", "X", 0)}};
  m.nic_scope = "RDMA NICs";
  m.flags.push_back({"GPU0", "0000:11:00.0", "NIC0", "mlx5_0", "GPU0's nearest NIC is SYS",
                     "place a NIC on GPU0's socket"});
  m.notes = {"GPU1: NUMA node unknown"};
  return m;
}

TEST(TopoMatrixJsonTest, DevicesByKindWithUnknownsAsNull) {
  std::string text = TopoMatrixJson(HandBuiltMatrix(true));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["command"], "topo");
  EXPECT_EQ(j["root"], "/tree");
  ASSERT_EQ(j["gpus"].size(), 2u);
  ASSERT_EQ(j["nics"].size(), 1u);
  const nlohmann::json& g0 = j["gpus"][0];
  EXPECT_EQ(g0["nvml_index"], 0);
  EXPECT_EQ(g0["uuid"], "GPU-abc");
  EXPECT_EQ(g0["numa_node"], 0);
  EXPECT_EQ(g0["nearest_nic"], (nlohmann::json{{"label", "NIC0"}, {"link", "SYS"}}));
  EXPECT_FALSE(g0.contains("rdma"));
  const nlohmann::json& g1 = j["gpus"][1];
  EXPECT_TRUE(g1["nvml_index"].is_null());
  EXPECT_TRUE(g1["uuid"].is_null());
  EXPECT_TRUE(g1["numa_node"].is_null());
  EXPECT_TRUE(g1["cpu_affinity"].is_null());
  EXPECT_TRUE(g1["nearest_nic"].is_null());
  const nlohmann::json& n0 = j["nics"][0];
  EXPECT_TRUE(n0["rdma"].get<bool>());
  EXPECT_FALSE(n0.contains("nvml_index"));
  EXPECT_FALSE(n0.contains("nearest_nic"));
  EXPECT_EQ(n0["cpu_affinity"], "8-15");
}

TEST(TopoMatrixJsonTest, MatricesFlagsAndNvmlState) {
  nlohmann::json j = nlohmann::json::parse(TopoMatrixJson(HandBuiltMatrix(true)));
  EXPECT_EQ(j["matrix"]["GPU0"]["NIC0"], "SYS");
  EXPECT_EQ(j["matrix"]["GPU1"]["NIC0"], "?");
  EXPECT_EQ(j["pci_matrix"]["NIC0"]["GPU0"], "SYS");
  EXPECT_TRUE(j["nvml"]["available"].get<bool>());
  EXPECT_EQ(j["nvml"]["source"], "recorded: state.json");
  EXPECT_FALSE(j["nvml"].contains("reason"));
  // Only GPU0 is NVML-listed: no NVML pair, so no row.
  EXPECT_FALSE(j["nvlinks"].is_null());
  EXPECT_TRUE(j["nvlinks"].empty());
  ASSERT_EQ(j["flags"].size(), 1u);
  EXPECT_EQ(j["flags"][0]["gpu"], "GPU0");
  EXPECT_EQ(j["flags"][0]["nearest_nic"], "NIC0");
  EXPECT_EQ(j["flags"][0]["link"], "SYS");
  EXPECT_EQ(j["notes"][0], "GPU1: NUMA node unknown");

  nlohmann::json off = nlohmann::json::parse(TopoMatrixJson(HandBuiltMatrix(false)));
  EXPECT_FALSE(off["nvml"]["available"].get<bool>());
  EXPECT_EQ(off["nvml"]["reason"], "no recorded NVML state");
  EXPECT_TRUE(off["nvlinks"].is_null());
}

TEST(TopoMatrixJsonTest, NvlinkRowsOverNvmlListedPairs) {
  TopoMatrix m = HandBuiltMatrix(true);
  m.devices[1].nvml_index = 1;
  m.cells[0][1] = {"NV18", "PHB", 18};
  m.cells[1][0] = {"NV18", "PHB", 18};
  nlohmann::json j = nlohmann::json::parse(TopoMatrixJson(m));
  EXPECT_EQ(j["nvlinks"]["GPU0"]["GPU1"], 18);
  EXPECT_EQ(j["nvlinks"]["GPU1"]["GPU0"], 18);
  EXPECT_FALSE(j["nvlinks"]["GPU0"].contains("GPU0"));  // not with itself
  EXPECT_FALSE(j["nvlinks"].contains("NIC0"));
  EXPECT_EQ(j["matrix"]["GPU0"]["GPU1"], "NV18");
}

}  // namespace
}  // namespace ys::report
