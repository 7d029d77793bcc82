// The part of NVML (libnvidia-ml.so.1) that yardstick uses, declared by hand: there is no nvml.h
// on the build machines, and the binary must not link NVML (it is opened at run time).
//
// Source of every type, constant, layout and signature below: NVIDIA's nvml.h as shipped in the
// NVIDIA/DCGM repository, sdk/nvidia/nvml/nvml.h at commit e137795 ("DCGM 4.5.0", NVML API
// version 12) and its successor sdk/nvidia/nvml/dcgm_nvml.h at 72fa3fe (DCGM 4.5.2 and later);
// both agree on everything declared here. Names are NVML's own, so that each declaration can be
// checked against that header by eye; the static_asserts pin the layouts (x86-64 and aarch64 LP64).
//
// Only the versioned entry points that the header maps the plain names to are used
// (nvmlInit -> nvmlInit_v2, nvmlDeviceGetPciInfo -> _v3, nvmlDeviceGetCount -> _v2,
// nvmlDeviceGetHandleByIndex -> _v2, nvmlDeviceGetNvLinkRemotePciInfo -> _v2,
// nvmlDeviceGetComputeRunningProcesses -> _v3): an older entry point may fill an older layout.
#ifndef YARDSTICK_GPU_NVML_API_H_
#define YARDSTICK_GPU_NVML_API_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"
#include "gpu/dynamic_library.h"

