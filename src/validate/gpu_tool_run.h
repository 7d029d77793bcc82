// A saved dcgmi diag or nvidia-smi nvlink -s/-e output (validate/gpu_tool_output.h) as a run
// document, so that `yardstick ingest` gives the verdict of the machine that printed it:
//
//   dcgmi diag -> one check, gpu.dcgm_diag: per failed test and GPU a YS-GPU-070 (fail) on that
//     GPU ("gpu3"), naming the test and quoting DCGM's warning; a warned test YS-GPU-071; a
//     failure DCGM reports for every GPU without naming one is on "node". Skipped tests and
//     DCGM's info lines are evidence. The DCGM and driver versions are evidence too.
//   nvidia-smi nvlink -> one check, gpu.nvlink, judged as the live gpu.nvlink check judges NVML:
//     an inactive link YS-GPU-045 (fail), replay errors YS-GPU-046 (warn), recovery errors
//     YS-GPU-047 (fail), on the GPU with the links named; a link slower than the fastest link of
//     its GPU YS-GPU-048 (warn); CRC and other counters are evidence (DCGM judges them only as a
//     rate, which one reading cannot give).
#ifndef YARDSTICK_VALIDATE_GPU_TOOL_RUN_H_
#define YARDSTICK_VALIDATE_GPU_TOOL_RUN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_document.h"
#include "core/status.h"
#include "validate/gpu_tool_output.h"

namespace ys::validate {

// The most of a tool output read from a file.
inline constexpr size_t kMaxGpuToolOutputBytes = size_t{16} << 20;

RunDocument DcgmDiagRunDocument(const DcgmDiag& diag, std::string_view name);
RunDocument NvlinkRunDocument(const std::vector<NvlinkGpu>& gpus, std::string_view name);

// The run document of a text that DetectGpuToolOutput recognises (or is read as `forced`);
// nullopt when it is none of them; Invalid (file, line, what was expected) when it is one but
// malformed.
Result<std::optional<RunDocument>> IngestGpuToolText(std::string_view text, std::string_view name,
                                                     GpuToolOutput forced = GpuToolOutput::kNone);

// The same for a file (at most 16 MiB); nullopt when its first 64 KiB are none of them (and none
// is forced) or it cannot be opened (the training-log reader then reports that).
Result<std::optional<RunDocument>> IngestGpuToolFile(const std::string& path,
                                                     GpuToolOutput forced = GpuToolOutput::kNone);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_GPU_TOOL_RUN_H_
