#include "gpu/gpu_snapshot_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/check_test_util.h"

namespace ys::gpu {
namespace {

using nlohmann::json;
using ys::testing::TempHost;

// One GPU with every key of the layout, values of every kind, and fields both present and not.
constexpr const char* kSnapshot = R"({
  "source": "nvml",
  "captured_at": "2026-11-29T16:40:03Z",
  "driver_version": {"value": "550.127.05"},
  "cuda_driver_version": {"value": 12040},
  "nvml_version": {"value": "12.550.127.05"},
  "devices": [{
    "index": 0,
    "uuid": "GPU-9221d5d1-0000-1111-2222-333344445555",
    "name": "NVIDIA H100 80GB HBM3",
    "serial": "1654922001234",
    "pci_bus_id": "00000000:1B:00.0",
    "pci_device_id": 590418142,
    "persistence_mode": {"value": true},
    "performance_state": {"value": 0},
    "sm_clock_mhz": {"value": 1980},
    "mem_clock_mhz": {"value": 2619},
    "max_sm_clock_mhz": {"value": 1980},
    "clocks_event_reasons": {"value": 64},
    "power_usage_mw": {"value": 612345},
    "enforced_power_limit_mw": {"value": 700000},
    "default_power_limit_mw": {"value": 700000},
    "temperature_c": {"value": 61},
    "slowdown_temperature_c": {"value": 87},
    "shutdown_temperature_c": {"value": 92},
    "max_operating_temperature_c": {"value": 85},
    "ecc_enabled": {"value": true},
    "ecc_volatile_corrected": {"value": 0},
    "ecc_volatile_uncorrected": {"value": 0},
    "ecc_aggregate_corrected": {"value": 18446744073709551615},
    "ecc_aggregate_uncorrected": {"value": 0},
    "retired_pages_sbe": {"error": "not supported"},
    "retired_pages_dbe": {"error": "not supported"},
    "retired_pages_pending": {"error": "not supported"},
    "remapped_rows_correctable": {"value": 0},
    "remapped_rows_uncorrectable": {"value": 1},
    "remapped_rows_pending": {"value": true},
    "remapped_rows_failure": {"value": false},
    "fabric": {"value": {"state": "completed", "status": "success",
                        "cluster_uuid": "00112233-4455-6677-8899-aabbccddeeff", "clique_id": 7}},
    "pcie_gen_current": {"value": 5},
    "pcie_gen_max": {"value": 5},
    "pcie_width_current": {"value": 16},
    "pcie_width_max": {"value": 16},
    "pcie_replay_counter": {"value": 3},
    "mig_enabled": {"error": "nvmlDeviceGetMigMode: NVML_ERROR_NO_PERMISSION: Insufficient Permissions"},
    "compute_processes": {"value": [{"pid": 4242, "used_memory_bytes": 1048576}]},
    "nvlinks": [
      {"link": 0, "active": {"value": true}, "remote_pci_bus_id": {"value": "00000000:05:00.0"},
       "replay_errors": {"value": 0}, "recovery_errors": {"value": 0},
       "crc_flit_errors": {"value": 0}, "crc_data_errors": {"value": 0}},
      {"link": 1, "active": {"value": false}, "remote_pci_bus_id": {"error": "not supported"},
       "replay_errors": {"value": 12}, "recovery_errors": {"value": 1},
       "crc_flit_errors": {"value": 5}, "crc_data_errors": {"value": 0}}
    ],
    "topology_to_gpus": [[1, 10], [2, 20]]
  }]
})";

Result<GpuSnapshot> Parse(const json& j) { return ParseGpuSnapshot(j.dump(), "test.json"); }

// The error message of parsing `j`; fails the test when it parses.
std::string ErrorOf(const json& j) {
  auto r = Parse(j);
  EXPECT_FALSE(r.ok()) << j.dump();
  return r.ok() ? "" : r.status().message();
}