namespace ys::gpu::nvml {

inline constexpr const char* kLibraryName = "libnvidia-ml.so.1";

// ---- Scalar types. C enums are 4 bytes in the x86-64 and aarch64 ABIs. ----
using nvmlReturn_t = int;                    // enum nvmlReturn_enum
using nvmlEnableState_t = int;               // enum nvmlEnableState_enum
using nvmlPstates_t = int;                   // enum nvmlPStates_enum
using nvmlClockType_t = int;                 // enum nvmlClockType_enum
using nvmlTemperatureSensors_t = int;        // enum nvmlTemperatureSensors_enum
using nvmlTemperatureThresholds_t = int;     // enum nvmlTemperatureThresholds_enum
using nvmlMemoryErrorType_t = int;           // enum nvmlMemoryErrorType_enum
using nvmlEccCounterType_t = int;            // enum nvmlEccCounterType_enum
using nvmlPageRetirementCause_t = int;       // enum nvmlPageRetirementCause_enum
using nvmlNvLinkErrorCounter_t = int;        // enum nvmlNvLinkErrorCounter_enum
using nvmlGpuTopologyLevel_t = int;          // enum nvmlGpuLevel_enum
using nvmlGpuFabricState_t = unsigned char;  // typedef unsigned char nvmlGpuFabricState_t
struct nvmlDevice_st;                        // opaque
using nvmlDevice_t = nvmlDevice_st*;         // typedef struct nvmlDevice_st* nvmlDevice_t

// nvmlReturn_t values (nvmlReturn_enum).
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_ALREADY_INITIALIZED = 5;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_POWER = 8;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;
inline constexpr nvmlReturn_t NVML_ERROR_IRQ_ISSUE = 11;
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_CORRUPTED_INFOROM = 14;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_RESET_REQUIRED = 16;
inline constexpr nvmlReturn_t NVML_ERROR_OPERATING_SYSTEM = 17;
inline constexpr nvmlReturn_t NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
inline constexpr nvmlReturn_t NVML_ERROR_IN_USE = 19;
inline constexpr nvmlReturn_t NVML_ERROR_MEMORY = 20;
inline constexpr nvmlReturn_t NVML_ERROR_NO_DATA = 21;
inline constexpr nvmlReturn_t NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_RESOURCES = 23;
inline constexpr nvmlReturn_t NVML_ERROR_FREQ_NOT_SUPPORTED = 24;
inline constexpr nvmlReturn_t NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25;
inline constexpr nvmlReturn_t NVML_ERROR_DEPRECATED = 26;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_READY = 27;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_NOT_FOUND = 28;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_STATE = 29;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

inline constexpr nvmlEnableState_t NVML_FEATURE_DISABLED = 0;
inline constexpr nvmlEnableState_t NVML_FEATURE_ENABLED = 1;
inline constexpr nvmlClockType_t NVML_CLOCK_GRAPHICS = 0;
inline constexpr nvmlClockType_t NVML_CLOCK_SM = 1;
inline constexpr nvmlClockType_t NVML_CLOCK_MEM = 2;
inline constexpr nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU = 0;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1;
inline constexpr nvmlTemperatureThresholds_t NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3;
inline constexpr nvmlMemoryErrorType_t NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr nvmlMemoryErrorType_t NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr nvmlEccCounterType_t NVML_VOLATILE_ECC = 0;
inline constexpr nvmlEccCounterType_t NVML_AGGREGATE_ECC = 1;
inline constexpr nvmlPageRetirementCause_t
    NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0;
inline constexpr nvmlPageRetirementCause_t NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1;
inline constexpr nvmlNvLinkErrorCounter_t NVML_NVLINK_ERROR_DL_REPLAY = 0;
inline constexpr nvmlNvLinkErrorCounter_t NVML_NVLINK_ERROR_DL_RECOVERY = 1;
inline constexpr nvmlNvLinkErrorCounter_t NVML_NVLINK_ERROR_DL_CRC_FLIT = 2;
inline constexpr nvmlNvLinkErrorCounter_t NVML_NVLINK_ERROR_DL_CRC_DATA = 3;
inline constexpr unsigned int NVML_DEVICE_MIG_ENABLE = 1;
// 18 in nvml.h of DCGM 4.5.0, 36 in dcgm_nvml.h of 4.5.2: links are probed up to the larger; a
// driver answers NOT_SUPPORTED or INVALID_ARGUMENT for a link its GPU does not have.
inline constexpr unsigned int NVML_NVLINK_MAX_LINKS = 36;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_NOT_STARTED = 1;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2;
inline constexpr nvmlGpuFabricState_t NVML_GPU_FABRIC_STATE_COMPLETED = 3;

// Buffer sizes (nvmlConstants), including the terminating NUL.
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
inline constexpr unsigned int NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
inline constexpr unsigned int NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
inline constexpr unsigned int NVML_DEVICE_SERIAL_BUFFER_SIZE = 30;
inline constexpr unsigned int NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned int NVML_GPU_FABRIC_UUID_LEN = 16;

// ---- Structures ----

// typedef struct nvmlPciInfo_st {...} nvmlPciInfo_t; filled by nvmlDeviceGetPciInfo_v3 and
// nvmlDeviceGetNvLinkRemotePciInfo_v2.
struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];  // "0000:1B:00.0"
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;                        // device id << 16 | vendor id
  unsigned int pciSubSystemId;                     // "Added in NVML 2.285 API"
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:1B:00.0"
};
static_assert(offsetof(nvmlPciInfo_t, domain) == 16);
static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28);
static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlPciInfo_t) == 68);

// typedef struct nvmlProcessInfo_v2_st {...} nvmlProcessInfo_v2_t, nvmlProcessInfo_t; the element
// type of nvmlDeviceGetComputeRunningProcesses_v3.
struct nvmlProcessInfo_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes; NVML_VALUE_NOT_AVAILABLE (~0ULL) when unknown
  unsigned int gpuInstanceId;        // 0xFFFFFFFF unless MIG
  unsigned int computeInstanceId;    // 0xFFFFFFFF unless MIG
};
static_assert(offsetof(nvmlProcessInfo_t, usedGpuMemory) == 8);
static_assert(offsetof(nvmlProcessInfo_t, gpuInstanceId) == 16);
static_assert(sizeof(nvmlProcessInfo_t) == 24);

// typedef struct {...} nvmlGpuFabricInfo_t; for nvmlDeviceGetGpuFabricInfo (unversioned, the
// fallback for drivers without nvmlDeviceGetGpuFabricInfoV).
struct nvmlGpuFabricInfo_t {
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;  // "Must be checked only if state returns complete"
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
};
static_assert(offsetof(nvmlGpuFabricInfo_t, status) == 16);
static_assert(offsetof(nvmlGpuFabricInfo_t, state) == 24);
static_assert(sizeof(nvmlGpuFabricInfo_t) == 28);

