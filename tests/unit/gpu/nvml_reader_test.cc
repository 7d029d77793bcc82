// The NVML reader over a table of fake NVML functions: fixed answers, error codes (including
// NOT_SUPPORTED), missing symbols, versioned-struct fallbacks and a GPU that is lost.
#include "gpu/nvml_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpu/gpu_snapshot_json.h"

namespace ys::gpu::nvml {
namespace {

// What the fake NVML answers. One at a time (the fake functions are plain C function pointers).
struct FakeNvml {
  unsigned int count = 2;
  nvmlReturn_t count_rc = NVML_SUCCESS;
  std::set<unsigned int> lost;                 // GetHandleByIndex fails with GPU_IS_LOST
  std::map<std::string, nvmlReturn_t> errors;  // function name -> return code, every GPU
  unsigned int links = 4;                      // links 0..links-1 exist; link 2 is down
  unsigned int fabric_max_version = 3;         // the newest nvmlGpuFabricInfo version accepted
  std::vector<unsigned int> fabric_versions_seen;
  unsigned int processes = 3;
  unsigned int retired_sbe = 700;  // more than the reader's buffer
  int init_calls = 0;
  int shutdown_calls = 0;
};
FakeNvml* fake = nullptr;

unsigned int Index(nvmlDevice_t d) {
  return static_cast<unsigned int>(reinterpret_cast<uintptr_t>(d)) - 1;
}

#define FAIL_IF_SET(name) \
  if (auto it = fake->errors.find(name); it != fake->errors.end()) return it->second

void Copy(char* out, unsigned int length, const std::string& s) {
  std::strncpy(out, s.c_str(), length);
  out[length - 1] = '\0';
}

nvmlReturn_t Init() {
  ++fake->init_calls;
  return NVML_SUCCESS;
}
nvmlReturn_t Shutdown() {
  ++fake->shutdown_calls;
  return NVML_SUCCESS;
}
const char* ErrorString(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    default:
      return "Unknown Error";
  }
}
nvmlReturn_t DriverVersion(char* v, unsigned int n) {
  FAIL_IF_SET("driver");
  Copy(v, n, "550.127.05");
  return NVML_SUCCESS;
}
nvmlReturn_t NvmlVersion(char* v, unsigned int n) {
  Copy(v, n, "12.550.127.05");
  return NVML_SUCCESS;
}
nvmlReturn_t CudaVersion(int* v) {
  FAIL_IF_SET("cuda");
  *v = 12040;
  return NVML_SUCCESS;
}
nvmlReturn_t Count(unsigned int* n) {
  *n = fake->count;
  return fake->count_rc;
}
nvmlReturn_t Handle(unsigned int i, nvmlDevice_t* d) {
  if (i >= fake->count) return NVML_ERROR_INVALID_ARGUMENT;
  if (fake->lost.count(i)) return NVML_ERROR_GPU_IS_LOST;
  *d = reinterpret_cast<nvmlDevice_t>(static_cast<uintptr_t>(i + 1));
  return NVML_SUCCESS;
}
nvmlReturn_t Uuid(nvmlDevice_t d, char* s, unsigned int n) {
  Copy(s, n, "GPU-fake-" + std::to_string(Index(d)));
  return NVML_SUCCESS;
}
nvmlReturn_t Name(nvmlDevice_t, char* s, unsigned int n) {
  Copy(s, n, "NVIDIA H200");
  return NVML_SUCCESS;
}
nvmlReturn_t Serial(nvmlDevice_t, char* s, unsigned int n) {
  FAIL_IF_SET("serial");
  Copy(s, n, "1650000000001");
  return NVML_SUCCESS;
}
nvmlReturn_t Pci(nvmlDevice_t d, nvmlPciInfo_t* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", 0x18 + Index(d));
  std::snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", 0x18 + Index(d));
  p->pciDeviceId = 0x233510de;
  return NVML_SUCCESS;
}
nvmlReturn_t Persistence(nvmlDevice_t, nvmlEnableState_t* m) {
  *m = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t Pstate(nvmlDevice_t, nvmlPstates_t* p) {
  *p = 0;
  return NVML_SUCCESS;
}
nvmlReturn_t Clock(nvmlDevice_t, nvmlClockType_t t, unsigned int* mhz) {
  *mhz = t == NVML_CLOCK_SM ? 1755 : 3201;
  return NVML_SUCCESS;
}
nvmlReturn_t MaxClock(nvmlDevice_t, nvmlClockType_t t, unsigned int* mhz) {
  *mhz = t == NVML_CLOCK_SM ? 1980 : 3201;
  return NVML_SUCCESS;
}
nvmlReturn_t EventReasons(nvmlDevice_t d, unsigned long long* r) {
  *r = Index(d) == 1 ? 0x40 : 0;
  return NVML_SUCCESS;
}
nvmlReturn_t ThrottleReasons(nvmlDevice_t, unsigned long long* r) {
  *r = 0x4;
  return NVML_SUCCESS;
}
nvmlReturn_t Power(nvmlDevice_t, unsigned int* mw) {
  FAIL_IF_SET("power");
  *mw = 650000;
  return NVML_SUCCESS;
}
nvmlReturn_t Enforced(nvmlDevice_t, unsigned int* mw) {
  *mw = 700000;
  return NVML_SUCCESS;
}
nvmlReturn_t DefaultLimit(nvmlDevice_t, unsigned int* mw) {
  *mw = 700000;
  return NVML_SUCCESS;
}
nvmlReturn_t Temp(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int* c) {
  *c = 55;
  return NVML_SUCCESS;
}
nvmlReturn_t Threshold(nvmlDevice_t, nvmlTemperatureThresholds_t t, unsigned int* c) {
  *c = t == NVML_TEMPERATURE_THRESHOLD_SHUTDOWN   ? 92
       : t == NVML_TEMPERATURE_THRESHOLD_SLOWDOWN ? 87
                                                  : 85;
  return NVML_SUCCESS;
}
nvmlReturn_t EccMode(nvmlDevice_t, nvmlEnableState_t* c, nvmlEnableState_t* p) {
  *c = *p = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t Ecc(nvmlDevice_t, nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter,
                 unsigned long long* n) {
  *n = (type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? 10 : 1) *
       (counter == NVML_AGGREGATE_ECC ? 100 : 1);
  return NVML_SUCCESS;
}
nvmlReturn_t Retired(nvmlDevice_t, nvmlPageRetirementCause_t cause, unsigned int* n,
                     unsigned long long* addresses) {
  FAIL_IF_SET("retired");
  unsigned int have =
      cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? 2 : fake->retired_sbe;
  if (*n < have) {
    *n = have;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned int i = 0; i < have; ++i) addresses[i] = 0x1000 * i;
  *n = have;
  return NVML_SUCCESS;
}
nvmlReturn_t RetiredPending(nvmlDevice_t, nvmlEnableState_t* p) {
  FAIL_IF_SET("retired");
  *p = NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t Remapped(nvmlDevice_t d, unsigned int* c, unsigned int* u, unsigned int* p,
                      unsigned int* f) {
  FAIL_IF_SET("remapped");
  *c = 0;
  *u = Index(d) == 1 ? 1 : 0;
  *p = Index(d) == 1;
  *f = 0;
  return NVML_SUCCESS;
}
nvmlReturn_t LinkState(nvmlDevice_t, unsigned int link, nvmlEnableState_t* a) {
  FAIL_IF_SET("nvlink");
  if (link >= fake->links)
    return link < 18 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
  *a = link == 2 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}
nvmlReturn_t LinkRemote(nvmlDevice_t, unsigned int link, nvmlPciInfo_t* p) {
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->busId, sizeof p->busId, "00000000:%02X:00.0", 0xA0 + link);
  return NVML_SUCCESS;
}
nvmlReturn_t LinkErrors(nvmlDevice_t, unsigned int link, nvmlNvLinkErrorCounter_t c,
                        unsigned long long* v) {
  *v = link == 2 && c == NVML_NVLINK_ERROR_DL_REPLAY ? 1234 : 0;
  return NVML_SUCCESS;
}
void FillFabric(unsigned char* uuid, nvmlReturn_t* status, unsigned int* clique,
                nvmlGpuFabricState_t* state) {
  for (int i = 0; i < 16; ++i) uuid[i] = static_cast<unsigned char>(i * 17);
  *status = NVML_SUCCESS;
  *clique = 32766;
  *state = NVML_GPU_FABRIC_STATE_COMPLETED;
}
nvmlReturn_t FabricV(nvmlDevice_t, void* p) {
  unsigned int version;
  std::memcpy(&version, p, sizeof version);
  fake->fabric_versions_seen.push_back(version);
  FAIL_IF_SET("fabric");
  if (version == nvmlGpuFabricInfo_v3 && fake->fabric_max_version >= 3) {
    auto* f = static_cast<nvmlGpuFabricInfo_v3_t*>(p);
    FillFabric(f->clusterUuid, &f->status, &f->cliqueId, &f->state);
    return NVML_SUCCESS;
  }
  if (version == nvmlGpuFabricInfo_v2 && fake->fabric_max_version >= 2) {
    auto* f = static_cast<nvmlGpuFabricInfo_v2_t*>(p);
    FillFabric(f->clusterUuid, &f->status, &f->cliqueId, &f->state);
    f->state = NVML_GPU_FABRIC_STATE_IN_PROGRESS;  // tells the two apart
    return NVML_SUCCESS;
  }
  return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}
nvmlReturn_t FabricV1(nvmlDevice_t, nvmlGpuFabricInfo_t* f) {
  FillFabric(f->clusterUuid, &f->status, &f->cliqueId, &f->state);
  f->state = NVML_GPU_FABRIC_STATE_NOT_STARTED;
  return NVML_SUCCESS;
}
nvmlReturn_t PcieGen(nvmlDevice_t, unsigned int* g) {
  *g = 5;
  return NVML_SUCCESS;
}
nvmlReturn_t PcieWidth(nvmlDevice_t d, unsigned int* w) {
  *w = Index(d) == 1 ? 8 : 16;
  return NVML_SUCCESS;
}
nvmlReturn_t PcieMaxWidth(nvmlDevice_t, unsigned int* w) {
  *w = 16;
  return NVML_SUCCESS;
}
nvmlReturn_t Replay(nvmlDevice_t, unsigned int* n) {
  *n = 77;
  return NVML_SUCCESS;
}
nvmlReturn_t Mig(nvmlDevice_t, unsigned int* c, unsigned int* p) {
  FAIL_IF_SET("mig");
  *c = *p = 0;
  return NVML_SUCCESS;
}
nvmlReturn_t Processes(nvmlDevice_t, unsigned int* n, nvmlProcessInfo_t* infos) {
  FAIL_IF_SET("processes");
  if (*n < fake->processes) {
    *n = fake->processes;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned int i = 0; i < fake->processes; ++i) {
    infos[i] = nvmlProcessInfo_t{1000 + i, (1ull << 30) * (i + 1), 0xFFFFFFFF, 0xFFFFFFFF};
  }
  *n = fake->processes;
  return NVML_SUCCESS;
}
nvmlReturn_t Topology(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t* level) {
  *level = Index(a) / 4 == Index(b) / 4 ? 10 : 50;
  return NVML_SUCCESS;
}

Api FakeApi() {
  Api a;
  a.nvmlInit_v2 = Init;
  a.nvmlShutdown = Shutdown;
  a.nvmlErrorString = ErrorString;
  a.nvmlSystemGetDriverVersion = DriverVersion;
  a.nvmlSystemGetNVMLVersion = NvmlVersion;
  a.nvmlSystemGetCudaDriverVersion_v2 = CudaVersion;
  a.nvmlDeviceGetCount_v2 = Count;
  a.nvmlDeviceGetHandleByIndex_v2 = Handle;
  a.nvmlDeviceGetUUID = Uuid;
  a.nvmlDeviceGetName = Name;
  a.nvmlDeviceGetSerial = Serial;
  a.nvmlDeviceGetPciInfo_v3 = Pci;
  a.nvmlDeviceGetPersistenceMode = Persistence;
  a.nvmlDeviceGetPerformanceState = Pstate;
  a.nvmlDeviceGetClockInfo = Clock;
  a.nvmlDeviceGetMaxClockInfo = MaxClock;
  a.nvmlDeviceGetCurrentClocksEventReasons = EventReasons;
  a.nvmlDeviceGetCurrentClocksThrottleReasons = ThrottleReasons;
  a.nvmlDeviceGetPowerUsage = Power;
  a.nvmlDeviceGetEnforcedPowerLimit = Enforced;
  a.nvmlDeviceGetPowerManagementDefaultLimit = DefaultLimit;
  a.nvmlDeviceGetTemperature = Temp;
  a.nvmlDeviceGetTemperatureThreshold = Threshold;
  a.nvmlDeviceGetEccMode = EccMode;
  a.nvmlDeviceGetTotalEccErrors = Ecc;
  a.nvmlDeviceGetRetiredPages = Retired;
  a.nvmlDeviceGetRetiredPagesPendingStatus = RetiredPending;
  a.nvmlDeviceGetRemappedRows = Remapped;
  a.nvmlDeviceGetNvLinkState = LinkState;
  a.nvmlDeviceGetNvLinkRemotePciInfo_v2 = LinkRemote;
  a.nvmlDeviceGetNvLinkErrorCounter = LinkErrors;
  a.nvmlDeviceGetGpuFabricInfo = FabricV1;
  a.nvmlDeviceGetGpuFabricInfoV = FabricV;
  a.nvmlDeviceGetCurrPcieLinkGeneration = PcieGen;
  a.nvmlDeviceGetMaxPcieLinkGeneration = PcieGen;
  a.nvmlDeviceGetCurrPcieLinkWidth = PcieWidth;
  a.nvmlDeviceGetMaxPcieLinkWidth = PcieMaxWidth;
  a.nvmlDeviceGetPcieReplayCounter = Replay;
  a.nvmlDeviceGetMigMode = Mig;
  a.nvmlDeviceGetComputeRunningProcesses_v3 = Processes;
  a.nvmlDeviceGetTopologyCommonAncestor = Topology;
  return a;
}

class GpuNvmlReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = &state_; }
  void TearDown() override { fake = nullptr; }
  GpuSnapshot Read(const Api& api) {
    auto r = ReadGpuSnapshot(api);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : GpuSnapshot{};
  }
  FakeNvml state_;
};

TEST_F(GpuNvmlReaderTest, FillsEveryField) {
  GpuSnapshot s = Read(FakeApi());
  EXPECT_EQ(*s.driver_version, "550.127.05");
  EXPECT_EQ(*s.nvml_version, "12.550.127.05");
  EXPECT_EQ(*s.cuda_driver_version, 12040);
  ASSERT_EQ(s.devices.size(), 2u);
  const GpuDevice& d = s.devices[1];
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(d.uuid, "GPU-fake-1");
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.serial, "1650000000001");
  EXPECT_EQ(d.pci_bus_id, "00000000:19:00.0");
  EXPECT_EQ(d.pci_device_id, 0x233510deu);
  EXPECT_TRUE(*d.persistence_mode);
  EXPECT_EQ(*d.performance_state, 0);
  EXPECT_EQ(*d.sm_clock_mhz, 1755u);
  EXPECT_EQ(*d.mem_clock_mhz, 3201u);
  EXPECT_EQ(*d.max_sm_clock_mhz, 1980u);
  EXPECT_EQ(*d.clocks_event_reasons, kClocksEventHwThermalSlowdown);  // the new entry point
  EXPECT_EQ(*d.power_usage_mw, 650000u);
  EXPECT_EQ(*d.enforced_power_limit_mw, 700000u);
  EXPECT_EQ(*d.default_power_limit_mw, 700000u);
  EXPECT_EQ(*d.temperature_c, 55u);
  EXPECT_EQ(*d.slowdown_temperature_c, 87u);
  EXPECT_EQ(*d.shutdown_temperature_c, 92u);
  EXPECT_EQ(*d.max_operating_temperature_c, 85u);
  EXPECT_TRUE(*d.ecc_enabled);
  EXPECT_EQ(*d.ecc_volatile_corrected, 10u);
  EXPECT_EQ(*d.ecc_volatile_uncorrected, 1u);
  EXPECT_EQ(*d.ecc_aggregate_corrected, 1000u);
  EXPECT_EQ(*d.ecc_aggregate_uncorrected, 100u);
  EXPECT_EQ(*d.retired_pages_sbe, 700u);  // counted through INSUFFICIENT_SIZE
  EXPECT_EQ(*d.retired_pages_dbe, 2u);
  EXPECT_FALSE(*d.retired_pages_pending);
  EXPECT_EQ(*d.remapped_rows_uncorrectable, 1u);
  EXPECT_TRUE(*d.remapped_rows_pending);
  EXPECT_FALSE(*d.remapped_rows_failure);
  ASSERT_EQ(d.nvlinks.size(), 4u);
  EXPECT_FALSE(*d.nvlinks[2].active);
  EXPECT_TRUE(*d.nvlinks[3].active);
  EXPECT_EQ(*d.nvlinks[2].replay_errors, 1234u);
  EXPECT_EQ(*d.nvlinks[1].remote_pci_bus_id, "00000000:A1:00.0");
  ASSERT_TRUE(d.fabric.has());
  EXPECT_EQ(d.fabric->state, "completed");
  EXPECT_EQ(d.fabric->status, "success");
  EXPECT_EQ(d.fabric->cluster_uuid, "00112233-4455-6677-8899-aabbccddeeff");
  EXPECT_EQ(d.fabric->clique_id, 32766u);
  EXPECT_EQ(*d.pcie_gen_current, 5u);
  EXPECT_EQ(*d.pcie_width_current, 8u);
  EXPECT_EQ(*d.pcie_width_max, 16u);
  EXPECT_EQ(*d.pcie_replay_counter, 77u);
  EXPECT_FALSE(*d.mig_enabled);
  ASSERT_EQ(d.compute_processes->size(), 3u);
  EXPECT_EQ((*d.compute_processes)[2].pid, 1002u);
  EXPECT_EQ((*d.compute_processes)[2].used_memory_bytes, 3ull << 30);
  EXPECT_EQ(d.topology_to_gpus, (std::vector<std::pair<int, int>>{{0, 10}}));
  EXPECT_EQ(state_.fabric_versions_seen.front(), nvmlGpuFabricInfo_v3);
}

