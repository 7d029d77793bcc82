// /proc/<pid>/numa_maps (numa_maps(5); docs/node-checks.md §numa): one line per VMA with its memory
// policy and the pages this process maps on each NUMA node.
//
//   55b97fce8000 default heap anon=4 dirty=4 active=0 N0=4 kernelpagesize_kB=4
//   7fae9c389000 bind:0 file=/usr/lib/x.so mapped=32 mapmax=10 N0=30 N1=2 kernelpagesize_kB=4
//
// ParseNumaMaps is a pure function on the text; ReadNumaMaps reads it through the Host and names
// the file in any error.
#ifndef YARDSTICK_HOST_NUMA_MAPS_H_
#define YARDSTICK_HOST_NUMA_MAPS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct NumaMapsEntry {
  uint64_t start = 0;
  // "default", "bind:0", "interleave:0-1", "prefer:1", "prefer (many):0-1", "local".
  std::string policy;
  std::map<int, uint64_t> node_pages;  // N<node>=<pages>
  std::optional<uint64_t> page_kb;     // kernelpagesize_kB; absent on very old kernels
  std::optional<uint64_t> anon;        // anon=<pages>
  std::string file;                    // file=<path>, still escaped as the kernel prints it
  bool heap = false;
  bool stack = false;
  bool huge = false;  // hugetlb VMA: counts are huge pages

  // Pages of every node.
  uint64_t TotalPages() const;
  // Memory the process computes on: anonymous mappings, heap, stack, hugetlb and shared memory
  // (/dev/shm, SysV shm, memfd, anonymous hugepage files). Ordinary file mappings (libraries,
  // page cache of read files) are the other class: their pages live wherever the file was first
  // read, often shared with other processes, and moving them is not the job's business.
  bool IsProcessData() const;
  // interleave or weighted interleave: pages spread over nodes on purpose.
  bool IsInterleaved() const;
};

// Every line must start with a hex address followed by a policy. Numeric tokens (N<n>=,
// kernelpagesize_kB=, anon=, dirty=, mapped=, ...) must be whole non-negative numbers; node ids
// and page counts beyond plausible bounds are rejected. Unknown bare tokens after the policy are
// ignored (newer kernels add some). Empty text is an empty list (a process without mappings).
Result<std::vector<NumaMapsEntry>> ParseNumaMaps(std::string_view text);

// Per-node footprint in kB: pages weighted by kernelpagesize_kB (or `default_page_kb` where the
// kernel did not print it).
struct NumaFootprint {
  std::map<int, double> data_kb;         // IsProcessData(), not interleaved
  std::map<int, double> file_kb;         // ordinary file mappings
  std::map<int, double> interleaved_kb;  // data under an interleave policy
  size_t vmas = 0;
  size_t vmas_with_policy = 0;  // VMAs whose policy is not "default"

  static double Sum(const std::map<int, double>& m);
};
NumaFootprint SummariseNumaMaps(const std::vector<NumaMapsEntry>& entries,
                                uint64_t default_page_kb = 4);

// Reads and parses `path` ("/proc/self/numa_maps"). Errors name the resolved path.
Result<std::vector<NumaMapsEntry>> ReadNumaMaps(const Host& host, const std::string& path);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_NUMA_MAPS_H_
