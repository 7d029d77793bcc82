// XIDs: the error reports of the NVIDIA kernel driver in the kernel log, NVIDIA's catalogue of
// them, and what DCGM makes of them.
//
//   "NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
//   "NVRM: Xid (0000:03:00): 13, Graphics Exception: ..."            (older drivers, no "PCI:")
//   "NVRM: Xid (PCI:0018:01:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 13 (0x...)"   (Blackwell)
//   "NVRM: Xid (PCI:0000:dc:00): 45, pid=1, name=python3, Ch 00000001 caused by previous Xid 149"
// NVSwitch "SXid" lines are not GPU XIDs and are not parsed here.
//
// The catalogue (gpu/xid_catalogue.cc) follows NVIDIA's "Analyzing Xid Errors with the Xid
// Catalog" (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html), R535 to R580
// and Blackwell; the meanings are our words, the actions are the catalogue's immediate
// "resolution bucket". docs/xid-catalogue.md lists it.
#ifndef YARDSTICK_GPU_XID_H_
#define YARDSTICK_GPU_XID_H_

#include <optional>
#include <string>
#include <string_view>

namespace ys::gpu {

// What the driver's line says about the severity of an NVLink 5 XID (144-150: "... Fatal ..." or
// "... Nonfatal ...").
enum class XidStated { kUnstated, kFatal, kNonfatal };

// XID 154's recovery action ("GPU recovery action changed ... to 0x1 (GPU Reset Required)"),
// numbered as NVML's nvmlDeviceGpuRecoveryAction_t.
enum class RecoveryAction {
  kUnknown = -1,
  kNone = 0,
  kGpuReset = 1,
  kNodeReboot = 2,
  kDrainP2p = 3,
  kDrainAndReset = 4
};
const char* RecoveryActionName(RecoveryAction a);

struct XidEvent {
  std::string pci;  // as the driver printed it: "0000:1b:00" (domain:bus:device)
  int xid = 0;
  std::string detail;  // the text after the number: "pid=..., GPU has fallen off the bus."
  int caused_by = 0;   // N of "caused by previous Xid N", 0 when the line names no cause
  XidStated stated = XidStated::kUnstated;
  RecoveryAction recovery = RecoveryAction::kUnknown;  // XID 154 only
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

// What part of the machine an XID points at.
enum class XidArea {
  kApplication,
  kEngine,
  kMemory,
  kNvlink,
  kBus,
  kFirmware,
  kPower,
  kDriver,
  kOther
};
const char* XidAreaName(XidArea a);

// NVIDIA's immediate action for an XID (the catalogue's first resolution bucket).
enum class XidAction {
  kIgnore,
  kRestartApp,
  kResetGpu,
  kRebootNode,
  kCheckHardware,
  kUpdateSoftware,
  kRestartVm,
  kFollowCause,
  kUnused
};
const char* XidActionName(XidAction a);

struct XidInfo {
  int first = 0, last = 0;  // the XIDs the entry covers (most entries: one)
  std::string_view meaning;
  XidArea area = XidArea::kOther;
  XidAction action = XidAction::kUnused;
  std::string_view fix;  // empty: the generic fix of the action
};

// The catalogue entry of an XID, or nullptr for a number NVIDIA's catalogue does not list.
const XidInfo* FindXid(int xid);

// What the XID means ("GPU has fallen off the bus") and what to do about it; generic text for
// XIDs without an entry.
std::string_view XidMeaning(int xid);
std::string XidFix(int xid);

}  // namespace ys::gpu

#endif  // YARDSTICK_GPU_XID_H_