// nvmlGpuFabricInfo_v2_t (version, then the v1 fields, then healthMask) and nvmlGpuFabricInfo_v3_t
// (v2 plus healthSummary); nvmlGpuFabricInfoV_t is v2 in nvml.h of 4.5.0 and v3 in dcgm_nvml.h.
// The caller sets .version = NVML_STRUCT_VERSION(GpuFabricInfo, N) = sizeof(struct) | N << 24.
// DCGM (dcgmlib/src/DcgmCacheManager.cpp) asks for v3 and falls back to v2 on
// NVML_ERROR_ARGUMENT_VERSION_MISMATCH; so does the reader.
struct nvmlGpuFabricInfo_v2_t {
  unsigned int version;
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
  unsigned int healthMask;
};
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, status) == 20);
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, state) == 28);
static_assert(offsetof(nvmlGpuFabricInfo_v2_t, healthMask) == 32);
static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36);

struct nvmlGpuFabricInfo_v3_t {
  unsigned int version;
  unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
  nvmlReturn_t status;
  unsigned int cliqueId;
  nvmlGpuFabricState_t state;
  unsigned int healthMask;
  unsigned char healthSummary;
};
static_assert(offsetof(nvmlGpuFabricInfo_v3_t, healthSummary) == 36);
static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40);

// nvml.h: #define NVML_STRUCT_VERSION(data, ver)
//            (unsigned int)(sizeof(nvml##data##_v##ver##_t) | (ver << 24U))
inline constexpr unsigned int nvmlGpuFabricInfo_v2 = sizeof(nvmlGpuFabricInfo_v2_t) | (2u << 24);
inline constexpr unsigned int nvmlGpuFabricInfo_v3 = sizeof(nvmlGpuFabricInfo_v3_t) | (3u << 24);

// typedef struct {...} nvmlTemperature_v1_t, nvmlTemperature_t; for nvmlDeviceGetTemperatureV (in
// nvml.h from the R570 branch's, NVML 12.8, on).
struct nvmlTemperature_t {
  unsigned int version;  // nvmlTemperature_v1
  nvmlTemperatureSensors_t sensorType;
  int temperature;  // degrees C
};
static_assert(sizeof(nvmlTemperature_t) == 12);
inline constexpr unsigned int nvmlTemperature_v1 = sizeof(nvmlTemperature_t) | (1u << 24);

