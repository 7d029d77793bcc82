// A process as /proc/<pid>/status and /proc/<pid>/stat describe it (proc(5)): name, state,
// kernel-thread flag, allowed CPUs and memory nodes, and the CPU it last ran on.
#ifndef YARDSTICK_HOST_PROC_PID_H_
#define YARDSTICK_HOST_PROC_PID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// From /proc/<pid>/status.
struct ProcStatus {
  std::string name;  // "python3", "ksoftirqd/3"
  char state = '?';  // 'R', 'S', 'D', 'I', ...
  std::optional<int> pid;
  std::optional<bool> kthread;         // "Kthread:" line (kernel 6.x); absent on older kernels
  std::optional<uint32_t> uid;         // real uid, the first number of "Uid:"
  CpuSet cpus_allowed;                 // Cpus_allowed_list (or the Cpus_allowed mask)
  std::optional<CpuSet> mems_allowed;  // Mems_allowed_list (or the mask); absent without cpusets
};
// Invalid when neither Cpus_allowed_list nor Cpus_allowed is present, or when one is malformed.
Result<ProcStatus> ParseProcStatus(std::string_view text);

// From /proc/<pid>/stat: "pid (comm) state ppid ... flags(9) ... processor(39) ...". The comm
// may contain spaces and parentheses; it ends at the last ')'.
struct ProcStat {
  int pid = 0;
  std::string comm;
  char state = '?';
  uint64_t flags = 0;
  std::optional<uint64_t> utime;  // fields 14 and 15: CPU time in user and kernel mode, in clock
  std::optional<uint64_t> stime;  // ticks (sysconf(_SC_CLK_TCK)), all threads of the process
  std::optional<int> processor;   // field 39; absent on truncated lines of old kernels
  bool IsKernelThread() const { return (flags & 0x00200000u) != 0; }  // PF_KTHREAD
};
Result<ProcStat> ParseProcStat(std::string_view text);

// Read and parse; errors name the resolved path.
Result<ProcStatus> ReadProcStatus(const Host& host, const std::string& proc_dir);
Result<ProcStat> ReadProcStat(const Host& host, const std::string& proc_dir);

// Process ids under /proc (numeric entries), ascending, at most `cap`; `*total` gets the count
// before the cap.
std::vector<int> ListPids(const Host& host, size_t cap, size_t* total);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PROC_PID_H_
