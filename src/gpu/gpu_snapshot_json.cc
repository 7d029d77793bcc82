// MINIMAL STAND-IN (see the header): the nvml helper's version replaces this file on merge.
#include "gpu/gpu_snapshot_json.h"

#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <type_traits>

namespace ys::gpu {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

template <typename D, typename V>
void ForEachDeviceField(D& d, V&& v) {
  v("persistence_mode", d.persistence_mode);
  v("performance_state", d.performance_state);
  v("sm_clock_mhz", d.sm_clock_mhz);
  v("mem_clock_mhz", d.mem_clock_mhz);
  v("max_sm_clock_mhz", d.max_sm_clock_mhz);
  v("clocks_event_reasons", d.clocks_event_reasons);
  v("power_usage_mw", d.power_usage_mw);
  v("enforced_power_limit_mw", d.enforced_power_limit_mw);
  v("default_power_limit_mw", d.default_power_limit_mw);
  v("temperature_c", d.temperature_c);
  v("slowdown_temperature_c", d.slowdown_temperature_c);
  v("shutdown_temperature_c", d.shutdown_temperature_c);
  v("max_operating_temperature_c", d.max_operating_temperature_c);
  v("ecc_enabled", d.ecc_enabled);
  v("ecc_volatile_corrected", d.ecc_volatile_corrected);
  v("ecc_volatile_uncorrected", d.ecc_volatile_uncorrected);
  v("ecc_aggregate_corrected", d.ecc_aggregate_corrected);
  v("ecc_aggregate_uncorrected", d.ecc_aggregate_uncorrected);
  v("retired_pages_sbe", d.retired_pages_sbe);
  v("retired_pages_dbe", d.retired_pages_dbe);
  v("retired_pages_pending", d.retired_pages_pending);
  v("remapped_rows_correctable", d.remapped_rows_correctable);
  v("remapped_rows_uncorrectable", d.remapped_rows_uncorrectable);
  v("remapped_rows_pending", d.remapped_rows_pending);
  v("remapped_rows_failure", d.remapped_rows_failure);
  v("fabric", d.fabric);
  v("pcie_gen_current", d.pcie_gen_current);
  v("pcie_gen_max", d.pcie_gen_max);
  v("pcie_width_current", d.pcie_width_current);
  v("pcie_width_max", d.pcie_width_max);
  v("pcie_replay_counter", d.pcie_replay_counter);
  v("mig_enabled", d.mig_enabled);
  v("compute_processes", d.compute_processes);
}

template <typename L, typename V>
void ForEachLinkField(L& l, V&& v) {
  v("active", l.active);
  v("remote_pci_bus_id", l.remote_pci_bus_id);
  v("replay_errors", l.replay_errors);
  v("recovery_errors", l.recovery_errors);
  v("crc_flit_errors", l.crc_flit_errors);
  v("crc_data_errors", l.crc_data_errors);
}

// ---- Writing ----

template <typename T>
ojson Encode(const T& v) {
  return v;
}
ojson Encode(const FabricInfo& f) {
  return ojson{{"state", f.state}, {"status", f.status}, {"cluster_uuid", f.cluster_uuid},
               {"clique_id", f.clique_id}};
}
ojson Encode(const std::vector<GpuProcess>& ps) {
  ojson a = ojson::array();
  for (const auto& p : ps) a.push_back({{"pid", p.pid}, {"used_memory_bytes", p.used_memory_bytes}});
  return a;
}
template <typename T>
ojson EncodeField(const Field<T>& f) {
  if (f.has()) return ojson{{"value", Encode(*f)}};
  return ojson{{"error", f.error}};
}

// ---- Reading ----

std::string TypeName(const json& j) { return j.type_name(); }

Status Wrong(const std::string& path, const char* expected, const json& j) {
  return Status::Invalid(path + ": expected " + expected + ", got " + TypeName(j));
}

Status Decode(const json& j, const std::string& path, bool* out) {
  if (!j.is_boolean()) return Wrong(path, "a boolean", j);
  *out = j.get<bool>();
  return {};
}
Status Decode(const json& j, const std::string& path, std::string* out) {
  if (!j.is_string()) return Wrong(path, "a string", j);
  *out = j.get<std::string>();
  return {};
}
template <typename T>
  requires std::is_integral_v<T>
Status Decode(const json& j, const std::string& path, T* out) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return Status::Invalid(path + ": " + std::to_string(v) + " is out of range");
    }
    *out = static_cast<T>(v);
    return {};
  }
  if (j.is_number_integer()) {
    int64_t v = j.get<int64_t>();
    if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
      return Status::Invalid(path + ": " + std::to_string(v) + " is out of range");
    }
    *out = static_cast<T>(v);
    return {};
  }
  return Wrong(path, "a whole number", j);
}

Status CheckKeys(const json& j, const std::string& path, const std::set<std::string>& known) {
  if (!j.is_object()) return Wrong(path.empty() ? "(document)" : path, "an object", j);
  for (const auto& [k, _] : j.items()) {
    if (known.count(k) == 0) {
      return Status::Invalid((path.empty() ? k : path + "." + k) + ": unknown key");
    }
  }
  return {};
}

