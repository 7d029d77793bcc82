#include "gpu/xid.h"

#include <algorithm>
#include <array>

#include "core/text.h"

namespace ys::gpu {
namespace {

// "... caused by previous Xid 149" -> 149.
int CausedBy(std::string_view detail) {
  constexpr std::string_view kMark = "caused by previous Xid ";
  size_t at = detail.find(kMark);
  if (at == std::string_view::npos) return 0;
  std::string_view rest = detail.substr(at + kMark.size());
  size_t end = 0;
  while (end < rest.size() && end < 6 && rest[end] >= '0' && rest[end] <= '9') ++end;
  auto n = ParseInt(rest.substr(0, end));
  return n ? static_cast<int>(*n) : 0;
}

// The NVLink 5 XIDs print "<unit> Fatal" or "<unit> Nonfatal" before "XC0 ... Link".
XidStated Stated(int xid, std::string_view detail) {
  if (xid < 144 || xid > 150) return XidStated::kUnstated;
  for (std::string_view word : SplitWhitespace(detail)) {
    if (word == "Nonfatal" || word == "Non-fatal") return XidStated::kNonfatal;
    if (word == "Fatal") return XidStated::kFatal;
  }
  return XidStated::kUnstated;
}

RecoveryAction Recovery(std::string_view detail) {
  // The new action is what follows " to " ("changed from 0x0 (None) to 0x1 (GPU Reset
  // Required)"); without it, the whole text.
  size_t to = detail.rfind(" to ");
  std::string text = ToLower(to == std::string_view::npos ? detail : detail.substr(to + 4));
  if (text.find("drain and reset") != std::string::npos) return RecoveryAction::kDrainAndReset;
  if (text.find("drain p2p") != std::string::npos) return RecoveryAction::kDrainP2p;
  if (text.find("reboot") != std::string::npos) return RecoveryAction::kNodeReboot;
  if (text.find("reset") != std::string::npos) return RecoveryAction::kGpuReset;
  if (text.find("none") != std::string::npos) return RecoveryAction::kNone;
  return RecoveryAction::kUnknown;
}

}  // namespace

const char* RecoveryActionName(RecoveryAction a) {
  switch (a) {
    case RecoveryAction::kNone:
      return "none";
    case RecoveryAction::kGpuReset:
      return "GPU reset required";
    case RecoveryAction::kNodeReboot:
      return "node reboot required";
    case RecoveryAction::kDrainP2p:
      return "drain peer-to-peer traffic";
    case RecoveryAction::kDrainAndReset:
      return "drain and reset required";
    case RecoveryAction::kUnknown:
      break;
  }
  return "not stated";
}

std::optional<XidEvent> ParseXidLine(std::string_view text) {
  constexpr std::string_view kMark = "NVRM: Xid (";
  size_t at = text.find(kMark);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kMark.size());
  size_t close = rest.find(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view pci = Trim(rest.substr(0, close));
  if (pci.substr(0, 4) == "PCI:") pci = pci.substr(4);
  // domain:bus:device, each hexadecimal.
  auto parts = Split(pci, ':');
  if (parts.size() != 3) return std::nullopt;
  for (auto p : parts) {
    if (p.empty() || !ParseHex(p)) return std::nullopt;
  }
  rest = rest.substr(close + 1);
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  rest = Trim(rest.substr(1));
  size_t end = 0;
  while (end < rest.size() && rest[end] >= '0' && rest[end] <= '9') ++end;
  if (end == 0 || end > 6) return std::nullopt;
  auto xid = ParseInt(rest.substr(0, end));
  if (!xid) return std::nullopt;
  XidEvent e;
  e.pci = ToLower(pci);
  e.xid = static_cast<int>(*xid);
  rest = rest.substr(end);
  if (!rest.empty() && rest.front() == ',') rest = rest.substr(1);
  e.detail = std::string(Trim(rest));
  e.caused_by = CausedBy(e.detail);
  e.stated = Stated(e.xid, e.detail);
  if (e.xid == 154) e.recovery = Recovery(e.detail);
  return e;
}

namespace {

struct DcgmEntry {
  int xid;
  XidClass dcgm;
};

// DCGM health module (modules/health/DcgmHealthWatch.cpp BuildXidMappings): its fatal XIDs and
// its subsystem lists. Sorted by XID.
constexpr std::array kDcgm = {
    DcgmEntry{13, XidClass::kApplication}, DcgmEntry{31, XidClass::kApplication},
    DcgmEntry{32, XidClass::kWarn},        DcgmEntry{38, XidClass::kWarn},
    DcgmEntry{39, XidClass::kWarn},        DcgmEntry{42, XidClass::kWarn},
    DcgmEntry{43, XidClass::kApplication}, DcgmEntry{45, XidClass::kApplication},
    DcgmEntry{48, XidClass::kFatal},       DcgmEntry{54, XidClass::kWarn},
    DcgmEntry{56, XidClass::kWarn},        DcgmEntry{57, XidClass::kWarn},
    DcgmEntry{58, XidClass::kWarn},        DcgmEntry{60, XidClass::kWarn},
    DcgmEntry{61, XidClass::kWarn},        DcgmEntry{62, XidClass::kWarn},
    DcgmEntry{63, XidClass::kWarn},        DcgmEntry{64, XidClass::kFatal},
    DcgmEntry{67, XidClass::kWarn},        DcgmEntry{73, XidClass::kWarn},
    DcgmEntry{74, XidClass::kFatal},       DcgmEntry{78, XidClass::kWarn},
    DcgmEntry{79, XidClass::kFatal},       DcgmEntry{93, XidClass::kWarn},
    DcgmEntry{94, XidClass::kWarn},        DcgmEntry{95, XidClass::kFatal},
    DcgmEntry{119, XidClass::kFatal},      DcgmEntry{120, XidClass::kFatal},
    DcgmEntry{121, XidClass::kWarn},       DcgmEntry{137, XidClass::kWarn},
    DcgmEntry{140, XidClass::kFatal},
};

}  // namespace

XidClass DcgmXidClass(int xid) {
  auto it =
      std::find_if(kDcgm.begin(), kDcgm.end(), [xid](const DcgmEntry& e) { return e.xid == xid; });
  return it != kDcgm.end() ? it->dcgm : XidClass::kUnlisted;
}

const char* XidClassName(XidClass c) {
  switch (c) {
    case XidClass::kFatal:
      return "fatal";
    case XidClass::kWarn:
      return "warn";
    case XidClass::kApplication:
      return "application";
    case XidClass::kUnlisted:
      return "unlisted";
  }
  return "unlisted";
}

}  // namespace ys::gpu