TEST_F(GpuNvmlReaderTest, WhatItReadsSurvivesTheJsonForm) {
  GpuSnapshot s = Read(FakeApi());
  auto back = ParseGpuSnapshot(GpuSnapshotToJsonText(s), "x");
  ASSERT_TRUE(back.ok()) << back.status().message();
  s.source = back->source;
  EXPECT_EQ(GpuSnapshotToJsonText(*back), GpuSnapshotToJsonText(s));
}

TEST_F(GpuNvmlReaderTest, NotSupportedAndOtherErrors) {
  state_.errors["power"] = NVML_ERROR_NOT_SUPPORTED;
  state_.errors["mig"] = NVML_ERROR_NO_PERMISSION;
  state_.errors["remapped"] = NVML_ERROR_NOT_SUPPORTED;
  state_.errors["fabric"] = NVML_ERROR_NOT_SUPPORTED;
  state_.errors["processes"] = NVML_ERROR_NO_PERMISSION;
  state_.errors["retired"] = NVML_ERROR_NOT_SUPPORTED;
  state_.errors["serial"] = NVML_ERROR_NOT_SUPPORTED;
  state_.errors["nvlink"] = NVML_ERROR_NOT_SUPPORTED;  // a PCIe card: no NVLink
  state_.errors["driver"] = 12345;                     // a code this build does not know
  GpuSnapshot s = Read(FakeApi());
  const GpuDevice& d = s.devices[0];
  EXPECT_EQ(d.power_usage_mw.error, "not supported");
  EXPECT_TRUE(d.power_usage_mw.not_supported());
  EXPECT_EQ(d.mig_enabled.error,
            "nvmlDeviceGetMigMode: NVML_ERROR_NO_PERMISSION: Insufficient Permissions");
  EXPECT_FALSE(d.mig_enabled.not_supported());
  EXPECT_EQ(d.remapped_rows_pending.error, "not supported");
  EXPECT_EQ(d.remapped_rows_correctable.error, "not supported");
  EXPECT_EQ(d.fabric.error, "not supported");
  EXPECT_EQ(state_.fabric_versions_seen.size(),
            2u);  // v3 only, per GPU: no fallback on NOT_SUPPORTED
  EXPECT_NE(d.compute_processes.error.find("NVML_ERROR_NO_PERMISSION"), std::string::npos);
  EXPECT_TRUE(d.retired_pages_sbe.not_supported());
  EXPECT_TRUE(d.retired_pages_pending.not_supported());
  EXPECT_EQ(d.serial, "");
  EXPECT_TRUE(d.nvlinks.empty());
  EXPECT_EQ(s.driver_version.error, "nvmlSystemGetDriverVersion: NVML_RETURN_12345: Unknown Error");
  EXPECT_TRUE(d.temperature_c.has());  // the rest still answered
}

