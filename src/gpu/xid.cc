#include "gpu/xid.h"

#include <array>

#include "core/text.h"

namespace ys::gpu {

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
  return e;
}

namespace {

struct XidEntry {
  int xid;
  XidClass dcgm;
  std::string_view meaning;
  std::string_view fix;
};

constexpr std::string_view kFixEcc =
    "drain the node; check nvidia-smi -q -d ECC,ROW_REMAPPER -i <gpu>; reset the GPU "
    "(nvidia-smi -r -i <gpu>) or reboot; run dcgmi diag -r 3; RMA if it recurs";
constexpr std::string_view kFixReset =
    "drain the node; reset the GPU (nvidia-smi -r -i <gpu>) or reboot; run dcgmi diag -r 2; "
    "contact NVIDIA support if it recurs";

// DCGM health module (modules/health/DcgmHealthWatch.cpp BuildXidMappings) and the NVIDIA XID
// catalog. Sorted by XID.
constexpr std::array kXids = {
    XidEntry{13, XidClass::kApplication, "graphics engine exception",
             "usually an application fault (out-of-range access); rerun the job; if it repeats on "
             "this GPU only, run dcgmi diag -r 3"},
    XidEntry{31, XidClass::kApplication, "GPU memory page fault (MMU)",
             "usually an application fault (illegal address); if it repeats on this GPU only, run "
             "dcgmi diag -r 3"},
    XidEntry{32, XidClass::kWarn, "invalid or corrupted push buffer stream (PBDMA)", kFixReset},
    XidEntry{38, XidClass::kWarn, "driver firmware error (DCGM PCIe list)", kFixReset},
    XidEntry{39, XidClass::kWarn, "listed by DCGM under PCIe", kFixReset},
    XidEntry{42, XidClass::kWarn, "listed by DCGM under PCIe", kFixReset},
    XidEntry{
        43, XidClass::kApplication, "GPU stopped processing (channel reset)",
        "usually the application's fault; if it repeats on this GPU only, run dcgmi diag -r 3"},
    XidEntry{45, XidClass::kApplication, "preemptive cleanup after earlier errors",
             "follows another error or a killed job; look at the XIDs before it"},
    XidEntry{48, XidClass::kFatal, "double-bit ECC error (DBE)", kFixEcc},
    XidEntry{54, XidClass::kWarn, "auxiliary power not connected (DCGM power list)",
             "check the GPU's power cables and the PSUs; reboot"},
    XidEntry{56, XidClass::kWarn, "listed by DCGM under power", kFixReset},
    XidEntry{57, XidClass::kWarn, "error programming video memory interface (DCGM power list)",
             kFixReset},
    XidEntry{58, XidClass::kWarn, "unstable video memory interface (DCGM power list)", kFixReset},
    XidEntry{60, XidClass::kWarn, "listed by DCGM under thermal",
             "check cooling; nvidia-smi -q -d TEMPERATURE,PERFORMANCE -i <gpu>"},
    XidEntry{61, XidClass::kWarn,
             "internal micro-controller breakpoint/warning (DCGM thermal list)", kFixReset},
    XidEntry{62, XidClass::kWarn, "internal micro-controller halt (DCGM thermal list)", kFixReset},
    XidEntry{63, XidClass::kWarn, "page retirement or row remap recorded (a reset activates it)",
             "drain the node and reset the GPU (nvidia-smi -r -i <gpu>) or reboot, so that the "
             "retirement or remap takes effect"},
    XidEntry{64, XidClass::kFatal, "page retirement or row remap failed",
             "drain the node; the GPU has no spare rows for the failing address: RMA"},
    XidEntry{67, XidClass::kWarn, "listed by DCGM under NVLink",
             "check nvidia-smi nvlink -s -i <gpu> and nvidia-smi nvlink -e -i <gpu>"},
    XidEntry{73, XidClass::kWarn, "listed by DCGM under NVLink",
             "check nvidia-smi nvlink -s -i <gpu> and nvidia-smi nvlink -e -i <gpu>"},
    XidEntry{
        74, XidClass::kFatal, "NVLink error",
        "drain the node; check nvidia-smi nvlink -s -e -i <gpu>, NVSwitch SXIDs and the fabric "
        "manager log; reset the GPUs or reboot; RMA the baseboard if it recurs"},
    XidEntry{78, XidClass::kWarn, "listed by DCGM under power", kFixReset},
    XidEntry{79, XidClass::kFatal, "GPU has fallen off the bus",
             "drain the node and reboot (a GPU reset is not enough); check the GPU's PCIe slot, "
             "power and cooling, and the BMC event log (ipmitool sel list); RMA if it recurs"},
    XidEntry{92, XidClass::kUnlisted, "high single-bit ECC error rate", kFixEcc},
    XidEntry{93, XidClass::kWarn, "InfoROM wear limit (DCGM InfoROM list)",
             "plan an RMA or InfoROM update with NVIDIA support"},
    XidEntry{94, XidClass::kWarn, "contained ECC error (the application was stopped)",
             "restart the application; reset the GPU (nvidia-smi -r -i <gpu>) when idle so that "
             "the row remap takes effect"},
    XidEntry{95, XidClass::kFatal, "uncontained ECC error", kFixEcc},
    XidEntry{119, XidClass::kFatal, "GSP RPC timeout",
             "drain the node; reset the GPU or reboot; update the driver if it recurs"},
    XidEntry{120, XidClass::kFatal, "GSP error",
             "drain the node; reset the GPU or reboot; update the driver if it recurs"},
    XidEntry{121, XidClass::kWarn, "C2C link corrected error (DCGM NVLink list)",
             "watch for repeats; nvidia-smi -q -i <gpu>"},
    XidEntry{137, XidClass::kWarn, "listed by DCGM under NVLink",
             "check nvidia-smi nvlink -s -e -i <gpu>"},
    XidEntry{140, XidClass::kFatal, "unrecovered ECC error", kFixEcc},
};

const XidEntry* Find(int xid) {
  for (const auto& e : kXids) {
    if (e.xid == xid) return &e;
  }
  return nullptr;
}

}  // namespace

XidClass DcgmXidClass(int xid) {
  const XidEntry* e = Find(xid);
  return e ? e->dcgm : XidClass::kUnlisted;
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

std::string_view XidMeaning(int xid) {
  const XidEntry* e = Find(xid);
  return e ? e->meaning : std::string_view("not in DCGM's XID lists");
}

std::string_view XidFix(int xid) {
  const XidEntry* e = Find(xid);
  return e ? e->fix
           : std::string_view(
                 "look the XID up in NVIDIA's XID catalog; drain the node and run "
                 "dcgmi diag -r 2 if it recurs");
}

}  // namespace ys::gpu
