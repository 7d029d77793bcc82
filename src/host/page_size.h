// The kernel's base page size, as a process sees it: /proc/<pid>/smaps "KernelPageSize:" or
// numa_maps "kernelpagesize_kB=", else sysconf(_SC_PAGESIZE) on the live machine (reference:
// docs/node-checks.md §iommu "Page size"). The smallest value wins: hugetlb mappings report their
// huge page size, ordinary mappings the base page.
#ifndef YARDSTICK_HOST_PAGE_SIZE_H_
#define YARDSTICK_HOST_PAGE_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

// nullopt when the text has no KernelPageSize line (the empty smaps of a kernel thread).
// Invalid when a line is neither a mapping header ("7f..-7f.. r-xp ...") nor "Key: value",
// or a KernelPageSize value is not "<n> kB".
Result<std::optional<uint64_t>> BasePageKbFromSmaps(std::string_view text);

// nullopt when no line carries kernelpagesize_kB=; Invalid when one carries a non-number.
Result<std::optional<uint64_t>> BasePageKbFromNumaMaps(std::string_view text);

struct PageSize {
  uint64_t kb = 0;
  std::string source;  // "/proc/self/smaps", "/proc/self/numa_maps", "sysconf(_SC_PAGESIZE)"
};

// Tries <proc_dir>/smaps, then <proc_dir>/numa_maps, then sysconf on a live host. nullopt when
// none answers (a recorded tree without those files); an error for a malformed file, naming it.
Result<std::optional<PageSize>> ReadBasePageSize(const Host& host, const std::string& proc_dir);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PAGE_SIZE_H_
