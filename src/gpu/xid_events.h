// The GPU events of a kernel log: NVRM XID reports grouped into events, and the driver's
// messages about a GPU that carry no XID ("GPU has fallen off the bus", "RmInitAdapter failed",
// "The NVIDIA probe routine failed").
//
// Grouping (times on the log's own clock: wall time where printed, else time since boot):
//   - one burst: the same XID (and the same stated cause) on the same GPU, each line within
//     burst_window_s of the one before, is ONE event however many lines it has (a faulting
//     kernel prints one XID 13 line per SM);
//   - a consequence: an XID 43 or 45 on a GPU within follow_window_s after another event on
//     that GPU, or any XID whose line says "caused by previous Xid N" when an XID N event on the
//     GPU precedes it, follows that event rather than counting on its own;
//   - where the log has no times, consecutive lines of one GPU with the same XID are one burst,
//     and an XID 43/45 follows the GPU's event just before it.
// Only the last boot in the log is read unless all_boots is set.
//
// This is the library entry for any kernel-log text (a saved dmesg, journalctl -k output, the
// kernel-log section of nvidia-bug-report.log):
//   GpuLogEvents ParseGpuLogEvents(std::string_view kernel_log_text,
//                                  const GpuLogEventOptions& options = {});
#ifndef YARDSTICK_GPU_XID_EVENTS_H_
#define YARDSTICK_GPU_XID_EVENTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "gpu/xid.h"
#include "host/kernel_log.h"

namespace ys::gpu {

struct GpuLogEventOptions {
  double burst_window_s = 1.0;
  double follow_window_s = 10.0;
  bool all_boots = false;
};

enum class GpuLogKind {
  kXid,          // an NVRM Xid report
  kFellOffBus,   // "... has fallen off the bus" without an Xid line
  kGpuLost,      // "GPU is lost" / "GPU lost"
  kInitFailed,   // "RmInitAdapter failed", "rm_init_adapter failed"
  kProbeFailed,  // "The NVIDIA probe routine failed for N device(s)"
};
const char* GpuLogKindMeaning(GpuLogKind k);

struct GpuLogEvent {
  GpuLogKind kind = GpuLogKind::kXid;
  std::string pci;                    // "0000:1b:00.0" when the message names the GPU, else ""
  XidEvent xid;                       // kXid: the first line's report
  int lines = 1;                      // log lines grouped into this event
  double first_t = -1, last_t = -1;   // on the log's clock, -1 when unknown
  std::string first_when, last_when;  // "Tue Mar  5 10:11:12 2024", "95541.3 s after boot"
  std::string first_line, last_line;
  int follows = -1;  // index of the event this one is a consequence of, -1 when none
  int boot = 0;
};

struct GpuLogEvents {
  std::vector<GpuLogEvent> events;
  size_t lines = 0;      // log lines read (in the boots read)
  size_t xid_lines = 0;  // XID reports among them
  int boots = 0;         // boots in the whole log
  bool all_boots = false;
};

GpuLogEvents GroupGpuLogEvents(const std::vector<host::KernelLogLine>& log,
                               const GpuLogEventOptions& options = {});
GpuLogEvents ParseGpuLogEvents(std::string_view kernel_log_text,
                               const GpuLogEventOptions& options = {});

// When a line was written, for messages: its printed stamp, else "<s> s after boot", else
// "time unknown".
std::string LineWhen(const host::KernelLogLine& line);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_XID_EVENTS_H_
