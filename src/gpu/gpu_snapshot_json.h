// The JSON form of a GpuSnapshot: what `yardstick capture` writes to <tree>/.yardstick/nvml.json,
// what --nvml-state FILE reads, and what the recorded fixtures under tests/fixtures/nvml/ are.
//
// MINIMAL STAND-IN written in the checks helper's worktree (wt-gpuchecks) until the nvml
// helper's gpu_snapshot_json.{h,cc} is merged; the names and signatures are the nvml helper's, so
// the lead keeps theirs on merge and nothing else changes.
//
// Layout: { "source": ..., "captured_at": ..., "driver_version": F, "cuda_driver_version": F,
//   "nvml_version": F, "devices": [ { "index", "uuid", "name", "serial", "pci_bus_id",
//   "pci_device_id", <each Field member of GpuDevice by its C++ name>: F,
//   "nvlinks": [ {"link": 0, "active": F, ...} ], "fabric": F of {...},
//   "compute_processes": F of [...], "topology_to_gpus": [[1, 20], ...] } ] }
// where F is {"value": X} or {"error": "why there is none"}. Strict: an unknown key or a wrong
// type is an error naming the JSON path; an absent Field reads as Missing("not recorded").
#ifndef YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_
#define YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

inline constexpr size_t kMaxSnapshotFileBytes = 4u << 20;

// Where a snapshot found in a recorded host tree lives, relative to the tree's root.
inline constexpr const char* kRecordedNvmlPath = "/.yardstick/nvml.json";

nlohmann::ordered_json ToJson(const GpuSnapshot& snapshot);
std::string GpuSnapshotToJsonText(const GpuSnapshot& snapshot);

// Strict reading of a parsed document. Errors name the JSON path.
Result<GpuSnapshot> GpuSnapshotFromJson(const nlohmann::json& j);
// Parses `text` from `origin` (a file name used in messages and as source "recorded: <origin>").
Result<GpuSnapshot> ParseGpuSnapshot(std::string_view text, std::string_view origin);
// NotFound when absent; InvalidInput when too large or malformed; messages name the file.
Result<GpuSnapshot> LoadGpuSnapshot(const std::string& path);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_GPU_SNAPSHOT_JSON_H_
