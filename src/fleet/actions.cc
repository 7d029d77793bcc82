#include "fleet/actions.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ys::fleet {

std::string NvidiaSmiTarget(const std::string& label) {
  auto all = [](std::string_view s, auto pred) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return pred(c); });
  };
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::string_view l = label;
  if (l.size() > 3 && l.substr(0, 3) == "gpu" && all(l.substr(3), digit))
    return " -i " + std::string(l.substr(3));
  auto uuid_char = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; };
  if (l.size() > 4 && (l.substr(0, 4) == "GPU-" || l.substr(0, 4) == "MIG-") &&
      all(l.substr(4), uuid_char)) {
    return " -i " + label;
  }
  // A PCI bus id: "0000:1b:00.0" or NVML's "00000000:1B:00.0".
  auto bdf_char = [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
  };
  if (std::count(l.begin(), l.end(), ':') == 2 && l.find('.') != std::string_view::npos &&
      all(l, bdf_char)) {
    return " -i " + label;
  }
  return "";
}

namespace {

// The action for a row that is not a low figure (a spread, a finding, a fact of the document), by
// its kind's name; empty for a figure's row.
std::string ActionForFindingKind(const std::string& kind_name, const std::string& entity) {
  bool node = entity == "node";
  const std::string& e = entity;
  if (kind_name == "spread") {
    return "look for what disturbed the run on " + (node ? std::string("the node") : e) +
           " (other processes, thermal or power cycling, clock changes): rerun with yardstick "
           "burnin --duration 30m";
  }
  if (kind_name == "check")
    return "fix what the finding says (its fix is in the node's run document), then rerun "
           "yardstick preflight";
  if (kind_name == "missing_units")
    return "rerun the missing units on the node (yardstick run --filter UNIT) and read why they "
           "skipped or failed";
  if (kind_name == "incomplete")
    return "rerun yardstick run on the node: the document is incomplete (a rank was lost or the "
           "run was interrupted)";
  if (kind_name == "version")
    return "align the node's software with the fleet (driver, CUDA, NCCL, firmware), then rerun "
           "yardstick run";
  if (kind_name == "hardware")
    return "confirm the node belongs in this fleet: it was judged only against nodes of its own "
           "GPU model";
  if (kind_name == "duplicate")
    return "give each node one document: one node's documents count as one node";
  if (kind_name == "corrupt")
    return "regenerate the node's document (yardstick run --out DIR): it could not be read";
  return "";
}

// The action for a low figure of `kind` on `entity` ("node": the node as a whole).
std::string ActionForFigureKind(FigureKind kind, const std::string& entity) {
  bool node = entity == "node";
  const std::string& e = entity;
  switch (kind) {
    case FigureKind::kGemm:
      return node ? "every GPU is slow in GEMM: check power caps, clocks and cooling (nvidia-smi "
                    "-q -d PERFORMANCE,POWER), then yardstick bench --filter gemm.gpu"
                  : "check " + e +
                        "'s clocks, power and throttle reasons (nvidia-smi -q -d PERFORMANCE" +
                        NvidiaSmiTarget(e) +
                        "), rerun yardstick bench --filter gemm.gpu; reset or replace the GPU if "
                        "it stays slow";
    case FigureKind::kMemory:
      return "check " + e +
             "'s memory errors and remapped rows (nvidia-smi -q -d ECC,ROW_REMAPPER" +
             NvidiaSmiTarget(e) +
             ") and memory clock, rerun yardstick bench --filter mem.gpu; replace the GPU if it "
             "stays low";
    case FigureKind::kNvlink:
      return "run yardstick bench --pairwise on the node and nvidia-smi nvlink --status" +
             NvidiaSmiTarget(e) + " and nvidia-smi nvlink --errorcounters" + NvidiaSmiTarget(e) +
             " for " + e + "; reseat or replace the GPU or its NVSwitch tray";
    case FigureKind::kPcie:
      return "check " + e +
             "'s PCIe link width and speed (yardstick preflight --filter gpu.pcie.*, lspci -vv); "
             "reseat the GPU or its riser";
    case FigureKind::kNetwork:
      return node ? "every NIC is slow: check the node's switch ports, NIC firmware and PCIe "
                    "placement, then rerun yardstick bench --filter 'net.*' against a known-good "
                    "peer"
                  : "check " + e +
                        "'s port and cable (ibstat, perfquery error counters, link width and "
                        "speed); rerun yardstick bench --filter 'net.*' against a known-good peer";
    case FigureKind::kCollective:
      return "node-local collectives are slow: check NVLink/NVSwitch and the fabric manager "
             "(nvidia-smi topo -m), then yardstick bench --pairwise to find the link";
    case FigureKind::kClock:
      return "clocks are throttled on " + (node ? std::string("the node") : e) +
             ": read the throttle reasons (nvidia-smi -q -d PERFORMANCE), check cooling and power "
             "caps";
    case FigureKind::kCpuGemm:
      return "the CPUs are slow: check the governor, C-states, turbo and SMT (yardstick preflight "
             "--filter 'cpu.*')";
    case FigureKind::kStream:
      return "host memory bandwidth is low: check DIMM population and NUMA settings (yardstick "
             "preflight --filter 'mem.*,numa.*'), dmidecode -t memory";
    case FigureKind::kProxy:
      return "the training step is slow: compare its time breakdown with a healthy node's "
             "(yardstick diagnose on the node's document)";
    case FigureKind::kStorage:
      return "storage is slow: check the mount, the file system's health and the link to the "
             "storage servers; rerun yardstick bench --filter storage.*";
    case FigureKind::kLaunch:
      return "launch latency is high: look for CPU contention and IRQ placement (yardstick "
             "preflight --filter 'cpu.*')";
    case FigureKind::kOther:
      break;
  }
  return "compare the node's run document with a healthy peer's and rerun yardstick run on it";
}

}  // namespace

std::string ActionFor(FigureKind kind, const std::string& entity, const std::string& kind_name) {
  if (std::string action = ActionForFindingKind(kind_name, entity); !action.empty()) return action;
  return ActionForFigureKind(kind, entity);
}

}  // namespace ys::fleet