// ---- Functions: X(name, return type, parameter list), each exactly as nvml.h declares it. ----
#define YS_NVML_FUNCTIONS(X)                                                                      \
  X(nvmlInit_v2, nvmlReturn_t, (void))                                                            \
  X(nvmlShutdown, nvmlReturn_t, (void))                                                           \
  X(nvmlErrorString, const char*, (nvmlReturn_t result))                                          \
  X(nvmlSystemGetDriverVersion, nvmlReturn_t, (char* version, unsigned int length))               \
  X(nvmlSystemGetNVMLVersion, nvmlReturn_t, (char* version, unsigned int length))                 \
  X(nvmlSystemGetCudaDriverVersion, nvmlReturn_t, (int* cudaDriverVersion))                       \
  X(nvmlSystemGetCudaDriverVersion_v2, nvmlReturn_t, (int* cudaDriverVersion))                    \
  X(nvmlDeviceGetCount_v2, nvmlReturn_t, (unsigned int* deviceCount))                             \
  X(nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t, (unsigned int index, nvmlDevice_t* device))      \
  X(nvmlDeviceGetUUID, nvmlReturn_t, (nvmlDevice_t device, char* uuid, unsigned int length))      \
  X(nvmlDeviceGetName, nvmlReturn_t, (nvmlDevice_t device, char* name, unsigned int length))      \
  X(nvmlDeviceGetSerial, nvmlReturn_t, (nvmlDevice_t device, char* serial, unsigned int length))  \
  X(nvmlDeviceGetPciInfo_v3, nvmlReturn_t, (nvmlDevice_t device, nvmlPciInfo_t * pci))            \
  X(nvmlDeviceGetPersistenceMode, nvmlReturn_t, (nvmlDevice_t device, nvmlEnableState_t * mode))  \
  X(nvmlDeviceGetPerformanceState, nvmlReturn_t, (nvmlDevice_t device, nvmlPstates_t * pState))   \
  X(nvmlDeviceGetClockInfo, nvmlReturn_t,                                                         \
    (nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock))                             \
  X(nvmlDeviceGetMaxClockInfo, nvmlReturn_t,                                                      \
    (nvmlDevice_t device, nvmlClockType_t type, unsigned int* clock))                             \
  X(nvmlDeviceGetCurrentClocksEventReasons, nvmlReturn_t,                                         \
    (nvmlDevice_t device, unsigned long long* clocksEventReasons))                                \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, nvmlReturn_t,                                      \
    (nvmlDevice_t device, unsigned long long* clocksThrottleReasons))                             \
  X(nvmlDeviceGetPowerUsage, nvmlReturn_t, (nvmlDevice_t device, unsigned int* power))            \
  X(nvmlDeviceGetEnforcedPowerLimit, nvmlReturn_t, (nvmlDevice_t device, unsigned int* limit))    \
  X(nvmlDeviceGetPowerManagementDefaultLimit, nvmlReturn_t,                                       \
    (nvmlDevice_t device, unsigned int* defaultLimit))                                            \
  X(nvmlDeviceGetTemperature, nvmlReturn_t,                                                       \
    (nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int* temp))               \
  X(nvmlDeviceGetTemperatureV, nvmlReturn_t,                                                      \
    (nvmlDevice_t device, nvmlTemperature_t * temperature))                                       \
  X(nvmlDeviceGetTemperatureThreshold, nvmlReturn_t,                                              \
    (nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, unsigned int* temp))         \
  X(nvmlDeviceGetEccMode, nvmlReturn_t,                                                           \
    (nvmlDevice_t device, nvmlEnableState_t * current, nvmlEnableState_t * pending))              \
  X(nvmlDeviceGetTotalEccErrors, nvmlReturn_t,                                                    \
    (nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,      \
     unsigned long long* eccCounts))                                                              \
  X(nvmlDeviceGetRetiredPages, nvmlReturn_t,                                                      \
    (nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int* pageCount,               \
     unsigned long long* addresses))                                                              \
  X(nvmlDeviceGetRetiredPagesPendingStatus, nvmlReturn_t,                                         \
    (nvmlDevice_t device, nvmlEnableState_t * isPending))                                         \
  X(nvmlDeviceGetRemappedRows, nvmlReturn_t,                                                      \
    (nvmlDevice_t device, unsigned int* corrRows, unsigned int* uncRows, unsigned int* isPending, \
     unsigned int* failureOccurred))                                                              \
  X(nvmlDeviceGetNvLinkState, nvmlReturn_t,                                                       \
    (nvmlDevice_t device, unsigned int link, nvmlEnableState_t* isActive))                        \
  X(nvmlDeviceGetNvLinkRemotePciInfo_v2, nvmlReturn_t,                                            \
    (nvmlDevice_t device, unsigned int link, nvmlPciInfo_t* pci))                                 \
  X(nvmlDeviceGetNvLinkErrorCounter, nvmlReturn_t,                                                \
    (nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter,                    \
     unsigned long long* counterValue))                                                           \
  X(nvmlDeviceGetGpuFabricInfo, nvmlReturn_t,                                                     \
    (nvmlDevice_t device, nvmlGpuFabricInfo_t * gpuFabricInfo))                                   \
  /* nvmlGpuFabricInfoV_t*: a v2 or v3 struct, told apart by its .version */                      \
  X(nvmlDeviceGetGpuFabricInfoV, nvmlReturn_t, (nvmlDevice_t device, void* gpuFabricInfo))        \
  X(nvmlDeviceGetCurrPcieLinkGeneration, nvmlReturn_t,                                            \
    (nvmlDevice_t device, unsigned int* currLinkGen))                                             \
  X(nvmlDeviceGetMaxPcieLinkGeneration, nvmlReturn_t,                                             \
    (nvmlDevice_t device, unsigned int* maxLinkGen))                                              \
  X(nvmlDeviceGetCurrPcieLinkWidth, nvmlReturn_t,                                                 \
    (nvmlDevice_t device, unsigned int* currLinkWidth))                                           \
  X(nvmlDeviceGetMaxPcieLinkWidth, nvmlReturn_t,                                                  \
    (nvmlDevice_t device, unsigned int* maxLinkWidth))                                            \
  X(nvmlDeviceGetPcieReplayCounter, nvmlReturn_t, (nvmlDevice_t device, unsigned int* value))     \
  X(nvmlDeviceGetMigMode, nvmlReturn_t,                                                           \
    (nvmlDevice_t device, unsigned int* currentMode, unsigned int* pendingMode))                  \
  X(nvmlDeviceGetComputeRunningProcesses_v3, nvmlReturn_t,                                        \
    (nvmlDevice_t device, unsigned int* infoCount, nvmlProcessInfo_t* infos))                     \
  X(nvmlDeviceGetTopologyCommonAncestor, nvmlReturn_t,                                            \
    (nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuTopologyLevel_t * pathInfo))

