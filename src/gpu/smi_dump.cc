#include "gpu/smi_dump.h"

#include <array>

#include "core/format_registry.h"
#include "core/text.h"
#include "gpu/gpu_snapshot_fields.h"
#include "gpu/gpu_snapshot_json.h"
#include "gpu/smi_dump_tree.h"
#include "gpu/smi_dump_values.h"

namespace ys::gpu {
namespace {

using smi::Find;
using smi::FindAny;
using smi::Read;

constexpr const char* kNoNvlink =
    "not reported: nvidia-smi -q does not show NVLink state (nvidia-smi nvlink -s and -e do)";

// The nvmlClocksEventReason bit behind each entry of "Clocks Event Reasons" (R535 on) or
// "Clocks Throttle Reasons" (before): text key, then the XML tags of both names.
struct ReasonEntry {
  uint64_t bit;
  const char* names;
};
constexpr std::array kReasonEntries = {
    ReasonEntry{kClocksEventGpuIdle,
                "Idle|clocks_event_reason_gpu_idle|clocks_throttle_reason_gpu_idle"},
    ReasonEntry{kClocksEventApplicationsClocksSetting,
                "Applications Clocks Setting|clocks_event_reason_applications_clocks_setting|"
                "clocks_throttle_reason_applications_clocks_setting"},
    ReasonEntry{
        kClocksEventSwPowerCap,
        "SW Power Cap|clocks_event_reason_sw_power_cap|clocks_throttle_reason_sw_power_cap"},
    ReasonEntry{kClocksEventHwSlowdown,
                "HW Slowdown|clocks_event_reason_hw_slowdown|clocks_throttle_reason_hw_slowdown"},
    ReasonEntry{kClocksEventSyncBoost,
                "Sync Boost|clocks_event_reason_sync_boost|clocks_throttle_reason_sync_boost"},
    ReasonEntry{kClocksEventSwThermalSlowdown,
                "SW Thermal Slowdown|clocks_event_reason_sw_thermal_slowdown|"
                "clocks_throttle_reason_sw_thermal_slowdown"},
    ReasonEntry{kClocksEventHwThermalSlowdown,
                "HW Thermal Slowdown|clocks_event_reason_hw_thermal_slowdown|"
                "clocks_throttle_reason_hw_thermal_slowdown"},
    ReasonEntry{kClocksEventHwPowerBrakeSlowdown,
                "HW Power Brake Slowdown|clocks_event_reason_hw_power_brake_slowdown|"
                "clocks_throttle_reason_hw_power_brake_slowdown"},
    ReasonEntry{kClocksEventDisplayClockSetting,
                "Display Clock Setting|clocks_event_reason_display_clocks_setting|"
                "clocks_throttle_reason_display_clocks_setting"},
};
constexpr std::string_view kReasonsSection =
    "Clocks Event Reasons|Clocks Throttle Reasons|clocks_event_reasons|clocks_throttle_reasons";

// The mask of the reasons shown as Active. In text, HW Thermal and HW Power Brake nest under HW
// Slowdown, hence the search below the section.
Field<uint64_t> ClocksEventReasons(const SmiEntry& g) {
  const SmiEntry* section = Find(g, kReasonsSection);
  if (section == nullptr) return Field<uint64_t>::Missing(smi::NotReported(kReasonsSection));
  if (auto why = smi::NoValueReason(section->value); why && section->children.empty()) {
    return Field<uint64_t>::Missing(*why);
  }
  uint64_t mask = 0;
  int shown = 0;
  for (const auto& r : kReasonEntries) {
    const SmiEntry* e = smi::FindBelow(*section, r.names);
    if (e == nullptr) continue;
    auto on = smi::OnOff(e->value);
    if (!on) continue;  // N/A: this reason is not supported here
    ++shown;
    if (*on) mask |= r.bit;
  }
  if (shown == 0)
    return Field<uint64_t>::Missing("not supported (no reason shown as Active/Not Active)");
  return Field<uint64_t>::Of(mask);
}

// The sum of the counters at `paths` under "ECC Errors/<scope>" that show a number: NVML's
// total (nvmlDeviceGetTotalEccErrors) is the sum over SRAM and DRAM (Ampere and later) or the
// "Total" of single- or double-bit errors (before).
Field<uint64_t> EccSum(const SmiEntry& g, std::string_view scope,
                       std::initializer_list<std::string_view> names) {
  std::string base = "ECC Errors|ecc_errors/" + std::string(scope) + "/";
  uint64_t sum = 0;
  bool any = false;
  std::string why;
  for (std::string_view n : names) {
    std::string path = base + std::string(n);
    Field<uint64_t> f = Read<uint64_t>(g, {path}, smi::LeadingUint);
    if (f.has()) {
      sum += *f;
      any = true;
    } else if (why.empty() || (!f.error.empty() && why.rfind("not reported", 0) == 0)) {
      why = f.error;
    }
  }
  return any ? Field<uint64_t>::Of(sum) : Field<uint64_t>::Missing(why);
}

void ReadEcc(const SmiEntry& g, GpuDevice& d) {
  d.ecc_enabled = Read<bool>(g, {"ECC Mode|ecc_mode/Current|current_ecc"}, smi::OnOff);
  for (const char* scope : {"Volatile|volatile", "Aggregate|aggregate"}) {
    bool vol = scope[0] == 'V';
    Field<uint64_t> corrected =
        EccSum(g, scope,
               {"SRAM Correctable|sram_correctable", "DRAM Correctable|dram_correctable",
                "Single Bit|single_bit/Total|total"});
    Field<uint64_t> uncorrected =
        EccSum(g, scope,
               {"SRAM Uncorrectable|sram_uncorrectable",
                "SRAM Uncorrectable Parity|sram_uncorrectable_parity",
                "SRAM Uncorrectable SEC-DED|sram_uncorrectable_secded",
                "DRAM Uncorrectable|dram_uncorrectable", "Double Bit|double_bit/Total|total"});
    (vol ? d.ecc_volatile_corrected : d.ecc_aggregate_corrected) = std::move(corrected);
    (vol ? d.ecc_volatile_uncorrected : d.ecc_aggregate_uncorrected) = std::move(uncorrected);
  }
}

void ReadMemoryRepair(const SmiEntry& g, GpuDevice& d) {
  d.retired_pages_sbe =
      Read<uint32_t>(g,
                     {"Retired Pages/Single Bit ECC",
                      "retired_pages/multiple_single_bit_retirement/retired_count"},
                     smi::LeadingUint);
  d.retired_pages_dbe = Read<uint32_t>(
      g, {"Retired Pages/Double Bit ECC", "retired_pages/double_bit_retirement/retired_count"},
      smi::LeadingUint);
  d.retired_pages_pending =
      Read<bool>(g,
                 {"Retired Pages/Pending Page Retirement|Pending Page Blacklist|Pending",
                  "retired_pages/pending_retirement|pending_blacklist"},
                 smi::OnOff);
  d.remapped_rows_correctable = Read<uint32_t>(
      g, {"Remapped Rows|remapped_rows/Correctable Error|remapped_row_corr"}, smi::LeadingUint);
  d.remapped_rows_uncorrectable = Read<uint32_t>(
      g, {"Remapped Rows|remapped_rows/Uncorrectable Error|remapped_row_unc"}, smi::LeadingUint);
  d.remapped_rows_pending =
      Read<bool>(g, {"Remapped Rows|remapped_rows/Pending|remapped_row_pending"}, smi::OnOff);
  d.remapped_rows_failure =
      Read<bool>(g, {"Remapped Rows|remapped_rows/Remapping Failure Occurred|remapped_row_failure"},
                 smi::OnOff);
}

void ReadThermalAndPower(const SmiEntry& g, GpuDevice& d) {
  constexpr const char* kTemp = "Temperature|temperature/";
  auto temp = [&](std::string_view names) {
    std::string path = kTemp + std::string(names);
    return Read<uint32_t>(g, {path}, smi::LeadingUint);
  };
  d.temperature_c = temp("GPU Current Temp|gpu_temp");
  d.shutdown_temperature_c = temp("GPU Shutdown Temp|gpu_temp_max_threshold");
  d.slowdown_temperature_c = temp("GPU Slowdown Temp|gpu_temp_slow_threshold");
  d.max_operating_temperature_c = temp("GPU Max Operating Temp|gpu_temp_max_gpu_threshold");
  // R535 and later print the thresholds of some GPUs only relative to T.Limit; not converted.
  if (Find(g, "Temperature|temperature/GPU T.Limit Temp|gpu_temp_tlimit") != nullptr) {
    for (Field<uint32_t>* f :
         {&d.shutdown_temperature_c, &d.slowdown_temperature_c, &d.max_operating_temperature_c}) {
      if (!f->has() && f->error.rfind("not reported", 0) == 0) {
        *f = Field<uint32_t>::Missing(
            "not reported: this dump gives the thresholds only relative to T.Limit");
      }
    }
  }
  constexpr const char* kPower =
      "GPU Power Readings|Power Readings|gpu_power_readings|power_readings/";
  auto power = [&](std::string_view names) {
    std::string path = kPower + std::string(names);
    return Read<uint32_t>(g, {path}, smi::Milliwatts);
  };
  d.power_usage_mw = power(
      "Power Draw|Instantaneous Power Draw|Average Power Draw|power_draw|instant_power_draw|"
      "average_power_draw");
  d.enforced_power_limit_mw =
      power("Enforced Power Limit|Current Power Limit|enforced_power_limit|current_power_limit");
  d.default_power_limit_mw = power("Default Power Limit|default_power_limit");
}

void ReadPcieAndClocks(const SmiEntry& g, GpuDevice& d) {
  constexpr const char* kLink = "PCI|pci/GPU Link Info|pci_gpu_link_info/";
  auto link = [&](std::string_view rest) {
    std::string path = kLink + std::string(rest);
    return Read<uint32_t>(g, {path}, smi::LeadingUint);
  };
  d.pcie_gen_current = link("PCIe Generation|pcie_gen/Current|current_link_gen");
  d.pcie_gen_max = link("PCIe Generation|pcie_gen/Max|max_link_gen");
  d.pcie_width_current = link("Link Width|link_widths/Current|current_link_width");
  d.pcie_width_max = link("Link Width|link_widths/Max|max_link_width");
  d.pcie_replay_counter =
      Read<uint64_t>(g, {"PCI|pci/Replays Since Reset|replay_counter"}, smi::LeadingUint);
  d.sm_clock_mhz = Read<uint32_t>(g, {"Clocks|clocks/SM|sm_clock"}, smi::LeadingUint);
  d.mem_clock_mhz = Read<uint32_t>(g, {"Clocks|clocks/Memory|mem_clock"}, smi::LeadingUint);
  d.max_sm_clock_mhz = Read<uint32_t>(g, {"Max Clocks|max_clocks/SM|sm_clock"}, smi::LeadingUint);
  d.clocks_event_reasons = ClocksEventReasons(g);
  d.performance_state = Read<int>(g, {"Performance State|performance_state"}, smi::Pstate);
}

Field<FabricInfo> ReadFabric(const SmiEntry& g) {
  const SmiEntry* f = Find(g, "Fabric|fabric");
  if (f == nullptr) return Field<FabricInfo>::Missing(smi::NotReported("Fabric"));
  const SmiEntry* state = Find(*f, "State|state");
  if (state == nullptr) return Field<FabricInfo>::Missing(smi::NotReported("Fabric/State"));
  FabricInfo info;
  // NVML answers NOT_SUPPORTED on a GPU without an NVLink fabric; nvidia-smi prints N/A.
  info.state = smi::NoValueReason(state->value) ? "not supported" : ToLower(state->value);
  auto text = [&](std::string_view path) {
    const SmiEntry* e = Find(*f, path);
    return e == nullptr || smi::NoValueReason(e->value) ? std::string() : e->value;
  };
  info.status = ToLower(text("Status|status"));
  info.cluster_uuid = text("ClusterUUID|cluster_uuid|clusterUuid");
  if (const SmiEntry* c = Find(*f, "CliqueId|clique_id|cliqueId")) {
    if (auto n = smi::LeadingUint(c->value); n && *n <= UINT32_MAX) {
      info.clique_id = static_cast<uint32_t>(*n);
    }
  }
  return Field<FabricInfo>::Of(std::move(info));
}

// The processes under "Processes", in order: text starts one at each "Process ID" and nests its
// "Type" and "Used GPU Memory" under it; XML nests each in <process_info>.
struct ProcessList {
  std::vector<GpuProcess> all;
  std::vector<bool> compute;

