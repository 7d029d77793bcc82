// Reading what `nvidia-smi -q` printed (text, or `nvidia-smi -q -x` XML) as a GpuSnapshot, so
// that every gpu.* check runs on a dump an operator, a customer or a support engineer holds
// exactly as on a recorded NVML state (gpu_snapshot_json.h) or a live driver.
//
// The form is told from the content: XML starts with "<?xml" or <nvidia_smi_log>; text has the
// "==============NVSMI LOG==============" banner. Any driver from R470 on, any number of GPUs,
// and any subset of sections (`nvidia-smi -q -d CLOCK,PERFORMANCE`) reads. Each snapshot field
// comes from the entry nvidia-smi prints for the same NVML query; a field the dump does not show
// is Missing("not reported: ..."), one it shows as N/A or Not Supported is Missing("not
// supported ..."), never zero, so a check skips that part and says why. What -q never prints
// (per-link NVLink state and counters, the NVML version, GPU-to-GPU topology) is reported as
// such; temperature thresholds given only relative to T.Limit (R535 and later on some GPUs) are
// not converted.
//
// Devices are indexed in dump order (nvidia-smi -q lists GPUs in NVML index order).
#ifndef YARDSTICK_GPU_SMI_DUMP_H_
#define YARDSTICK_GPU_SMI_DUMP_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "gpu/gpu_snapshot.h"

namespace ys::gpu {

enum class SmiDumpFormat { kText, kXml };

// The form of `text` when it is an nvidia-smi -q dump; nullopt otherwise (a JSON recording).
std::optional<SmiDumpFormat> DetectSmiDump(std::string_view text);

// The snapshot a dump shows. `origin` names the dump in messages and in source ("recorded:
// <origin>"). InvalidInput naming the origin and line when `text` is no dump, is malformed, or
// shows no GPU and no "Attached GPUs" count.
Result<GpuSnapshot> ReadSmiDump(std::string_view text, std::string_view origin);

// What --nvml-state FILE reads: an NVML state recording (JSON, gpu_snapshot_json.h) or an
// nvidia-smi -q dump, told from the content. NotFound when absent; InvalidInput when larger than
// kMaxSnapshotFileBytes or malformed; every message names the file.
Result<GpuSnapshot> LoadGpuStateFile(const std::string& path);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_SMI_DUMP_H_