TEST_F(GpuNvmlReaderTest, MissingSymbolsMeanNotSupported) {
  Api api = FakeApi();
  api.nvmlDeviceGetGpuFabricInfoV = nullptr;
  api.nvmlDeviceGetGpuFabricInfo = nullptr;
  api.nvmlDeviceGetRemappedRows = nullptr;
  api.nvmlDeviceGetCurrentClocksEventReasons = nullptr;  // an older driver: the old name answers
  api.nvmlDeviceGetComputeRunningProcesses_v3 = nullptr;
  api.nvmlDeviceGetNvLinkState = nullptr;
  api.nvmlDeviceGetTopologyCommonAncestor = nullptr;
  api.nvmlSystemGetCudaDriverVersion_v2 = nullptr;
  api.nvmlErrorString = nullptr;
  GpuSnapshot s = Read(api);
  const GpuDevice& d = s.devices[0];
  EXPECT_TRUE(d.fabric.not_supported());
  EXPECT_EQ(d.fabric.error, "not supported: this NVML has no nvmlDeviceGetGpuFabricInfo");
  EXPECT_EQ(d.remapped_rows_failure.error,
            "not supported: this NVML has no nvmlDeviceGetRemappedRows");
  EXPECT_EQ(*d.clocks_event_reasons, kClocksEventSwPowerCap);
  EXPECT_TRUE(d.compute_processes.not_supported());
  EXPECT_TRUE(d.nvlinks.empty());
  EXPECT_TRUE(d.topology_to_gpus.empty());
  EXPECT_TRUE(s.cuda_driver_version.not_supported());

  Api bare;  // nothing at all: counting fails, cleanly
  auto r = ReadGpuSnapshot(bare);
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
}

