// What NVIDIA's own tools print about a machine's GPUs, read from a saved copy:
//
//   dcgmi diag (the table, DCGM 3.x and 4.x, and -j JSON: "DCGM GPU Diagnostic" / "DCGM
//     Diagnostic" with test_categories, tests, results per GPU), as NVIDIA's DCGM prints it
//     (https://github.com/NVIDIA/DCGM, dcgmi/Diag.cpp): one result per test and GPU, with the
//     warning and info text DCGM attached (the table wraps it every 45 characters; it is joined);
//   nvidia-smi nvlink -s ("GPU N: NAME (UUID: ...)" then "Link L: 26.562 GB/s" or "Link L:
//     <inactive>", or "NVML: Unable to retrieve NVLink information as all links are inActive" in
//     place of the links) and nvidia-smi nvlink -e ("Link L: Replay Errors: 0", any counter
//     name).
//
// Lines around the output (a shell prompt, the command, "[...]" where a note abridged it) are
// skipped. Each reader is told from the content (DetectGpuToolOutput).
#ifndef YARDSTICK_VALIDATE_GPU_TOOL_OUTPUT_H_
#define YARDSTICK_VALIDATE_GPU_TOOL_OUTPUT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ys::validate {

enum class GpuToolOutput { kNone, kDcgmDiagTable, kDcgmDiagJson, kNvlink };

// Which of the outputs above `head` (the start of a file) is.
GpuToolOutput DetectGpuToolOutput(std::string_view head);

// Whether `line` is a row of the dcgmi diag table with a result ("| PCIe | Fail - All |",
// "|  Memory bandwidth  | Pass |"): how a fragment of the table without its header is known.
bool IsDcgmResultRow(std::string_view line);

enum class DcgmStatus { kPass, kFail, kWarn, kSkip, kOther };

struct DcgmResult {
  std::string category;    // "Hardware"
  std::string test;        // "GPU Memory"
  std::optional<int> gpu;  // nullopt: the result stands for every GPU ("Fail - All", Deployment)
  DcgmStatus status = DcgmStatus::kOther;
  std::string status_text;            // as printed: "Fail - All", "PASS"
  std::vector<std::string> warnings;  // "GPU 0 Error using CUDA API cuInit ..."
  std::vector<std::string> info;
  int64_t line = 0;
};

struct DcgmDiag {
  std::string dcgm_version, driver_version, device_ids;
  std::vector<DcgmResult> results;
  // What a whole table has and this text lacks ("the '| Diagnostic | Result |' header", "the
  // Metadata section"): a fragment pasted from a ticket. Empty for a whole table or the JSON.
  std::vector<std::string> missing;
  int64_t elided_lines = 0;  // "[...]" lines and other text between the rows of a fragment
};

// The table (the first one, when dcgmi printed it twice) or the JSON document. Invalid naming
// `name` and the line when a row is malformed or no test result is found. Rows without the
// header (a fragment) are read as far as they go, with what is absent in `missing`.
Result<DcgmDiag> ParseDcgmDiag(std::string_view text, std::string_view name);

struct NvlinkLink {
  int link = 0;
  std::optional<bool> active;                // from -s
  std::optional<double> speed_gbps;          // from -s, when active
  std::map<std::string, uint64_t> counters;  // from -e: "Replay Errors" -> 0
};

struct NvlinkGpu {
  int index = 0;
  std::string name, uuid;
  std::vector<NvlinkLink> links;  // in the order printed
  // nvidia-smi printed "... all links are inActive" for this GPU instead of its links.
  bool all_inactive = false;
  int64_t line = 0;
};

// nvidia-smi nvlink -s and/or -e (both may be in one file). Every "GPU N:" block is kept, also one
// with no "Link L:" line (a GPU nvidia-smi shows no link of: the caller says so, it is no error).
// Invalid when no "GPU N:" line is found, or a Link line is malformed.
Result<std::vector<NvlinkGpu>> ParseNvlinkOutput(std::string_view text, std::string_view name);

// Whether `line` is nvidia-smi's "NVML: Unable to retrieve NVLink information as all links are
// inActive" (any case).
bool IsAllLinksInactiveLine(std::string_view line);

}  // namespace ys::validate

#endif  // YARDSTICK_VALIDATE_GPU_TOOL_OUTPUT_H_