TEST(GpuSnapshotJsonTest, ReadsEveryKindOfValue) {
  auto r = ParseGpuSnapshot(kSnapshot, "h100.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const GpuSnapshot& s = *r;
  EXPECT_EQ(s.source, "recorded: h100.json");
  EXPECT_EQ(s.captured_at, "2026-11-29T16:40:03Z");
  EXPECT_EQ(*s.driver_version, "550.127.05");
  EXPECT_EQ(*s.cuda_driver_version, 12040);
  ASSERT_EQ(s.devices.size(), 1u);
  const GpuDevice& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.pci_bus_id, "00000000:1B:00.0");
  EXPECT_EQ(d.pci_device_id, 590418142u);
  EXPECT_TRUE(*d.persistence_mode);
  EXPECT_EQ(*d.clocks_event_reasons, kClocksEventHwThermalSlowdown);
  EXPECT_EQ(*d.power_usage_mw, 612345u);
  EXPECT_EQ(*d.ecc_aggregate_corrected, 18446744073709551615ull);
  EXPECT_FALSE(d.retired_pages_sbe.has());
  EXPECT_TRUE(d.retired_pages_sbe.not_supported());
  EXPECT_TRUE(*d.remapped_rows_pending);
  EXPECT_FALSE(*d.remapped_rows_failure);
  EXPECT_EQ(d.fabric->state, "completed");
  EXPECT_EQ(d.fabric->clique_id, 7u);
  EXPECT_FALSE(d.mig_enabled.has());
  EXPECT_FALSE(d.mig_enabled.not_supported());
  EXPECT_NE(d.mig_enabled.error.find("NVML_ERROR_NO_PERMISSION"), std::string::npos);
  ASSERT_EQ(d.compute_processes->size(), 1u);
  EXPECT_EQ((*d.compute_processes)[0].pid, 4242u);
  ASSERT_EQ(d.nvlinks.size(), 2u);
  EXPECT_FALSE(*d.nvlinks[1].active);
  EXPECT_EQ(*d.nvlinks[1].replay_errors, 12u);
  EXPECT_EQ(d.topology_to_gpus, (std::vector<std::pair<int, int>>{{1, 10}, {2, 20}}));
}

TEST(GpuSnapshotJsonTest, RoundTripKeepsEverything) {
  auto first = ParseGpuSnapshot(kSnapshot, "a.json");
  ASSERT_TRUE(first.ok()) << first.status().message();
  std::string text = GpuSnapshotToJsonText(*first);
  auto second = ParseGpuSnapshot(text, "b.json");
  ASSERT_TRUE(second.ok()) << second.status().message();
  json original = json::parse(kSnapshot);
  json written = json::parse(text);
  EXPECT_EQ(written["source"], "recorded: a.json");  // where the first one came from
  original.erase("source");
  written.erase("source");
  EXPECT_EQ(written, original);
  EXPECT_EQ(GpuSnapshotToJsonText(*second).size(), text.size());
}

TEST(GpuSnapshotJsonTest, EmptyAndDefaultSnapshotsRoundTrip) {
  GpuSnapshot s;  // no values and no reasons: written as "not recorded"
  s.devices.push_back(GpuDevice{});
  auto back = ParseGpuSnapshot(GpuSnapshotToJsonText(s), "x");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->driver_version.error, "not recorded");
  EXPECT_EQ(back->devices[0].fabric.error, "not recorded");
  EXPECT_TRUE(back->devices[0].nvlinks.empty());
}

TEST(GpuSnapshotJsonTest, AbsentFieldsReadAsNotRecorded) {
  auto r = Parse(json::parse(R"({"devices": [{"index": 3, "uuid": "GPU-x", "name": "n",
                                             "pci_bus_id": "00000000:01:00.0"}]})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->devices[0].index, 3);
  EXPECT_EQ(r->devices[0].temperature_c.error, "not recorded");
  EXPECT_EQ(r->nvml_version.error, "not recorded");
}

TEST(GpuSnapshotJsonTest, RequiredKeysAreNamed) {
  json j = json::parse(kSnapshot);
  for (const char* key : {"index", "uuid", "name", "pci_bus_id"}) {
    json k = j;
    k["devices"][0].erase(key);
    EXPECT_EQ(ErrorOf(k), std::string("test.json: devices[0].") + key + ": missing");
  }
  json k = j;
  k.erase("devices");
  EXPECT_EQ(ErrorOf(k), "test.json: devices: missing");
}

TEST(GpuSnapshotJsonTest, UnknownKeysAreErrorsAtEveryLevel) {
  json j = json::parse(kSnapshot);
  struct Case {
    json::json_pointer where;
    std::string path;
  } cases[] = {
      {json::json_pointer(""), "gpus"},
      {json::json_pointer("/devices/0"), "devices[0].gpus"},
      {json::json_pointer("/devices/0/nvlinks/1"), "devices[0].nvlinks[1].gpus"},
      {json::json_pointer("/devices/0/fabric/value"), "devices[0].fabric.value.gpus"},
      {json::json_pointer("/devices/0/compute_processes/value/0"),
       "devices[0].compute_processes.value[0].gpus"},
      {json::json_pointer("/devices/0/temperature_c"), "devices[0].temperature_c.gpus"},
      {json::json_pointer("/driver_version"), "driver_version.gpus"},
  };
  for (const auto& c : cases) {
    json k = j;
    k[c.where]["gpus"] = 1;
    EXPECT_NE(ErrorOf(k).find("test.json: " + c.path + ": unknown key"), std::string::npos)
        << ErrorOf(k);
  }
}