TEST_F(GpuNvmlReaderTest, FabricFallsBackThroughTheVersions) {
  state_.fabric_max_version = 2;  // a driver that knows v2 only
  GpuSnapshot s = Read(FakeApi());
  EXPECT_EQ(s.devices[0].fabric->state, "in progress");
  ASSERT_GE(state_.fabric_versions_seen.size(), 2u);
  EXPECT_EQ(state_.fabric_versions_seen[0], nvmlGpuFabricInfo_v3);
  EXPECT_EQ(state_.fabric_versions_seen[1], nvmlGpuFabricInfo_v2);
  EXPECT_EQ(nvmlGpuFabricInfo_v2, 0x02000024u);
  EXPECT_EQ(nvmlGpuFabricInfo_v3, 0x03000028u);

  state_.fabric_max_version = 1;  // V exports, but takes neither: the unversioned call answers
  s = Read(FakeApi());
  EXPECT_EQ(s.devices[0].fabric->state, "not started");

  Api api = FakeApi();
  api.nvmlDeviceGetGpuFabricInfoV = nullptr;  // a driver from before the V call
  s = Read(api);
  EXPECT_EQ(s.devices[0].fabric->state, "not started");
}

TEST_F(GpuNvmlReaderTest, ALostGpuKeepsItsPlaceWithTheReason) {
  state_.count = 4;
  state_.lost = {2};
  GpuSnapshot s = Read(FakeApi());
  ASSERT_EQ(s.devices.size(), 4u);
  const GpuDevice& lost = s.devices[2];
  EXPECT_EQ(lost.index, 2);
  EXPECT_EQ(lost.uuid, "");
  EXPECT_EQ(lost.temperature_c.error,
            "nvmlDeviceGetHandleByIndex_v2: NVML_ERROR_GPU_IS_LOST: GPU is lost");
  EXPECT_EQ(lost.fabric.error, lost.temperature_c.error);
  EXPECT_EQ(lost.compute_processes.error, lost.temperature_c.error);
  EXPECT_TRUE(lost.topology_to_gpus.empty());
  EXPECT_TRUE(s.devices[3].temperature_c.has());
  EXPECT_EQ(s.devices[3].topology_to_gpus, (std::vector<std::pair<int, int>>{{0, 10}, {1, 10}}));
}

