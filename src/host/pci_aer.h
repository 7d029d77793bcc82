// PCIe Advanced Error Reporting counters from sysfs (reference: docs/node-checks.md §pcie; kernel
// Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats).
//
// Each file holds one "Name count" line per error type and ends with a total line:
//   RxErr 0
//   BadTLP 3
//   ...
//   TOTAL_ERR_COR 3
// (aer_dev_nonfatal and aer_dev_fatal end with TOTAL_ERR_NONFATAL / TOTAL_ERR_FATAL). The counts
// are errors seen by this device since boot; the link partner (a root or switch port) may count
// errors the endpoint caused. Newer kernels may move the files under <dev>/aer/; both layouts are
// read, and a bare number there is taken as the total.
#ifndef YARDSTICK_HOST_PCI_AER_H_
#define YARDSTICK_HOST_PCI_AER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "host/host.h"

namespace ys::host {

enum class AerKind { kCorrectable, kNonFatal, kFatal };
const char* AerKindName(AerKind kind);  // "correctable", "nonfatal", "fatal"

struct AerCounts {
  std::vector<std::pair<std::string, uint64_t>> by_type;  // without the TOTAL_ERR_* line
  uint64_t total = 0;
};

// Invalid (saying what was expected) for an empty file, a line that is not "Name count", a count
// that is not a whole number, or a list without its TOTAL_ERR_* line (truncated).
Result<AerCounts> ParseAerCounters(std::string_view text);

struct AerFile {
  AerKind kind = AerKind::kCorrectable;
  std::string path;  // host path read
  AerCounts counts;
};

// The AER files of the device at `dev_dir` ("/sys/bus/pci/devices/0000:1b:00.0"). Kinds whose
// file is absent (AER off, not supported, or a kernel before 4.19) or empty are left out; a
// malformed file is Invalid naming its resolved path.
Result<std::vector<AerFile>> ReadAerCounters(const Host& host, const std::string& dev_dir);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_PCI_AER_H_
