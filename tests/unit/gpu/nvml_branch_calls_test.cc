// The NVML calls whose names or structs changed between driver branches, over a table of fake
// functions: the newer call first and the older one as the fallback (missing symbol, or
// NVML_ERROR_FUNCTION_NOT_FOUND from a driver that does not implement it), FUNCTION_NOT_FOUND
// as "not supported", and the NVLink throughput summed over every link (scopeId UINT_MAX).
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpu/nvml_reader.h"

namespace ys::gpu::nvml {
namespace nvml_branch_calls_test {
namespace {

// What the fake answers; one at a time (the fakes are plain function pointers).
struct Fake {
  std::map<std::string, nvmlReturn_t> rc;  // function -> its answer when not NVML_SUCCESS
  std::vector<std::string> calls;
  std::vector<unsigned int> scopes;  // scopeId of each NVLink throughput field asked for
};
Fake* fake = nullptr;

nvmlReturn_t Answer(const char* fn) {
  fake->calls.push_back(fn);
  auto it = fake->rc.find(fn);
  return it == fake->rc.end() ? NVML_SUCCESS : it->second;
}

nvmlReturn_t Ok() { return NVML_SUCCESS; }
nvmlReturn_t OneGpu(unsigned int* n) {
  *n = 1;
  return NVML_SUCCESS;
}
nvmlReturn_t Handle(unsigned int, nvmlDevice_t* d) {
  *d = reinterpret_cast<nvmlDevice_t>(uintptr_t{1});
  return NVML_SUCCESS;
}
nvmlReturn_t Power(nvmlDevice_t, unsigned int* mw) {
  *mw = 100000;
  return Answer("nvmlDeviceGetPowerUsage");
}
nvmlReturn_t EventReasons(nvmlDevice_t, unsigned long long* r) {
  *r = 0x4;
  return Answer("nvmlDeviceGetCurrentClocksEventReasons");
}
nvmlReturn_t ThrottleReasons(nvmlDevice_t, unsigned long long* r) {
  *r = 0x4;
  return Answer("nvmlDeviceGetCurrentClocksThrottleReasons");
}
nvmlReturn_t Temp(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int* c) {
  *c = 40;
  return Answer("nvmlDeviceGetTemperature");
}
nvmlReturn_t TempV(nvmlDevice_t, nvmlTemperature_t* t) {
  if (t->version != nvmlTemperature_v1 || t->sensorType != NVML_TEMPERATURE_GPU) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  t->temperature = 41;
  return Answer("nvmlDeviceGetTemperatureV");
}
nvmlReturn_t FabricV1(nvmlDevice_t, nvmlGpuFabricInfo_t* f) {
  f->state = NVML_GPU_FABRIC_STATE_COMPLETED;
  f->status = NVML_SUCCESS;
  return Answer("nvmlDeviceGetGpuFabricInfo");
}
nvmlReturn_t FabricV(nvmlDevice_t, void*) { return Answer("nvmlDeviceGetGpuFabricInfoV"); }

nvmlReturn_t MemoryV1(nvmlDevice_t, nvmlMemory_t* m) {
  *m = nvmlMemory_t{100, 60, 40};  // total, free, used
  return Answer("nvmlDeviceGetMemoryInfo");
}
nvmlReturn_t MemoryV2(nvmlDevice_t, nvmlMemory_v2_t* m) {
  if (m->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  m->total = 200;
  m->reserved = 5;
  m->free = 150;
  m->used = 50;
  return Answer("nvmlDeviceGetMemoryInfo_v2");
}
// Link l carried (l + 1) KiB of 18 links; UINT_MAX: the sum.
nvmlReturn_t Fields(nvmlDevice_t, int n, nvmlFieldValue_t* v) {
  for (int i = 0; i < n; ++i) {
    v[i].valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v[i].nvmlReturn = NVML_SUCCESS;
    if (v[i].fieldId == NVML_FI_DEV_MEMORY_TEMP) {
      v[i].value.ullVal = 50;
      continue;
    }
    fake->scopes.push_back(v[i].scopeId);
    v[i].value.ullVal = v[i].scopeId == UINT_MAX ? 18 * 19 / 2 : v[i].scopeId + 1;
  }
  return NVML_SUCCESS;
}

Api BaseApi() {
  Api a;
  a.nvmlInit_v2 = Ok;
  a.nvmlShutdown = Ok;
  a.nvmlDeviceGetCount_v2 = OneGpu;
  a.nvmlDeviceGetHandleByIndex_v2 = Handle;
  a.nvmlDeviceGetPowerUsage = Power;
  a.nvmlDeviceGetCurrentClocksEventReasons = EventReasons;
  a.nvmlDeviceGetCurrentClocksThrottleReasons = ThrottleReasons;
  a.nvmlDeviceGetTemperature = Temp;
  a.nvmlDeviceGetTemperatureV = TempV;
  a.nvmlDeviceGetGpuFabricInfo = FabricV1;
  a.nvmlDeviceGetGpuFabricInfoV = FabricV;
  return a;
}

TelemetryApi BaseTelemetry() {
  TelemetryApi t;
  t.nvmlDeviceGetMemoryInfo = MemoryV1;
  t.nvmlDeviceGetMemoryInfo_v2 = MemoryV2;
  t.nvmlDeviceGetFieldValues = Fields;
  return t;
}

class GpuNvmlBranchCallsTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = &state_; }
  void TearDown() override { fake = nullptr; }
  GpuDevice Read(const Api& api) {
    auto s = ReadGpuSnapshot(api);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() && !s->devices.empty() ? s->devices[0] : GpuDevice{};
  }
  int Calls(const std::string& fn) const {
    int n = 0;
    for (const auto& c : state_.calls) n += c == fn;
    return n;
  }
  Fake state_;
};

TEST_F(GpuNvmlBranchCallsTest, TheNewerCallsFirst) {
  GpuDevice d = Read(BaseApi());
  EXPECT_EQ(*d.temperature_c, 41u);
  EXPECT_EQ(*d.clocks_event_reasons, 0x4u);
  EXPECT_EQ(Calls("nvmlDeviceGetTemperatureV"), 1);
  EXPECT_EQ(Calls("nvmlDeviceGetTemperature"), 0);
  EXPECT_EQ(Calls("nvmlDeviceGetCurrentClocksThrottleReasons"), 0);
}

TEST_F(GpuNvmlBranchCallsTest, FunctionNotFoundFallsBackToTheOlderCall) {
  for (const char* fn : {"nvmlDeviceGetTemperatureV", "nvmlDeviceGetCurrentClocksEventReasons",
                         "nvmlDeviceGetGpuFabricInfoV"}) {
    state_.rc[fn] = NVML_ERROR_FUNCTION_NOT_FOUND;
  }
  GpuDevice d = Read(BaseApi());
  EXPECT_EQ(*d.temperature_c, 40u);
  EXPECT_EQ(*d.clocks_event_reasons, 0x4u);
  EXPECT_EQ(Calls("nvmlDeviceGetCurrentClocksThrottleReasons"), 1);
  ASSERT_TRUE(d.fabric.has()) << d.fabric.error;
  EXPECT_EQ(d.fabric->state, "completed");
  EXPECT_EQ(Calls("nvmlDeviceGetGpuFabricInfo"), 1);
}

TEST_F(GpuNvmlBranchCallsTest, MissingNewerSymbolsFallBackToo) {
  Api a = BaseApi();  // an R535 library: neither the V temperature nor the V fabric call
  a.nvmlDeviceGetTemperatureV = nullptr;
  a.nvmlDeviceGetGpuFabricInfoV = nullptr;
  GpuDevice d = Read(a);
  EXPECT_EQ(*d.temperature_c, 40u);
  EXPECT_TRUE(d.fabric.has());
}

TEST_F(GpuNvmlBranchCallsTest, FunctionNotFoundIsNotSupported) {
  state_.rc["nvmlDeviceGetPowerUsage"] = NVML_ERROR_FUNCTION_NOT_FOUND;
  GpuDevice d = Read(BaseApi());
  EXPECT_FALSE(d.power_usage_mw.has());
  EXPECT_TRUE(d.power_usage_mw.not_supported()) << d.power_usage_mw.error;
  EXPECT_EQ(d.power_usage_mw.error,
            "not supported: nvmlDeviceGetPowerUsage not implemented by this driver");
  // Another error stays an error.
  state_.rc["nvmlDeviceGetPowerUsage"] = NVML_ERROR_GPU_IS_LOST;
  d = Read(BaseApi());
  EXPECT_FALSE(d.power_usage_mw.not_supported()) << d.power_usage_mw.error;
}

TEST_F(GpuNvmlBranchCallsTest, NvLinkThroughputIsSummedOverEveryLink) {
  auto t = ReadGpuTelemetry(BaseApi(), BaseTelemetry());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const DeviceTelemetry& d = t->devices.at(0);
  EXPECT_EQ(*d.nvlink_data_tx_kib, 171u);  // 1 + 2 + ... + 18, not link 0's 1
  EXPECT_EQ(*d.nvlink_data_rx_kib, 171u);
  EXPECT_EQ(state_.scopes, (std::vector<unsigned int>{UINT_MAX, UINT_MAX}));
  EXPECT_EQ(*d.memory_temperature_c, 50u);
}

TEST_F(GpuNvmlBranchCallsTest, MemoryFromTheV2CallElseTheV1Call) {
  auto t = ReadGpuTelemetry(BaseApi(), BaseTelemetry());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->devices.at(0).memory_total_bytes, 200u);
  EXPECT_EQ(*t->devices.at(0).memory_used_bytes, 50u);
  EXPECT_EQ(Calls("nvmlDeviceGetMemoryInfo"), 0);

  state_.rc["nvmlDeviceGetMemoryInfo_v2"] = NVML_ERROR_FUNCTION_NOT_FOUND;
  t = ReadGpuTelemetry(BaseApi(), BaseTelemetry());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->devices.at(0).memory_total_bytes, 100u);
  EXPECT_EQ(*t->devices.at(0).memory_free_bytes, 60u);

  TelemetryApi v1_only = BaseTelemetry();
  v1_only.nvmlDeviceGetMemoryInfo_v2 = nullptr;
  t = ReadGpuTelemetry(BaseApi(), v1_only);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t->devices.at(0).memory_total_bytes, 100u);

  TelemetryApi none;  // neither: not supported, naming the call
  t = ReadGpuTelemetry(BaseApi(), none);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->devices.at(0).memory_total_bytes.not_supported());
}

}  // namespace
}  // namespace nvml_branch_calls_test
}  // namespace ys::gpu::nvml