TEST_F(GpuNvmlReaderTest, CountingFailureFailsTheRead) {
  state_.count_rc = NVML_ERROR_NO_PERMISSION;
  auto r = ReadGpuSnapshot(FakeApi());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(r.status().message(),
            "nvmlDeviceGetCount_v2: NVML_ERROR_NO_PERMISSION: Insufficient Permissions");

  state_.count_rc = NVML_SUCCESS;
  state_.count = 0;  // a driver with no GPUs: an empty snapshot, not an error
  EXPECT_TRUE(Read(FakeApi()).devices.empty());
}

TEST_F(GpuNvmlReaderTest, NoProcessesIsAnEmptyList) {
  state_.processes = 0;
  GpuSnapshot s = Read(FakeApi());
  ASSERT_TRUE(s.devices[0].compute_processes.has());
  EXPECT_TRUE(s.devices[0].compute_processes->empty());
}

TEST_F(GpuNvmlReaderTest, SessionInitialisesAndShutsDownOnce) {
  Api api = FakeApi();
  {
    auto session = Session::Start(api);
    ASSERT_TRUE(session.ok());
    auto moved = std::move(session).value();
    EXPECT_EQ(state_.init_calls, 1);
    EXPECT_EQ(state_.shutdown_calls, 0);
  }
  EXPECT_EQ(state_.shutdown_calls, 1);
}

TEST(GpuNvmlApiTest, ErrorTextsAndStatusCodes) {
  Api api;  // no nvmlErrorString: the name alone
  EXPECT_EQ(ErrorText(api, NVML_ERROR_DRIVER_NOT_LOADED), "NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_EQ(ReturnName(NVML_ERROR_LIB_RM_VERSION_MISMATCH), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
  EXPECT_EQ(ReturnName(31337), "NVML_RETURN_31337");
  EXPECT_TRUE(ToStatus(api, NVML_SUCCESS, "x").ok());
  EXPECT_EQ(ToStatus(api, NVML_ERROR_NOT_SUPPORTED, "x").code(), StatusCode::kUnsupported);
  EXPECT_EQ(ToStatus(api, NVML_ERROR_DRIVER_NOT_LOADED, "nvmlInit_v2").code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ToStatus(api, NVML_ERROR_DRIVER_NOT_LOADED, "nvmlInit_v2").message(),
            "nvmlInit_v2: NVML_ERROR_DRIVER_NOT_LOADED");
  EXPECT_EQ(ToStatus(api, NVML_ERROR_GPU_IS_LOST, "x").code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace ys::gpu::nvml