  void Take(const SmiEntry& e) {
    if (e.key == "Process ID" || e.key == "pid") {
      all.push_back({});
      compute.push_back(true);
      if (auto n = smi::LeadingUint(e.value); n && *n <= UINT32_MAX) {
        all.back().pid = static_cast<uint32_t>(*n);
      }
    } else if (!all.empty() && (e.key == "Type" || e.key == "type")) {
      compute.back() = e.value.find('C') != std::string::npos;  // "C", "C+G"; not "G"
    } else if (!all.empty() && (e.key == "Used GPU Memory" || e.key == "used_memory")) {
      all.back().used_memory_bytes = smi::MibBytes(e.value).value_or(0);
    }
    for (const SmiEntry& c : e.children) Take(c);
  }
};

// Graphics-only processes ("G") are not compute processes (nvmlDeviceGetComputeRunningProcesses).
Field<std::vector<GpuProcess>> ReadProcesses(const SmiEntry& g) {
  using F = Field<std::vector<GpuProcess>>;
  const SmiEntry* p = Find(g, "Processes|processes");
  if (p == nullptr) return F::Missing(smi::NotReported("Processes"));
  if (p->children.empty() && !p->value.empty() && p->value != "None") {
    if (auto why = smi::NoValueReason(p->value)) return F::Missing(*why);
  }
  ProcessList list;
  for (const SmiEntry& c : p->children) list.Take(c);
  std::vector<GpuProcess> kept;
  for (size_t i = 0; i < list.all.size(); ++i) {
    if (list.compute[i]) kept.push_back(list.all[i]);
  }
  return F::Of(std::move(kept));
}

GpuDevice ReadDevice(const SmiEntry& g, int index, std::string_view bus_id) {
  GpuDevice d;
  d.index = index;
  d.index_is_dump_order = true;
  auto text = [&](std::string_view path) {
    const SmiEntry* e = Find(g, path);
    return e == nullptr || smi::NoValueReason(e->value) ? std::string() : e->value;
  };
  d.uuid = text("GPU UUID|uuid");
  d.name = text("Product Name|product_name");
  d.serial = text("Serial Number|serial");
  d.pci_bus_id = text("PCI|pci/Bus Id|pci_bus_id");
  if (d.pci_bus_id.empty()) d.pci_bus_id = std::string(bus_id);
  if (auto id = ParseHex(text("PCI|pci/Device Id|pci_device_id")); id && *id <= UINT32_MAX) {
    d.pci_device_id = static_cast<uint32_t>(*id);
  }
  d.persistence_mode = Read<bool>(g, {"Persistence Mode|persistence_mode"}, smi::OnOff);
  d.mig_enabled = Read<bool>(g, {"MIG Mode|mig_mode/Current|current_mig"}, smi::OnOff);
  ReadPcieAndClocks(g, d);
  ReadThermalAndPower(g, d);
  ReadEcc(g, d);
  ReadMemoryRepair(g, d);
  d.fabric = ReadFabric(g);
  d.compute_processes = ReadProcesses(g);
  NvLinkState link;
  ForEachLinkField(link, [](const char*, auto& f) { f.error = kNoNvlink; });
  d.nvlinks.push_back(std::move(link));
  return d;
}

}  // namespace

namespace {

// "GPU 00000000:18:00.0" (text) or <gpu id="00000000:18:00.0"> (XML): the GPU's bus id, or
// nullopt for another top-level entry.
std::optional<std::string> GpuSection(const SmiEntry& e) {
  if (e.key == "gpu") return e.id;
  if (StartsWith(e.key, "GPU ") && e.key.find(':') != std::string::npos && e.value.empty()) {
    return std::string(Trim(std::string_view(e.key).substr(4)));
  }
  return std::nullopt;
}

Result<GpuSnapshot> FromTree(const SmiEntry& root, const std::string& where) {
  GpuSnapshot s;
  s.source = "recorded: " + where;
  s.driver_version =
      Read<std::string>(root, {"Driver Version|driver_version"},
                        [](std::string_view v) { return std::optional<std::string>(v); });
  s.cuda_driver_version = Read<int>(root, {"CUDA Version|cuda_version"}, smi::CudaVersion);
  s.nvml_version = Field<std::string>::Missing("not reported: nvidia-smi -q does not print it");
  for (const SmiEntry& e : root.children) {
    if (auto bus = GpuSection(e)) {
      s.devices.push_back(ReadDevice(e, static_cast<int>(s.devices.size()), *bus));
    }
  }
  const SmiEntry* attached = Find(root, "Attached GPUs|attached_gpus");
  auto count = attached ? smi::LeadingUint(attached->value) : std::nullopt;
  if (s.devices.empty() && !count) {
    return Status::Invalid(where +
                           ": an nvidia-smi -q dump without a GPU section or an "
                           "\"Attached GPUs\" count");
  }
  if (count && *count != s.devices.size()) {
    // `nvidia-smi -q -i N` shows one GPU of several: the snapshot is that part of the node.
    s.source += " (shows " + std::to_string(s.devices.size()) + " of " + std::to_string(*count) +
                " attached GPUs)";
  }
  return s;
}

}  // namespace

std::optional<SmiDumpFormat> DetectSmiDump(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  size_t first = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
  if (first == std::string_view::npos) return std::nullopt;
  if (head[first] == '<' && (head.find("<nvidia_smi_log") != std::string_view::npos ||
                             StartsWith(head.substr(first), "<?xml"))) {
    return SmiDumpFormat::kXml;
  }
  if (head[first] != '{' && head.find("NVSMI LOG") != std::string_view::npos) {
    return SmiDumpFormat::kText;
  }
  return std::nullopt;
}

Result<GpuSnapshot> ReadSmiDump(std::string_view text, std::string_view origin) {
  std::string where(origin);
  auto format = DetectSmiDump(text);
  if (!format) {
    return Status::Invalid(where +
                           ": not an nvidia-smi -q dump (no \"NVSMI LOG\" banner and no "
                           "<nvidia_smi_log> element)");
  }
  const char* form = *format == SmiDumpFormat::kXml ? "nvidia-smi -q -x XML" : "nvidia-smi -q text";
  auto tree = *format == SmiDumpFormat::kXml ? ParseSmiXml(text) : ParseSmiText(text);
  if (!tree.ok()) return Status::Invalid(where + " (" + form + "): " + tree.status().message());
  if (*format == SmiDumpFormat::kXml && tree->key != "nvidia_smi_log") {
    return Status::Invalid(where + " (" + form + "): the root element is <" + tree->key +
                           ">, expected <nvidia_smi_log>");
  }
  return FromTree(*tree, where);
}

Result<GpuSnapshot> LoadGpuStateFile(const std::string& path) {
  // Through the format room (src/formats/: nvidia-smi-q, nvidia-smi-q-xml, nvml-state).
  auto s = ReadFormatAs<GpuSnapshot>(path, FormatProduct::kGpuState);
  if (s.ok() || s.status().code() != StatusCode::kInvalidInput) return s;
  return Status::Invalid(s.status().message() +
                         " (--nvml-state takes an NVML state recording in JSON, or the output of "
                         "nvidia-smi -q or nvidia-smi -q -x)");
}

}  // namespace ys::gpu
