// XIDs: the error reports of the NVIDIA kernel driver in the kernel log, and what DCGM makes of
// them (reference: gpu-and-fabric-diagnostics.md §3.4).
//
//   "NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
//   "NVRM: Xid (0000:03:00): 13, Graphics Exception: ..."            (older drivers, no "PCI:")
// NVSwitch "SXid" lines are not GPU XIDs and are not parsed here.
#ifndef YARDSTICK_GPU_XID_H_
#define YARDSTICK_GPU_XID_H_

#include <optional>
#include <string>
#include <string_view>

namespace ys::gpu {

struct XidEvent {
  std::string pci;  // as the driver printed it: "0000:1b:00" (domain:bus:device)
  int xid = 0;
  std::string detail;  // the text after the number: "pid=..., GPU has fallen off the bus."
};

// The XID of one kernel-log line's text, or nullopt when the line is not an NVRM Xid report
// (or is one whose address or number cannot be read).
std::optional<XidEvent> ParseXidLine(std::string_view text);

// How DCGM's health module treats an XID by default (BuildXidMappings and its subsystem lists).
enum class XidClass {
  kFatal,        // 48, 64, 74, 79, 95, 119, 120, 140
  kWarn,         // 94, 63 and the other subsystem XIDs
  kApplication,  // 13, 31, 43, 45: usually the application's fault unless repeated on one GPU
  kUnlisted,     // in none of DCGM's lists
};
XidClass DcgmXidClass(int xid);
const char* XidClassName(XidClass c);

// What the XID means ("GPU has fallen off the bus") and what to do about it; generic text for
// XIDs without an entry.
std::string_view XidMeaning(int xid);
std::string_view XidFix(int xid);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_XID_H_
