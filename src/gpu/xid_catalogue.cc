// NVIDIA's XID catalogue for Ampere and newer GPUs, R535 to R580 and Blackwell, as data.
// Source: "Analyzing Xid Errors with the Xid Catalog",
// https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html (the catalogue's
// description and immediate resolution bucket per XID); the meanings here are our own summaries.
// Numbers the catalogue marks unused on Ampere and newer have no entry of their own.
#include <array>

#include "gpu/xid.h"

namespace ys::gpu {
namespace {

using A = XidAction;
using R = XidArea;

constexpr std::string_view kFixEcc =
    "drain the node; check nvidia-smi -q -d ECC,ROW_REMAPPER -i <gpu>; reset the GPU "
    "(nvidia-smi -r -i <gpu>) or reboot; run dcgmi diag -r 3; RMA if it recurs";
constexpr std::string_view kFixNvlink =
    "drain the node; check nvidia-smi nvlink -s -e -i <gpu>, the NVSwitch SXIDs and the fabric "
    "manager log (and the GPU at the other end of the link); reset the GPUs or reboot; reseat or "
    "RMA the link's parts if it recurs";
constexpr std::string_view kFixApp =
    "usually the application's fault (bad address, bad kernel); rerun the job; if it repeats on "
    "this GPU only, run dcgmi diag -r 3 -i <gpu>";

// Sorted by XID; ranges do not overlap.
constexpr std::array kCatalogue = {
    XidInfo{8, 8, "GPU stopped processing (channel idle timeout)", R::kEngine, A::kRestartApp},
    XidInfo{11, 11, "invalid or corrupted push buffer stream", R::kApplication, A::kRestartApp},
    XidInfo{13, 13, "graphics engine exception (illegal instruction or address in a kernel)",
            R::kApplication, A::kRestartApp, kFixApp},
    XidInfo{14, 14, "test error the driver raised on request", R::kDriver, A::kIgnore},
    XidInfo{25, 25, "invalid or illegal push buffer stream", R::kApplication, A::kRestartApp},
    XidInfo{31, 31, "GPU memory page fault (MMU): an access to an unmapped address",
            R::kApplication, A::kRestartApp, kFixApp},
    XidInfo{32, 32, "invalid or corrupted push buffer stream (PBDMA)", R::kApplication,
            A::kRestartApp},
    XidInfo{37, 38, "driver firmware error (FECS)", R::kFirmware, A::kIgnore},
    XidInfo{39, 41, "copy engine exception", R::kEngine, A::kRestartApp},
    XidInfo{43, 43, "GPU stopped processing: the driver reset a faulting channel", R::kApplication,
            A::kIgnore, kFixApp},
    XidInfo{44, 44, "graphics engine fault during a context switch", R::kDriver, A::kIgnore},
    XidInfo{45, 45,
            "preemptive cleanup: the driver tore down a channel after the application ended or "
            "after an earlier error",
            R::kApplication, A::kFollowCause,
            "follows a killed job or another XID; act on the XID that caused it"},
    XidInfo{46, 46, "GPU stopped processing (GPU timeout)", R::kEngine, A::kResetGpu},
    XidInfo{48, 48, "double-bit ECC error (DBE) in GPU memory", R::kMemory, A::kResetGpu, kFixEcc},
    XidInfo{54, 54, "auxiliary power is not connected to the GPU board", R::kPower,
            A::kCheckHardware, "check the GPU's power cables and the PSUs; reboot"},
    XidInfo{56, 58, "display or memory-interface error (older GPUs; DCGM lists it)", R::kOther,
            A::kResetGpu},
    XidInfo{60, 60, "video processor (SEC2) exception", R::kEngine, A::kRestartApp},
    XidInfo{61, 61, "internal micro-controller breakpoint or warning (older GPUs)", R::kFirmware,
            A::kResetGpu},
    XidInfo{62, 62, "internal micro-controller halt", R::kFirmware, A::kResetGpu},
    XidInfo{63, 63, "GPU memory row remap (or page retirement) recorded; a reset activates it",
            R::kMemory, A::kIgnore,
            "drain the node and reset the GPU (nvidia-smi -r -i <gpu>) or reboot when idle, so "
            "that the remap takes effect"},
    XidInfo{64, 64, "GPU memory row remap (or page retirement) failed", R::kMemory, A::kResetGpu,
            "drain the node; the GPU has no spare rows for the failing address: run dcgmi diag "
            "-r 3 and RMA"},
    XidInfo{66, 67, "illegal register access by the driver", R::kDriver, A::kIgnore},
    XidInfo{68, 68, "video decoder (NVDEC0) exception", R::kEngine, A::kRestartApp},
    XidInfo{69, 69, "graphics engine class error", R::kApplication, A::kRestartApp},
    XidInfo{70, 72, "copy engine error", R::kEngine, A::kRestartApp},
    XidInfo{74, 74, "NVLink error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{75, 77, "copy engine error", R::kEngine, A::kRestartApp},
    XidInfo{78, 78, "vGPU start error", R::kDriver, A::kUpdateSoftware},
    XidInfo{79, 79, "GPU has fallen off the bus", R::kBus, A::kRebootNode,
            "drain the node and reboot (a GPU reset is not enough); check the GPU's PCIe slot, "
            "power and cooling, and the BMC event log (ipmitool sel list); RMA if it recurs"},
    XidInfo{80, 80, "corrupted data sent to the GPU (push buffer CRC mismatch)", R::kApplication,
            A::kRestartApp},
    XidInfo{82, 82, "JPEG engine (NVJPG0) error", R::kEngine, A::kRestartApp},
    XidInfo{83, 85, "video decoder or copy engine error", R::kEngine, A::kRestartApp},
    XidInfo{86, 86, "optical flow engine (OFA) exception", R::kEngine, A::kRestartApp},
    XidInfo{88, 89, "video decoder error", R::kEngine, A::kRestartApp},
    XidInfo{92, 92, "high rate of single-bit ECC errors", R::kMemory, A::kIgnore, kFixEcc},
    XidInfo{93, 93, "InfoROM wear limit exceeded (not fatal)", R::kFirmware, A::kIgnore,
            "plan an RMA or InfoROM update with NVIDIA support"},
    XidInfo{94, 94, "contained memory (ECC) error: the affected application was stopped",
            R::kMemory, A::kRestartApp,
            "restart the application; reset the GPU (nvidia-smi -r -i <gpu>) when idle so that "
            "the row remap takes effect"},
    XidInfo{95, 95, "uncontained memory (ECC) error: every application on the GPU is affected",
            R::kMemory, A::kResetGpu, kFixEcc},
    XidInfo{96, 105, "video decoder or JPEG engine error", R::kEngine, A::kRestartApp},
    XidInfo{106, 107, "SMBPBI test message", R::kDriver, A::kIgnore},
    XidInfo{109, 109, "context-switch timeout: a channel did not yield the engine in time",
            R::kEngine, A::kResetGpu},
    XidInfo{110, 110, "security fault", R::kFirmware, A::kResetGpu},
    XidInfo{119, 119, "GSP firmware RPC timeout", R::kFirmware, A::kResetGpu,
            "drain the node; reset the GPU or reboot; update the driver if it recurs"},
    XidInfo{120, 120, "GSP firmware error", R::kFirmware, A::kResetGpu,
            "drain the node; reset the GPU or reboot; update the driver if it recurs"},
    XidInfo{121, 121, "C2C (chip-to-chip) link error", R::kNvlink, A::kIgnore,
            "watch for repeats; nvidia-smi -q -i <gpu>"},
    XidInfo{126, 135, "copy engine error", R::kEngine, A::kRestartApp},
    XidInfo{136, 136, "link training failed", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{137, 137, "NVLink privilege error", R::kNvlink, A::kIgnore},
    XidInfo{139, 139, "optical flow engine (OFA1) error", R::kEngine, A::kRestartApp},
    XidInfo{140, 140, "ECC error the hardware could not recover", R::kMemory, A::kResetGpu,
            kFixEcc},
    XidInfo{141, 141, "CUDA fast-path error", R::kDriver, A::kIgnore},
    XidInfo{142, 142, "video encoder (NVENC3) error", R::kEngine, A::kRestartApp},
    XidInfo{143, 143, "GPU initialisation error", R::kFirmware, A::kResetGpu},
    XidInfo{144, 144, "NVLink SAW error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{145, 145, "NVLink RLW error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{146, 146, "NVLink TLW error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{147, 147, "NVLink TREX error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{148, 148, "NVLink NVLPW control error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{149, 149, "NVLink NETIR error: link or fabric interface", R::kNvlink, A::kResetGpu,
            kFixNvlink},
    XidInfo{150, 150, "NVLink MSE error (management firmware watchdog)", R::kNvlink, A::kResetGpu,
            kFixNvlink},
    XidInfo{151, 151, "key rotation error (confidential computing)", R::kFirmware, A::kRestartVm},
    XidInfo{152, 153, "deep-learning accelerator error", R::kEngine, A::kIgnore},
    XidInfo{154, 154, "GPU recovery action changed: the driver states what the GPU now needs",
            R::kOther, A::kFollowCause,
            "do what the recovery action says (GPU reset, node reboot, drain), then look at the "
            "XID before it"},
    XidInfo{155, 155, "NVLink software-defined error", R::kNvlink, A::kResetGpu, kFixNvlink},
    XidInfo{156, 156, "resource retirement event (a reset completes it)", R::kMemory, A::kResetGpu},
    XidInfo{157, 157, "resource retirement failed", R::kMemory, A::kIgnore, kFixEcc},
    XidInfo{158, 158, "GPU fatal timeout", R::kFirmware, A::kResetGpu},
    XidInfo{159, 159, "CHI non-data error (coherent CPU-GPU interconnect)", R::kBus,
            A::kRestartApp},
    XidInfo{160, 161, "channel retirement event or failure", R::kDriver, A::kIgnore},
    XidInfo{162, 165, "power-smoothing circuitry state change or wear", R::kPower, A::kIgnore},
};

}  // namespace

const XidInfo* FindXid(int xid) {
  for (const auto& e : kCatalogue) {
    if (xid >= e.first && xid <= e.last) return &e;
  }
  return nullptr;
}

const char* XidAreaName(XidArea a) {
  switch (a) {
    case XidArea::kApplication:
      return "application";
    case XidArea::kEngine:
      return "engine";
    case XidArea::kMemory:
      return "memory";
    case XidArea::kNvlink:
      return "NVLink";
    case XidArea::kBus:
      return "PCIe bus";
    case XidArea::kFirmware:
      return "firmware";
    case XidArea::kPower:
      return "power";
    case XidArea::kDriver:
      return "driver";
    case XidArea::kOther:
      break;
  }
  return "other";
}

const char* XidActionName(XidAction a) {
  switch (a) {
    case XidAction::kIgnore:
      return "none";
    case XidAction::kRestartApp:
      return "restart the application";
    case XidAction::kResetGpu:
      return "reset the GPU";
    case XidAction::kRebootNode:
      return "reboot the node";
    case XidAction::kCheckHardware:
      return "check the hardware";
    case XidAction::kUpdateSoftware:
      return "update the driver or firmware";
    case XidAction::kRestartVm:
      return "restart the VM";
    case XidAction::kFollowCause:
      return "act on its cause";
    case XidAction::kUnused:
      break;
  }
  return "contact NVIDIA support";
}

std::string_view XidMeaning(int xid) {
  const XidInfo* e = FindXid(xid);
  return e ? e->meaning : std::string_view("not in NVIDIA's XID catalogue");
}

std::string XidFix(int xid) {
  const XidInfo* e = FindXid(xid);
  if (e && !e->fix.empty()) return std::string(e->fix);
  switch (e ? e->action : XidAction::kUnused) {
    case XidAction::kIgnore:
      return "no action unless it recurs; look at the XIDs around it";
    case XidAction::kRestartApp:
      return "restart the application; if it recurs on this GPU, drain the node and run dcgmi "
             "diag -r 2 -i <gpu>";
    case XidAction::kResetGpu:
      return "drain the node; reset the GPU (nvidia-smi -r -i <gpu>) or reboot; run dcgmi diag "
             "-r 2; contact NVIDIA support if it recurs";
    case XidAction::kRebootNode:
      return "drain the node and reboot it";
    case XidAction::kCheckHardware:
      return "check the GPU's seating, cables and power; reboot";
    case XidAction::kUpdateSoftware:
      return "update the driver and firmware";
    case XidAction::kRestartVm:
      return "restart the VM";
    case XidAction::kFollowCause:
      return "act on the XID that caused it";
    case XidAction::kUnused:
      break;
  }
  return "look the XID up in NVIDIA's XID catalogue; drain the node and run dcgmi diag -r 2 if "
         "it recurs";
}

}  // namespace ys::gpu
