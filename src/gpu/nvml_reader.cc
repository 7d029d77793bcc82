#include "gpu/nvml_reader.h"

#include <fmt/format.h>

#include <type_traits>
#include <vector>

#include "core/run_document.h"
#include "gpu/cuda_driver.h"
#include "gpu/gpu_snapshot_fields.h"
#include "gpu/nvml_call.h"

namespace ys::gpu {
// Inside NVML's namespace (its own names unqualified) rather than `using namespace nvml`, which
// in a unity batch would reach the files after this one.
namespace nvml {
namespace {

// The table member and its name, for messages.
#define YS_NVML_FN(name) api_.name, #name

// "0a1b2c3d-..." from 16 bytes (the layout of a UUID string).
std::string UuidText(const unsigned char (&b)[NVML_GPU_FABRIC_UUID_LEN]) {
  std::string s;
  for (unsigned i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

std::string FabricStateName(nvmlGpuFabricState_t state) {
  switch (state) {
    case NVML_GPU_FABRIC_STATE_NOT_SUPPORTED:
      return "not supported";
    case NVML_GPU_FABRIC_STATE_NOT_STARTED:
      return "not started";
    case NVML_GPU_FABRIC_STATE_IN_PROGRESS:
      return "in progress";
    case NVML_GPU_FABRIC_STATE_COMPLETED:
      return "completed";
    default:
      return "unknown (" + std::to_string(state) + ")";
  }
}

// A NUL-terminated copy of a fixed char buffer NVML filled.
template <size_t N>
std::string Text(const char (&buf)[N]) {
  size_t n = 0;
  while (n < N && buf[n] != '\0') ++n;
  return std::string(buf, n);
}

class Reader {
 public:
  explicit Reader(const Api& api) : api_(api) {}

  std::string Why(nvmlReturn_t rc, const char* fn) const { return WhyNoValue(api_, rc, fn); }

  // A one-output query: fn(args..., &out) -> Field<T>.
  template <typename T, typename Out, typename Fn, typename... Args>
  Field<T> Get(Fn fn, const char* name, Args... args) const {
    Out out{};
    nvmlReturn_t rc = Call(fn, args..., &out);
    if (rc != NVML_SUCCESS) return Field<T>::Missing(Why(rc, name));
    if constexpr (std::is_same_v<T, bool>) {
      return Field<T>::Of(out == NVML_FEATURE_ENABLED);
    } else {
      return Field<T>::Of(static_cast<T>(out));
    }
  }

  // A query that fills a string buffer.
  template <typename Fn, typename... Args>
  Field<std::string> GetText(Fn fn, const char* name, Args... args) const {
    char buf[256] = {};
    nvmlReturn_t rc = Call(fn, args..., buf, static_cast<unsigned int>(sizeof buf));
    if (rc != NVML_SUCCESS) return Field<std::string>::Missing(Why(rc, name));
    buf[sizeof buf - 1] = '\0';
    return Field<std::string>::Of(Text(buf));
  }

  Result<GpuSnapshot> Read() const {
    GpuSnapshot s;
    s.driver_version = GetText(YS_NVML_FN(nvmlSystemGetDriverVersion));
    s.nvml_version = GetText(YS_NVML_FN(nvmlSystemGetNVMLVersion));
    // _v2 asks libcuda itself; the plain one may answer with a version NVML merely supports.
    s.cuda_driver_version = Get<int, int>(YS_NVML_FN(nvmlSystemGetCudaDriverVersion_v2));
    if (!s.cuda_driver_version.has()) {
      auto v1 = Get<int, int>(YS_NVML_FN(nvmlSystemGetCudaDriverVersion));
      if (v1.has()) s.cuda_driver_version = v1;
    }

    unsigned int count = 0;
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetCount_v2, &count);
    if (rc == kNoSymbol) return Status::Unsupported("NVML has no nvmlDeviceGetCount_v2");
    YS_RETURN_IF_ERROR(ToStatus(api_, rc, "nvmlDeviceGetCount_v2"));

    std::vector<nvmlDevice_t> handles(count, nullptr);
    for (unsigned int i = 0; i < count; ++i) {
      GpuDevice d;
      d.index = static_cast<int>(i);
      rc = Call(api_.nvmlDeviceGetHandleByIndex_v2, i, &handles[i]);
      if (rc != NVML_SUCCESS) {
        // A GPU NVML counts but cannot open (fallen off the bus, lost): every answer says why.
        handles[i] = nullptr;
        std::string why = Why(rc, "nvmlDeviceGetHandleByIndex_v2");
        ForEachDeviceField(
            d, [&](const char*, auto& f) { f = std::decay_t<decltype(f)>::Missing(why); });
      } else {
        ReadDevice(handles[i], d);
      }
      s.devices.push_back(std::move(d));
    }
    ReadTopology(handles, s.devices);
    return s;
  }

 private:
  void ReadDevice(nvmlDevice_t h, GpuDevice& d) const {
    d.uuid = GetText(YS_NVML_FN(nvmlDeviceGetUUID), h).value.value_or("");
    d.name = GetText(YS_NVML_FN(nvmlDeviceGetName), h).value.value_or("");
    d.serial = GetText(YS_NVML_FN(nvmlDeviceGetSerial), h).value.value_or("");
    nvmlPciInfo_t pci{};
    if (Call(api_.nvmlDeviceGetPciInfo_v3, h, &pci) == NVML_SUCCESS) {
      d.pci_bus_id = Text(pci.busId);
      d.pci_device_id = pci.pciDeviceId;
    }

    d.persistence_mode = Get<bool, nvmlEnableState_t>(YS_NVML_FN(nvmlDeviceGetPersistenceMode), h);
    d.performance_state = Get<int, nvmlPstates_t>(YS_NVML_FN(nvmlDeviceGetPerformanceState), h);
    d.sm_clock_mhz =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetClockInfo), h, NVML_CLOCK_SM);
    d.mem_clock_mhz =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetClockInfo), h, NVML_CLOCK_MEM);
    d.max_sm_clock_mhz =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetMaxClockInfo), h, NVML_CLOCK_SM);
    d.clocks_event_reasons = ClocksEventReasons(h);

    d.power_usage_mw = Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetPowerUsage), h);
    d.enforced_power_limit_mw =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetEnforcedPowerLimit), h);
    d.default_power_limit_mw =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetPowerManagementDefaultLimit), h);

    d.temperature_c = Temperature(h);
    d.slowdown_temperature_c = Get<uint32_t, unsigned int>(
        YS_NVML_FN(nvmlDeviceGetTemperatureThreshold), h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
    d.shutdown_temperature_c = Get<uint32_t, unsigned int>(
        YS_NVML_FN(nvmlDeviceGetTemperatureThreshold), h, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
    d.max_operating_temperature_c = Get<uint32_t, unsigned int>(
        YS_NVML_FN(nvmlDeviceGetTemperatureThreshold), h, NVML_TEMPERATURE_THRESHOLD_GPU_MAX);

    ReadEcc(h, d);
    ReadRetirement(h, d);
    ReadNvLinks(h, d);
    ReadFabric(h, d);

    d.pcie_gen_current =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetCurrPcieLinkGeneration), h);
    d.pcie_gen_max = Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetMaxPcieLinkGeneration), h);
    d.pcie_width_current =
        Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetCurrPcieLinkWidth), h);
    d.pcie_width_max = Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetMaxPcieLinkWidth), h);
    d.pcie_replay_counter =
        Get<uint64_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetPcieReplayCounter), h);

    unsigned int mig_current = 0, mig_pending = 0;
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetMigMode, h, &mig_current, &mig_pending);
    d.mig_enabled = rc == NVML_SUCCESS ? Field<bool>::Of(mig_current == NVML_DEVICE_MIG_ENABLE)
                                       : Field<bool>::Missing(Why(rc, "nvmlDeviceGetMigMode"));
    ReadProcesses(h, d);
  }

  // The new name first (every branch from R535 has it); drivers before R535, or one that does not
  // implement it, answer by the deprecated one (same bits).
  Field<uint64_t> ClocksEventReasons(nvmlDevice_t h) const {
    unsigned long long reasons = 0;
    const char* fn = "nvmlDeviceGetCurrentClocksEventReasons";
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetCurrentClocksEventReasons, h, &reasons);
    if (rc == kNoSymbol || rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
      fn = "nvmlDeviceGetCurrentClocksThrottleReasons";
      rc = Call(api_.nvmlDeviceGetCurrentClocksThrottleReasons, h, &reasons);
    }
    return rc == NVML_SUCCESS ? Field<uint64_t>::Of(reasons)
                              : Field<uint64_t>::Missing(Why(rc, fn));
  }

  // nvmlDeviceGetTemperatureV (R570 and later; the plain call is deprecated there), else
  // nvmlDeviceGetTemperature (every branch).
  Field<uint32_t> Temperature(nvmlDevice_t h) const {
    if (api_.nvmlDeviceGetTemperatureV != nullptr) {
      nvmlTemperature_t t{};
      t.version = nvmlTemperature_v1;
      t.sensorType = NVML_TEMPERATURE_GPU;
      nvmlReturn_t rc = api_.nvmlDeviceGetTemperatureV(h, &t);
      if (rc == NVML_SUCCESS && t.temperature >= 0) {
        return Field<uint32_t>::Of(static_cast<uint32_t>(t.temperature));
      }
      if (rc == NVML_SUCCESS) return Field<uint32_t>::Missing("negative temperature");
      if (rc != NVML_ERROR_FUNCTION_NOT_FOUND && rc != NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        return Field<uint32_t>::Missing(Why(rc, "nvmlDeviceGetTemperatureV"));
      }
    }
    return Get<uint32_t, unsigned int>(YS_NVML_FN(nvmlDeviceGetTemperature), h,
                                       NVML_TEMPERATURE_GPU);
  }

  void ReadEcc(nvmlDevice_t h, GpuDevice& d) const {
    nvmlEnableState_t current = 0, pending = 0;
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetEccMode, h, &current, &pending);
    d.ecc_enabled = rc == NVML_SUCCESS ? Field<bool>::Of(current == NVML_FEATURE_ENABLED)
                                       : Field<bool>::Missing(Why(rc, "nvmlDeviceGetEccMode"));
    auto count = [&](nvmlMemoryErrorType_t type, nvmlEccCounterType_t counter) {
      return Get<uint64_t, unsigned long long>(YS_NVML_FN(nvmlDeviceGetTotalEccErrors), h, type,
                                               counter);
    };
    d.ecc_volatile_corrected = count(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
    d.ecc_volatile_uncorrected = count(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
    d.ecc_aggregate_corrected = count(NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
    d.ecc_aggregate_uncorrected = count(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);
  }

  // Number of pages retired for `cause`. NVML fills at most *pageCount addresses and, when the
  // buffer is short, answers INSUFFICIENT_SIZE with the count needed: either way the count.
  Field<uint32_t> RetiredPages(nvmlDevice_t h, nvmlPageRetirementCause_t cause) const {
    std::vector<unsigned long long> addresses(512);
    unsigned int n = static_cast<unsigned int>(addresses.size());
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetRetiredPages, h, cause, &n, addresses.data());
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE) {
      return Field<uint32_t>::Missing(Why(rc, "nvmlDeviceGetRetiredPages"));
    }
    return Field<uint32_t>::Of(n);
  }

  void ReadRetirement(nvmlDevice_t h, GpuDevice& d) const {
    d.retired_pages_sbe =
        RetiredPages(h, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    d.retired_pages_dbe = RetiredPages(h, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    d.retired_pages_pending =
        Get<bool, nvmlEnableState_t>(YS_NVML_FN(nvmlDeviceGetRetiredPagesPendingStatus), h);
    unsigned int corr = 0, unc = 0, pending = 0, failure = 0;
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetRemappedRows, h, &corr, &unc, &pending, &failure);
    if (rc == NVML_SUCCESS) {
      d.remapped_rows_correctable = Field<uint32_t>::Of(corr);
      d.remapped_rows_uncorrectable = Field<uint32_t>::Of(unc);
      d.remapped_rows_pending = Field<bool>::Of(pending != 0);
      d.remapped_rows_failure = Field<bool>::Of(failure != 0);
    } else {
      std::string why = Why(rc, "nvmlDeviceGetRemappedRows");
      d.remapped_rows_correctable = Field<uint32_t>::Missing(why);
      d.remapped_rows_uncorrectable = Field<uint32_t>::Missing(why);
      d.remapped_rows_pending = Field<bool>::Missing(why);
      d.remapped_rows_failure = Field<bool>::Missing(why);
    }
  }

  // Every link the GPU has: NVML answers NOT_SUPPORTED (no NVLink) or INVALID_ARGUMENT (no such
  // link) for the others. An inactive link is kept: that is a link down.
  void ReadNvLinks(nvmlDevice_t h, GpuDevice& d) const {
    if (api_.nvmlDeviceGetNvLinkState == nullptr) return;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      nvmlEnableState_t active = 0;
      nvmlReturn_t rc = api_.nvmlDeviceGetNvLinkState(h, link, &active);
      if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_INVALID_ARGUMENT) continue;
      NvLinkState l;
      l.link = static_cast<int>(link);
      l.active = rc == NVML_SUCCESS ? Field<bool>::Of(active == NVML_FEATURE_ENABLED)
                                    : Field<bool>::Missing(Why(rc, "nvmlDeviceGetNvLinkState"));
      nvmlPciInfo_t pci{};
      rc = Call(api_.nvmlDeviceGetNvLinkRemotePciInfo_v2, h, link, &pci);
      l.remote_pci_bus_id =
          rc == NVML_SUCCESS
              ? Field<std::string>::Of(Text(pci.busId))
              : Field<std::string>::Missing(Why(rc, "nvmlDeviceGetNvLinkRemotePciInfo_v2"));
      auto counter = [&](nvmlNvLinkErrorCounter_t c) {
        return Get<uint64_t, unsigned long long>(YS_NVML_FN(nvmlDeviceGetNvLinkErrorCounter), h,
                                                 link, c);
      };
      l.replay_errors = counter(NVML_NVLINK_ERROR_DL_REPLAY);
      l.recovery_errors = counter(NVML_NVLINK_ERROR_DL_RECOVERY);
      l.crc_flit_errors = counter(NVML_NVLINK_ERROR_DL_CRC_FLIT);
      l.crc_data_errors = counter(NVML_NVLINK_ERROR_DL_CRC_DATA);
      d.nvlinks.push_back(std::move(l));
    }
  }

  // nvmlDeviceGetGpuFabricInfoV with a v3 struct, then v2 (as DCGM does), else the unversioned
  // nvmlDeviceGetGpuFabricInfo of older drivers.
  void ReadFabric(nvmlDevice_t h, GpuDevice& d) const {
    auto fill = [&](const auto& info) {
      FabricInfo f;
      f.state = FabricStateName(info.state);
      f.status = info.status == NVML_SUCCESS ? "success" : ErrorText(api_, info.status);
      f.cluster_uuid = UuidText(info.clusterUuid);
      f.clique_id = info.cliqueId;
      d.fabric = Field<FabricInfo>::Of(std::move(f));
    };
    if (api_.nvmlDeviceGetGpuFabricInfoV != nullptr) {
      nvmlGpuFabricInfo_v3_t v3{};
      v3.version = nvmlGpuFabricInfo_v3;
      nvmlReturn_t rc = api_.nvmlDeviceGetGpuFabricInfoV(h, &v3);
      if (rc == NVML_SUCCESS) return fill(v3);
      if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        nvmlGpuFabricInfo_v2_t v2{};
        v2.version = nvmlGpuFabricInfo_v2;
        rc = api_.nvmlDeviceGetGpuFabricInfoV(h, &v2);
        if (rc == NVML_SUCCESS) return fill(v2);
      }
      // The deprecated unversioned call when the driver does not take either struct version or
      // does not implement the V call.
      bool fall_back =
          rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH || rc == NVML_ERROR_FUNCTION_NOT_FOUND;
      if (!fall_back || api_.nvmlDeviceGetGpuFabricInfo == nullptr) {
        d.fabric = Field<FabricInfo>::Missing(Why(rc, "nvmlDeviceGetGpuFabricInfoV"));
        return;
      }
    }
    nvmlGpuFabricInfo_t v1{};
    nvmlReturn_t rc = Call(api_.nvmlDeviceGetGpuFabricInfo, h, &v1);
    if (rc == NVML_SUCCESS) return fill(v1);
    d.fabric = Field<FabricInfo>::Missing(Why(rc, "nvmlDeviceGetGpuFabricInfo"));
  }

  // Sized by asking with no buffer first; processes that start in between are met by retrying.
  void ReadProcesses(nvmlDevice_t h, GpuDevice& d) const {
    auto fn = api_.nvmlDeviceGetComputeRunningProcesses_v3;
    const char* name = "nvmlDeviceGetComputeRunningProcesses_v3";
    unsigned int n = 0;
    nvmlReturn_t rc = Call(fn, h, &n, static_cast<nvmlProcessInfo_t*>(nullptr));
    std::vector<nvmlProcessInfo_t> infos;
    for (int attempt = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 4; ++attempt) {
      infos.assign(n + 8, nvmlProcessInfo_t{});
      n = static_cast<unsigned int>(infos.size());
      rc = fn(h, &n, infos.data());
    }
    if (rc != NVML_SUCCESS) {
      d.compute_processes = Field<std::vector<GpuProcess>>::Missing(Why(rc, name));
      return;
    }
    std::vector<GpuProcess> processes;
    for (unsigned int i = 0; i < n && i < infos.size(); ++i) {
      processes.push_back(GpuProcess{infos[i].pid, infos[i].usedGpuMemory});
    }
    d.compute_processes = Field<std::vector<GpuProcess>>::Of(std::move(processes));
  }

  void ReadTopology(const std::vector<nvmlDevice_t>& handles,
                    std::vector<GpuDevice>& devices) const {
    if (api_.nvmlDeviceGetTopologyCommonAncestor == nullptr) return;
    for (size_t i = 0; i < handles.size(); ++i) {
      for (size_t j = 0; j < handles.size(); ++j) {
        if (i == j || handles[i] == nullptr || handles[j] == nullptr) continue;
        nvmlGpuTopologyLevel_t level = 0;
        if (api_.nvmlDeviceGetTopologyCommonAncestor(handles[i], handles[j], &level) ==
            NVML_SUCCESS) {
          devices[i].topology_to_gpus.emplace_back(static_cast<int>(j), level);
        }
      }
    }
  }

  const Api& api_;
};

#undef YS_NVML_FN

}  // namespace
}  // namespace nvml

Result<GpuSnapshot> ReadGpuSnapshot(const nvml::Api& api) { return nvml::Reader(api).Read(); }

Result<GpuSnapshot> ReadLiveGpuSnapshot(const std::string& library) {
  auto lib = nvml::Library::Open(library);
  if (!lib.ok()) return lib.status();
  auto session = nvml::Session::Start(lib->api());
  if (!session.ok()) return session.status();
  auto snapshot = ReadGpuSnapshot(lib->api());
  if (!snapshot.ok()) return snapshot.status();
  snapshot->source = "nvml";
  snapshot->captured_at = UtcNowIso8601();
  if (!snapshot->cuda_driver_version.has()) {
    auto cuda = CudaDriverVersion();
    if (cuda.ok()) snapshot->cuda_driver_version = Field<int>::Of(*cuda);
  }
  return snapshot;
}

}  // namespace ys::gpu