Status Decode(const json& j, const std::string& path, FabricInfo* out) {
  YS_RETURN_IF_ERROR(CheckKeys(j, path, {"state", "status", "cluster_uuid", "clique_id"}));
  if (j.contains("state")) YS_RETURN_IF_ERROR(Decode(j["state"], path + ".state", &out->state));
  if (j.contains("status")) YS_RETURN_IF_ERROR(Decode(j["status"], path + ".status", &out->status));
  if (j.contains("cluster_uuid")) {
    YS_RETURN_IF_ERROR(Decode(j["cluster_uuid"], path + ".cluster_uuid", &out->cluster_uuid));
  }
  if (j.contains("clique_id")) {
    YS_RETURN_IF_ERROR(Decode(j["clique_id"], path + ".clique_id", &out->clique_id));
  }
  return {};
}
Status Decode(const json& j, const std::string& path, std::vector<GpuProcess>* out) {
  if (!j.is_array()) return Wrong(path, "an array", j);
  for (size_t i = 0; i < j.size(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    YS_RETURN_IF_ERROR(CheckKeys(j[i], p, {"pid", "used_memory_bytes"}));
    GpuProcess proc;
    if (j[i].contains("pid")) YS_RETURN_IF_ERROR(Decode(j[i]["pid"], p + ".pid", &proc.pid));
    if (j[i].contains("used_memory_bytes")) {
      YS_RETURN_IF_ERROR(
          Decode(j[i]["used_memory_bytes"], p + ".used_memory_bytes", &proc.used_memory_bytes));
    }
    out->push_back(proc);
  }
  return {};
}

template <typename T>
Status DecodeField(const json& parent, const std::string& key, const std::string& path,
                   Field<T>* out) {
  if (!parent.contains(key)) {
    *out = Field<T>::Missing("not recorded");
    return {};
  }
  const json& j = parent[key];
  YS_RETURN_IF_ERROR(CheckKeys(j, path, {"value", "error"}));
  bool has_v = j.contains("value"), has_e = j.contains("error");
  if (has_v == has_e) return Status::Invalid(path + ": expected exactly one of \"value\" or \"error\"");
  if (has_e) {
    std::string why;
    YS_RETURN_IF_ERROR(Decode(j["error"], path + ".error", &why));
    *out = Field<T>::Missing(why);
    return {};
  }
  T v{};
  YS_RETURN_IF_ERROR(Decode(j["value"], path + ".value", &v));
  *out = Field<T>::Of(std::move(v));
  return {};
}

Status DecodeDevice(const json& j, const std::string& path, GpuDevice* d) {
  std::set<std::string> known = {"index", "uuid", "name", "serial", "pci_bus_id", "pci_device_id",
                                 "nvlinks", "topology_to_gpus"};
  ForEachDeviceField(*d, [&](const char* k, auto&) { known.insert(k); });
  YS_RETURN_IF_ERROR(CheckKeys(j, path, known));
  for (const char* req : {"index", "uuid", "name", "pci_bus_id"}) {
    if (!j.contains(req)) return Status::Invalid(path + "." + req + ": required key is absent");
  }
  YS_RETURN_IF_ERROR(Decode(j["index"], path + ".index", &d->index));
  YS_RETURN_IF_ERROR(Decode(j["uuid"], path + ".uuid", &d->uuid));
  YS_RETURN_IF_ERROR(Decode(j["name"], path + ".name", &d->name));
  YS_RETURN_IF_ERROR(Decode(j["pci_bus_id"], path + ".pci_bus_id", &d->pci_bus_id));
  if (j.contains("serial")) YS_RETURN_IF_ERROR(Decode(j["serial"], path + ".serial", &d->serial));
  if (j.contains("pci_device_id")) {
    YS_RETURN_IF_ERROR(Decode(j["pci_device_id"], path + ".pci_device_id", &d->pci_device_id));
  }
  Status st;
  ForEachDeviceField(*d, [&](const char* k, auto& f) {
    if (st.ok()) st = DecodeField(j, k, path + "." + k, &f);
  });
  YS_RETURN_IF_ERROR(st);
  if (j.contains("nvlinks")) {
    const json& links = j["nvlinks"];
    if (!links.is_array()) return Wrong(path + ".nvlinks", "an array", links);
    for (size_t i = 0; i < links.size(); ++i) {
      std::string lp = path + ".nvlinks[" + std::to_string(i) + "]";
      NvLinkState l;
      std::set<std::string> lk = {"link"};
      ForEachLinkField(l, [&](const char* k, auto&) { lk.insert(k); });
      YS_RETURN_IF_ERROR(CheckKeys(links[i], lp, lk));
      if (!links[i].contains("link")) return Status::Invalid(lp + ".link: required key is absent");
      YS_RETURN_IF_ERROR(Decode(links[i]["link"], lp + ".link", &l.link));
      ForEachLinkField(l, [&](const char* k, auto& f) {
        if (st.ok()) st = DecodeField(links[i], k, lp + "." + k, &f);
      });
      YS_RETURN_IF_ERROR(st);
      d->nvlinks.push_back(std::move(l));
    }
  }
  if (j.contains("topology_to_gpus")) {
    const json& t = j["topology_to_gpus"];
    std::string tp = path + ".topology_to_gpus";
    if (!t.is_array()) return Wrong(tp, "an array", t);
    for (size_t i = 0; i < t.size(); ++i) {
      std::string ep = tp + "[" + std::to_string(i) + "]";
      if (!t[i].is_array() || t[i].size() != 2) return Wrong(ep, "a pair [gpu, level]", t[i]);
      int other = 0, level = 0;
      YS_RETURN_IF_ERROR(Decode(t[i][0], ep + "[0]", &other));
      YS_RETURN_IF_ERROR(Decode(t[i][1], ep + "[1]", &level));
      d->topology_to_gpus.emplace_back(other, level);
    }
  }
  return {};
}

}  // namespace