// The function table the reader calls through. Every member may be nullptr: the installed NVML
// does not export it, and the queries that need it answer "not supported". Tests fill a table
// with fakes.
struct Api {
#define YS_NVML_MEMBER(name, ret, params) ret(*name) params = nullptr;
  YS_NVML_FUNCTIONS(YS_NVML_MEMBER)
#undef YS_NVML_MEMBER
};

// Looks every function of the table up in `lib`; absent symbols stay nullptr.
Api ResolveApi(const DynamicLibrary& lib);

// "NVML_ERROR_NO_PERMISSION"; "NVML_RETURN_<n>" for a code this header does not know.
std::string ReturnName(nvmlReturn_t rc);
// "NVML_ERROR_NO_PERMISSION: Insufficient Permissions": the name and nvmlErrorString's text (the
// name alone when the table has no nvmlErrorString).
std::string ErrorText(const Api& api, nvmlReturn_t rc);
// Ok for NVML_SUCCESS; otherwise "<call>: <ErrorText>" with a StatusCode chosen by the code
// (NOT_SUPPORTED/FUNCTION_NOT_FOUND -> Unsupported, NO_PERMISSION -> Denied, DRIVER_NOT_LOADED,
// LIBRARY_NOT_FOUND, GPU_NOT_FOUND, NOT_FOUND -> NotFound, INVALID_ARGUMENT -> Invalid, others ->
// Io).
Status ToStatus(const Api& api, nvmlReturn_t rc, std::string_view call);

// libnvidia-ml opened with dlopen, with its function table. Move-only; the table stays valid as
// long as the Library lives.
class Library {
 public:
  // NotFound("NVML not found: <dlerror>") when the library cannot be opened; Unsupported when it
  // lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetCount_v2 (then it is not a usable NVML).
  static Result<Library> Open(const std::string& name = kLibraryName);

  const Api& api() const { return api_; }
  const std::string& name() const { return lib_.name(); }

 private:
  Library(DynamicLibrary lib, Api api) : lib_(std::move(lib)), api_(api) {}
  DynamicLibrary lib_;
  Api api_;
};

// An initialised NVML: nvmlInit_v2 on Start, nvmlShutdown when the session goes away (NVML
// counts initialisations, so sessions may nest). Borrows the table, which must outlive it.
class Session {
 public:
  static Result<Session> Start(const Api& api);
  Session(Session&& other) noexcept : api_(std::exchange(other.api_, nullptr)) {}
  Session& operator=(Session&&) = delete;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

 private:
  explicit Session(const Api* api) : api_(api) {}
  const Api* api_;  // nullptr once moved from
};

}  // namespace ys::gpu::nvml

#endif  // YARDSTICK_GPU_NVML_API_H_
