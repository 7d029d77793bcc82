// /proc/interrupts (docs/node-checks.md §isolation): per-CPU interrupt counts since boot.
//
//              CPU0       CPU1
//    36:          0      41223 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0
//   LOC:      32622      32733   Local timer interrupts
//   ERR:          0
//
// The header names the CPU of each count column (offline CPUs are missing, so the numbers need
// not be contiguous). Numbered rows must carry one count per column; named rows (LOC, NMI, ERR,
// IPI0 on Arm) may carry fewer.
#ifndef YARDSTICK_HOST_INTERRUPTS_H_
#define YARDSTICK_HOST_INTERRUPTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cpu_set.h"
#include "core/status.h"
#include "host/host.h"

namespace ys::host {

struct InterruptRow {
  std::string label;             // "36", "LOC", "IPI0"
  std::optional<int> irq;        // numbered rows: the IRQ number
  std::vector<uint64_t> counts;  // aligned with InterruptTable::cpus
  std::string description;  // the rest of the line: "PCI-MSIX-0000:00:02.0   1-edge virtio1-req.0"
  // The device action name(s): the text after the trigger column ("1-edge", "Level"), or the
  // last word. "mlx5_comp1@pci:0000:12:00.0", "nvme0q3", "virtio1-req.0".
  std::string name;

  uint64_t Total() const;
};

struct InterruptTable {
  std::vector<int> cpus;  // CPU number of each count column
  std::vector<InterruptRow> rows;

  const InterruptRow* Find(int irq) const;
  // True when a row's device action name is `name` ("tegra241-cmdqv"); each action of a shared
  // line ("i801_smbus, ehci_hcd:usb1") counts.
  bool HasName(std::string_view name) const;
  // Sum of the row's counts on the CPUs in `set`.
  uint64_t CountOn(const InterruptRow& row, const CpuSet& set) const;
};

Result<InterruptTable> ParseInterrupts(std::string_view text);
// Reads /proc/interrupts; errors name the resolved path.
Result<InterruptTable> ReadInterrupts(const Host& host);

// Where one IRQ fires: /proc/irq/<n>/effective_affinity_list, falling back to
// smp_affinity_list and then the smp_affinity mask (kernels or chips without effective affinity).
struct IrqAffinity {
  int irq = 0;
  CpuSet cpus;
  std::string source;  // the file read
};
// Every numbered directory under /proc/irq, in IRQ order. Absent /proc/irq -> empty list; a
// malformed affinity file -> Invalid naming it.
Result<std::vector<IrqAffinity>> ReadIrqAffinities(const Host& host);

}  // namespace ys::host

#endif  // YARDSTICK_HOST_INTERRUPTS_H_