nlohmann::ordered_json ToJson(const GpuSnapshot& s) {
  ojson j;
  j["source"] = s.source;
  j["captured_at"] = s.captured_at;
  j["driver_version"] = EncodeField(s.driver_version);
  j["cuda_driver_version"] = EncodeField(s.cuda_driver_version);
  j["nvml_version"] = EncodeField(s.nvml_version);
  ojson devs = ojson::array();
  for (const auto& d : s.devices) {
    ojson o;
    o["index"] = d.index;
    o["uuid"] = d.uuid;
    o["name"] = d.name;
    o["serial"] = d.serial;
    o["pci_bus_id"] = d.pci_bus_id;
    o["pci_device_id"] = d.pci_device_id;
    ForEachDeviceField(d, [&](const char* k, const auto& f) { o[k] = EncodeField(f); });
    ojson links = ojson::array();
    for (const auto& l : d.nvlinks) {
      ojson lo;
      lo["link"] = l.link;
      ForEachLinkField(l, [&](const char* k, const auto& f) { lo[k] = EncodeField(f); });
      links.push_back(std::move(lo));
    }
    o["nvlinks"] = std::move(links);
    ojson topo = ojson::array();
    for (const auto& [other, level] : d.topology_to_gpus) topo.push_back({other, level});
    o["topology_to_gpus"] = std::move(topo);
    devs.push_back(std::move(o));
  }
  j["devices"] = std::move(devs);
  return j;
}

std::string GpuSnapshotToJsonText(const GpuSnapshot& s) { return ToJson(s).dump(2) + "\n"; }

Result<GpuSnapshot> GpuSnapshotFromJson(const json& j) {
  GpuSnapshot s;
  YS_RETURN_IF_ERROR(CheckKeys(j, "", {"source", "captured_at", "driver_version",
                                       "cuda_driver_version", "nvml_version", "devices"}));
  if (j.contains("source")) YS_RETURN_IF_ERROR(Decode(j["source"], "source", &s.source));
  if (j.contains("captured_at")) {
    YS_RETURN_IF_ERROR(Decode(j["captured_at"], "captured_at", &s.captured_at));
  }
  YS_RETURN_IF_ERROR(DecodeField(j, "driver_version", "driver_version", &s.driver_version));
  YS_RETURN_IF_ERROR(
      DecodeField(j, "cuda_driver_version", "cuda_driver_version", &s.cuda_driver_version));
  YS_RETURN_IF_ERROR(DecodeField(j, "nvml_version", "nvml_version", &s.nvml_version));
  if (!j.contains("devices")) return Status::Invalid("devices: required key is absent");
  const json& devs = j["devices"];
  if (!devs.is_array()) return Wrong("devices", "an array", devs);
  for (size_t i = 0; i < devs.size(); ++i) {
    GpuDevice d;
    YS_RETURN_IF_ERROR(DecodeDevice(devs[i], "devices[" + std::to_string(i) + "]", &d));
    s.devices.push_back(std::move(d));
  }
  return s;
}

Result<GpuSnapshot> ParseGpuSnapshot(std::string_view text, std::string_view origin) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid(std::string(origin) + ": not valid JSON");
  auto s = GpuSnapshotFromJson(j);
  if (!s.ok()) return Status::Invalid(std::string(origin) + ": " + s.status().message());
  s->source = "recorded: " + std::string(origin);
  return s;
}

Result<GpuSnapshot> LoadGpuSnapshot(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open the recorded NVML state");
  std::ostringstream ss;
  char buf[65536];
  size_t total = 0;
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    total += static_cast<size_t>(in.gcount());
    if (total > kMaxSnapshotFileBytes) {
      return Status::Invalid(path + ": larger than " + std::to_string(kMaxSnapshotFileBytes) +
                             " bytes; not a recorded NVML state");
    }
    ss.write(buf, in.gcount());
  }
  return ParseGpuSnapshot(ss.str(), path);
}

}  // namespace ys::gpu