// The JSON kind of a value, for "a value of another kind".
int Kind(const json& v) {
  if (v.is_boolean()) return 0;
  if (v.is_number()) return 1;
  if (v.is_string()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;
}

// Every key of the layout, given a value of every other JSON kind, is an error that names it.
TEST(GpuSnapshotJsonTest, EveryWrongTypeIsAnErrorNamingThePath) {
  const json wrong[] = {true, 7, "seven", json::array({1}), json::object({{"x", 1}}), nullptr, 1.5};
  json base = json::parse(kSnapshot);
  std::vector<std::pair<json::json_pointer, std::string>> targets;
  targets.emplace_back(json::json_pointer("/devices"), "devices");
  for (const auto& [key, v] : base.items()) {
    if (key == "devices") continue;
    std::string p = key;
    targets.emplace_back(json::json_pointer("/" + key), p);
    if (v.is_object()) targets.emplace_back(json::json_pointer("/" + key + "/value"), p + ".value");
  }
  for (const auto& [key, v] : base["devices"][0].items()) {
    std::string p = "devices[0]." + key;
    std::string ptr = "/devices/0/" + key;
    targets.emplace_back(json::json_pointer(ptr), p);
    if (v.is_object()) {
      auto [inner_key, inner] = *v.items().begin();
      targets.emplace_back(json::json_pointer(ptr + "/" + inner_key), p + "." + inner_key);
      if (inner.is_object()) {  // fabric
        for (const auto& [fk, fv] : inner.items()) {
          targets.emplace_back(json::json_pointer(ptr + "/value/" + fk), p + ".value." + fk);
        }
      }
      if (inner.is_array()) {  // compute_processes
        for (const auto& [pk, pv] : inner[0].items()) {
          targets.emplace_back(json::json_pointer(ptr + "/value/0/" + pk), p + ".value[0]." + pk);
        }
      }
    }
  }
  for (const auto& [key, v] : base["devices"][0]["nvlinks"][1].items()) {
    std::string p = "devices[0].nvlinks[1]." + key;
    std::string ptr = "/devices/0/nvlinks/1/" + key;
    targets.emplace_back(json::json_pointer(ptr), p);
    if (v.is_object()) {
      auto [inner_key, inner] = *v.items().begin();
      targets.emplace_back(json::json_pointer(ptr + "/" + inner_key), p + "." + inner_key);
    }
  }
  targets.emplace_back(json::json_pointer("/devices/0/topology_to_gpus/1/0"),
                       "devices[0].topology_to_gpus[1][0]");
  int tried = 0;
  for (const auto& [ptr, path] : targets) {
    const json& original = base[ptr];
    for (const json& w : wrong) {
      if (Kind(w) == Kind(original) && !(w.is_number_float() && original.is_number_integer()))
        continue;
      if (w.is_object() && original.is_object()) continue;
      json k = base;
      k[ptr] = w;
      std::string err = ErrorOf(k);
      ++tried;
      EXPECT_EQ(err.rfind("test.json: " + path, 0), 0u) << path << " = " << w.dump() << ": " << err;
    }
  }
  EXPECT_GT(tried, 400);
}

TEST(GpuSnapshotJsonTest, NumbersOutsideTheirTypeAreErrors) {
  json base = json::parse(kSnapshot);
  struct Case {
    std::string ptr;
    json value;
    std::string expect;
  } cases[] = {
      {"/devices/0/temperature_c/value", -1,
       "devices[0].temperature_c.value: expected an integer from 0 to 4294967295, got -1"},
      {"/devices/0/temperature_c/value", 4294967296ull, "got 4294967296"},
      {"/devices/0/performance_state/value", 2147483648ull,
       "expected an integer from -2147483648 to 2147483647"},
      {"/devices/0/index", -2, "devices[0].index: expected a non-negative integer"},
      {"/devices/0/pci_device_id", 4294967296ull, "devices[0].pci_device_id"},
      {"/devices/0/ecc_volatile_corrected/value", -5, "devices[0].ecc_volatile_corrected.value"},
      {"/devices/0/ecc_volatile_corrected/value", 1e30, "devices[0].ecc_volatile_corrected.value"},
  };
  for (const auto& c : cases) {
    json k = base;
    k[json::json_pointer(c.ptr)] = c.value;
    EXPECT_NE(ErrorOf(k).find(c.expect), std::string::npos) << ErrorOf(k);
  }
}

TEST(GpuSnapshotJsonTest, FieldNeedsExactlyOneOfValueAndError) {
  json base = json::parse(kSnapshot);
  json both = base, neither = base, empty_reason = base;
  both["devices"][0]["temperature_c"] = {{"value", 1}, {"error", "x"}};
  neither["devices"][0]["temperature_c"] = json::object();
  empty_reason["devices"][0]["temperature_c"] = {{"error", ""}};
  EXPECT_NE(ErrorOf(both).find("devices[0].temperature_c: expected exactly one"),
            std::string::npos);
  EXPECT_NE(ErrorOf(neither).find("devices[0].temperature_c: expected exactly one"),
            std::string::npos);
  EXPECT_NE(ErrorOf(empty_reason).find("devices[0].temperature_c.error: must say why"),
            std::string::npos);
}

TEST(GpuSnapshotJsonTest, StructuralErrors) {
  json base = json::parse(kSnapshot);
  json dup = base;
  dup["devices"].push_back(base["devices"][0]);
  EXPECT_NE(ErrorOf(dup).find("devices[1].index: 0 appears twice"), std::string::npos);
  json pair3 = base;
  pair3["devices"][0]["topology_to_gpus"][0] = {1, 2, 3};
  EXPECT_NE(ErrorOf(pair3).find("devices[0].topology_to_gpus[0]: expected an array of two"),
            std::string::npos);
  EXPECT_NE(ErrorOf(json::array()).find("(top level): expected an object"), std::string::npos);
  json no_state = base;
  no_state["devices"][0]["fabric"]["value"].erase("state");
  EXPECT_NE(ErrorOf(no_state).find("devices[0].fabric.value.state: missing"), std::string::npos);
}

TEST(GpuSnapshotJsonTest, TruncatedTextIsAnErrorEverywhere) {
  std::string text = kSnapshot;
  for (size_t n = 0; n + 1 < text.size(); n += 13) {
    auto r = ParseGpuSnapshot(std::string_view(text).substr(0, n), "cut.json");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().message().rfind("cut.json: ", 0), 0u) << r.status().message();
  }
}

