// The JSON form of a GpuSnapshot: what `yardstick capture` writes to <tree>/.yardstick/nvml.json,
// what --nvml-state FILE reads, and what the recorded fixtures under tests/fixtures/nvml/ are.
//
// Layout (every key below; a key not listed is an error):
//   { "source": "nvml", "captured_at": "2026-11-29T16:40:03Z",
//     "driver_version": F, "cuda_driver_version": F, "nvml_version": F,
//     "devices": [ { "index": 0, "uuid": "GPU-...", "name": "NVIDIA H100 80GB HBM3",
//                    "serial": "...", "pci_bus_id": "00000000:1B:00.0", "pci_device_id": 590418142,
//                    <each Field member of GpuDevice by its C++ name>: F,
//                    "nvlinks": [ {"link": 0, "active": F, "remote_pci_bus_id": F,
//                                  "replay_errors": F, "recovery_errors": F,
//                                  "crc_flit_errors": F, "crc_data_errors": F} ],
//                    "fabric": F of {"state": "completed", "status": "success",
//                                    "cluster_uuid": "...", "clique_id": 1},
//                    "compute_processes": F of [ {"pid": 1234, "used_memory_bytes": 1048576} ],
//                    "topology_to_gpus": [ [1, 10], [2, 20] ] } ] }
// where F (a Field) is {"value": X} or {"error": "why there is none"}.
//
// Reading is strict: an unknown key, a value of the wrong type or out of its C++ type's range, or
// a Field with both or neither of value/error is an error naming the JSON path
// ("devices[2].ecc_enabled.value: expected a boolean, got a string"). Required: "devices", and in
// each device "index", "uuid", "name" and "pci_bus_id". A Field key that is absent reads as
// Missing("not recorded"), so recordings made before a field existed still load; every other
// absent key takes its C++ default.
#ifndef YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_
#define YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

// Files larger than this are refused, never read whole (an 8-GPU recording is about 40 KB).
inline constexpr size_t kMaxSnapshotFileBytes = 4u << 20;
// Arrays and objects nested deeper than this are refused before parsing (the layout needs 5).
inline constexpr int kMaxSnapshotJsonDepth = 16;

// Where a snapshot found in a recorded host tree lives, relative to the tree's root.
inline constexpr const char* kRecordedNvmlPath = "/.yardstick/nvml.json";

nlohmann::ordered_json ToJson(const GpuSnapshot& snapshot);
// ToJson, pretty-printed with a trailing newline (the file format).
std::string GpuSnapshotToJsonText(const GpuSnapshot& snapshot);

// Strict reading of a parsed document (layout above). Errors name the JSON path.
Result<GpuSnapshot> GpuSnapshotFromJson(const nlohmann::json& j);

// Parses `text` (from `origin`, a file name used in messages and as source "recorded: <origin>").
// Malformed JSON, nesting deeper than kMaxSnapshotJsonDepth and layout errors are InvalidInput
// naming the origin.
Result<GpuSnapshot> ParseGpuSnapshot(std::string_view text, std::string_view origin);

// Reads and parses a file. NotFound when absent; InvalidInput when larger than
// kMaxSnapshotFileBytes or malformed; every message names the file.
Result<GpuSnapshot> LoadGpuSnapshot(const std::string& path);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_