TEST(GpuSnapshotJsonTest, GarbageAndHostileText) {
  for (std::string_view text :
       {"", "   ", "nvml", "\x01\x02\xff", "{\"devices\": [}", "null", "[]"}) {
    auto r = ParseGpuSnapshot(text, "g.json");
    EXPECT_FALSE(r.ok()) << text;
  }
  std::string deep(200000, '[');
  auto r = ParseGpuSnapshot(deep, "deep.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested deeper than"), std::string::npos);
  // Brackets inside strings are not nesting.
  std::string brackets = R"({"source": ")" + std::string(100, '[') + R"(", "devices": []})";
  EXPECT_TRUE(ParseGpuSnapshot(brackets, "b.json").ok());
}

TEST(GpuSnapshotJsonTest, LoadsFilesWithLimits) {
  TempHost t;
  t.Write("/ok.json", kSnapshot);
  auto ok = LoadGpuSnapshot(t.root() + "/ok.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->source, "recorded: " + t.root() + "/ok.json");

  auto absent = LoadGpuSnapshot(t.root() + "/none.json");
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_NE(absent.status().message().find(t.root() + "/none.json"), std::string::npos);

  t.Write("/dir/x", "");
  EXPECT_EQ(LoadGpuSnapshot(t.root() + "/dir").status().code(), StatusCode::kInvalidInput);

  std::string big(kMaxSnapshotFileBytes + 1, ' ');
  t.Write("/big.json", big);
  auto too_big = LoadGpuSnapshot(t.root() + "/big.json");
  EXPECT_EQ(too_big.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(too_big.status().message().find("larger than"), std::string::npos);

  t.Write("/cut.json", std::string(kSnapshot).substr(0, 300));
  auto cut = LoadGpuSnapshot(t.root() + "/cut.json");
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(cut.status().message().find("not JSON"), std::string::npos);
}

}  // namespace
}  // namespace ys::gpu
